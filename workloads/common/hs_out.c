/* hs_out.c: output paths (hs_out.h): what a path is, decided once with stat; a temp beside a
 * regular file, renamed over it when complete; devices and FIFOs written where they are;
 * reading back only regular files; standard output checked at the end.
 *
 * Why stat decides: renaming a temp over a path replaces whatever the path was, so a
 * character device (as root, /dev/full itself) would become a regular file. The temp goes
 * beside the resolved file (realpath), so a symbolic link keeps pointing where it did and the
 * rename stays inside one file system. A device found by stat is opened without O_CREAT or
 * O_TRUNC and checked again with fstat on the descriptor, so that a path swapped in between is
 * not written either. */
#define _GNU_SOURCE
#include "hs_out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hs_error.h"
#include "hs_out_int.h"

/* What a path is, for writing. */
typedef enum { PATH_NEW, PATH_REGULAR, PATH_STDIO, PATH_DEVICE, PATH_DASH } path_kind;

static const char *kind_name(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISBLK(mode) ? "a block device"
           : S_ISSOCK(mode) ? "a socket" : S_ISCHR(mode) ? "a character device"
           : S_ISFIFO(mode) ? "a FIFO" : "not a regular file";
}

/* Whether st is the file this process's standard output or error already writes. */
static bool is_own_stdio(const struct stat *st)
{
    struct stat s;
    for (int fd = 1; fd <= 2; fd++)
        if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
            return true;
    return false;
}

static int classify(const char *flag, const char *path, struct stat *st, path_kind *kind,
                    char *err)
{
    if (!path || !*path)
        return hs_fail(err, HS_EINPUT, "%s needs a file name", flag);
    if (hs_out_is_stdout(path)) {
        *kind = PATH_DASH;
        if (fcntl(STDOUT_FILENO, F_GETFL) < 0) /* closed (hybridsim >&-) */
            return hs_fail(err, HS_EINPUT, "%s -: standard output is closed", flag);
        return HS_OK;
    }
    if (stat(path, st) != 0) {
        struct stat link;
        if (errno != ENOENT)
            return hs_fail(err, HS_EINPUT, "%s %s: %s", flag, path, strerror(errno));
        if (lstat(path, &link) == 0)
            return hs_fail(err, HS_EINPUT, "%s %s: a symbolic link to nothing", flag, path);
        *kind = PATH_NEW;
        return HS_OK;
    }
    if (S_ISREG(st->st_mode))
        *kind = is_own_stdio(st) ? PATH_STDIO : PATH_REGULAR;
    else if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode))
        *kind = PATH_DEVICE;
    else
        return hs_fail(err, HS_EINPUT, "%s %s: is %s, not a file to write", flag, path,
                       kind_name(st->st_mode));
    return HS_OK;
}

/* The umask, which mkstemp's 0600 does not apply (read without a race: once, here). */
static mode_t current_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    return m;
}

/* A temp beside target, listed for the signal handler in the same breath. */
static int open_temp(hs_out *o, path_kind kind, const struct stat *st, char *err)
{
    size_t n = strlen(o->target) + sizeof ".XXXXXX.tmp";
    if (!(o->tmp = malloc(n)))
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", o->flag);
    snprintf(o->tmp, n, "%s.XXXXXX.tmp", o->target);
    sigset_t saved;
    hs_out__hold(&saved);
    int fd = mkstemps(o->tmp, 4);
    if (fd >= 0)
        o->slot = hs_out__track(o->path, o->tmp,
                                kind == PATH_NEW ? HS_OUT_CREATING : HS_OUT_REPLACING);
    hs_out__release(&saved);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        return hs_fail(err, HS_EINPUT, "%s %s: cannot create a file there: %s", o->flag,
                       o->path, strerror(e));
    }
    fchmod(fd, kind == PATH_NEW ? 0666 & ~current_umask() : st->st_mode & 07777);
    if (!(o->f = fdopen(fd, "w"))) {
        close(fd);
        hs_out_abort(o);
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", o->flag);
    }
    return HS_OK;
}

