/* child_result.h: shared by the tests that run each SimGrid case in a forked child (SimGrid
 * allows one engine per process). The child writes its fixed-size result struct into a pipe and
 * exits 0 (hs_child.h); the parent reads it back and asserts the child ended cleanly and sent it
 * whole. child_result_run does the whole round trip. Header-only; include after <cmocka.h>. */
#ifndef CHILD_RESULT_H
#define CHILD_RESULT_H

#include <stddef.h>
#include <string.h>

#include "hs_child.h"
#include "platform.h"

/* A case as the child runs it. */
typedef struct {
    const char *spec;                             /* the platform to load */
    void (*fn)(const plat_platform *, void *);    /* the case, filling the result */
    void (*on_load_failed)(void *, const char *); /* the result when the load failed */
    const void *out;                              /* the caller's result as it starts */
    size_t size;                                  /* its size */
} child_case;

/* In the child (hs_child_work): the result starts as the caller's, then the case fills it. */
static inline void child_result_work(void *arg, void *answer)
{
    const child_case *c = arg;
    memcpy(answer, c->out, c->size);
    char err[HS_ERR_LEN];
    plat_platform plat;
    if (plat_load(c->spec, &plat, err) != HS_OK) {
        c->on_load_failed(answer, err);
    } else {
        c->fn(&plat, answer);
        plat_free(&plat);
    }
}

/* In a child (hs_child.h) load platform `spec`, call fn(plat, out) (or, when the load fails,
 * on_load_failed(out, message)) and send the size-byte *out back; in the parent assert that
 * the child ended cleanly and sent it whole, into *out. The function both kinds of SimGrid test
 * run their cases through. */
static inline void child_result_run(const char *spec, void (*fn)(const plat_platform *, void *),
                                    void (*on_load_failed)(void *, const char *), void *out,
                                    size_t size)
{
    child_case c = {spec, fn, on_load_failed, out, size};
    hs_child_spec s = {.work = child_result_work, .arg = &c, .answer_bytes = size, .what = spec};
    hs_child_end end;
    char err[HS_ERR_LEN];
    assert_int_equal(hs_child_run(&s, out, &end, err), HS_OK);
    assert_int_equal(end.exit_status, 0);
    assert_true(end.answered);
}

#endif
