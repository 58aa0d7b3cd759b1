/* search_minimise.c: the minimisation at the heart of one elimination (search_solve_int.h),
 * where the search spends its time: for every assignment of v's dependent set, the least sum
 * of the factors over v's candidates.
 *
 * Done naively that is (entries x candidates x factors) reads, strided. Two things make it
 * several times cheaper without changing a bit of the answer:
 *
 * - Split the dependent set into one "inner" vertex t and the others ("outer"). The factors
 *   before the first one that mentions t are the same for every candidate of t: their prefix
 *   sum P(c_v) is made once per outer assignment, in the same order of additions, and the
 *   factors after (the suffix) are copied with c_v contiguous.
 * - Visit v's candidates in ascending P and stop as soon as P plus a lower bound of the suffix
 *   (each suffix factor's least entry on the row at hand) exceeds the best sum found: rounded
 *   addition is monotonic, so that bound, added in the same order, is never above the sum it
 *   bounds, and no later candidate can reach the best. Ties still go to the lowest candidate.
 *   With one suffix factor (the usual case: the edge to t), the bound is Fagin's threshold:
 *   v's candidates are walked by ascending P and by ascending entry of the row together
 *   (scan_two), which stops far sooner; and a row equal to one already scanned under the same
 *   prefix is not scanned again.
 *
 * A factor holding NaN or -INFINITY (which would break the monotonic argument) takes the
 * plain path, as does a vertex with an empty dependent set. */
#include "search_solve_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* f's stride for vertex v (0 when f does not mention v). */
static int64_t stride_of(const sr__factor *f, const int *n_cand, int v)
{
    int64_t stride = 1;
    for (int i = 0; i < f->n; i++) {
        if (f->vars[i] == v)
            return stride;
        stride *= n_cand[f->vars[i]];
    }
    return 0;
}

/* ------------------------------------------------------------------- the plain path */

/* Where each factor's entry for the current assignment is, and how it moves. */
typedef struct {
    const double *table;
    int64_t base;                   /* entry for the current assignment of the scope, c_v = 0 */
    int64_t v_stride;               /* + this per candidate of v */
    int64_t stride[SR__MAX_SCOPE];  /* + this per step of scope position i (0: not mentioned) */
} cursor;

/* The least sum over v's candidates under the cursors' assignment, and the first argmin. */
static double least(const cursor *cur, int k, int nv, int32_t *arg)
{
    double best = 0.0;
    for (int x = 0; x < nv; x++) {
        double sum = 0.0;
        for (int j = 0; j < k; j++)
            sum += cur[j].table[cur[j].base + x * cur[j].v_stride];
        if (x == 0 || sum < best) {
            best = sum;
            *arg = x;
        }
    }
    return best;
}

/* Next assignment of the scope (an odometer, position 0 fastest), moving the cursors. */
static void advance(const int *n_cand, const sr__back *scope, int *digit, cursor *cur, int k)
{
    for (int i = 0; i < scope->n; i++) {
        int64_t n = n_cand[scope->vars[i]];
        for (int j = 0; j < k; j++)
            cur[j].base += cur[j].stride[i];
        if (++digit[i] < n)
            return;
        for (int j = 0; j < k; j++)
            cur[j].base -= cur[j].stride[i] * n;
        digit[i] = 0;
    }
}

int sr__minimise_plain(const sr__factor *const *f, int k, int v, const int *n_cand,
                       const sr__back *scope, int64_t size, double *out, char *err)
{
    cursor *cur = calloc((size_t)k, sizeof *cur);
    if (!cur)
        return hs_fail(err, HS_EINTERNAL, "search: out of memory");
    for (int j = 0; j < k; j++) {
        cur[j].table = f[j]->table;
        cur[j].v_stride = stride_of(f[j], n_cand, v);
        for (int i = 0; i < scope->n; i++)
            cur[j].stride[i] = stride_of(f[j], n_cand, scope->vars[i]);
    }
    int digit[SR__MAX_SCOPE] = {0};
    for (int64_t a = 0; a < size; a++) {
        out[a] = least(cur, k, n_cand[v], &scope->argmin[a]);
        advance(n_cand, scope, digit, cur, k);
    }
    free(cur);
    return HS_OK;
}

