/* scaleguard-cvars: the platform fingerprint of the running MPI (read_cvars.h),
 * for the tester to write into a bounds INI, or compared with one. Run as
 * one MPI process. */
#include <fcntl.h>
#include <mpi.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algorithms.h"
#include "bounds.h"
#include "compare.h"
#include "library.h"
#include "read_cvars.h"

static const char usage[] =
    "usage: scaleguard-cvars [--against FILE | --algorithms MPI_ROUTINE | --read NAME]\n"
    "       scaleguard-cvars --help | --version\n"
    "Run as one MPI process (mpiexec -n 1 scaleguard-cvars, or alone). Prints the\n"
    "control variables through which the running MPI chooses its collectives'\n"
    "algorithms (the rule: README, \"The platform fingerprint\"), as KEY=VALUE\n"
    "lines: mpi_library (the first line of MPI_Get_library_version), cvars_rule and\n"
    "cvars_digest (the keys of an INI's [platform]), then one line per variable\n"
    "(the keys of [cvars]). With --against FILE: compares\n"
    "the running MPI's library and variables with FILE's and prints what differs.\n"
    "With --algorithms MPI_ROUTINE: the control variable that chooses the routine's\n"
    "algorithm (cvar=NAME; none: no choice) and its values other than the MPI's own\n"
    "choice, one 'VALUE NAME' line each.\n"
    "With --read NAME: the value of the integer control variable NAME as the MPI\n"
    "starts with it (from the environment, e.g. MPIR_CVAR_X=name), without MPI_Init.\n"
    "Exit status: 0 done (--against: nothing differs), 1 something differs, 2 usage\n"
    "error, the MPI could not be read, or (--against) a FILE with nothing to compare\n"
    "(no mpi_library nor [cvars]).\n";

extern char **environ;

/* The value of integer variable `name` when the environment holds
 * name=`setting`, read by a child process (MPICH reads the environment
 * once, when the tool interface starts); -1 where it refuses the setting. */
static int value_with(const char *name, const char *setting)
{
    char self[4096], assignment[256], digits[32] = "";
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0)
        return -1;
    self[length] = '\0';
    snprintf(assignment, sizeof assignment, "%s=%s", name, setting);
    size_t count = 0, kept = 0;
    while (environ[count])
        count++;
    char **env = malloc((count + 2) * sizeof *env);
    if (env == NULL)
        return -1;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], name, strlen(name)) != 0 || environ[i][strlen(name)] != '=')
            env[kept++] = environ[i];
    env[kept++] = assignment;
    env[kept] = NULL;
    int out[2], ended, value = -1;
    pid_t child;
    posix_spawn_file_actions_t actions;
    if (pipe(out) != 0) {
        free(env);
        return -1;
    }
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {self, "--read", (char *)name, NULL};
    int spawned = posix_spawn(&child, self, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    close(out[1]);
    if (spawned == 0) {
        ssize_t got = read(out[0], digits, sizeof digits - 1);
        digits[got > 0 ? got : 0] = '\0';
        if (waitpid(child, &ended, 0) == child && WIFEXITED(ended) && WEXITSTATUS(ended) == 0)
            value = atoi(digits);
    }
    close(out[0]);
    return value;
}

/* MPICH's descriptions join their lines, so a value's name runs into the
 * previous item's text ("... binomial algorithmnb - Force nonblocking
 * ..."): its name is the longest ending of that word that the MPI reads as
 * that value. */
static void exact_names(struct sg_algorithms *a)
{
    for (int i = 0; i < a->count; i++) {
        char *word = a->items[i].name;
        for (char *end = word; *end; end++)
            if (*end >= 'a' && *end <= 'z' && value_with(a->cvar, end) == a->items[i].value) {
                memmove(word, end, strlen(end) + 1);
                break;
            }
    }
}

static int read_one(const char *name)
{
    int provided, index, count, value, verbosity, bind, scope;
    MPI_T_cvar_handle handle;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "scaleguard-cvars: the MPI tool interface did not start (a setting "
                        "in the environment it refuses?)\n");
        return 2;
    }
    int status = 2;
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS)
        fprintf(stderr, "scaleguard-cvars: this MPI has no control variable %s\n", name);
    else if (MPI_T_cvar_get_info(index, NULL, NULL, &verbosity, &type, &enumtype, NULL, NULL,
                                 &bind, &scope) != MPI_SUCCESS ||
             type != MPI_INT || bind != MPI_T_BIND_NO_OBJECT)
        fprintf(stderr, "scaleguard-cvars: %s is not an integer of the whole process\n", name);
    else if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) == MPI_SUCCESS) {
        if (count == 1 && MPI_T_cvar_read(handle, &value) == MPI_SUCCESS) {
            printf("%d\n", value);
            status = 0;
        }
        MPI_T_cvar_handle_free(&handle);
    }
    MPI_T_finalize();
    return status;
}

