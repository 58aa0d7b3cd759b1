/* search_report.c: a searched strategy priced term by term and printed (search.h, sr_report):
 * each vertex's configuration, its cost, the redistribution into it, the total and what the
 * search did, as a table or as JSON. What `strategy --search --cost-model pase` prints. */
#include "search.h"

#include <stdio.h>
#include <stdlib.h>

#include "hs_json.h"

int sr_report_price(sr_report *rp, const sr_costs *costs, char *err)
{
    const sr_graph *g = rp->g;
    double total = 0.0;
    rp->vertex_cost = calloc((size_t)g->n_vertices + 1, sizeof(double));
    rp->in_cost = calloc((size_t)g->n_vertices + 1, sizeof(double));
    rp->edge_cost = calloc((size_t)g->n_edges + 1, sizeof(double));
    int status = rp->vertex_cost && rp->in_cost && rp->edge_cost
                     ? sr_price(g, costs, rp->res->choice, rp->vertex_cost, rp->edge_cost,
                                &total, err)
                     : hs_fail(err, HS_EINTERNAL, "strategy: out of memory");
    for (int i = 0; status == HS_OK && i < g->n_edges; i++)
        rp->in_cost[g->e[i].v] += rp->edge_cost[i];
    if (status != HS_OK)
        sr_report_free(rp);
    return status;
}

void sr_report_free(sr_report *rp)
{
    free(rp->vertex_cost);
    free(rp->in_cost);
    free(rp->edge_cost);
    rp->vertex_cost = rp->in_cost = rp->edge_cost = NULL;
}

/* Whether any chosen configuration splits a filter window (a rare PaSE candidate). */
static bool window_split(const sr_report *rp)
{
    for (int v = 0; v < rp->g->n_vertices; v++) {
        const sr_config *c = &rp->g->v[v].configs[rp->res->choice[v]];
        if (c->kh > 1 || c->kw > 1)
            return true;
    }
    return false;
}

/* A sequence graph's rows: each vertex's split as PaSE writes it (its dims, then the splits),
 * since its attention ops and its LSTM have other dims than a CNN's b f c h w. */
static void sequence_rows(FILE *out, const sr_report *rp)
{
    const sr_graph *g = rp->g;
    fprintf(out, "  vertex  %-22s %-8s %-22s  devices %18s %18s\n", "layer", "op",
            "split (PaSE's dims)", "layer cost", "redistribution in");
    for (int v = 0; v < g->n_vertices; v++) {
        const sr_config *c = &g->v[v].configs[rp->res->choice[v]];
        int64_t t[8];
        char text[64];
        int n = sr_tuple(&g->v[v], c, t), used = snprintf(text, sizeof text, "%s", g->v[v].dims);
        for (int i = 0; i < n && used < (int)sizeof text; i++)
            used += snprintf(text + used, sizeof text - (size_t)used, "%s%lld", i ? "," : " ",
                             (long long)t[i]);
        fprintf(out, "  %6d  %-22s %-8s %-22s  %7lld %18.2f %18.2f\n", v, g->v[v].name,
                sr_op_name(g->v[v].op), text, (long long)sr_devices(c), rp->vertex_cost[v],
                rp->in_cost[v]);
    }
}

void sr_print_table(FILE *out, const sr_report *rp)
{
    const sr_graph *g = rp->g;
    const sr_result *res = rp->res;
    bool depth = g->n_spatial == 3, window = window_split(rp);
    double layers = 0.0, moves = 0.0;
    fprintf(out, "hybridsim strategy --search: %s, %d devices, batch %lld, cost model %s\n",
            rp->wl->name, g->devices, (long long)g->batch, rp->cost_model);
    fprintf(out, "  costs in FLOP-equivalents per iteration and device (a word sent counts %g)\n",
            rp->r);
    if (g->sequence)
        sequence_rows(out, rp);
    else
        fprintf(out, "  vertex  %-22s %-8s %5s %5s %5s %5s %5s%s%s  devices %18s %18s\n",
                "layer", "op", "b", "f", "c", "h", "w", depth ? "     d" : "",
                window ? "    kh    kw" : "", "layer cost", "redistribution in");
    for (int v = 0; v < g->n_vertices; v++) {
        const sr_config *c = &g->v[v].configs[res->choice[v]];
        layers += rp->vertex_cost[v];
        moves += rp->in_cost[v];
        if (g->sequence)
            continue;
        fprintf(out, "  %6d  %-22s %-8s %5lld %5lld %5lld %5lld %5lld", v, g->v[v].name,
                sr_op_name(g->v[v].op), (long long)c->b, (long long)c->f, (long long)c->c,
                (long long)c->h, (long long)c->w);
        if (depth)
            fprintf(out, " %5lld", (long long)c->d);
        if (window)
            fprintf(out, " %5lld %5lld", (long long)c->kh, (long long)c->kw);
        fprintf(out, "  %7lld %18.2f %18.2f\n", (long long)sr_devices(c), rp->vertex_cost[v],
                rp->in_cost[v]);
    }
    fprintf(out, "  total %.2f = layers %.2f + redistribution %.2f\n", res->total, layers, moves);
    fprintf(out, "  search: %d vertices, %d edges, largest dependent set %d, largest table %lld "
            "entries, %lld rows, %.1f MB of tables, %.3f s\n", g->n_vertices, g->n_edges,
            res->largest_dependent_set, (long long)res->largest_table, (long long)res->rows,
            (double)res->peak_bytes / 1e6, rp->seconds);
}