/* ------------------------------------------------------------------- the split path */

/* A suffix factor with v's candidates contiguous: row r (its other vertices' digits, their
 * strides in row_stride) holds entries rows[r * nv + c_v]; low[r] is the row's least. */
typedef struct {
    double *rows;
    double *low;
    int64_t *same;                     /* per row: the first row holding the same entries */
    int64_t n_rows;
    int64_t row_stride[SR__MAX_SCOPE]; /* per scope position: + this per step (0: absent) */
} suffix;

/* A candidate of v and its prefix sum, the order candidates are visited in. */
typedef struct {
    double p;
    int32_t x;
} visit;

/* vis[0..n) by ascending prefix, in place (the scans need the prefixes ascending; the order
 * of equal ones does not matter, ties being broken by candidate): a quicksort on the median
 * of three, insertion below 16, the smaller side first so the stack stays shallow. */
static void sort_visits(visit *vis, int n)
{
    while (n > 16) {
        visit *a = &vis[0], *b = &vis[n / 2], *c = &vis[n - 1], t;
        double pivot = a->p < b->p ? (b->p < c->p ? b->p : (a->p < c->p ? c->p : a->p))
                                   : (a->p < c->p ? a->p : (b->p < c->p ? c->p : b->p));
        int i = 0, j = n - 1;
        while (i <= j) { /* Hoare: [0, i) <= pivot <= (j, n) */
            while (vis[i].p < pivot)
                i++;
            while (pivot < vis[j].p)
                j--;
            if (i <= j)
                t = vis[i], vis[i++] = vis[j], vis[j--] = t;
        }
        if (j + 1 < n - i) { /* recurse into the smaller part, loop on the larger */
            sort_visits(vis, j + 1);
            vis += i, n -= i;
        } else {
            sort_visits(vis + i, n - i);
            n = j + 1;
        }
    }
    for (int i = 1; i < n; i++) {
        visit t = vis[i];
        int j = i;
        while (j > 0 && t.p < vis[j - 1].p)
            vis[j] = vis[j - 1], j--;
        vis[j] = t;
    }
}

/* Whether every entry is a number above -infinity (the bound's monotonic argument). */
static bool orderly(const sr__factor *const *f, int k)
{
    for (int j = 0; j < k; j++)
        for (int64_t e = 0; e < f[j]->size; e++)
            if (isnan(f[j]->table[e]) || f[j]->table[e] == -INFINITY)
                return false;
    return true;
}

/* The scope position to keep inner: the one whose vertex the factors mention first the
 * latest, so the prefix is longest (ties: the one with more candidates); *first gets where
 * the suffix starts. */
static int inner_position(const sr__factor *const *f, int k, const int *n_cand,
                          const sr__back *scope, int *first)
{
    int best = 0;
    *first = -1; /* stride_of is 0 for a vertex a factor lacks, never for one it has */
    for (int i = 0; i < scope->n; i++) {
        int j = 0;
        while (j < k && stride_of(f[j], n_cand, scope->vars[i]) == 0)
            j++;
        if (j > *first || (j == *first && n_cand[scope->vars[i]] > n_cand[scope->vars[best]]))
            best = i, *first = j;
    }
    return best;
}

/* A row's entries, bit for bit, hashed (FNV-1a over the words). */
static uint64_t row_hash(const double *row, int64_t n)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (int64_t x = 0; x < n; x++) {
        uint64_t w;
        memcpy(&w, &row[x], sizeof w);
        h = (h ^ w) * UINT64_C(1099511628211);
    }
    return h;
}

/* A row and its hash, sorted to find equal rows. */
typedef struct {
    uint64_t h;
    int64_t r;
} hashed;

static int by_hash(const void *a, const void *b)
{
    const hashed *u = a, *w = b;
    if (u->h != w->h)
        return u->h < w->h ? -1 : 1;
    return (u->r > w->r) - (u->r < w->r);
}

/* s->same: each row's first row with the same entries (itself when none before), so that a
 * scan of equal rows under one prefix is made once. */
