/* search.h: the search for a per-layer parallel strategy, by PaSE's dynamic programme.
 *
 * A workload becomes a graph (sr_graph) whose vertices are its operations (a layer, or one of
 * the two reshapes PaSE puts in front of a fully connected layer fed by an image) and whose
 * edges are the tensors between them. A vertex has an iteration space and its candidate
 * configurations: how many ways each dimension is split (sr_config). The search (sr_solve)
 * gives every vertex one configuration so that
 *
 *     sum over vertices t_l(v, c_v)  +  sum over edges t_x(u, v, c_u, c_v)
 *
 * is least, exactly, by variable elimination in PaSE's vertex order (Elango, "Efficient
 * Parallelization Strategies for DNN training", IPDPS 2021): take the vertex whose dependent set
 * is smallest (ties: lowest id), minimise it out for every configuration of its dependent set,
 * keep the table and the argmin; walk back to read the strategy. On a chain (AlexNet, VGG) that is
 * the layer-by-layer DP; a residual or inception block leaves tables over two vertices.
 *
 * The costs come from a provider (sr_costs, callbacks with a context), so that PaSE's own model
 * (pase_cost.h) and hybridsim's analytic model drive the same search.
 *
 * Folder: analytic/search/ (this is its main header): per-layer strategy search (sr_) and PaSE's
 * cost model (pase_cost.h, pase_). May include workloads/ (with strategy/ and common/) and
 * platforms/; nothing of sim/, nor analytic/'s ParaDL model: other cost models plug in through
 * sr_costs where both are visible. */
#ifndef SEARCH_H
#define SEARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hs_error.h"
#include "workload.h"

#define SR_MAX_AXES 5       /* tensor axes: (b, c, h, w, d) for volumes */
#define SR_NAME_LEN (WL_NAME_LEN + 12)

typedef enum {
    SR_CONV,      /* convolution (with the ReLUs that follow it: pw) */
    SR_FC,        /* fully connected, on a (batch, features) tensor */
    SR_POOL,      /* max or average pooling */
    SR_BNORM,     /* batch normalisation */
    SR_ADD,       /* residual sum */
    SR_CONCAT,    /* channel concatenation */
    SR_MEAN,      /* global average pooling: a pool whose window is its whole input */
    SR_SOFTMAX,   /* softmax with its cross-entropy loss */
    SR_RAVEL,     /* image tensor -> one flat axis (inserted before an fc fed by an image) */
    SR_UNRAVEL,   /* flat axis -> (batch, features) */
    SR_EMBED,     /* embedding lookup of a sequence's tokens (PaSE: an Einsum of the one-hot
                   * tokens by the table) */
    SR_LSTM,      /* stacked LSTM over a sequence, all steps and layers one vertex (PaSE's) */
    SR_LNORM,     /* layer normalisation over the channels of a sequence (PaSE's Norm, axis -1) */
    /* PaSE's attention ops, on the tensors of its Einsums (iteration space in slots): */
    SR_EINSUM,    /* a product: batch, m, n and reduced dims (attention's projections, Q K^T,
                   * A V; a 1x1 conv or a matmul of the workload) */
    SR_UNSTACK,   /* (s, b, h, l, k) -> s tensors (b, h, l, k): the q, k, v moves */
    SR_STACK,     /* s sequences -> (s, b, l, e): a concat feeding a grouped projection */
    SR_ATTN,      /* softmax over the last dim of attention's scores (b, h, l, m) */
    SR_OP_COUNT
} sr_op;

/* How many ways each dimension of a vertex's iteration space is split (a configuration; 1:
 * not split), or, in sr_vertex.dom, the extents themselves. A dimension an op lacks is 1. */
typedef struct {
    int64_t b;      /* batch */
    int64_t f;      /* output channels: convolution filters, fully connected outputs */
    int64_t c;      /* input channels (what conv and fc reduce over); the one channel axis of
                     * layers without weights; the classes of a softmax */
    int64_t h;      /* output height */
    int64_t w;      /* output width */
    int64_t d;      /* output depth (volumes); an lstm's stacked layers */
    int64_t kh;     /* filter window height (PaSE's r); a split needs a kernel >= 2 x cutoff */
    int64_t kw;     /* filter window width (PaSE's s) */
} sr_config;

