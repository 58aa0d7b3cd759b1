/* hs_out.h: every file hybridsim writes, written so that nothing is destroyed, nothing is left
 * half-written, and every write is checked; and the signals that interrupt a run.
 *
 * What an output path is decides how it is written (hs_out_open):
 *   - a new file, or an existing regular file (also behind a symbolic link): written into a
 *     temp file beside it (NAME.XXXXXX.tmp, the link resolved), which replaces it only when
 *     complete (hs_out_commit: flushed, checked, renamed); until then the old file is whole.
 *     A replaced file keeps its permission bits; a new one gets 0666 minus the umask. A hard
 *     link to the old file keeps the old contents (rename makes a new file).
 *   - a character device or a FIFO (/dev/null, /dev/stdout on a pipe, a named pipe): written
 *     in place, never created, truncated or replaced. So is a regular file that is this
 *     process's own standard output or error (-o /dev/stdout > FILE).
 *   - "-": standard output, written in place (a descriptor of its own, closed on commit),
 *     as Unix tools take it; a file named '-' is ./-. A command whose standard output
 *     carries a report refuses "-" for its outputs before this (hs_out_is_stdout).
 *   - anything else (a directory, a block device, a socket, a dangling symbolic link):
 *     refused, HS_EINPUT, before anything is written.
 * A file read back (a sweep's CSV) must be a regular file (hs_in_open): a device would never
 * end. A failed write or read is HS_EINTERNAL (exit 1) naming the path and the system's reason.
 *
 * Signals. hs_out_trap_signals makes SIGINT, SIGTERM and SIGHUP remove the temp files of the
 * outputs not yet committed, say on stderr which outputs were written and which were not, and
 * end the process by the same signal (a shell reports 128 + the signal: 130, 143, 129). It is
 * called at the start of the command line and again right after SimGrid's engine starts
 * (SimGrid installs a SIGINT handler of its own that exits 1 from inside the handler). A
 * signal ignored when the process started stays ignored (nohup, background jobs of scripts). */
#ifndef HS_OUT_H
#define HS_OUT_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

/* One output being written. */
typedef struct {
    FILE *f;            /* write here; NULL once committed or aborted */
    const char *flag;   /* names the output in messages ("--trace", "-o") */
    const char *path;   /* as the user gave it (not copied: must outlive the output) */
    char *tmp;          /* the temp file renamed over target on commit; NULL: in place */
    char *target;       /* the file the temp replaces: path with symbolic links resolved */
    int slot;           /* its entry in the list the signal handler reads, -1: none */
    bool sync;          /* commit: fsync before the rename (a sweep's CSV: hours of work) */
} hs_out;

/* Open path for writing as its kind says (above). HS_EINPUT naming flag and path when the
 * path is refused or cannot be created; HS_EINTERNAL when out of memory. */
int hs_out_open(hs_out *o, const char *flag, const char *path, char *err);

/* Open path for appending (a log): a new or regular file is appended to (O_APPEND), a device
 * or FIFO written in place, anything else refused. Commit or abort it like any output. */
int hs_out_open_append(hs_out *o, const char *flag, const char *path, char *err);

/* Flush, check, close and (for a temp) rename into place. A failed write is HS_EINTERNAL
 * naming the output and the reason; the temp is then removed and the old file stays. */
int hs_out_commit(hs_out *o, char *err);

/* Close without keeping anything: the temp is removed (an in-place output keeps what was
 * written). Harmless on an output that was never opened, committed or aborted already. */
void hs_out_abort(hs_out *o);

/* Whether path could be written, without writing it: the checks of hs_out_open, and for a new
 * or regular file a temp created and removed beside it. So that a bad output path fails
 * before a long run; from then on an interrupting signal names it among the outputs not
 * written until it is. */
int hs_out_check(const char *flag, const char *path, char *err);

/* Whether an output path is "-", standard output. */
bool hs_out_is_stdout(const char *path);

/* An XML input a user names (what: "platform file"), before libxml2 reads it: a regular
 * file with something in it. HS_EINPUT "PATH: is a directory, not a platform file" or "PATH:
 * is empty" otherwise (libxml2 would print its own I/O error on stderr, then say "Document is
 * empty" or "Extra content"); HS_OK for a path that does not exist, which the reader names. */
int hs_in_check(const char *path, const char *what, char *err);

/* Open path for reading back: a regular file only (HS_EINPUT naming its kind otherwise). With
 * missing_ok, a path that does not exist gives *f = NULL and HS_OK. */
int hs_in_open(const char *path, bool missing_ok, FILE **f, char *err);

/* At the end of a command: flush and close stdout. A failed write is HS_EINTERNAL with
 * "writing standard output: REASON" (not for a closed pipe when SIGPIPE is ignored). */
int hs_out_close_stdout(char *err);

/* Install the handlers described above (again after SimGrid's engine starts). */
void hs_out_trap_signals(void);

/* A command stopped by signal sig between runs (a sweep) returns HS_SIGNALLED(sig); the
 * front end says why, then hs_out_die_by(sig) ends the process by that signal. */
#define HS_SIGNALLED(sig) (128 + (sig))
void hs_out_die_by(int sig);

/* Catch SIGINT, SIGTERM and SIGHUP with handler for a while (a sweep's pool, a child they are
 * forwarded to), no signal blocked while it runs; each one's disposition kept in saved[] for
 * hs_out_uncatch. A signal ignored stays ignored (nohup, a script's background job). */
void hs_out_catch(void (*handler)(int), struct sigaction saved[3]);
void hs_out_uncatch(const struct sigaction saved[3]);

/* The name of an interrupting signal ("SIGINT"), else "signal N" formatted into buf. */
const char *hs_out_signal_name(int sig, char *buf, size_t len);

/* Write all of buf (len bytes) to fd, again after a signal (EINTR); false if it could not.
 * Async-signal-safe: the signal handler's message, a forked child's answer before _exit, a
 * child's stderr relayed. */
bool hs_out_write_all(int fd, const void *buf, size_t len);

#endif
