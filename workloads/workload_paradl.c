/* workload_paradl.c: the ParaDL oracle's own files, read directly.
 *
 * So that the oracle's users can bring their models unchanged, hybridsim reads its two text
 * formats as they are:
 *
 *   model (.net, .net_sc)         layer file (.lc)
 *     Dataset|ImageNet              0 CONV_1 |1        (or "CONV1|1": the index is optional)
 *     Input|1280000x3x226x226       1 BNORM |0
 *     Model|ResNet50                ...
 *     CONV_1|3x226x226|3x64x7x7|64x113x113|0.003119502
 *     # a comment (even "# Fully connected|0")
 *     BNORM|64x113x113|64x64x0x0|64x113x113|0
 *
 * A model line is NAME|x|w|y[|seconds]: per-sample input, weight and output dims (2-D or 3-D),
 * and the measured forward+backward seconds of one sample. The oracle writes the whole
 * network's time on the first layer and 0 (or nothing) on the others; it uses only the sum, so
 * do we. The layer type comes from the name's prefix (CONV, MPOOL, RELU, ...). The files are
 * taken as they are: shapes are not checked against each other (COSMOFLOW.net_256 has a typo
 * the oracle never noticed, and it must load here as it does there). */
#define _POSIX_C_SOURCE 200809L
#include "workload_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_text.h"

/* A text file read line by line, with the line number for messages. */
typedef struct {
    FILE *file;
    const char *path;
    int line_no;              /* 1-based number of the line in buf */
    size_t total_bytes;       /* read so far: bounded by hs_text.h's limit */
    char buf[WL_LINE_LEN];
} line_reader;

/* Read the next line into r->buf (a final line without '\n' counts: the oracle's files end
 * that way). Returns 1 with a line, 0 at the end, -1 (message in err) on an over-long line, a
 * NUL byte, a file past hs_text.h's limit or a read error (a directory). */
static int next_line(line_reader *r, char *err)
{
    return hs_text_line(r->file, r->path, &r->line_no, r->buf, sizeof r->buf, &r->total_bytes,
                        err);
}

/* Split s at every '|' into at most max fields (trimmed); returns the field count, or
 * max + 1 when there are more. */
static int split_fields(char *s, char **field, int max)
{
    int n = 0;
    for (char *p = s;; ) {
        char *bar = strchr(p, '|');
        if (bar)
            *bar = '\0';
        if (n == max)
            return max + 1;
        field[n++] = wl__trim(p);
        if (!bar)
            return n;
        p = bar + 1;
    }
}

/* The oracle decides what a layer is from its name. */
static const struct {
    const char *prefix;
    wl_type type;
} name_prefixes[] = {
    {"CONV", WL_CONV},     {"MPOOL", WL_POOL},      {"APOOL", WL_POOL},
    {"POOL", WL_POOL},     {"RELU", WL_RELU},       {"BNORM", WL_BNORM},
    {"ADD", WL_ADD},       {"FC", WL_FC},           {"DROPOUT", WL_DROPOUT},
    {"SOFTMAX", WL_SOFTMAX}, {"LRN", WL_LRN},       {"CONCAT", WL_CONCAT},
};

static int type_from_name(const char *name, wl_type *type)
{
    for (size_t i = 0; i < sizeof name_prefixes / sizeof name_prefixes[0]; i++)
        if (strncasecmp(name, name_prefixes[i].prefix, strlen(name_prefixes[i].prefix)) == 0) {
            *type = name_prefixes[i].type;
            return 0;
        }
    return -1;
}

/* Parse a non-negative seconds value that must use the whole text. */
static int parse_seconds(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(v >= 0) || v > 1e12)
        return -1;
    *out = v;
    return 0;
}