typedef struct {
    sr_op op;
    int layer;             /* workload layer it stands for (ravel/unravel: the fc they feed) */
    char name[SR_NAME_LEN];/* the layer's name; "FC6:ravel", "FC6:unravel" for the reshapes */
    sr_config dom;         /* iteration space: conv (b, f, c, h, w, d, kh, kw) with h, w, d
                            * the output extents; fc (b, f, c = inputs); pool (b, c, h, w, d)
                            * output; bnorm/add/mean/ravel the input tensor; concat the same
                            * with c = 1 (never split); softmax (b, c); unravel (b, c).
                            * Sequences (a tensor (b, c, 1, w): w positions of c values): fc
                            * (b, w, f, c) at every position; softmax (b, c = classes, w);
                            * embed (b, w, f = width, c = vocabulary); lstm (b, w, f = units,
                            * c = inputs, d = layers), w never split (the steps are serial) */
    int n_axes;            /* axes of the tensors it reads: 4 or 5 (images, volumes, and
                            * sequences, h = 1), 2 (b, c) */
    int pw;                /* point-wise ops folded in: ReLUs right after a conv, fc or add */
    bool sequence;         /* a sequence op (b, c, 1, w): PaSE's tuple is (b, w, c) */
    char dims[9];          /* in a sequence graph: the letters of PaSE's tuple (sr_tuple), e.g.
                            * "sbhlke" for attention's q, k, v projection; "" otherwise */
    int n_slots;           /* PaSE's attention ops (SR_EINSUM .. SR_ATTN): the iteration space
                            * is dom's first n_slots fields in sr_config order (b, f, c, h, w, d,
                            * kh, kw; sr_slot), PaSE's order; 0 for the other ops */
    int8_t in_map[3][SR_MAX_AXES]; /* n_slots > 0: per axis of input i's tensor, the slot that
                            * splits it (-1: none); inputs past the second use the second's */
    int8_t out_map[SR_MAX_AXES];   /* n_slots > 0: the same for its output */
    unsigned batch_dims, m_dims, n_dims, k_dims; /* einsum: slot bit sets of the GEMM */
    int batch_slot;        /* n_slots > 0: the slot of the samples */
    int axis;              /* attn: the slot normalised over */
    int64_t in_h, in_w, in_d; /* pool: input extents (PaSE prices halos on the input) */
    int64_t win_h, win_w;  /* pool: window */
    sr_config *configs;    /* candidates, in ascending order of PaSE's tuple for the op (its
                            * dimension order, below): ties in the search go to the first */
    int n_configs;
} sr_vertex;

typedef struct {
    int u, v;                     /* producer and consumer vertex */
    int input;                    /* which input of v's layer the tensor is */
    int n_axes;                   /* 1 (flat), 2 (b, c) or 4/5 (b, c, h, w(, d)) */
    int64_t shape[SR_MAX_AXES];   /* the whole tensor, batch included */
} sr_edge;

typedef struct {
    sr_vertex *v;
    int n_vertices;
    sr_edge *e;
    int n_edges;
    int *vertex_of_layer;  /* per workload layer: the vertex whose configuration it follows (a
                            * relu, dropout or lrn follows its producer); -1: the input data */
    int n_layers;
    int n_spatial;         /* 2 (images) or 3 (volumes) */
    bool sequence;         /* the workload reads token ids (its first layer is an embed): a
                            * 1x1 convolution over positions is an fc at every position */
    int64_t batch;         /* B, the global mini-batch */
    int devices;           /* p: no configuration uses more */
} sr_graph;

