/* files/safe_file.h: which directories are used, what is replaced and what
 * is refused. "Another user" is made with lchown/chown to nobody's id, so
 * those checks run as root only (skipped otherwise). */
#define _XOPEN_SOURCE 700 /* S_ISVTX, mkdtemp */
#include "safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define NOBODY 65534

static char work[PATH_MAX - 64];

/* A path in the work directory (four at a time: one call may take two). */
static const char *at(const char *name)
{
    static char paths[4][PATH_MAX];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, PATH_MAX, "%s/%s", work, name);
    return path;
}

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    CHECK(file != NULL);
    if (file != NULL) {
        fputs(text, file);
        fclose(file);
    }
}

static int has_text(const char *path, const char *text)
{
    char buffer[256] = "";
    FILE *file = fopen(path, "r");
    size_t length = file ? fread(buffer, 1, sizeof buffer - 1, file) : 0;
    if (file != NULL)
        fclose(file);
    buffer[length] = '\0';
    return strcmp(buffer, text) == 0;
}

/* sg_safe_dir on `name` in the work directory: its descriptor (closed) >= 0,
 * and `why` containing `expected` when refused. */
static void check_dir(const char *name, int usable, const char *expected)
{
    char why[256] = "";
    int fd = sg_safe_dir(at(name), 0, NULL, why, sizeof why);
    if (usable)
        CHECK(fd >= 0);
    else {
        CHECK(fd < 0);
        if (strstr(why, expected) == NULL)
            fprintf(stderr, "%s: why is \"%s\", expected \"%s\"\n", name, why, expected);
        CHECK(strstr(why, expected) != NULL);
    }
    if (fd >= 0)
        close(fd);
}

static void directories(int root)
{
    char why[256];
    int made = 0;
    int fd = sg_safe_dir(at("made"), 1, &made, why, sizeof why);
    struct stat status;
    CHECK(fd >= 0 && made);
    CHECK(stat(at("made"), &status) == 0 && (status.st_mode & 07777) == 0700);
    if (fd >= 0)
        close(fd);
    fd = sg_safe_dir(at("made"), 1, &made, why, sizeof why); /* again: there */
    CHECK(fd >= 0 && !made);
    if (fd >= 0)
        close(fd);

    mkdir(at("open"), 0700);
    chmod(at("open"), 0777);
    check_dir("open", 0, "is writable by every user and not sticky (mode 0777): not used");
    mkdir(at("sticky"), 0700);
    chmod(at("sticky"), 01777);
    check_dir("sticky", 1, NULL);
    mkdir(at("group"), 0700);
    chmod(at("group"), 02770);
    check_dir("group", 1, NULL);
    write_text(at("plain"), "");
    check_dir("plain", 0, "Not a directory");
    CHECK(symlink("made", at("own-link")) == 0);
    check_dir("own-link", 1, NULL);
    if (root) {
        mkdir(at("theirs"), 0755);
        CHECK(chown(at("theirs"), NOBODY, NOBODY) == 0);
        check_dir("theirs", 0, "is owned by user 65534, not by this user (0) or root: not used");
        CHECK(symlink("made", at("their-link")) == 0);
        CHECK(lchown(at("their-link"), NOBODY, NOBODY) == 0);
        check_dir("their-link", 0, "is a symbolic link made by user 65534");
    }

    /* a subdirectory is never reached through a link */
    int base = sg_safe_dir(work, 0, NULL, why, sizeof why);
    CHECK(base >= 0);
    fd = sg_safe_subdir(base, "own-link", 0, NULL, why, sizeof why);
    CHECK(fd < 0 && strstr(why, "is a symbolic link") != NULL);
    fd = sg_safe_subdir(base, "job", 1, &made, why, sizeof why);
    CHECK(fd >= 0 && made);
    if (fd >= 0)
        close(fd);
    close(base);
}

