/* sweep_lock.c: one sweep at a time on a CSV (sweep_int.h). Two sweeps sharing -o would each
 * rewrite the CSV by renaming a temp over it, so the rows one appended to the file the other
 * replaced were lost, both exiting 0. The CSV itself cannot carry the lock (every rewrite is a
 * new file), so a lock file beside it does: CSV.lock, flock'ed for the whole sweep and removed
 * by its holder at the end. A second sweep is refused at once (exit 2) rather than made to wait
 * for hours. A lock file left by a killed sweep holds no lock (the kernel drops it with the
 * process) and is taken over. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_error.h"
#include "sweep_int.h"

/* path's lock file: beside the file a symbolic link names, so that two names of one CSV share
 * it. */
static char *lock_path(const char *path)
{
    char *real = realpath(path, NULL);
    const char *base = real ? real : path;
    size_t n = strlen(base) + sizeof ".lock";
    char *lock = malloc(n);
    if (lock)
        snprintf(lock, n, "%s.lock", base);
    free(real);
    return lock;
}

int sw_lock(sw_lock_file *l, const char *path, char *err)
{
    *l = (sw_lock_file){.fd = -1};
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return HS_OK; /* no CSV to share: reading it back refuses it, naming what it is */
    if (!(l->path = lock_path(path)))
        return hs_fail(err, HS_EINTERNAL, "out of memory");
    /* Taken, then checked to be the file the path still names: the holder before us may have
     * removed it between our open and our flock. */
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(l->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) {
            int e = errno;
            sw_unlock(l);
            return hs_fail(err, HS_EINPUT, "-o %s: cannot create its lock file: %s", path,
                           strerror(e));
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            sw_unlock(l);
            return e == EWOULDBLOCK
                       ? hs_fail(err, HS_EINPUT, "-o %s: another sweep is writing it (its lock "
                                 "file is held); wait for it to end, or give another -o", path)
                       : hs_fail(err, HS_EINPUT, "-o %s: cannot lock: %s", path, strerror(e));
        }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && stat(l->path, &named) == 0 && held.st_ino == named.st_ino &&
            held.st_dev == named.st_dev) {
            l->fd = fd;
            return HS_OK;
        }
        close(fd);
    }
    sw_unlock(l);
    return hs_fail(err, HS_EINPUT, "-o %s: its lock file keeps changing", path);
}

void sw_unlock(sw_lock_file *l)
{
    if (l->fd >= 0) {
        unlink(l->path); /* while still holding it: a waiter then sees a new file */
        close(l->fd);
    }
    free(l->path);
    *l = (sw_lock_file){.fd = -1};
}