static int algorithms(const char *routine)
{
    int r = sg_routine_by_name(routine), provided;
    if (r < 0) {
        fprintf(stderr, "scaleguard-cvars: %s is not one of the 32 collectives\n", routine);
        return 2;
    }
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "scaleguard-cvars: the MPI tool interface did not start\n");
        return 2;
    }
    struct sg_algorithms a;
    sg_algorithms_of((enum sg_routine)r, &a);
    if (strncmp(a.cvar, "MPIR_CVAR_", 10) == 0)
        exact_names(&a);
    printf("cvar=%s\n", a.cvar[0] ? a.cvar : "none");
    /* the I-form that MPICH's "nb" runs, by its own algorithm */
    const char *nonblocking = sg_routines[sg_in_form_of((enum sg_routine)r, SG_MPI_Ibcast)].name;
    for (int i = 0; i < a.count; i++)
        printf("%d %s%s%s\n", a.items[i].value, a.items[i].name,
               a.items[i].runs_nonblocking ? " runs " : "",
               a.items[i].runs_nonblocking ? nonblocking : "");
    MPI_T_finalize();
    return 0;
}

static int against(const char *path)
{
    struct sg_bounds bounds;
    static char message[1 << 17];
    if (sg_bounds_load(path, &bounds, NULL, NULL, message, sizeof message) != 0) {
        fprintf(stderr, "scaleguard-cvars: %s\n", message);
        return 2;
    }
    int has_library = bounds.platform.mpi_library[0] != '\0';
    if (!has_library && bounds.cvar_count == 0) {
        fprintf(stderr, "scaleguard-cvars: %s has no [platform] mpi_library and no [cvars]: "
                "nothing to compare the running MPI with\n", path);
        sg_bounds_free(&bounds);
        return 2;
    }
    int differing = sg_fingerprint_compare(&bounds, 1000, "\n  ", message, sizeof message);
    if (differing < 0)
        fprintf(stderr, "scaleguard-cvars: %s\n", message);
    else if (differing == 0)
        printf("scaleguard-cvars: the running MPI is the one %s was measured on (%s)\n", path,
               !has_library              ? "control variables; no [platform] mpi_library to compare"
               : bounds.cvar_count == 0 ? "library; no [cvars] to compare"
                                        : "library and control variables");
    else
        printf("scaleguard-cvars: %d differ%s from %s:\n  %s\n", differing,
               differing == 1 ? "s" : "", path, message);
    sg_bounds_free(&bounds);
    return differing < 0 ? 2 : differing > 0;
}

static int print(void)
{
    int provided;
    struct sg_cvars_read read;
    char why[128];
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "scaleguard-cvars: the MPI tool interface did not start\n");
        return 2;
    }
    if (sg_cvars_read(&read, why, sizeof why) != 0) {
        fprintf(stderr, "scaleguard-cvars: %s\n", why);
        MPI_T_finalize();
        return 2;
    }
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    sg_mpi_library_line(library);
    printf("mpi_library=%s\n", library);
    printf("cvars_rule=%s\ncvars_digest=%016llx\n", read.rule,
           (unsigned long long)sg_cvars_digest(read.cvars, read.count));
    for (size_t i = 0; i < read.count; i++)
        printf("%s=%s\n", read.cvars[i].name, read.cvars[i].value);
    free(read.cvars);
    MPI_T_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        puts("scaleguard-cvars " SCALEGUARD_VERSION);
        return 0;
    }
    if (!(argc == 1 || (argc == 3 && (strcmp(argv[1], "--against") == 0 ||
                                       strcmp(argv[1], "--algorithms") == 0 ||
                                       strcmp(argv[1], "--read") == 0)))) {
        fputs(usage, stderr);
        return 2;
    }
    if (argc == 3 && strcmp(argv[1], "--read") == 0)
        return read_one(argv[2]);
    MPI_Init(&argc, &argv);
    int status = argc == 1                           ? print()
                 : strcmp(argv[1], "--against") == 0 ? against(argv[2])
                                                     : algorithms(argv[2]);
    sg_fingerprint_stop();
    MPI_Finalize();
    return status;
}
