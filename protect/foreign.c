/* Which MPI the process runs, against the one the layer was built for
 * (foreign.h): told apart by their handles' ABI, which is what matters.
 * Open MPI's library defines ompi_mpi_comm_world (its MPI_COMM_WORLD is
 * that object's address); the MPICH family's does not. */
#define _GNU_SOURCE /* dladdr, RTLD_NEXT */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "foreign.h"
#include "layer.h"

SG_FOREIGN_NEXT(MPI_Init)
SG_FOREIGN_NEXT(MPI_Init_thread)

/* The handle ABI this layer was built for. */
#if defined(OPEN_MPI)
static const int built_for_open_mpi = 1;
#else
static const int built_for_open_mpi = 0;
#endif

/* MPICH's MPI_COMM_WORLD, a constant of the MPICH ABI (its mpi.h). */
#define MPICH_ABI_COMM_WORLD ((uintptr_t)0x44000000)

/* Whether the library that defines the MPI functions this layer calls (the
 * first in the process's symbol lookup order) is Open MPI's; -1 where it
 * cannot be told. */
static int running_open_mpi(void)
{
    Dl_info info;
    if (dladdr((void *)&PMPI_Get_library_version, &info) == 0 || info.dli_fname == NULL)
        return -1;
    void *library = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (library == NULL)
        return -1;
    int open_mpi = dlsym(library, "ompi_mpi_comm_world") != NULL;
    dlclose(library);
    return open_mpi;
}

extern const struct sg_foreign_entry __start_sg_foreign_entries[]
    __attribute__((visibility("hidden")));
extern const struct sg_foreign_entry __stop_sg_foreign_entries[]
    __attribute__((visibility("hidden")));

/* Before main: where the process's MPI is the other kind, each exported
 * function's next definition, and the layer off. */
__attribute__((constructor)) static void detect_foreign_mpi(void)
{
    int open_mpi = running_open_mpi();
    if (open_mpi < 0 || open_mpi == built_for_open_mpi)
        return;
    for (const struct sg_foreign_entry *e = __start_sg_foreign_entries;
         e < __stop_sg_foreign_entries; e++)
        *e->next = dlsym(RTLD_NEXT, e->name);
    sg_layer_off();
    sg_foreign_mpi = 1;
}

/* "MPICH 4.0.2" or "Open MPI 4.1.4" from MPI_Get_library_version's text
 * (else its first line). */
static void running_name(char *name, size_t size)
{
    static char version[16384]; /* over either MPI's MPI_MAX_LIBRARY_VERSION_STRING */
    int length = 0;
    if (PMPI_Get_library_version(version, &length) != MPI_SUCCESS) {
        snprintf(name, size, "another MPI");
        return;
    }
    version[sizeof version - 1] = '\0';
    version[strcspn(version, "\n")] = '\0';
    const char *mpich = "MPICH Version:", *open_mpi = "Open MPI v";
    if (strncmp(version, mpich, strlen(mpich)) == 0)
        snprintf(name, size, "MPICH %s", version + strlen(mpich) + strspn(version +
                                                                          strlen(mpich), " \t"));
    else if (strncmp(version, open_mpi, strlen(open_mpi)) == 0)
        snprintf(name, size, "Open MPI %.*s", (int)strcspn(version + strlen(open_mpi), ","),
                 version + strlen(open_mpi));
    else
        snprintf(name, size, "%.*s", (int)(size - 1), version);
}

static void built_name(char *name, size_t size)
{
#if defined(OPEN_MPI)
    snprintf(name, size, "Open MPI %d.%d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
             OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
    snprintf(name, size, "MPICH %s", MPICH_VERSION);
#else
    snprintf(name, size, "an MPI of the MPICH ABI");
#endif
}

/* The libscaleguard.so for the running MPI where the usual layout holds
 * one: this library's path with the directory named for its MPI (mpich,
 * openmpi: /opt/scaleguard/mpich/lib, build/mpich/protect) named for the
 * other, where that file exists. */
static int other_library(char *path, size_t size)
{
    Dl_info info;
    if (dladdr((void *)&detect_foreign_mpi, &info) == 0 || info.dli_fname == NULL)
        return 0;
    const char *ours = built_for_open_mpi ? "/openmpi/" : "/mpich/";
    const char *theirs = built_for_open_mpi ? "/mpich/" : "/openmpi/";
    const char *at = strstr(info.dli_fname, ours);
    if (at == NULL)
        return 0;
    int written = snprintf(path, size, "%.*s%s%s", (int)(at - info.dli_fname), info.dli_fname,
                           theirs, at + strlen(ours));
    return written > 0 && (size_t)written < size && access(path, R_OK) == 0;
}

/* This process's rank in the running MPI's MPI_COMM_WORLD, through that
 * MPI's own handle; -1 where it cannot be had. */
static int foreign_world_rank(void)
{
    int (*comm_rank)(uintptr_t, int *) =
        (int (*)(uintptr_t, int *))dlsym(RTLD_NEXT, "PMPI_Comm_rank");
    /* the program's copy of Open MPI's object, where it has one (a copy
     * relocation), is its MPI_COMM_WORLD: the first definition */
    uintptr_t world = built_for_open_mpi ? MPICH_ABI_COMM_WORLD
                                         : (uintptr_t)dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
    int rank;
    if (comm_rank == NULL || world == 0 || comm_rank(world, &rank) != 0)
        return -1;
    return rank;
}

static void tell(void)
{
    if (foreign_world_rank() > 0)
        return;
    char built[64], running[256], other[4096];
    built_name(built, sizeof built);
    running_name(running, sizeof running);
    const char *running_kind = built_for_open_mpi ? "MPICH" : "Open MPI";
    if (other_library(other, sizeof other))
        sg_log(SG_LOG_WARN, NULL,
               "libscaleguard.so was built for %s, this program runs %s: ScaleGuard is off "
               "for this job (every call goes to the MPI as made); use %s",
               built, running, other);
    else
        sg_log(SG_LOG_WARN, NULL,
               "libscaleguard.so was built for %s, this program runs %s: ScaleGuard is off "
               "for this job (every call goes to the MPI as made); use the libscaleguard.so "
               "built for %s (PREFIX/lib/libscaleguard.so of its own install)",
               built, running, running_kind);
}

int sg_foreign_init(int *argc, char ***argv)
{
    int err = ((__typeof__(&MPI_Init))sg_next_MPI_Init)(argc, argv);
    if (err == 0)
        tell();
    return err;
}

int sg_foreign_init_thread(int *argc, char ***argv, int required, int *provided)
{
    int err = ((__typeof__(&MPI_Init_thread))sg_next_MPI_Init_thread)(argc, argv, required,
                                                                       provided);
    if (err == 0)
        tell();
    return err;
}