/* A device, FIFO, own stdout or log: the descriptor of what the path already is. */
static int open_in_place(hs_out *o, path_kind kind, int flags, char *err)
{
    int fd = open(o->path, flags | O_WRONLY | O_NOCTTY | O_CLOEXEC, 0666);
    if (fd < 0)
        return hs_fail(err, HS_EINPUT, "%s %s: cannot write: %s", o->flag, o->path,
                       strerror(errno));
    struct stat st;
    bool same = fstat(fd, &st) == 0 &&
                (kind == PATH_DEVICE ? S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)
                                     : S_ISREG(st.st_mode));
    if (!same || !(o->f = fdopen(fd, "w"))) {
        close(fd);
        return same ? hs_fail(err, HS_EINTERNAL, "%s: out of memory", o->flag)
                    : hs_fail(err, HS_EINPUT, "%s %s: changed while being opened", o->flag,
                              o->path);
    }
    sigset_t saved;
    hs_out__hold(&saved);
    o->slot = hs_out__track(o->path, NULL, HS_OUT_IN_PLACE);
    hs_out__release(&saved);
    return HS_OK;
}

/* "-": a descriptor of its own on standard output (closed on commit, stdout left open),
 * after what stdout's buffer holds, so that the two keep their order. */
static int open_stdout(hs_out *o, char *err)
{
    fflush(stdout);
    int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return hs_fail(err, HS_EINPUT, "%s -: cannot write standard output: %s", o->flag,
                       strerror(errno));
    if (!(o->f = fdopen(fd, "w"))) {
        close(fd);
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", o->flag);
    }
    sigset_t saved;
    hs_out__hold(&saved);
    o->slot = hs_out__track("standard output", NULL, HS_OUT_IN_PLACE);
    hs_out__release(&saved);
    return HS_OK;
}

static void start(hs_out *o, const char *flag, const char *path)
{
    *o = (hs_out){.flag = flag, .path = path, .slot = -1};
}

int hs_out_open(hs_out *o, const char *flag, const char *path, char *err)
{
    start(o, flag, path);
    struct stat st;
    path_kind kind;
    int status = classify(flag, path, &st, &kind, err);
    if (status != HS_OK)
        return status;
    if (kind == PATH_DASH)
        return open_stdout(o, err);
    if (kind == PATH_DEVICE || kind == PATH_STDIO)
        return open_in_place(o, kind, 0, err);
    o->target = kind == PATH_NEW ? strdup(path) : realpath(path, NULL);
    if (!o->target)
        return hs_fail(err, kind == PATH_NEW ? HS_EINTERNAL : HS_EINPUT, "%s %s: %s", flag,
                       path, strerror(errno));
    status = open_temp(o, kind, &st, err);
    if (status != HS_OK)
        hs_out_abort(o);
    return status;
}

int hs_out_open_append(hs_out *o, const char *flag, const char *path, char *err)
{
    start(o, flag, path);
    struct stat st;
    path_kind kind;
    int status = classify(flag, path, &st, &kind, err);
    if (status != HS_OK)
        return status;
    if (kind == PATH_DASH)
        return open_stdout(o, err);
    return open_in_place(o, kind == PATH_DEVICE ? kind : PATH_REGULAR,
                         kind == PATH_DEVICE ? 0 : O_APPEND | O_CREAT, err);
}

static void forget(hs_out *o, hs_out_state state)
{
    sigset_t saved;
    hs_out__hold(&saved);
    if (o->tmp && state == HS_OUT_FREE)
        unlink(o->tmp);
    if (o->slot >= 0)
        hs_out__mark(o->slot, state);
    hs_out__release(&saved);
    o->slot = -1;
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
}

void hs_out_abort(hs_out *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    forget(o, HS_OUT_FREE);
}

/* Flush and close, the first error's errno (0: none): the last error of a stream may only
 * show when it is flushed or closed. */
