/* links_print.c: the link statistics as the CSV of --links (columns in links.c) and as the
 * summaries the reports print (links_int.h). */
#include "links_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include "hs_json.h"
#include "hs_out.h"

/* ---- names (here, not in links.c: reports print them without SimGrid) --------------------- */

static const char *kind_names[LK_KIND_COUNT] = {
    "nvlink", "pcie", "nic", "leaf-switch", "leaf-up", "rack-switch", "rack-up", "spine", "other"};

const char *lk_kind_name(lk_kind kind) { return kind < LK_KIND_COUNT ? kind_names[kind] : "?"; }

const char *lk_direction_name(lk_direction dir)
{
    return dir == LK_UP ? "up" : dir == LK_DOWN ? "down" : "both";
}

/* ---- output ------------------------------------------------------------------------------- */

/* Link names come from the platform file: quote them where the format needs it. */
static void print_csv_name(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int lk_csv_check(const char *path, char *err)
{
    return hs_out_check("--links", path, err);
}

int lk_write_csv(const lk_stats *st, const char *path, bool all_links, char *err)
{
    hs_out out;
    int status = hs_out_open(&out, "--links", path, err);
    if (status != HS_OK)
        return status;
    FILE *f = out.f;
    fprintf(f, "link,kind,direction,bandwidth_Bps,messages,bytes,background_bytes,busy_s,"
               "mean_utilisation,peak_utilisation\n");
    for (int i = 0; i < st->n_links; i++) {
        const lk_link *l = &st->links[i];
        if (!all_links && !(l->bytes + l->background_bytes > 0))
            continue;
        print_csv_name(f, l->name);
        fprintf(f, ",%s,%s,%.17g,%ld,%.17g,%.17g,%.17g,%.17g,%.17g\n", lk_kind_name(l->kind), lk_direction_name(l->direction), l->bandwidth_Bps,
                l->messages, l->bytes, l->background_bytes, l->busy_s, l->mean_util,
                l->peak_util);
    }
    return hs_out_commit(&out, err);
}

static const lk_traffic *traffic_of(const lk_stats *st, int job)
{
    return job >= 0 && job < st->n_jobs ? &st->jobs[job] : &st->all;
}

void lk_print_summary_table(FILE *out, const lk_stats *st, int job)
{
    const lk_traffic *t = traffic_of(st, job);
    fprintf(out, "  links (link directions that carried traffic, over %.6g s):\n", st->makespan_s);
    fprintf(out, "    %-12s %6s %14s %10s %10s %10s\n", "kind", "used", "bytes", "mean util",
            "max mean", "peak util");
    for (int k = 0; k < LK_KIND_COUNT; k++) {
        const lk_kind_stats *ks = &st->by_kind[k];
        if (ks->links_used)
            fprintf(out, "    %-12s %6d %14.6g %10.4f %10.4f %10.4f\n", lk_kind_name((lk_kind)k),
                    ks->links_used, ks->bytes, ks->mean_util, ks->max_mean_util, ks->peak_util);
    }
    fprintf(out, "  most utilised links (mean over the iteration, peak):\n");
    for (int i = 0; i < LK_TOP && st->top[i] >= 0; i++) {
        const lk_link *l = &st->links[st->top[i]];
        fprintf(out, "    %-20s %-4s %-11s %8.4f %8.4f\n", l->name, lk_direction_name(l->direction),
                lk_kind_name(l->kind), l->mean_util, l->peak_util);
    }
    fprintf(out, "  congestion share: %.4f (%.6g s of %.6g s of message time waiting on shared "
            "links, %ld messages)\n",
            t->congestion_share, t->waiting_s, t->actual_s, t->messages);
}

void lk_json_summary(hs_json *j, const lk_stats *st, int job)
{
    const lk_traffic *t = traffic_of(st, job);
    hs_json_object(j);
    hs_json_key(j, "by_kind");
    hs_json_object(j);
    for (int k = 0; k < LK_KIND_COUNT; k++) {
        const lk_kind_stats *ks = &st->by_kind[k];
        if (!ks->links_used)
            continue;
        hs_json_key(j, lk_kind_name((lk_kind)k));
        hs_json_object(j);
        hs_json_kv_int(j, "links", ks->links_used);
        hs_json_kv_number(j, "bytes", ks->bytes);
        hs_json_kv_number(j, "mean_utilisation", ks->mean_util);
        hs_json_kv_number(j, "max_mean_utilisation", ks->max_mean_util);
        hs_json_kv_number(j, "peak_utilisation", ks->peak_util);
        hs_json_end(j);
    }
    hs_json_end(j);
    hs_json_key(j, "top");
    hs_json_array(j);
    for (int i = 0; i < LK_TOP && st->top[i] >= 0; i++) {
        const lk_link *l = &st->links[st->top[i]];
        hs_json_object(j);
        hs_json_kv_str(j, "link", l->name);
        hs_json_kv_str(j, "direction", lk_direction_name(l->direction));
        hs_json_kv_str(j, "kind", lk_kind_name(l->kind));
        hs_json_kv_number(j, "bytes", l->bytes + l->background_bytes);
        hs_json_kv_number(j, "busy_s", l->busy_s);
        hs_json_kv_number(j, "mean_utilisation", l->mean_util);
        hs_json_kv_number(j, "peak_utilisation", l->peak_util);
        hs_json_end(j);
    }
    hs_json_end(j);
    hs_json_kv_number(j, "congestion_share", t->congestion_share);
    hs_json_kv_int(j, "messages", t->messages);
    hs_json_kv_number(j, "bytes", t->bytes);
    hs_json_kv_number(j, "route_bytes", t->route_bytes);
    hs_json_kv_number(j, "message_time_s", t->actual_s);
    hs_json_kv_number(j, "waiting_time_s", t->waiting_s);
    hs_json_end(j);
}
