/* hs_text.h: reading the text files a user names (sweep files, ParaDL models, layer files,
 * runtime files) so that no file can make a run read forever or grow without bound: a device
 * that never ends (/dev/zero), a file of NUL bytes, a FIFO kept open. Every file is read to at
 * most HS_TEXT_MAX_BYTES; a NUL byte means it is not text; a failed read (a directory: "Is a
 * directory") is said as a read error, never taken for the end of the file. All of these are
 * HS_EINPUT naming the file (exit 2). */
#ifndef HS_TEXT_H
#define HS_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The most a text input may hold: the largest shipped one is tens of kilobytes. */
#define HS_TEXT_MAX_BYTES ((size_t)16 << 20)

/* The next line of f (the file at path, *line_no lines read so far) into buf, '\n' kept and
 * '\0'-terminated; *total counts the bytes read from f so far. Returns 1 with a line (and
 * *line_no one more), 0 at the end of the file, -1 with err: a line of cap - 1 characters or
 * more, a NUL byte, more than HS_TEXT_MAX_BYTES in all, a read error. */
int hs_text_line(FILE *f, const char *path, int *line_no, char *buf, size_t cap, size_t *total,
                 char *err);

/* The whole file at path (what: "sweep file", for messages) in *text (malloc'ed,
 * '\0'-terminated, *len bytes), with the checks above. */
int hs_text_read(const char *path, const char *what, char **text, size_t *len, char *err);

#endif