/* Which configurations are candidates. */
typedef struct {
    int devices;          /* p: the product of a configuration's splits is at most p */
    int64_t cutoff;       /* a split dimension keeps at least this many elements per device:
                           * every divisor e of an extent n with n / e >= cutoff (PaSE: 4) */
    bool conv_spatial;    /* split convolutions over h, w, d (PaSE: no) */
    bool kernel_splits;   /* split a convolution's window (PaSE: yes, where the cutoff allows) */
} sr_options;

/* Whether wl is a sequence model: its first layer is an embed (reads token ids). */
bool sr_is_sequence(const wl_workload *wl);

/* Build the graph of wl at global batch `batch`: one vertex per conv, fc, pool, bnorm, add,
 * concat, softmax, embed and lstm layer in file order (the id order PaSE's ordering breaks ties
 * by), a ravel and an unravel before an fc fed by an image tensor; in a sequence model PaSE's
 * attention ops (one unstack for the three moves of q, k and v); relu, dropout and lrn are not
 * vertices (a relu right after a conv, fc or add adds 1 to its pw; in a sequence model a dropout
 * after an fc too). The inputs after the first of an add with
 * shortcut="projection" get no edge: the omitted projection takes any layout at no cost. Fails
 * (HS_EINPUT, naming the layer) on what the search cannot represent; free with sr_graph_free. */
int sr_graph_build(const wl_workload *wl, int64_t batch, const sr_options *opt, sr_graph *g,
                   char *err);
void sr_graph_free(sr_graph *g);

const char *sr_op_name(sr_op op);

/* Candidate configurations of vertex v under opt (sr_graph_build calls it for every vertex):
 * per dimension every divisor allowed by the cutoff, all combinations whose product is at most
 * opt->devices, in ascending lexicographic order of the op's tuple: conv (b, c, h, w, d, kh, kw,
 * f), fc (b, f, c), the others their dom's (b, c, h, w, d); ravel and unravel only "contiguous"
 * splits (PaSE: leading dimensions first; at cutoff > 1 the batch only). */
int sr_configs(sr_vertex *v, const sr_options *opt, char *err);

/* The product of a configuration's splits: how many devices it uses. */
int64_t sr_devices(const sr_config *c);

/* Configuration c of v as PaSE writes it: the splits in its op's order (the order candidates
 * are enumerated in: conv (b, c, h, w, kh, kw, f), fc (b, f, c), a sequence's fc (b, w, f, c),
 * lstm (d, w, b, f, c), attention's ops their slots, the others their tensor's axes); returns
 * how many. */
int sr_tuple(const sr_vertex *v, const sr_config *c, int64_t t[8]);

/* Slot i (0..7) of c: its fields in declaration order (b, f, c, h, w, d, kh, kw). */
int64_t sr_slot(const sr_config *c, int i);

/* How configuration c of vertex v splits the tensor of its input `input` (sr_in_split) or the
 * tensor it produces (sr_out_split), axis by axis on the edge's axes. */
void sr_in_split(const sr_vertex *v, int input, const sr_config *c, int64_t split[SR_MAX_AXES]);
void sr_out_split(const sr_vertex *v, const sr_config *c, int64_t split[SR_MAX_AXES]);

/* ---------------------------------------------------------------------- the search */

#define SR_EDGE_KEY_WORDS 12 /* an edge key's words (sr_costs.edge_key) */

/* The costs a search minimises, in one unit of the provider's choosing. Each callback returns
 * HS_OK or a status with a message in err; a cost of INFINITY forbids the choice. */
