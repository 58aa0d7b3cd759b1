/* hs_text.c: bounded reading of text inputs (hs_text.h): byte by byte through stdio's buffer,
 * so that a NUL, the size limit and a read error are each seen where they happen. */
#include "hs_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hs_error.h"
#include "hs_grow.h"

/* One more byte of f: the byte, EOF at the end, or -2 with err. */
static int next_byte(FILE *f, const char *path, int line_no, size_t *total, char *err)
{
    errno = 0;
    int c = getc(f);
    if (c == EOF) {
        if (!ferror(f))
            return EOF;
        return hs_fail(err, HS_EINPUT, "%s: read error: %s", path,
                       strerror(errno ? errno : EIO)), -2;
    }
    if (++*total > HS_TEXT_MAX_BYTES)
        return hs_fail(err, HS_EINPUT, "%s: longer than %zu MiB, the limit for a text input "
                       "(a device or pipe that never ends?)", path, HS_TEXT_MAX_BYTES >> 20), -2;
    if (c == '\0')
        return hs_fail(err, HS_EINPUT, "%s:%d: a NUL byte: not a text file", path, line_no), -2;
    return c;
}

int hs_text_line(FILE *f, const char *path, int *line_no, char *buf, size_t cap, size_t *total,
                 char *err)
{
    size_t n = 0;
    int c;
    while ((c = next_byte(f, path, *line_no + 1, total, err)) >= 0) {
        if (n + 2 > cap) {
            hs_fail(err, HS_EINPUT, "%s:%d: line longer than %zu characters", path,
                    *line_no + 1, cap - 2);
            return -1;
        }
        buf[n++] = (char)c;
        if (c == '\n')
            break;
    }
    buf[n] = '\0';
    if (c == -2)
        return -1;
    if (n == 0)
        return 0;
    ++*line_no;
    return 1;
}

int hs_text_read(const char *path, const char *what, char **text, size_t *len, char *err)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return hs_fail(err, HS_EINPUT, "%s: cannot read the %s: %s", path, what, strerror(errno));
    size_t cap = 0, n = 0, total = 0;
    char *buf = NULL;
    int c = 0, line_no = 1;
    bool room = hs_grow((void **)&buf, &cap, 4096, 1); /* the text, even empty, is a string */
    while (room && (c = next_byte(f, path, line_no, &total, err)) >= 0) {
        if (!(room = hs_grow((void **)&buf, &cap, n + 2, 1)))
            break;
        buf[n++] = (char)c;
        line_no += c == '\n';
    }
    fclose(f);
    if (c >= 0) { /* stopped by memory, not by the file */
        free(buf);
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", path);
    }
    if (c == -2) {
        free(buf);
        return HS_EINPUT;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return HS_OK;
}