static int same_rows(suffix *s, int64_t nv)
{
    hashed *hr = malloc((size_t)s->n_rows * sizeof *hr);
    s->same = malloc((size_t)s->n_rows * sizeof *s->same);
    if (!hr || !s->same) {
        free(hr);
        return HS_EINTERNAL;
    }
    for (int64_t r = 0; r < s->n_rows; r++)
        hr[r] = (hashed){row_hash(s->rows + r * nv, nv), r};
    qsort(hr, (size_t)s->n_rows, sizeof *hr, by_hash);
    for (int64_t i = 0, run = 0; i < s->n_rows; i++) {
        if (i > 0 && hr[i].h != hr[i - 1].h)
            run = i; /* rows of one hash from run on, ascending */
        int64_t r = hr[i].r, j = run;
        while (j < i && memcmp(s->rows + hr[j].r * nv, s->rows + r * nv,
                               (size_t)nv * sizeof *s->rows) != 0)
            j++;
        s->same[r] = j < i ? s->same[hr[j].r] : r;
    }
    free(hr);
    return HS_OK;
}

/* Factor f copied with v's candidates contiguous, and its rows' least entries. */
static int transpose(const sr__factor *f, int v, const int *n_cand, const sr__back *scope,
                     suffix *s)
{
    int64_t nv = n_cand[v], sv = stride_of(f, n_cand, v), n_rows = f->size / nv;
    s->n_rows = n_rows;
    s->rows = malloc((size_t)f->size * sizeof *s->rows);
    s->low = malloc((size_t)n_rows * sizeof *s->low);
    if (!s->rows || !s->low)
        return HS_EINTERNAL;
    const double *from = f->table; /* e = lo + x * sv + hi * sv * nv: row lo + hi * sv */
    for (int64_t hi = 0; hi < f->size / (sv * nv); hi++)
        for (int64_t x = 0; x < nv; x++)
            for (int64_t lo = 0; lo < sv; lo++)
                s->rows[(lo + hi * sv) * nv + x] = *from++;
    for (int64_t r = 0; r < n_rows; r++) {
        double low = s->rows[r * nv];
        for (int64_t x = 1; x < nv; x++)
            low = s->rows[r * nv + x] < low ? s->rows[r * nv + x] : low;
        s->low[r] = low;
    }
    for (int i = 0; i < scope->n; i++) {
        int64_t st = stride_of(f, n_cand, scope->vars[i]);
        s->row_stride[i] = st > sv ? st / nv : st;
    }
    return same_rows(s, nv);
}

/* The least sum over the visits (ascending prefix) of prefix + the suffix rows, and the first
 * candidate that gives it; stops when the bound passes the best. */
static double scan(const visit *vis, int nv, const double *const *row, const double *low,
                   int ns, int32_t *arg)
{
    double best = 0.0;
    int32_t at = -1;
    for (int i = 0; i < nv; i++) {
        double bound = vis[i].p, sum = vis[i].p;
        for (int j = 0; j < ns; j++)
            bound += low[j];
        if (at >= 0 && bound > best)
            break;
        int32_t x = vis[i].x;
        for (int j = 0; j < ns; j++)
            sum += row[j][x];
        if (at < 0 || sum < best || (sum == best && x < at))
            best = sum, at = x;
    }
    *arg = at;
    return best;
}

#define TOP 32 /* a row's least entries kept in order for scan_two */

/* scan for one suffix row, by Fagin's threshold: v's candidates walked by ascending prefix
 * and by ascending entry (top: the row's n_top least, ascending) together. At depth i, a
 * candidate not yet met has a prefix >= the i-th least and an entry >= the i-th least (past
 * n_top: the n_top-th), so (rounded addition being monotonic) a sum >= theirs: once that
 * passes the best found, nothing unmet can reach it. p_of: the prefix sums by candidate. */
static double scan_two(const visit *vis, const double *p_of, int nv, const double *row,
                       const int32_t *top, int n_top, int32_t *arg)
{
    double best = 0.0;
    int32_t at = -1;
    for (int i = 0; i < nv; i++) {
        double bound = vis[i].p + row[top[i < n_top ? i : n_top - 1]];
        if (at >= 0 && bound > best)
            break;
        int32_t x = vis[i].x;
        double sum = vis[i].p + row[x];
        if (at < 0 || sum < best || (sum == best && x < at))
            best = sum, at = x;
        if (i < n_top) {
            x = top[i];
            sum = p_of[x] + row[x];
            if (sum < best || (sum == best && x < at))
                best = sum, at = x;
        }
    }
    *arg = at;
    return best;
}

