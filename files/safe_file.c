/* Safe file creation: see safe_file.h. */
#define _XOPEN_SOURCE 700 /* S_ISVTX */
#include "safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *why, size_t why_size, const char *text)
{
    snprintf(why, why_size, "%s", text);
    return -1;
}

static int fail_errno(char *why, size_t why_size, const char *what, int error)
{
    snprintf(why, why_size, "%s: %s", what, strerror(error));
    errno = error;
    return -1;
}

/* Whether a directory may be written in (safe_file.h). */
static int check_directory(int fd, char *why, size_t why_size)
{
    struct stat status;
    if (fstat(fd, &status) != 0)
        return fail_errno(why, why_size, "cannot look at it", errno);
    if (!S_ISDIR(status.st_mode))
        return fail(why, why_size, "is not a directory");
    if (status.st_uid != geteuid() && status.st_uid != 0) {
        snprintf(why, why_size, "is owned by user %lu, not by this user (%lu) or root: "
                 "not used", (unsigned long)status.st_uid, (unsigned long)geteuid());
        return -1;
    }
    if ((status.st_mode & S_IWOTH) && !(status.st_mode & S_ISVTX)) {
        snprintf(why, why_size, "is writable by every user and not sticky (mode %04o): not used",
                 (unsigned)(status.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* What is at an existing name that may not be replaced; "" when it may. */
static void describe_existing(const struct stat *status, char *why, size_t why_size)
{
    *why = '\0';
    if (S_ISLNK(status->st_mode))
        snprintf(why, why_size, "is a symbolic link (made by user %lu): not followed, not "
                 "replaced", (unsigned long)status->st_uid);
    else if (!S_ISREG(status->st_mode))
        snprintf(why, why_size, "exists and is not a regular file: not replaced");
    else if (status->st_uid != geteuid())
        snprintf(why, why_size, "is owned by user %lu, not by this user (%lu): not replaced",
                 (unsigned long)status->st_uid, (unsigned long)geteuid());
}

/* Check what `name` is in `dir` now. Returns 0 (absent, or replaceable). */
static int check_target(int dir, const char *name, char *why, size_t why_size)
{
    struct stat status;
    if (fstatat(dir, name, &status, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : fail_errno(why, why_size, "cannot look at it", errno);
    describe_existing(&status, why, why_size);
    return *why ? -1 : 0;
}

/* A symbolic link's owner may be followed: the caller or root. */
static int link_trusted(const struct stat *status, char *why, size_t why_size)
{
    if (status->st_uid == geteuid() || status->st_uid == 0)
        return 0;
    snprintf(why, why_size, "is a symbolic link made by user %lu, not by this user (%lu) or "
             "root: not followed", (unsigned long)status->st_uid, (unsigned long)geteuid());
    return -1;
}

/* `fd` (a directory just opened, or -1 with errno) once checked, or -1. */
static int checked_directory(int fd, char *why, size_t why_size)
{
    if (fd < 0)
        return fail_errno(why, why_size, "cannot open it", errno);
    if (check_directory(fd, why, why_size) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int sg_safe_dir(const char *path, int make, int *made, char *why, size_t why_size)
{
    int made_here = make && mkdir(path, 0700) == 0;
    if (made)
        *made = made_here;
    if (make && !made_here && errno != EEXIST)
        return fail_errno(why, why_size, "cannot make it", errno);
    /* a link fails as ELOOP or (with O_DIRECTORY) ENOTDIR: followed only when trusted */
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat status;
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && lstat(path, &status) == 0 &&
        S_ISLNK(status.st_mode)) {
        if (link_trusted(&status, why, why_size) != 0)
            return -1;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    return checked_directory(fd, why, why_size);
}

int sg_safe_subdir(int dir, const char *name, int make, int *made, char *why, size_t why_size)
{
    int made_here = make && mkdirat(dir, name, 0700) == 0;
    if (made)
        *made = made_here;
    if (make && !made_here && errno != EEXIST)
        return fail_errno(why, why_size, "cannot make it", errno);
    int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat status;
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
        fstatat(dir, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(status.st_mode)) {
        snprintf(why, why_size, "is a symbolic link (made by user %lu): not followed",
                 (unsigned long)status.st_uid);
        return -1;
    }
    return checked_directory(fd, why, why_size);
}

int sg_safe_create(int dir, const char *name, mode_t mode)
{
    return openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

int sg_safe_begin(int dir, const char *name, mode_t mode, struct sg_safe_file *file, char *why,
                  size_t why_size)
{
    static atomic_uint serial;
    file->fd = -1;
    file->dir = dir;
    if (strchr(name, '/') != NULL || snprintf(file->name, sizeof file->name, "%s", name) >=
                                         (int)sizeof file->name)
        return fail(why, why_size, "is not a plain file name of under 256 characters");
    if (check_target(dir, name, why, why_size) != 0)
        return -1;
    for (int attempt = 0; attempt < 100 && file->fd < 0; attempt++) {
        snprintf(file->temporary, sizeof file->temporary, ".%s.%ld.%u", name, (long)getpid(),
                 atomic_fetch_add(&serial, 1));
        file->fd = sg_safe_create(dir, file->temporary, mode);
        if (file->fd < 0 && errno != EEXIST)
            break;
    }
    if (file->fd < 0)
        return fail_errno(why, why_size, "cannot create a file beside it", errno);
    return 0;
}

int sg_safe_commit(struct sg_safe_file *file, char *why, size_t why_size)
{
    int error = 0;
    if (check_target(file->dir, file->name, why, why_size) != 0)
        error = -1;
    else if (renameat(file->dir, file->temporary, file->dir, file->name) != 0)
        error = fail_errno(why, why_size, "cannot rename into it", errno);
    if (error != 0) {
        close(file->fd);
        file->fd = -1;
        unlinkat(file->dir, file->temporary, 0);
    }
    return error;
}

void sg_safe_abandon(struct sg_safe_file *file, int committed)
{
    if (file->fd >= 0)
        close(file->fd);
    file->fd = -1;
    unlinkat(file->dir, committed ? file->name : file->temporary, 0);
}

int sg_safe_write_all(int fd, const void *data, size_t length)
{
    const char *at = data;
    while (length > 0) {
        ssize_t written = write(fd, at, length);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            if (written == 0)
                errno = EIO;
            return -1;
        }
        at += written;
        length -= (size_t)written;
    }
    return 0;
}

int sg_safe_replace(int dir, const char *name, const void *data, size_t length, mode_t mode,
                    int sync, char *why, size_t why_size)
{
    struct sg_safe_file file;
    if (sg_safe_begin(dir, name, mode, &file, why, why_size) != 0)
        return -1;
    if (sg_safe_write_all(file.fd, data, length) != 0 || (sync && fsync(file.fd) != 0)) {
        fail_errno(why, why_size, "cannot write", errno);
        sg_safe_abandon(&file, 0);
        return -1;
    }
    if (sg_safe_commit(&file, why, why_size) != 0)
        return -1;
    return close(file.fd) == 0 ? 0 : fail_errno(why, why_size, "cannot write", errno);
}

int sg_safe_open_read(int dir, const char *name)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat status;
    if (fd >= 0 && (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

int sg_safe_resolve(const char *path, char *out, size_t out_size, char *why, size_t why_size)
{
    char current[PATH_MAX], target[PATH_MAX];
    if (snprintf(current, sizeof current, "%s", path) >= (int)sizeof current)
        return fail_errno(why, why_size, "cannot follow it", ENAMETOOLONG);
    for (int links = 0;; links++) {
        struct stat status;
        int exists = lstat(current, &status) == 0;
        if (!exists && errno != ENOENT)
            return fail_errno(why, why_size, "cannot follow it", errno);
        if (!exists || !S_ISLNK(status.st_mode))
            break;
        if (links == 40)
            return fail_errno(why, why_size, "cannot follow it", ELOOP);
        if (link_trusted(&status, why, why_size) != 0)
            return -1;
        ssize_t length = readlink(current, target, sizeof target - 1);
        if (length < 0)
            return fail_errno(why, why_size, "cannot follow it", errno);
        target[length] = '\0';
        const char *slash = strrchr(current, '/');
        int directory = target[0] == '/' || slash == NULL ? 0 : (int)(slash - current + 1);
        char next[PATH_MAX];
        if (snprintf(next, sizeof next, "%.*s%s", directory, current, target) >=
            (int)sizeof next)
            return fail_errno(why, why_size, "cannot follow it", ENAMETOOLONG);
        memcpy(current, next, sizeof current);
    }
    if (snprintf(out, out_size, "%s", current) >= (int)out_size)
        return fail_errno(why, why_size, "cannot follow it", ENAMETOOLONG);
    return 0;
}

int sg_safe_parent(const char *path, char *name, size_t name_size, char *why, size_t why_size)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char directory[PATH_MAX];
    if (*base == '\0')
        return fail(why, why_size, "names a directory, not a file");
    if (snprintf(name, name_size, "%s", base) >= (int)name_size ||
        snprintf(directory, sizeof directory, "%.*s", slash == NULL ? 1
                 : slash == path ? 1 : (int)(slash - path), slash == NULL ? "." : path) >=
            (int)sizeof directory)
        return fail_errno(why, why_size, "cannot split it", ENAMETOOLONG);
    char reason[200];
    int fd = sg_safe_dir(directory, 0, NULL, reason, sizeof reason);
    if (fd < 0)
        snprintf(why, why_size, "its directory %s %s", directory, reason);
    return fd;
}