/* "Input|1280000x3x226x226": dataset size, then the shape of one sample. */
static int parse_input(wl_workload *wl, const char *value, const line_reader *r, char *err)
{
    int64_t d[2 + WL_MAX_SPATIAL];
    int n = wl__parse_dims(value, d, 2 + WL_MAX_SPATIAL);
    const char *after_samples = strchr(value, 'x');
    if (n < 4 || d[0] <= 0 || !after_samples || wl__parse_shape(after_samples + 1, &wl->sample))
        return hs_fail(err, HS_EINPUT,
                       "%s:%d: Input must be SAMPLESxCxWxH or SAMPLESxCxWxHxD with positive "
                       "integers, not '%s'", r->path, r->line_no, value);
    wl->samples = d[0];
    return HS_OK;
}

static int copy_name(char *dst, const char *src, const char *what, const line_reader *r,
                     char *err)
{
    if (strlen(src) >= WL_NAME_LEN)
        return hs_fail(err, HS_EINPUT, "%s:%d: %s '%s' is longer than %d characters", r->path,
                       r->line_no, what, src, WL_NAME_LEN - 1);
    strcpy(dst, src);
    return HS_OK;
}

/* One NAME|x|w|y[|seconds] line: fill l and add its seconds to the workload's total. */
static int parse_layer(wl_workload *wl, wl_layer *l, char **f, int n_fields,
                       const line_reader *r, char *err)
{
    if (!*f[0])
        return hs_fail(err, HS_EINPUT, "%s:%d: layer without a name", r->path, r->line_no);
    if (copy_name(l->name, f[0], "layer name", r, err))
        return HS_EINPUT;
    if (type_from_name(l->name, &l->type))
        return hs_fail(err, HS_EINPUT,
                       "%s:%d: unknown layer type '%s' (the name must start with CONV, MPOOL, "
                       "APOOL, POOL, RELU, BNORM, ADD, FC, DROPOUT, SOFTMAX, LRN or CONCAT)",
                       r->path, r->line_no, l->name);
    if (wl__parse_shape(f[1], &l->x))
        return hs_fail(err, HS_EINPUT, "%s:%d: layer %s: input dims '%s' are not CxWxH(xD) "
                       "with positive integers", r->path, r->line_no, l->name, f[1]);
    if (wl__parse_shape(f[3], &l->y) || l->y.n_spatial != l->x.n_spatial)
        return hs_fail(err, HS_EINPUT, "%s:%d: layer %s: output dims '%s' are not %s with "
                       "positive integers", r->path, r->line_no, l->name, f[3],
                       l->x.n_spatial == 3 ? "FxWxHxD" : "FxWxH");

    int64_t w[WL_MAX_DIMS];
    int n_w = wl__parse_dims(f[2], w, WL_MAX_DIMS);
    if (n_w != 2 + l->x.n_spatial)
        return hs_fail(err, HS_EINPUT, "%s:%d: layer %s: weight dims '%s' are not CxF and %d "
                       "kernel extents (non-negative integers)", r->path, r->line_no, l->name,
                       f[2], l->x.n_spatial);
    l->w_in = w[0];
    l->w_out = w[1];
    for (int i = 2; i < n_w; i++)
        l->w_kernel[i - 2] = w[i];
    /* the oracle's |w|: the product of what the file says */
    if (wl__dims_product(w, n_w, &l->w_elems))
        return hs_fail(err, HS_EINPUT, "%s:%d: layer %s: weight dims '%s' make more than 2^40 "
                       "weights", r->path, r->line_no, l->name, f[2]);

    double seconds = 0;
    if (n_fields == 5 && *f[4] && parse_seconds(f[4], &seconds))
        return hs_fail(err, HS_EINPUT, "%s:%d: layer %s: '%s' is not a time in seconds (>= 0)",
                       r->path, r->line_no, l->name, f[4]);
    wl->sample_time_s += seconds;
    l->split_mask = WL_SPLIT_ALL; /* without a layer file the oracle splits every layer */
    return HS_OK;
}