/* The n least entries of row (of nv), ascending, into top (an insertion into a short list:
 * n is small). */
static void least_entries(const double *row, int nv, int n, int32_t *top)
{
    int have = 0;
    for (int32_t x = 0; x < nv; x++) {
        if (have == n && !(row[x] < row[top[n - 1]]))
            continue;
        int i = have < n ? have++ : n - 1;
        while (i > 0 && row[top[i - 1]] > row[x]) {
            top[i] = top[i - 1];
            i--;
        }
        top[i] = x;
    }
}

/* The split path's state: the prefix factors' strides, the suffix copies, the visits. */
typedef struct {
    int ks, ns;                     /* prefix factors, suffix factors */
    int ti;                         /* the inner scope position */
    int64_t (*pre)[SR__MAX_SCOPE + 1]; /* per prefix factor: strides per scope position, then
                                     * v's */
    suffix *suf;
    int64_t step;                   /* outer assignments done */
    int64_t *seen;                  /* one suffix: per row, the step its scan was made in */
    double *seen_best;              /* ... and what it gave */
    int32_t *seen_arg;
    visit *vis;
    double *p_of;                   /* the prefix sums by candidate of v */
    int32_t *top;                   /* one suffix: per row, its least entries (TOP a row) */
    bool *topped;                   /* per row: top made */
    const double **row;
    double *low;
} split;

static void free_split(split *sp)
{
    for (int j = 0; sp->suf && j < sp->ns; j++)
        free(sp->suf[j].rows), free(sp->suf[j].low), free(sp->suf[j].same);
    free(sp->seen);
    free(sp->seen_best);
    free(sp->seen_arg);
    free(sp->pre);
    free(sp->suf);
    free(sp->vis);
    free(sp->p_of);
    free(sp->top);
    free(sp->topped);
    free(sp->row);
    free(sp->low);
}

static int make_split(const sr__factor *const *f, int k, int v, const int *n_cand,
                      const sr__back *scope, split *sp)
{
    int nv = n_cand[v];
    sp->ti = inner_position(f, k, n_cand, scope, &sp->ks);
    sp->ns = k - sp->ks;
    sp->pre = calloc((size_t)sp->ks + 1, sizeof *sp->pre);
    sp->suf = calloc((size_t)sp->ns, sizeof *sp->suf);
    sp->vis = malloc((size_t)nv * sizeof *sp->vis);
    sp->p_of = malloc((size_t)nv * sizeof *sp->p_of);
    if (!sp->p_of)
        return HS_EINTERNAL;
    sp->row = malloc((size_t)sp->ns * sizeof *sp->row);
    sp->low = malloc((size_t)sp->ns * sizeof *sp->low);
    if (!sp->pre || !sp->suf || !sp->vis || !sp->row || !sp->low)
        return HS_EINTERNAL;
    for (int j = 0; j < sp->ks; j++) {
        for (int i = 0; i < scope->n; i++)
            sp->pre[j][i] = stride_of(f[j], n_cand, scope->vars[i]);
        sp->pre[j][SR__MAX_SCOPE] = stride_of(f[j], n_cand, v);
    }
    for (int j = 0; j < sp->ns; j++)
        if (transpose(f[sp->ks + j], v, n_cand, scope, &sp->suf[j]) != HS_OK)
            return HS_EINTERNAL;
    if (sp->ns == 1) {
        int64_t n = sp->suf[0].n_rows;
        sp->seen = malloc((size_t)n * sizeof *sp->seen);
        sp->seen_best = malloc((size_t)n * sizeof *sp->seen_best);
        sp->seen_arg = malloc((size_t)n * sizeof *sp->seen_arg);
        sp->top = malloc((size_t)n * TOP * sizeof *sp->top);
        sp->topped = calloc((size_t)n, sizeof *sp->topped);
        if (!sp->seen || !sp->seen_best || !sp->seen_arg || !sp->top || !sp->topped)
            return HS_EINTERNAL;
        for (int64_t r = 0; r < n; r++)
            sp->seen[r] = -1;
    }
    return HS_OK;
}

