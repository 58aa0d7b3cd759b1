/* sweep_mem.c: memory and text for `hybridsim sweep` (sweep_int.h).
 *
 * A sweep makes many small strings (values, keys, rows) that all live until it ends, so they go
 * into an arena freed once; arrays grow with hs_grow, and so does text, built in a buffer whose
 * first allocation failure sticks, so that builders check once at the end instead of after
 * every append. Also the few text helpers that more than one part of the sweep needs. */
#define _GNU_SOURCE
#include "sweep_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SW_BLOCK_BYTES 65536 /* an arena block, unless one string needs more */

typedef struct sw_block {
    struct sw_block *next; /* the block allocated before this one */
    size_t used, cap;      /* bytes handed out, bytes available */
    char data[];
} sw_block;

void *sw_arena_alloc(sw_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->cap - a->head->used < n) {
        size_t cap = n > SW_BLOCK_BYTES ? n : SW_BLOCK_BYTES;
        sw_block *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += n;
    return p;
}

void sw_arena_free(sw_arena *a)
{
    while (a->head) {
        sw_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

char *sw_arena_strndup(sw_arena *a, const char *s, size_t n)
{
    char *copy = sw_arena_alloc(a, n + 1);
    if (copy) {
        memcpy(copy, s, n);
        copy[n] = '\0';
    }
    return copy;
}

char *sw_arena_strdup(sw_arena *a, const char *s) { return sw_arena_strndup(a, s, strlen(s)); }

char *sw_arena_printf(sw_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = sw_arena_alloc(a, (size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

void sw_buf_add(sw_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (n >= SIZE_MAX - b->len || !hs_grow((void **)&b->data, &b->cap, b->len + n + 1, 1)) {
        b->oom = true;
        return;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sw_buf_puts(sw_buf *b, const char *s) { sw_buf_add(b, s, strlen(s)); }

void sw_buf_printf(sw_buf *b, const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    sw_buf_add(b, s, (size_t)n);
    free(s);
}

char *sw_buf_take(sw_buf *b, sw_arena *a)
{
    char *s = b->oom || !b->data ? NULL : sw_arena_strdup(a, b->data);
    free(b->data);
    *b = (sw_buf){0};
    return s;
}

char *sw_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* Words made only of these need no quotes, which keeps logged and emitted commands readable. */
void sw_shell_word(sw_buf *b, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:+=@%,-")
                  == strlen(s)) {
        sw_buf_puts(b, s);
        return;
    }
    sw_buf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'')
            sw_buf_puts(b, "'\\''");
        else
            sw_buf_add(b, s, 1);
    }
    sw_buf_puts(b, "'");
}

char *sw_slurp(const char *path, sw_arena *a)
{
    FILE *f = fopen(path, "r");
    sw_buf b = {0};
    sw_buf_puts(&b, "");
    if (f) {
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
            sw_buf_add(&b, chunk, n);
        fclose(f);
    }
    char *s = sw_buf_take(&b, a);
    return s ? s : "";
}

double sw_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