static void files(int root)
{
    char why[256];
    int dir = sg_safe_dir(at("made"), 0, NULL, why, sizeof why);
    CHECK(dir >= 0);

    /* new, 0600 */
    CHECK(sg_safe_replace(dir, "state", "one", 3, 0600, 0, why, sizeof why) == 0);
    struct stat before, after;
    CHECK(stat(at("made/state"), &before) == 0 && (before.st_mode & 07777) == 0600);
    /* its own earlier file: replaced by a new one */
    CHECK(sg_safe_replace(dir, "state", "two", 3, 0600, 0, why, sizeof why) == 0);
    CHECK(stat(at("made/state"), &after) == 0 && after.st_ino != before.st_ino);
    CHECK(has_text(at("made/state"), "two"));

    /* a link there: refused, neither followed nor replaced */
    write_text(at("victim"), "victim");
    CHECK(symlink(at("victim"), at("made/link")) == 0);
    CHECK(sg_safe_replace(dir, "link", "x", 1, 0600, 0, why, sizeof why) != 0);
    CHECK(strstr(why, "is a symbolic link (made by user 0): not followed, not replaced") != NULL);
    CHECK(has_text(at("victim"), "victim"));
    struct stat link;
    CHECK(lstat(at("made/link"), &link) == 0 && S_ISLNK(link.st_mode));
    /* a FIFO: refused to write, and to read without blocking */
    CHECK(mkfifo(at("made/fifo"), 0600) == 0);
    CHECK(sg_safe_replace(dir, "fifo", "x", 1, 0600, 0, why, sizeof why) != 0);
    CHECK(strstr(why, "is not a regular file") != NULL);
    CHECK(sg_safe_open_read(dir, "fifo") < 0);
    CHECK(sg_safe_open_read(dir, "link") < 0);
    int fd = sg_safe_open_read(dir, "state");
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    /* a lock: exclusive */
    fd = sg_safe_create(dir, "report", 0600);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    CHECK(sg_safe_create(dir, "report", 0600) < 0 && errno == EEXIST);
    CHECK(sg_safe_create(dir, "link", 0600) < 0 && errno == EEXIST);
    if (root) {
        write_text(at("made/theirs"), "theirs");
        CHECK(chown(at("made/theirs"), NOBODY, NOBODY) == 0);
        CHECK(sg_safe_replace(dir, "theirs", "x", 1, 0600, 0, why, sizeof why) != 0);
        CHECK(strstr(why, "is owned by user 65534, not by this user (0): not replaced") != NULL);
        CHECK(has_text(at("made/theirs"), "theirs"));
    }
    /* given up: nothing left */
    struct sg_safe_file file;
    CHECK(sg_safe_begin(dir, "abandoned", 0600, &file, why, sizeof why) == 0);
    sg_safe_abandon(&file, 0);
    CHECK(faccessat(dir, "abandoned", F_OK, 0) != 0);
    close(dir);
}

static void links(int root)
{
    char why[256], out[PATH_MAX], name[256];
    write_text(at("target.ini"), "");
    CHECK(symlink("target.ini", at("middle")) == 0);
    CHECK(symlink("middle", at("first")) == 0);
    CHECK(sg_safe_resolve(at("first"), out, sizeof out, why, sizeof why) == 0);
    CHECK_STR(out, at("target.ini"));
    CHECK(sg_safe_resolve(at("missing"), out, sizeof out, why, sizeof why) == 0);
    CHECK_STR(out, at("missing"));
    int dir = sg_safe_parent(at("target.ini"), name, sizeof name, why, sizeof why);
    CHECK(dir >= 0);
    CHECK_STR(name, "target.ini");
    if (dir >= 0)
        close(dir);
    if (root) {
        CHECK(lchown(at("middle"), NOBODY, NOBODY) == 0);
        CHECK(sg_safe_resolve(at("first"), out, sizeof out, why, sizeof why) != 0);
        CHECK(strstr(why, "is a symbolic link made by user 65534") != NULL);
    }
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/sg-safe-file.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(work) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    umask(022);
    int root = geteuid() == 0;
    if (!root)
        fprintf(stderr, "test_safe_file: not root: the other user's cases are skipped\n");
    directories(root);
    files(root);
    links(root);
    char command[PATH_MAX + 16];
    snprintf(command, sizeof command, "rm -rf '%s'", work);
    if (system(command) != 0)
        fprintf(stderr, "test_safe_file: %s is left\n", work);
    return check_failures ? 1 : 0;
}