/* The one suffix's row r scanned under the current prefix (its least entries found first if
 * not yet). */
static void scan_row(split *sp, int64_t r, int nv)
{
    const double *row = sp->suf[0].rows + r * nv;
    int n_top = nv < TOP ? nv : TOP;
    if (!sp->topped[r])
        least_entries(row, nv, n_top, sp->top + r * TOP), sp->topped[r] = true;
    sp->seen[r] = sp->step;
    sp->seen_best[r] = scan_two(sp->vis, sp->p_of, nv, row, sp->top + r * TOP, n_top,
                                &sp->seen_arg[r]);
}

/* One outer assignment (digit[], the inner position's digit 0): the prefix sums, sorted, then
 * every candidate of the inner vertex. */
static void outer_step(const sr__factor *const *f, split *sp, int nv, int nt,
                       const sr__back *scope, const int *digit, double *out)
{
    int64_t at = 0;
    for (int i = 0; i < scope->n; i++)
        at += digit[i] * scope->stride[i];
    for (int x = 0; x < nv; x++)
        sp->vis[x] = (visit){0.0, x};
    for (int j = 0; j < sp->ks; j++) { /* the same additions, in the same order, as plain */
        int64_t base = 0, vs = sp->pre[j][SR__MAX_SCOPE];
        for (int i = 0; i < scope->n; i++)
            base += digit[i] * sp->pre[j][i];
        for (int x = 0; x < nv; x++)
            sp->vis[x].p += f[j]->table[base + x * vs];
    }
    for (int x = 0; x < nv; x++)
        sp->p_of[x] = sp->vis[x].p;
    sort_visits(sp->vis, nv);
    int64_t row[SR__MAX_SCOPE];
    for (int j = 0; j < sp->ns; j++) {
        row[j] = 0;
        for (int i = 0; i < scope->n; i++)
            row[j] += digit[i] * sp->suf[j].row_stride[i];
    }
    for (int d = 0; d < nt; d++, at += scope->stride[sp->ti]) {
        if (sp->ns == 1) { /* a row equal to one scanned under this prefix gives the same */
            int64_t r = sp->suf[0].same[row[0] + d * sp->suf[0].row_stride[sp->ti]];
            if (sp->seen[r] != sp->step)
                scan_row(sp, r, nv);
            out[at] = sp->seen_best[r];
            scope->argmin[at] = sp->seen_arg[r];
            continue;
        }
        for (int j = 0; j < sp->ns; j++) {
            int64_t r = row[j] + d * sp->suf[j].row_stride[sp->ti];
            sp->row[j] = sp->suf[j].rows + r * nv;
            sp->low[j] = sp->suf[j].low[r];
        }
        out[at] = scan(sp->vis, nv, sp->row, sp->low, sp->ns, &scope->argmin[at]);
    }
}

int sr__minimise(const sr__factor *const *f, int k, int v, const int *n_cand,
                 const sr__back *scope, int64_t size, double *out, char *err)
{
    if (scope->n == 0 || k > SR__MAX_SCOPE || !orderly(f, k))
        return sr__minimise_plain(f, k, v, n_cand, scope, size, out, err);
    split sp = {0};
    int status = make_split(f, k, v, n_cand, scope, &sp);
    if (status != HS_OK) {
        free_split(&sp);
        return hs_fail(err, HS_EINTERNAL, "search: out of memory");
    }
    int digit[SR__MAX_SCOPE] = {0}, nt = n_cand[scope->vars[sp.ti]];
    for (int64_t done = 0; done < size; done += nt) {
        outer_step(f, &sp, n_cand[v], nt, scope, digit, out);
        sp.step++;
        for (int i = 0; i < scope->n; i++) { /* next outer assignment: an odometer */
            if (i == sp.ti)
                continue;
            if (++digit[i] < n_cand[scope->vars[i]])
                break;
            digit[i] = 0;
        }
    }
    free_split(&sp);
    return HS_OK;
}