/* {"b", "f", "c", "h", "w", "d", "kh", "kw"}: the ways each dimension is split. */
static void split_json(hs_json *j, const sr_config *c)
{
    hs_json_object(j);
    hs_json_kv_int(j, "b", c->b);
    hs_json_kv_int(j, "f", c->f);
    hs_json_kv_int(j, "c", c->c);
    hs_json_kv_int(j, "h", c->h);
    hs_json_kv_int(j, "w", c->w);
    hs_json_kv_int(j, "d", c->d);
    hs_json_kv_int(j, "kh", c->kh);
    hs_json_kv_int(j, "kw", c->kw);
    hs_json_end(j);
}

/* "vertices": each vertex's chosen configuration and costs, a line each. */
static void vertices_json(hs_json *j, const sr_report *rp)
{
    const sr_graph *g = rp->g;
    hs_json_key(j, "vertices");
    hs_json_array(j);
    for (int v = 0; v < g->n_vertices; v++) {
        const sr_config *c = &g->v[v].configs[rp->res->choice[v]];
        hs_json_break(j, "\n  ");
        hs_json_object(j);
        hs_json_kv_int(j, "vertex", v);
        hs_json_kv_str(j, "name", g->v[v].name);
        hs_json_kv_str(j, "op", sr_op_name(g->v[v].op));
        hs_json_kv_int(j, "layer", g->v[v].layer);
        hs_json_kv_int(j, "candidates", g->v[v].n_configs);
        hs_json_key(j, "split");
        split_json(j, c);
        if (g->sequence) { /* PaSE's tuple: attention's ops have other dims than b f c h w */
            int64_t t[8];
            int n = sr_tuple(&g->v[v], c, t);
            hs_json_kv_str(j, "pase_dims", g->v[v].dims);
            hs_json_key(j, "pase_split");
            hs_json_array(j);
            for (int i = 0; i < n; i++)
                hs_json_int(j, (long long)t[i]);
            hs_json_end(j);
        }
        hs_json_kv_int(j, "devices", sr_devices(c));
        hs_json_kv_number(j, "cost", rp->vertex_cost[v]);
        hs_json_kv_number(j, "redistribution_in", rp->in_cost[v]);
        hs_json_end(j);
    }
    hs_json_end(j);
}

/* "edges" and "layers": each edge's cost, each layer's vertex. */
static void edges_layers_json(hs_json *j, const sr_report *rp)
{
    const sr_graph *g = rp->g;
    hs_json_break(j, "\n ");
    hs_json_key(j, "edges");
    hs_json_array(j);
    for (int i = 0; i < g->n_edges; i++) {
        hs_json_object(j);
        hs_json_kv_int(j, "from", g->e[i].u);
        hs_json_kv_int(j, "to", g->e[i].v);
        hs_json_kv_number(j, "cost", rp->edge_cost[i]);
        hs_json_end(j);
    }
    hs_json_end(j);
    hs_json_break(j, "\n ");
    hs_json_key(j, "layers");
    hs_json_array(j);
    for (int l = 0; l < g->n_layers; l++) {
        hs_json_object(j);
        hs_json_kv_str(j, "name", rp->wl->layers[l].name);
        hs_json_kv_int(j, "vertex", g->vertex_of_layer[l]);
        hs_json_end(j);
    }
    hs_json_end(j);
}

void sr_print_json(FILE *out, const sr_report *rp)
{
    const sr_graph *g = rp->g;
    const sr_result *res = rp->res;
    hs_json j;
    hs_json_init(&j, out);
    hs_json_object(&j);
    hs_json_kv_str(&j, "mode", "search");
    hs_json_kv_str(&j, "workload", rp->wl->name);
    hs_json_kv_str(&j, "cost_model", rp->cost_model);
    hs_json_kv_int(&j, "devices", g->devices);
    hs_json_kv_int(&j, "batch", (long long)g->batch);
    hs_json_kv_number(&j, "words_to_flops", rp->r);
    hs_json_kv_number(&j, "total", res->total);
    hs_json_break(&j, "\n ");
    vertices_json(&j, rp);
    edges_layers_json(&j, rp);
    hs_json_break(&j, "\n ");
    hs_json_key(&j, "search");
    hs_json_object(&j);
    hs_json_key(&j, "order");
    hs_json_array(&j);
    for (int i = 0; i < g->n_vertices; i++)
        hs_json_int(&j, res->order[i]);
    hs_json_end(&j);
    hs_json_kv_int(&j, "largest_dependent_set", res->largest_dependent_set);
    hs_json_kv_int(&j, "largest_table_entries", (long long)res->largest_table);
    hs_json_kv_int(&j, "rows", (long long)res->rows);
    hs_json_kv_int(&j, "peak_table_bytes", (long long)res->peak_bytes);
    hs_json_end(&j);
    hs_json_end(&j);
    fputc('\n', out);
}
