/* A process whose MPI is not the one libscaleguard.so was built for.
 *
 * MPICH's handles are ints, Open MPI's pointers: the layer built for one,
 * preloaded into a program of the other, would hand the program's MPI
 * handles it cannot read (MPICH's MPI_COMM_WORLD to Open MPI: SIGSEGV in
 * MPI_Init). So at load time (foreign.c) the layer asks which MPI the
 * process's MPI functions come from; where it is the other one, the layer
 * is off: every call the program makes goes to the next definition of its
 * function (the program's MPI, dlsym RTLD_NEXT) with its arguments as the
 * program passed them, and MPI_Init says so once.
 *
 * C cannot pass an argument of the other MPI's handle type on untouched
 * (an Open MPI pointer in an MPICH int is cut to 32 bits), so every
 * exported function, C or Fortran, is an assembly stub of three
 * instructions: a jump to the layer's own definition (SG_ENTRY(name)), or,
 * where the layer is off, to the next definition, with every register and
 * the stack as the caller left them (but Open MPI's internal ompi_*_f,
 * which no program of the MPICH kind calls). Only MPI_Init and
 * MPI_Init_thread (no handles) test sg_foreign_mpi in C, to say so. The
 * stubs are x86-64 code; elsewhere the exported names are aliases of the
 * layer's definitions, as they were, and an MPI of the other kind is told
 * but not survived. */
#ifndef SCALEGUARD_FOREIGN_H
#define SCALEGUARD_FOREIGN_H

/* 1 where the process's MPI is not the one the layer was built for: set
 * before main by a constructor (foreign.c), read by every stub (a wrapper
 * library without that check, tests/benchmark's, keeps 0). */
#define SG_HIDDEN __attribute__((visibility("hidden")))
extern unsigned char sg_foreign_mpi SG_HIDDEN;

/* The next definition of each exported function (the process's MPI's),
 * looked up where the layer is off: one row per function, in the section
 * sg_foreign_entries, which foreign.c walks. */
struct sg_foreign_entry {
    const char *name;
    void **next;
};

#define SG_FOREIGN_NEXT(name)                                                                  \
    SG_HIDDEN void *sg_next_##name;                                                            \
    static const struct sg_foreign_entry sg_foreign_entry_##name                               \
        __attribute__((used, section("sg_foreign_entries"), aligned(sizeof(void *)))) = {      \
            #name, &sg_next_##name};

/* The C function behind the exported `name`. */
#define SG_ENTRY(name) sg_entry_##name

/* The exported `name`, going to `target` (a C function of the layer), or
 * where the layer is off to the next definition of `name`. */
#define SG_FORWARDED_STUB(name, target) SG_FOREIGN_NEXT(name) SG_FOREIGN_STUB(name, target)
/* The exported `name` whose C definition is SG_ENTRY(name), of the type
 * mpi.h gives `name`. */
#define SG_FORWARDED_ENTRY(name)                                                               \
    extern __typeof__(name) SG_ENTRY(name) SG_HIDDEN;                                          \
    SG_FORWARDED_STUB(name, SG_ENTRY(name))

#if defined(__x86_64__)
#if defined(__CET__) && (__CET__ & 1)
#define SG_FOREIGN_LANDING "\tendbr64\n"
#else
#define SG_FOREIGN_LANDING ""
#endif
#define SG_FOREIGN_STUB(name, target)                                                          \
    __asm__(".pushsection .text\n"                                                             \
            ".globl " #name "\n"                                                               \
            ".type " #name ", @function\n"                                                     \
            ".p2align 4\n" #name ":\n" SG_FOREIGN_LANDING                                      \
            "\tcmpb $0, sg_foreign_mpi(%rip)\n"                                                \
            "\tjne 1f\n"                                                                       \
            "\tjmp " #target "\n"                                                              \
            "1:\tjmp *sg_next_" #name "(%rip)\n"                                               \
            ".size " #name ", .-" #name "\n"                                                   \
            ".popsection\n");
#else
#define SG_FOREIGN_STUB(name, target)                                                          \
    extern __typeof__(target) name __attribute__((alias(#target), visibility("default")));
#endif

/* MPI_Init and MPI_Init_thread where the layer is off: the process's own,
 * then the one message (on its world rank 0). */
int sg_foreign_init(int *argc, char ***argv);
int sg_foreign_init_thread(int *argc, char ***argv, int required, int *provided);

#endif
