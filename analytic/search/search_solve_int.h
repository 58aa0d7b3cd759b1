/* search_solve_int.h: what the search's two files share (search_solve.c, the elimination and
 * its bookkeeping; search_minimise.c, the minimisation at the heart of one elimination): the
 * tables it keeps and the one step between them. Private to analytic/search (sr__ prefix). */
#ifndef SEARCH_SOLVE_INT_H
#define SEARCH_SOLVE_INT_H

#include "search.h"

#define SR__MAX_SCOPE 16 /* vertices a table may be keyed by (2 in ResNet, 3 in Transformer) */

/* A table over the candidates of a few vertices: entry index = sum of idx(vars[i]) x stride
 * with stride(vars[0]) = 1 and each next stride the previous times its vertex's candidates. */
typedef struct {
    int n;                       /* vertices it is over */
    int vars[SR__MAX_SCOPE];     /* which, ascending for made ones */
    double *table;
    int64_t size;                /* entries */
} sr__factor;

/* What v's elimination left for the walk back. */
typedef struct {
    int n;
    int vars[SR__MAX_SCOPE];     /* v's dependent set */
    int64_t stride[SR__MAX_SCOPE];
    int32_t *argmin;             /* per assignment of vars: the best candidate of v */
} sr__back;

/* Minimise v out of the sum of the k factors f[0..k-1] (each mentions v): for every
 * assignment of scope's vertices (size entries, indexed by scope's strides), out gets
 *
 *     min over c_v of  (((0 + f[0]) + f[1]) + ... + f[k-1])
 *
 * added in exactly that order, and scope->argmin the first c_v that gives it (the lowest
 * candidate on a tie). n_cand: candidates per vertex. HS_OK, or HS_EINTERNAL when out of
 * memory (err says so). */
int sr__minimise(const sr__factor *const *f, int k, int v, const int *n_cand,
                 const sr__back *scope, int64_t size, double *out, char *err);

/* The same, candidate by candidate for every assignment (no prefix, no bound): what
 * sr__minimise must equal bit for bit, for the tests. */
int sr__minimise_plain(const sr__factor *const *f, int k, int v, const int *n_cand,
                       const sr__back *scope, int64_t size, double *out, char *err);

#endif
