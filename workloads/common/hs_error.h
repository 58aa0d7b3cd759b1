/* hs_error.h: the error convention every hybridsim module follows.
 *
 * A function that can fail returns an int status and writes a one-line message into a
 * caller-supplied buffer (char err[HS_ERR_LEN]). The message names the file and line, or the
 * flag, and says what is wrong. The status doubles as the process exit status the command line
 * uses, so it only has to be passed up: 0 success, 2 bad input, 1 internal failure. */
#ifndef HS_ERROR_H
#define HS_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define HS_OK 0
#define HS_EINTERNAL 1 /* a bug or a resource failure: not the user's fault */
#define HS_EINPUT 2    /* a file, flag or value the user gave is wrong */

#define HS_ERR_LEN 512

/* Format a message into err (which may be NULL) and return status, so callers can write
 * `return hs_fail(err, HS_EINPUT, "%s:%d: ...", path, line);` */
int hs_fail(char *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
