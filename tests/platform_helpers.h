/* platform_helpers.h: shared by the platform tests (header-only, everything static).
 *
 * run_transfers() runs real SimGrid simulations on the loaded platform: every transfer is a
 * sender actor on its source GPU putting `bytes` into a mailbox and a receiver actor on its
 * destination GPU getting it, all started at once; it records when each one completes. This is
 * how the tests show that a message's simulated time is latency + bytes / bandwidth, and how
 * concurrent flows share a NIC or an oversubscribed uplink; platform_assert_route and
 * platform_assert_times check a route's and a transfer's figures, platform_in_child runs a test
 * group in a child process. Also: text-file helpers for the checker's error tests. */
#ifndef PLATFORM_HELPERS_H
#define PLATFORM_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

#include "hs_child.h"
#include "platform.h"
#include "platgen.h"

/* One message from GPU src to GPU dst. */
typedef struct {
    int src, dst;        /* GPU ranks */
    double bytes;
    double start_s;      /* simulated clock when the put started */
    double duration_s;   /* until the put completed */
    char mailbox[32];
} transfer;

static inline void transfer_sender(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    transfer *t = sg_actor_self_get_data();
    t->start_s = simgrid_get_clock();
    sg_mailbox_put(sg_mailbox_by_name(t->mailbox), t, (long)t->bytes);
    t->duration_s = simgrid_get_clock() - t->start_s;
}

static inline void transfer_receiver(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    transfer *t = sg_actor_self_get_data();
    sg_mailbox_get(sg_mailbox_by_name(t->mailbox));
}

static inline void start_actor(const char *name, sg_host_t host, xbt_main_func_t code, void *data)
{
    sg_actor_t actor = sg_actor_init(name, host);
    sg_actor_set_data(actor, data);
    sg_actor_start(actor, code, 0, NULL);
}

/* Run the n transfers concurrently to completion (one simgrid_run; may be called again). */
static inline void run_transfers(const plat_platform *plat, transfer *t, int n)
{
    static int serial; /* mailbox names stay unique across runs */
    for (int i = 0; i < n; i++) {
        snprintf(t[i].mailbox, sizeof t[i].mailbox, "xfer-%d", serial++);
        t[i].duration_s = -1;
        start_actor("receiver", plat->gpus[t[i].dst], transfer_receiver, &t[i]);
        start_actor("sender", plat->gpus[t[i].src], transfer_sender, &t[i]);
    }
    simgrid_run();
}

/* |got - want| <= rel * |want| */
static inline int close_rel(double got, double want, double rel)
{
    double d = got - want;
    if (d < 0)
        d = -d;
    return d <= rel * (want < 0 ? -want : want);
}

/* Read a whole file into a malloc'd string (NULL on failure). */
static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n + 1);
    if (buf && fread(buf, 1, n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return buf;
}

static inline int spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fputs(text, f) >= 0;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* Write text to path with the first occurrence of `from` replaced by `to`; returns the line
 * (1-based) where the replacement starts, or -1 when `from` does not occur. */
static inline int spit_variant(const char *path, const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        return -1;
    int line = 1;
    for (const char *c = text; c < at; c++)
        line += *c == '\n';
    size_t head = (size_t)(at - text), n_from = strlen(from), n_to = strlen(to);
    size_t total = strlen(text) - n_from + n_to;
    char *out = malloc(total + 1);
    if (!out)
        return -1;
    memcpy(out, text, head);
    memcpy(out + head, to, n_to);
    strcpy(out + head + n_to, at + n_from);
    int rc = spit(path, out);
    free(out);
    return rc == 0 ? line : -1;
}

/* A group fixture's work: write the generator's parameters to path first (params non-NULL),
 * then load spec into *plat; 0, or -1 after printing why (CMocka then skips the group). */
static inline int platform_fixture_load(const pg_params *params, const char *spec,
                                        plat_platform *plat)
{
    char err[HS_ERR_LEN];
    if ((params && pg_write_file(params, spec, err) != HS_OK) ||
        plat_load(spec, plat, err) != HS_OK) {
        print_error("%s\n", err);
        return -1;
    }
    return 0;
}

/* Both directions of the route between GPUs a and b of plat: latency_s and bw_Bps. */
static inline void platform_assert_route(const plat_platform *plat, int a, int b,
                                         double latency_s, double bw_Bps)
{
    double lat, bw;
    for (int dir = 0; dir < 2; dir++) {
        int src = dir ? b : a, dst = dir ? a : b;
        plat_route(plat, src, dst, &lat, &bw);
        if (!close_rel(lat, latency_s, 1e-9) || !close_rel(bw, bw_Bps, 1e-12)) {
            print_error("route %d -> %d: %.17g s %.17g B/s, want %.17g s %.17g B/s\n", src, dst,
                        lat, bw, latency_s, bw_Bps);
            fail();
        }
    }
}

/* Run the transfers at once on plat; each must take latency + bytes / rate_Bps[i]. */
static inline void platform_assert_times(const plat_platform *plat, transfer *t, int n,
                                         const double *latency_s, const double *rate_Bps)
{
    run_transfers(plat, t, n);
    for (int i = 0; i < n; i++) {
        double want = latency_s[i] + t[i].bytes / rate_Bps[i];
        if (!close_rel(t[i].duration_s, want, 1e-9)) {
            print_error("%d -> %d: %.17g s, want %.17g s\n", t[i].src, t[i].dst,
                        t[i].duration_s, want);
            fail();
        }
    }
}

/* In the child (hs_child_work): run the group, its result the answer. */
static inline void platform_group_work(void *arg, void *answer)
{
    int (*const *group)(void) = arg;
    *(int *)answer = (*group)();
    fflush(NULL); /* the child ends with _exit: cmocka's report must not stay in a buffer */
}

/* Run one CMocka group in a child process (its own SimGrid engine, hs_child.h: SimGrid allows
 * one platform a process); nonzero if it failed or died. */
static inline int platform_in_child(int (*group)(void))
{
    hs_child_spec s = {.work = platform_group_work, .arg = &group, .answer_bytes = sizeof(int),
                       .what = "a test group"};
    hs_child_end end;
    char err[HS_ERR_LEN];
    int failed = 1;
    if (hs_child_run(&s, &failed, &end, err) != HS_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (end.exit_status != 0 || !end.answered || failed) {
        fprintf(stderr, "a test group failed or crashed (exit status %d, signal %d)\n",
                end.exit_status, end.signal);
        return 1;
    }
    return 0;
}

#endif
