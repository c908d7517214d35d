/* Safe file creation, for every file the layer or a tool creates in a
 * shared or user-given place (the trace, the watchdog's states,
 * scaleguard-trace's outputs, scaleguard-ini replace). Files made here never
 * follow a symbolic link, never clobber what the caller did not create, and
 * are created with the mode given (0600 where the data is the user's).
 *
 * A directory is used only when, opened (not through a link another user
 * made) and looked at through its descriptor, it is
 *   - owned by the caller (the effective user) or by root, and
 *   - not writable by every user, unless it has the sticky bit (a shared
 *     temporary directory such as /tmp, where only a file's owner can remove
 *     or rename it).
 * A directory writable by its group is used: its group is trusted, as a
 * project directory's is. A directory owned by another user is not (that
 * user could replace the files), nor a world-writable one without the
 * sticky bit (anyone could). A directory made here is 0700 (less the umask).
 * The last component of a path may be a symbolic link made by the caller or
 * by root: the directory it names is checked like any; a link made by
 * another user is refused. Links earlier in the path are the path's.
 *
 * Files are created with O_CREAT|O_EXCL|O_NOFOLLOW inside the checked
 * directory's descriptor. An existing name is replaced only when it is a
 * regular file the caller owns (the caller's output of an earlier run), and
 * then atomically: the new content under a temporary name, created O_EXCL in
 * the same directory, then renamed over it (a rename replaces a link, never
 * follows it). Anything else there (a link, another user's file, a FIFO, a
 * directory) is refused and left as it is.
 *
 * Every function that can fail returns -1 with one line in `why` (no
 * newline) saying what was refused or failed, to print after the path. */
#ifndef SCALEGUARD_SAFE_FILE_H
#define SCALEGUARD_SAFE_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Open the directory `path` (making it 0700 when missing and `make`) and
 * check it. Returns its descriptor (O_CLOEXEC), or -1. *made (may be NULL)
 * tells whether this call made it. */
int sg_safe_dir(const char *path, int make, int *made, char *why, size_t why_size);

/* The same for `name` inside the checked directory `dir` (a single
 * component, never followed when a link). */
int sg_safe_subdir(int dir, const char *name, int make, int *made, char *why, size_t why_size);

/* Create `name` in `dir` (a checked directory), never over anything that
 * exists (a lock, a numbered file). Returns a descriptor, or -1 with errno
 * (EEXIST: the name is taken). */
int sg_safe_create(int dir, const char *name, mode_t mode);

/* A file being written: its content goes to `fd`, under a temporary name
 * in `dir`, until sg_safe_commit names it. */
struct sg_safe_file {
    int fd, dir;
    char name[256], temporary[320];
};

/* Begin the file `name` in `dir` (a checked directory), `mode` as open's.
 * Fails when `name` exists and is not a regular file of the caller's. */
int sg_safe_begin(int dir, const char *name, mode_t mode, struct sg_safe_file *file, char *why,
                  size_t why_size);

/* Name it: rename it over `name` (checked again). The descriptor stays
 * open (the caller may write on). On failure the temporary is removed. */
int sg_safe_commit(struct sg_safe_file *file, char *why, size_t why_size);

/* Give it up: close it and remove the temporary (before a commit) or,
 * after one, the file itself. */
void sg_safe_abandon(struct sg_safe_file *file, int committed);

/* Write all of `data` to `fd`. Returns 0, or -1 with errno. */
int sg_safe_write_all(int fd, const void *data, size_t length);

/* Replace (or create) `name` in `dir` with `data` in one step: begin,
 * write, fsync when `sync`, commit, close. */
int sg_safe_replace(int dir, const char *name, const void *data, size_t length, mode_t mode,
                    int sync, char *why, size_t why_size);

/* Open `name` in `dir` to read: a regular file, not through a link, never
 * blocking on a FIFO. Returns a descriptor, or -1 with errno. */
int sg_safe_open_read(int dir, const char *name);

/* The path `path` names, its links followed where the caller or root made
 * them (scaleguard-ini replace writes the file a link points to, keeping
 * the link). Returns 0 with the final path in `out` (which may not exist),
 * or -1. */
int sg_safe_resolve(const char *path, char *out, size_t out_size, char *why, size_t why_size);

/* Split `path` into its directory (opened and checked, as sg_safe_dir
 * without making it) and its last component. Returns the directory's
 * descriptor, or -1. */
int sg_safe_parent(const char *path, char *name, size_t name_size, char *why, size_t why_size);

#endif
