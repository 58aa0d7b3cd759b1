/* links.h: what the network did during a simulated run, link by link.
 *
 * A collector watches one engine run: every message the engine sends (whatever the collective
 * or fidelity that sent it) reaches it with its hosts, payload, and the moments SimGrid's
 * transfer started and ended. After the run it charges each message's bytes to every link of
 * its SimGrid route, and derives per link direction the bytes carried, the busy time (when at
 * least one message was on it), the mean utilisation over the iteration and the peak one; and
 * per job the congestion share: the part of the communication time spent waiting on shared
 * links, sum(actual - alone) / sum(actual), where a message alone on its route would take
 * latency + bytes / bottleneck bandwidth (plat_route).
 *
 * Exact by construction: everything comes from the messages SimGrid ran, so the sum over links
 * equals the sum over messages of bytes x route length. The peak is that of the link's busy
 * periods (maximal intervals with a message on it): bytes of the period / (bandwidth x its
 * length), exact because every message lies inside one period of each link it crosses. */
#ifndef LINKS_H
#define LINKS_H

#include <stdbool.h>
#include <stdio.h>

#include <simgrid/forward.h>

#include "hs_error.h"
#include "hs_json.h"
#include "platform.h"

/* What a link is, from the generator's naming (platforms/README.md). */
typedef enum {
    LK_NVLINK,       /* nNNNN-nvlA-B: GPU pair in a node */
    LK_PCIE,         /* nNNNN-pcieG: GPU to its PCIe switch */
    LK_NIC,          /* nNNNN-nicK: NIC cable to the leaf switch */
    LK_LEAF_SWITCH,  /* lNNN-switch */
    LK_LEAF_UP,      /* lNNN-uplink (or a cable, lNNN-uplink-cK): leaf switch to rack switch */
    LK_RACK_SWITCH,  /* rNN-switch */
    LK_RACK_UP,      /* rNN-uplink(-cK): rack switch to spine (the oversubscribed one on ABCI) */
    LK_SPINE,        /* spine-switch */
    LK_OTHER,        /* anything a hand-written platform names otherwise */
    LK_KIND_COUNT
} lk_kind;

/* Which way a link carries traffic. Split-duplex links are two links in SimGrid (name_UP,
 * name_DOWN); "up" leads away from the GPU (GPU to node gateway to leaf, leaf to rack to spine;
 * on an NVLink from the lower GPU to the higher). A switch (FATPIPE) is one link both ways. */
typedef enum { LK_UP, LK_DOWN, LK_BOTH } lk_direction;

/* One link direction over one run. */
typedef struct {
    char name[PLAT_NAME_LEN];   /* the platform's link name, without SimGrid's _UP/_DOWN */
    lk_kind kind;
    lk_direction direction;
    double bandwidth_Bps;       /* this direction's bandwidth */
    long messages;              /* job messages that crossed it */
    double bytes;               /* their payload */
    double background_bytes;    /* background traffic that crossed it (completed transfers) */
    double busy_s;              /* time at least one message or background transfer was on it */
    double mean_util;           /* (bytes + background_bytes) / (bandwidth x makespan) */
    double peak_util;           /* the fullest busy period (maximal interval with a message on
                                 * the link): its bytes / (bandwidth x its length) */
} lk_link;

/* Messages of one job (or all jobs, or the background) over one run. A message staged through
 * host memory between GPUs of a node is one message in two transfers (GPU to the node's host
 * memory, host memory to GPU): both load their links and count in the times. */
typedef struct {
    long messages;              /* as the engine counts them (eng_result.messages) */
    double bytes;               /* their payload (eng_result.bytes_sent) */
    double route_bytes;         /* sum over transfers of bytes x route length (links crossed) */
    double actual_s;            /* summed durations, transfer start to end */
    double alone_s;             /* summed durations each would have alone on its route */
    double waiting_s;           /* summed actual - alone (a difference within SimGrid's timing
                                 * precision, 1e-9 s, counts as 0) */
    double congestion_share;    /* waiting_s / actual_s; 0 without messages */
} lk_traffic;