static int read_model(wl_workload *wl, line_reader *r, char *err)
{
    size_t capacity = 0;
    int got;
    int have_input = 0;
    while ((got = next_line(r, err)) == 1) {
        char *s = wl__trim(r->buf);
        if (*s == '\0' || *s == '#')
            continue;
        char *f[6];
        int n = split_fields(s, f, 5);
        if (n == 2) {
            int rc = HS_OK;
            if (strcasecmp(f[0], "Input") == 0) {
                rc = parse_input(wl, f[1], r, err);
                have_input = 1;
            } else if (strcasecmp(f[0], "Dataset") == 0) {
                rc = copy_name(wl->dataset, f[1], "dataset name", r, err);
            } else if (strcasecmp(f[0], "Model") == 0) {
                rc = copy_name(wl->name, f[1], "model name", r, err);
            } else {
                rc = hs_fail(err, HS_EINPUT, "%s:%d: unknown header '%s' (expected Dataset|, "
                             "Input| or Model|, or a layer NAME|x|w|y|seconds)", r->path,
                             r->line_no, f[0]);
            }
            if (rc)
                return rc;
            continue;
        }
        if (n != 4 && n != 5)
            return hs_fail(err, HS_EINPUT, "%s:%d: expected NAME|x dims|w dims|y dims|seconds "
                           "(4 or 5 fields separated by '|'), found %s%d", r->path, r->line_no,
                           n > 5 ? "more than " : "", n > 5 ? 5 : n);
        wl_layer *l = wl__add_layer(wl, &capacity);
        if (!l)
            return hs_fail(err, HS_EINTERNAL, "%s:%d: out of memory", r->path, r->line_no);
        if (parse_layer(wl, l, f, n, r, err))
            return HS_EINPUT;
        if (have_input && l->x.n_spatial != wl->sample.n_spatial)
            return hs_fail(err, HS_EINPUT, "%s:%d: layer %s is %d-D but Input is %d-D", r->path,
                           r->line_no, l->name, l->x.n_spatial, wl->sample.n_spatial);
    }
    if (got < 0)
        return HS_EINPUT;
    if (!have_input)
        return hs_fail(err, HS_EINPUT, "%s: no Input|SAMPLESxCxWxH line", r->path);
    for (int i = 0; i < wl->n_layers; i++) /* when Input| came after the layers */
        if (wl->layers[i].x.n_spatial != wl->sample.n_spatial)
            return hs_fail(err, HS_EINPUT, "%s: layer %d (%s) is %d-D but Input is %d-D",
                           r->path, i, wl->layers[i].name, wl->layers[i].x.n_spatial,
                           wl->sample.n_spatial);
    return HS_OK;
}

/* The model name when the file has no Model| line: the file name without folder or suffix. */
static void name_from_path(wl_workload *wl)
{
    const char *base = strrchr(wl->path, '/');
    base = base ? base + 1 : wl->path;
    snprintf(wl->name, sizeof wl->name, "%.*s", (int)strcspn(base, "."), base);
}

/* ParaDL files name layers by kind (RELU, BNORM, ... repeat), so a layer's id is its name, and
 * the k-th layer of a repeated name (k >= 2) gets "NAME#k": what a strategy file refers to. */
static int assign_ids(wl_workload *wl, char *err)
{
    for (int i = 0; i < wl->n_layers; i++) {
        wl_layer *l = &wl->layers[i];
        int k = 1;
        for (int j = 0; j < i; j++)
            k += strcmp(wl->layers[j].name, l->name) == 0;
        int n = k == 1 ? snprintf(l->id, sizeof l->id, "%s", l->name)
                       : snprintf(l->id, sizeof l->id, "%s#%d", l->name, k);
        if (n < 0 || (size_t)n >= sizeof l->id)
            return hs_fail(err, HS_EINPUT, "%s: layer %d: the id %s#%d is longer than %d "
                           "characters", wl->path, i, l->name, k, WL_NAME_LEN - 1);
    }
    return HS_OK;
}

int wl__load_paradl(wl_workload *wl, char *err)
{
    line_reader r = {.path = wl->path};
    r.file = fopen(wl->path, "r");
    if (!r.file)
        return hs_fail(err, HS_EINPUT, "%s: cannot open workload: %s", wl->path, strerror(errno));
    int rc = read_model(wl, &r, err);
    fclose(r.file);
    if (rc)
        return rc;
    if (!wl->name[0])
        name_from_path(wl);
    if (assign_ids(wl, err) != HS_OK)
        return HS_EINPUT;
    /* A .net file does not say where its time was measured (the oracle's were on one V100);
     * one without a time column (ALEXNET_ImageNet.net) has no compute time at all. */
    strcpy(wl->device, "unspecified");
    wl->calibration = wl->sample_time_s > 0 ? WL_CAL_MEASURED : WL_CAL_NONE;
    return HS_OK;
}

