/* pase_cost.h: PaSE's cost model (Elango, IPDPS 2021; the code at baidu-research/PaSE 32aa761),
 * as a cost provider for the search (search.h), written out in PASE-MODEL.md of the shared
 * reference.
 *
 * Costs are "FLOP-equivalents" per training iteration on one device: a multiply-add counts 1,
 * a word (8 bytes) communicated counts r = peak FLOP/s over words/s (5000 with PaSE's defaults,
 * 10 TFLOPS and 16 GB/s). Collectives are ring all-reduces AR(w, q) = r 2 (q-1) w / q, with no
 * latency and no topology; a redistribution moves what the consumer's slice lacks of the
 * producer's, twice (activation forward, gradient backward). Kept as the code does it, also
 * where it surprises: replication is never credited to a producer (an in-channel split conv
 * counts as fewer devices than it uses) and slices are assumed optimally aligned. */
#ifndef PASE_COST_H
#define PASE_COST_H

#include "search.h"

#define PASE_TFLOPS 10.0   /* PaSE's default --flops: peak TFLOPS of a device */
#define PASE_GBPS 16.0     /* PaSE's default --bw: GB/s between devices */
#define PASE_CUTOFF 4      /* PaSE's cutoff for CNNs: a split keeps >= 4 elements a device */
#define PASE_SEQUENCE_CUTOFF 1 /* and for its RNNLM and Transformer (graph.py: SetCutoff(1), so
                                * that an LSTM's 2 layers and a Transformer's heads may split) */

typedef struct {
    double r; /* FLOP-equivalents a word communicated costs */
} pase_model;

/* r = tflops x 1000 / (gbytes_per_s / 8), PaSE's WordsToFlops ratio (5000 by default). */
double pase_ratio(double tflops, double gbytes_per_s);

/* PaSE's candidates for wl on p devices: cutoff 4 (1 for a sequence model, sr_is_sequence),
 * no spatial splits of convolutions (the code turns them off), window splits where the cutoff
 * allows them (an 8x8 kernel; none in these nets). */
sr_options pase_options(const wl_workload *wl, int devices);

/* HS_EINPUT unless PaSE's model can price g: 2-D images only (it has no 3-D ops). */
int pase_check(const sr_graph *g, char *err);

/* The provider for model (which must outlive it): vertex and edge costs, no memory limit. */
sr_costs pase_costs(const pase_model *model);

#endif