/* Per link kind, over the link directions that carried traffic. */
typedef struct {
    int links_used;             /* link directions of this kind with traffic */
    double bytes;               /* job + background bytes they carried */
    double mean_util;           /* average of their mean utilisations */
    double max_mean_util;       /* the highest mean utilisation among them */
    double peak_util;           /* the highest peak utilisation among them */
} lk_kind_stats;

#define LK_TOP 5

typedef struct {
    double makespan_s;          /* the run's length, which mean utilisations divide by */
    lk_link *links;             /* every link direction of the platform, in name order */
    int n_links;
    lk_traffic all;             /* every job message */
    lk_traffic *jobs;           /* per job tag 0..n_jobs-1 (lk_set_job) */
    int n_jobs;
    lk_traffic background;      /* background transfers (lk_background_send) */
    lk_kind_stats by_kind[LK_KIND_COUNT];
    int top[LK_TOP];            /* indices into links of the highest mean utilisations (ties
                                 * by name), -1 past the links that carried traffic */
    double waiting_by_kind_s[LK_KIND_COUNT]; /* every job message's waiting (actual - alone,
                                 * as in lk_traffic) charged to the kind of its bottleneck: the
                                 * fullest link of its route while it was on it (utilisation of
                                 * the link's busy period that holds it; switches only on a
                                 * route of switches), on a tie the lower bandwidth, then the
                                 * link that carried more, then the first by name; sums to
                                 * all.waiting_s (to rounding) */
} lk_stats;

typedef struct lk_collector lk_collector;

/* A collector for the next engine run on plat, with n_jobs job tags (every GPU starts as job 0).
 * HS_EINTERNAL if another collector is active, or out of memory. */
int lk_begin(const plat_platform *plat, int n_jobs, lk_collector **col, char *err);

/* Messages sent from this GPU count for job `job`. */
void lk_set_job(lk_collector *col, int gpu, int job);

/* A message the engine computed instead of sending (eng_message_fn, ctx the collector): charged
 * to the links of its route as if SimGrid had delivered it, for the job of GPU from_gpu. */
void lk_computed_message(void *col, int from_gpu, int to_gpu, double bytes, double start_s,
                         double end_s);

/* Background traffic: `bytes` from GPU from_gpu (the calling SimGrid actor's host) to GPU
 * to_gpu, where an actor receives from `mailbox`, at most rate_Bps; returns when it has arrived
 * and, if col is not NULL, charges it to the links as background. */
void lk_background_send(lk_collector *col, sg_mailbox_t mailbox, int from_gpu, int to_gpu,
                        double bytes, double rate_Bps);

/* Stop collecting, compute the statistics of the run (makespan_s long) into out, free col.
 * HS_EINTERNAL if a message was lost (SimGrid did not report its end). */
int lk_end(lk_collector *col, double makespan_s, lk_stats *out, char *err);

void lk_stats_free(lk_stats *st);

const char *lk_kind_name(lk_kind kind);
const char *lk_direction_name(lk_direction dir);

/* The CSV of the run (format in the README; header documented there and in links.c): one row
 * per link direction that carried traffic, or every one with all_links. Written as hs_out.h
 * says (a temp renamed into place, a device in place); HS_EINPUT naming the path if it cannot
 * be written there, HS_EINTERNAL if a write fails. */
int lk_write_csv(const lk_stats *st, const char *path, bool all_links, char *err);

/* Whether the CSV can be written at path (hs_out_check), so that a bad --links fails before
 * the simulation runs: HS_EINPUT naming the path. */
int lk_csv_check(const char *path, char *err);

/* The summary of a run as the reports print it: per kind, the top links, the congestion share
 * of job `job` (-1: all jobs). The table form is indented lines; the JSON form is the next value
 * of writer j (the "links" key's): {"by_kind": {...}, "top": [...], "congestion_share": x}. */
void lk_print_summary_table(FILE *out, const lk_stats *st, int job);
void lk_json_summary(hs_json *j, const lk_stats *st, int job);

#endif
