/* search_report.c: a searched strategy priced term by term and printed (search.h, sr_report):
 * each vertex's configuration, its cost, the redistribution into it, the total and what the
 * search did, as a table or as JSON. What `strategy --search --cost-model pase` prints. */
#include "search.h"

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
    fprintf(out, "  vertex  %-22s %-8s %5s %5s %5s %5s %5s%s%s  devices %18s %18s\n", "layer", "op",
            "b", "f", "c", "h", "w", depth ? "     d" : "", window ? "    kh    kw" : "",
            "layer cost", "redistribution in");
    for (int v = 0; v < g->n_vertices; v++) {
        const sr_config *c = &g->v[v].configs[res->choice[v]];
        fprintf(out, "  %6d  %-22s %-8s %5lld %5lld %5lld %5lld %5lld", v, g->v[v].name,
                sr_op_name(g->v[v].op), (long long)c->b, (long long)c->f, (long long)c->c,
                (long long)c->h, (long long)c->w);
        if (depth)
            fprintf(out, " %5lld", (long long)c->d);
        if (window)
            fprintf(out, " %5lld %5lld", (long long)c->kh, (long long)c->kw);
        fprintf(out, "  %7lld %18.2f %18.2f\n", (long long)sr_devices(c), rp->vertex_cost[v],
                rp->in_cost[v]);
        layers += rp->vertex_cost[v];
        moves += rp->in_cost[v];
    }
    fprintf(out, "  total %.2f = layers %.2f + redistribution %.2f\n", res->total, layers, moves);
    fprintf(out, "  search: %d vertices, %d edges, largest dependent set %d, largest table %lld "
            "entries, %lld rows, %.1f MB of tables, %.3f s\n", g->n_vertices, g->n_edges,
            res->largest_dependent_set, (long long)res->largest_table, (long long)res->rows,
            (double)res->peak_bytes / 1e6, rp->seconds);
}

static void print_split_json(FILE *out, const sr_config *c)
{
    fprintf(out, "{\"b\": %lld, \"f\": %lld, \"c\": %lld, \"h\": %lld, \"w\": %lld, \"d\": %lld, "
            "\"kh\": %lld, \"kw\": %lld}", (long long)c->b, (long long)c->f, (long long)c->c,
            (long long)c->h, (long long)c->w, (long long)c->d, (long long)c->kh,
            (long long)c->kw);
}

void sr_print_json(FILE *out, const sr_report *rp)
{
    const sr_graph *g = rp->g;
    const sr_result *res = rp->res;
    fprintf(out, "{\"mode\": \"search\", \"workload\": ");
    hs_json_string(out, rp->wl->name);
    fprintf(out, ", \"cost_model\": \"%s\", \"devices\": %d, \"batch\": %lld, \"words_to_flops\": "
            "%.17g, \"total\": %.17g,\n \"vertices\": [", rp->cost_model, g->devices,
            (long long)g->batch, rp->r, res->total);
    for (int v = 0; v < g->n_vertices; v++) {
        const sr_config *c = &g->v[v].configs[res->choice[v]];
        fprintf(out, "%s\n  {\"vertex\": %d, \"name\": ", v ? "," : "", v);
        hs_json_string(out, g->v[v].name);
        fprintf(out, ", \"op\": \"%s\", \"layer\": %d, \"candidates\": %d, \"split\": ",
                sr_op_name(g->v[v].op), g->v[v].layer, g->v[v].n_configs);
        print_split_json(out, c);
        fprintf(out, ", \"devices\": %lld, \"cost\": %.17g, \"redistribution_in\": %.17g}",
                (long long)sr_devices(c), rp->vertex_cost[v], rp->in_cost[v]);
    }
    fprintf(out, "],\n \"edges\": [");
    for (int i = 0; i < g->n_edges; i++)
        fprintf(out, "%s{\"from\": %d, \"to\": %d, \"cost\": %.17g}", i ? ", " : "", g->e[i].u,
                g->e[i].v, rp->edge_cost[i]);
    fprintf(out, "],\n \"layers\": [");
    for (int l = 0; l < g->n_layers; l++) {
        fprintf(out, "%s{\"name\": ", l ? ", " : "");
        hs_json_string(out, rp->wl->layers[l].name);
        fprintf(out, ", \"vertex\": %d}", g->vertex_of_layer[l]);
    }
    fprintf(out, "],\n \"search\": {\"order\": [");
    for (int i = 0; i < g->n_vertices; i++)
        fprintf(out, "%s%d", i ? ", " : "", res->order[i]);
    fprintf(out, "], \"largest_dependent_set\": %d, \"largest_table_entries\": %lld, "
            "\"rows\": %lld, \"peak_table_bytes\": %lld}}\n", res->largest_dependent_set,
            (long long)res->largest_table, (long long)res->rows, (long long)res->peak_bytes);
}