typedef struct {
    /* t_l: vertex v under configuration c (computation and the communication inside it). */
    int (*vertex)(void *ctx, const sr_graph *g, int v, const sr_config *c, double *cost,
                  char *err);
    /* t_x: edge e's tensor redistributed from its producer under cu to its consumer under cv. */
    int (*edge)(void *ctx, const sr_graph *g, int e, const sr_config *cu, const sr_config *cv,
                double *cost, char *err);
    /* Optional (NULL: all fit): whether v may run under c, e.g. its memory fits the GPU. A
     * refused configuration is dropped before the search. */
    int (*fits)(void *ctx, const sr_graph *g, int v, const sr_config *c, bool *ok, char *err);
    /* Optional (NULL: every pair priced): what configuration c of edge e's producer (side 0)
     * or consumer (side 1) shows the edge, into key (zeroed before the call). Configurations
     * with equal keys must cost the same on e whatever the other end's: the search then
     * prices each pair of keys once (most configurations differ in splits that the tensor
     * between two layers does not see). */
    int (*edge_key)(void *ctx, const sr_graph *g, int e, int side, const sr_config *c,
                    int64_t key[SR_EDGE_KEY_WORDS], char *err);
    /* Optional, with edge_key (NULL: edge is called): edge e's cost from its ends' keys alone,
     * what edge gives for any configurations with those keys, so that a provider whose keys
     * hold what it prices from need not remake it pair by pair. */
    int (*edge_keyed)(void *ctx, const sr_graph *g, int e, const int64_t key_u[SR_EDGE_KEY_WORDS],
                      const int64_t key_v[SR_EDGE_KEY_WORDS], double *cost, char *err);
    void *ctx;
} sr_costs;

/* What a search found, and what it took. */
typedef struct {
    int *choice;              /* per vertex: index of its configuration in configs */
    double total;             /* the least sum of vertex and edge costs */
    int *order;               /* the elimination order (vertex ids) */
    int largest_dependent_set;/* vertices a table was keyed by, at most */
    int64_t largest_table;    /* entries of the largest table built (the product of the
                               * candidate counts of a dependent set) */
    int64_t rows;             /* table rows evaluated: sum over vertices of candidates x the
                               * entries of its table, the work of the search */
    int64_t peak_bytes;       /* tables (costs and argmins) alive at once, at most */
    int refused;              /* configurations the fits callback dropped */
} sr_result;

/* The default bound on one table's entries (8 + 4 bytes each). */
#define SR_MAX_TABLE_DEFAULT (INT64_C(1) << 26)

/* PaSE's elimination order of g's vertices into order[n_vertices]: repeatedly the vertex with
 * the smallest dependent set (initially its neighbours; eliminating v merges D(v) into the
 * dependent sets of its members), ties to the lowest id. */
int sr_order(const sr_graph *g, int *order, char *err);

/* The optimal assignment of g under costs. A table whose entries would exceed max_table (0:
 * SR_MAX_TABLE_DEFAULT) fails with HS_EINPUT naming the vertex, as does a vertex left with no
 * configuration that fits, or nothing of finite cost. Free res with sr_result_free. */
int sr_solve(const sr_graph *g, const sr_costs *costs, int64_t max_table, sr_result *res,
             char *err);
void sr_result_free(sr_result *res);

/* Price a given assignment (choice[v] indexes v's configs): each vertex's cost into
 * vertex_cost[n_vertices], each edge's into edge_cost[n_edges] (either may be NULL), the sum,
 * vertices in id order then edges in order, into *total. */
int sr_price(const sr_graph *g, const sr_costs *costs, const int *choice, double *vertex_cost,
             double *edge_cost, double *total, char *err);

/* A searched strategy with what each part costs, for printing (search_report.c). */
typedef struct {
    const wl_workload *wl;
    const sr_graph *g;
    const sr_result *res;
    const char *cost_model;  /* its name, as the report says it ("pase") */
    double r;                /* FLOP-equivalents per word sent (PaSE's model) */
    double seconds;          /* the search's wall time */
    double *vertex_cost;     /* per vertex (sr_report_price) */
    double *edge_cost;       /* per edge */
    double *in_cost;         /* per vertex: the edges into it */
} sr_report;

/* rp's costs by sr_price under costs (free with sr_report_free; freed on failure). */
int sr_report_price(sr_report *rp, const sr_costs *costs, char *err);
void sr_report_free(sr_report *rp);

/* rp as a table (each vertex's configuration, cost and redistribution in, the total, what the
 * search did) or as one JSON object. */
void sr_print_table(FILE *out, const sr_report *rp);
void sr_print_json(FILE *out, const sr_report *rp);

#endif