static int close_checked(FILE *f, bool sync)
{
    int e = 0;
    if (fflush(f) != 0)
        e = errno;
    else if (ferror(f))
        e = EIO;
    if (!e && sync && fsync(fileno(f)) != 0)
        e = errno;
    if (fclose(f) != 0 && !e)
        e = errno;
    return e;
}

int hs_out_commit(hs_out *o, char *err)
{
    int e = close_checked(o->f, o->sync && o->tmp); /* a device cannot be synced (EINVAL) */
    o->f = NULL;
    if (e) {
        forget(o, HS_OUT_FREE);
        return hs_fail(err, HS_EINTERNAL, "%s %s: write error: %s", o->flag, o->path,
                       strerror(e));
    }
    if (!o->tmp) {
        forget(o, HS_OUT_WRITTEN);
        return HS_OK;
    }
    sigset_t saved;
    hs_out__hold(&saved); /* renamed and listed as written together */
    int renamed = rename(o->tmp, o->target);
    e = errno;
    if (renamed == 0 && o->slot >= 0)
        hs_out__mark(o->slot, HS_OUT_WRITTEN);
    if (renamed == 0)
        o->slot = -1;
    hs_out__release(&saved);
    forget(o, renamed == 0 ? HS_OUT_WRITTEN : HS_OUT_FREE);
    if (renamed != 0)
        return hs_fail(err, HS_EINTERNAL, "%s %s: cannot put the new file in place: %s",
                       o->flag, o->path, strerror(e));
    return HS_OK;
}

int hs_out_check(const char *flag, const char *path, char *err)
{
    struct stat st;
    path_kind kind;
    int status = classify(flag, path, &st, &kind, err);
    if (status != HS_OK || kind == PATH_STDIO || kind == PATH_DASH)
        return status;
    if (kind == PATH_DEVICE)
        return access(path, W_OK) == 0 ? HS_OK
                                       : hs_fail(err, HS_EINPUT, "%s %s: cannot write: %s",
                                                 flag, path, strerror(errno));
    /* (A device is written in place: an interrupted run leaves nothing to name.) */
    hs_out o;
    status = hs_out_open(&o, flag, path, err);
    hs_out_abort(&o);
    if (status == HS_OK) { /* a signal from now on names it among the outputs not written */
        sigset_t saved;
        hs_out__hold(&saved);
        hs_out__plan(path);
        hs_out__release(&saved);
    }
    return status;
}

bool hs_out_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int hs_in_check(const char *path, const char *what, char *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return HS_OK; /* the reader says it cannot open it, in its own words */
    if (!S_ISREG(st.st_mode))
        return hs_fail(err, HS_EINPUT, "%s: is %s, not a %s", path, kind_name(st.st_mode), what);
    if (st.st_size == 0)
        return hs_fail(err, HS_EINPUT, "%s: is empty (a %s was expected)", path, what);
    return HS_OK;
}

int hs_in_open(const char *path, bool missing_ok, FILE **f, char *err)
{
    *f = NULL;
    /* O_NONBLOCK: a FIFO without a writer is refused below instead of blocking here. */
    int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT && missing_ok)
        return HS_OK;
    if (fd < 0)
        return hs_fail(err, HS_EINPUT, "%s: cannot read: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return hs_fail(err, HS_EINTERNAL, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return hs_fail(err, HS_EINPUT, "%s: is %s, not a regular file", path,
                       kind_name(st.st_mode));
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!(*f = fdopen(fd, "r"))) {
        close(fd);
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", path);
    }
    return HS_OK;
}

int hs_out_close_stdout(char *err)
{
    int e = close_checked(stdout, false);
    if (e == 0 || e == EPIPE) /* a closed pipe: SIGPIPE ignored, the reader gone on purpose */
        return HS_OK;
    return hs_fail(err, HS_EINTERNAL, "writing standard output: %s", strerror(e));
}
