/* sweep_int.h: what the files of `hybridsim sweep` share (sweep.h is the module's public face).
 *
 * The sweep is one module split by concern:
 *   sweep.c         sw_main: the command's three paths (run, --emit, --merge) and the direct sweep
 *   sweep_mem.c     memory and text: the string arena, growing arrays, a text buffer
 * Nothing here is for use outside sim/sweep*.c. */
#ifndef SWEEP_INT_H
#define SWEEP_INT_H

#include <stdbool.h>
#include <stddef.h>

/* ------------------------------------------------------------------------------------------ */
/* Memory (sweep_mem.c): strings live in an arena freed once at the end; arrays grow with
 * realloc. */

typedef struct sw_block {
    struct sw_block *next; /* the block allocated before this one */
    size_t used, cap;      /* bytes handed out, bytes available */
    char data[];
} sw_block;

typedef struct {
    sw_block *head; /* the newest block */
} sw_arena;

/* n bytes that live until sw_arena_free; NULL when out of memory (as for every sw_arena_*). */
void *sw_arena_alloc(sw_arena *a, size_t n);
void sw_arena_free(sw_arena *a);
char *sw_arena_strndup(sw_arena *a, const char *s, size_t n);
char *sw_arena_strdup(sw_arena *a, const char *s);
char *sw_arena_printf(sw_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Make room for one more item in a growing array; false when out of memory. */
bool sw_grow(void **items, int *cap, int n, size_t size);

/* A growing text buffer whose first allocation failure sticks (checked once, at the end). */
typedef struct {
    char *data;     /* NUL-terminated */
    size_t len, cap; /* bytes used (without the NUL), bytes allocated */
    bool oom;       /* an append failed */
} sw_buf;

void sw_buf_add(sw_buf *b, const char *s, size_t n);
void sw_buf_puts(sw_buf *b, const char *s);
/* The text moved into the arena and the buffer freed; NULL if an append or the copy failed. */
char *sw_buf_take(sw_buf *b, sw_arena *a);

/* Text helpers more than one part needs. */
char *sw_trim(char *s);                       /* blanks (and line ends) off both sides, in place */
void sw_shell_word(sw_buf *b, const char *s); /* s quoted for a POSIX shell when it needs it */
char *sw_slurp(const char *path, sw_arena *a); /* a small file's text; "" if unreadable */
double sw_now_s(void);                        /* a monotonic clock */

#endif