/* ------------------------------------------------------------------ layer files */

/* One entry "[IDX] NAME|0 or 1" for layer `pos`: sets *mark, or returns HS_EINPUT. */
static int parse_mark(const wl_workload *wl, char *s, int pos, const line_reader *r,
                      unsigned char *mark, char *err)
{
    char *f[3];
    if (split_fields(s, f, 2) != 2)
        return hs_fail(err, HS_EINPUT, "%s:%d: expected [INDEX] NAME|0 or NAME|1", r->path,
                       r->line_no);
    char *name = f[0];
    char *space = strpbrk(name, " \t");
    if (space) { /* "165 FC6": the index must be this entry's position */
        *space = '\0';
        char *end;
        long idx = strtol(name, &end, 10);
        if (end == name || *end || idx != pos)
            return hs_fail(err, HS_EINPUT, "%s:%d: index '%s' should be %d", r->path,
                           r->line_no, name, pos);
        name = wl__trim(space + 1);
    }
    if (pos >= wl->n_layers)
        return hs_fail(err, HS_EINPUT, "%s:%d: more entries than the workload's %d layers",
                       r->path, r->line_no, wl->n_layers);
    if (strcmp(name, wl->layers[pos].name) != 0)
        return hs_fail(err, HS_EINPUT, "%s:%d: entry '%s' does not match layer %d of %s, '%s'",
                       r->path, r->line_no, name, pos, wl->path, wl->layers[pos].name);
    if (strcmp(f[1], "0") != 0 && strcmp(f[1], "1") != 0)
        return hs_fail(err, HS_EINPUT, "%s:%d: layer %s: mark '%s' must be 0 or 1", r->path,
                       r->line_no, name, f[1]);
    *mark = (unsigned char)(f[1][0] - '0');
    return HS_OK;
}

/* The marks are collected first and applied only when the whole file is good, so a bad file
 * leaves the workload as it was. A file with fewer entries than layers is refused: the oracle's
 * own files always list every layer (the ResNet ones look one short to `wc -l` only because
 * their last line has no newline), and silently guessing the missing marks would hide a
 * layer file written for another model. */
int wl_apply_layer_file(wl_workload *wl, const char *path, char *err)
{
    line_reader r = {.path = path};
    if (!*path)
        return hs_fail(err, HS_EINPUT, "-l: no layer file given");
    r.file = fopen(path, "r");
    if (!r.file)
        return hs_fail(err, HS_EINPUT, "-l %s: cannot open the layer file: %s", path,
                       strerror(errno));
    unsigned char *mark = calloc(wl->n_layers ? wl->n_layers : 1, 1);
    if (!mark) {
        fclose(r.file);
        return hs_fail(err, HS_EINTERNAL, "%s: out of memory", path);
    }
    int pos = 0, got, rc = HS_OK;
    while (rc == HS_OK && (got = next_line(&r, err)) == 1) {
        char *s = wl__trim(r.buf);
        if (*s == '\0' || *s == '#')
            continue;
        rc = parse_mark(wl, s, pos, &r, &mark[pos], err);
        if (rc == HS_OK)
            pos++;
    }
    if (rc == HS_OK && got < 0)
        rc = HS_EINPUT;
    if (rc == HS_OK && pos != wl->n_layers)
        rc = hs_fail(err, HS_EINPUT, "%s:%d: the file ends after %d entries but %s has %d layers",
                     path, r.line_no, pos, wl->path, wl->n_layers);
    if (rc == HS_OK)
        for (int i = 0; i < wl->n_layers; i++)
            wl->layers[i].split_mask = mark[i] ? WL_SPLIT_ALL : 0;
    free(mark);
    fclose(r.file);
    return rc;
}
