/* test_platform_gen.c: one description of a generated machine, three ways to use it, the same
 * routes (platform.h, platgen.h).
 *
 * For several machines (ABCI-like racks, with and without cable latencies on the uplinks; the
 * DGX-1V cube mesh; NVSwitch nodes): the XML file loaded by SimGrid (its digest removed, so it
 * is read as a hand-written file), the machine built in SimGrid's memory (gen: spec), the same
 * built for two racks only, and the routes computed without SimGrid must give the same route
 * between every pair of a sample of GPUs: the same links in the same order, the same latency
 * and bandwidth to the last bit, the same first link; concurrent transfers sharing links
 * the same durations; rings the same alpha and beta (plat_ring_cost: a file's links from
 * SimGrid's routes, a spec's computed); the same NICs a node (plat_nics_per_node, which sets
 * NCCL's tree and ring channels: a file's counted on its routes). Also: specs written by the generator read back to the same machine, user
 * specs are refused like the flags, a generated file is recognised by its digest and an edited
 * one is not; racks built for a job that stages nothing, without host memories, give the GPUs
 * the same routes. Each SimGrid case runs in a forked child (one engine per process) and
 * writes what it saw to a file. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include "hs_child.h"
#include "platform.h"
#include "platform_helpers.h"
#include "platgen.h"

#define TMP HS_TEST_TMP "/test_platform_gen"
#define MAX_SAMPLE 64

/* The machines: `hybridsim platform` flags (as a gen: spec) and the nodes sampled. */
typedef struct {
    const char *spec;
    int nodes[12]; /* -1 ends */
} machine;

static const machine machines[] = {
    /* 4 racks of 2 leaf groups of 17 nodes */
    {"gen:abci:nodes=136", {0, 1, 16, 17, 33, 34, 67, 68, 100, 135, -1}},
    /* cable latencies on the uplinks: the order SimGrid adds latencies in shows in the sums */
    {"gen:abci:nodes=136,leaf-latency=3ns,spine-latency=1.7us,rack-oversub=1:6",
     {0, 16, 17, 34, 50, 101, 135, -1}},
    {"gen:dgx1:nodes=16,leaves-per-rack=2", {0, 3, 4, 8, 15, -1}},
    {"gen:nvswitch-ndr:nodes=16,leaves-per-rack=2,nic-type=hdr", {0, 5, 8, 15, -1}},
    /* partly filled: 4 leaf groups of 17, 17, 17 and 13 nodes in 2 racks of 34 and 30 */
    {"gen:abci:nodes=64", {0, 16, 17, 33, 34, 50, 51, 63, -1}},
    /* the last rack one partly filled leaf group (17, 17 | 6), cable latencies */
    {"gen:abci:nodes=40,leaf-latency=3ns,spine-latency=1.7us", {0, 17, 33, 34, 39, -1}},
    /* one rack of 2 of its 8 leaf groups */
    {"gen:nvswitch-ndr:nodes=8", {0, 3, 4, 7, -1}},
    /* no NVLink: GPU pairs over PCIe, across the CPUs; one NIC a node on the first switch */
    {"gen:abci:nodes=40,nvlink-topology=none,pcie-uplink-bw=20GBps,cpu-link-bw=12GBps,"
     "cpu-link-latency=50ns,nics-per-node=1", {0, 1, 17, 34, 39, -1}},
    /* the same through host memory: GPU pairs and the way to the NIC up and down the uplinks */
    {"gen:abci:nodes=40,nvlink-topology=none,pcie-uplink-bw=20GBps,cpu-link-bw=12GBps,"
     "cpu-link-latency=50ns,nics-per-node=1,nic-path=host,gpu-path=host", {0, 1, 17, 34, 39, -1}},
    /* one CPU, two switches of 5 GPUs, P2P between them capped at the CPU's root */
    {"gen:abci:nodes=4,nvlink-topology=none,gpus-per-node=10,gpus-per-pcie-switch=5,"
     "pcie-uplink-bw=12GBps,nics-per-node=1,root-p2p-bw=9GBps", {0, 1, 3, -1}},
};
#define N_MACHINES (sizeof machines / sizeof machines[0])

static int sample(const plat_platform *plat, const machine *m, int *gpus)
{
    int n = 0;
    for (int i = 0; m->nodes[i] >= 0; i++)
        for (int g = 0; g < plat->gpus_per_node && n < MAX_SAMPLE; g++)
            gpus[n++] = m->nodes[i] * plat->gpus_per_node + g;
    return n;
}

/* ---------------------------------------------------------------- in SimGrid */

/* Every sampled route as SimGrid has it: links by name, latency, bandwidth (exact hex). */
static void dump_routes(FILE *out, const plat_platform *plat, const int *gpus, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            sg_host_t a = plat->gpus[gpus[i]], b = plat->gpus[gpus[j]];
            if (i == j || !a || !b)
                continue;
            xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
            sg_host_get_route(a, b, route);
            fprintf(out, "%d>%d %a %a:", gpus[i], gpus[j], sg_host_get_route_latency(a, b),
                    sg_host_get_route_bandwidth(a, b));
            for (unsigned k = 0; k < xbt_dynar_length(route); k++)
                fprintf(out, " %s", sg_link_get_name(xbt_dynar_get_as(route, k, sg_link_t)));
            fputc('\n', out);
            xbt_dynar_free(&route);
        }
}

/* Transfers that share links: each sampled GPU sends to the one half a sample away. */
static void dump_transfers(FILE *out, const plat_platform *plat, const int *gpus, int n)
{
    transfer t[MAX_SAMPLE];
    int k = 0;
    for (int i = 0; i < n; i++) {
        int dst = gpus[(i + n / 2) % n];
        if (plat->gpus[gpus[i]] && plat->gpus[dst] && dst != gpus[i])
            t[k++] = (transfer){.src = gpus[i], .dst = dst, .bytes = 1e8 + 1e6 * i};
    }
    run_transfers(plat, t, k);
    for (int i = 0; i < k; i++)
        fprintf(out, "T %d>%d %a\n", t[i].src, t[i].dst, t[i].duration_s);
}

/* Rings over the sample (plat_ring_cost: alpha, beta in exact hex): in order, and alternating
 * between its halves, whose edges cross the links between them several times each way. */
static void dump_rings(FILE *out, const plat_platform *plat, const int *gpus, int n)
{
    int ring[MAX_SAMPLE];
    for (int i = 0; i < n; i++)
        ring[i] = gpus[i / 2 + (i % 2) * ((n + 1) / 2)];
    for (int k = 0; k < 2; k++) {
        double alpha, beta;
        plat_ring_cost(plat, k ? ring : gpus, n, &alpha, &beta);
        fprintf(out, "R%d %a %a\n", k, alpha, beta);
    }
}

/* What a child does on the loaded platform, writing to out. */
typedef void (*child_body)(FILE *out, const plat_platform *plat, const void *arg);

/* What a child is given (in_child). */
typedef struct {
    const char *spec, *path; /* the platform; the file body writes */
    const int *only;         /* n_only > 0: only the racks of these GPUs */
    int n_only;              /* how many; 0: the whole machine */
    bool host_memory;        /* plat_engine_load_job's */
    child_body body;         /* what the child writes into path */
    const void *arg;         /* body's last argument */
} child_job;

/* In the child (hs_child_work): its exit code, 0 when body ran and its file is written. */
static void child_work(void *arg, void *answer)
{
    const child_job *j = arg;
    int *code = answer;
    char err[HS_ERR_LEN];
    plat_platform plat;
    if (plat_open(j->spec, &plat, err) != HS_OK ||
        plat_engine_load_job(&plat, j->n_only ? j->only : NULL, j->n_only, j->host_memory,
                             err) != HS_OK) {
        fprintf(stderr, "%s: %s\n", j->spec, err);
        *code = 3;
        return;
    }
    FILE *out = fopen(j->path, "w");
    if (!out) {
        *code = 4;
        return;
    }
    j->body(out, &plat, j->arg);
    *code = fclose(out) == 0 ? 0 : 5;
}

/* In a child (hs_child.h): load the platform (racks: only the racks of these GPUs when
 * n_only > 0; host memories or not) and run body on it, writing into path; the parent waits
 * for it to succeed. */
static void in_child_job(const char *spec, const int *only, int n_only, bool host_memory,
                         const char *path, child_body body, const void *arg)
{
    child_job j = {spec, path, only, n_only, host_memory, body, arg};
    hs_child_spec s = {.work = child_work, .arg = &j, .answer_bytes = sizeof(int), .what = spec};
    hs_child_end end;
    char err[HS_ERR_LEN];
    int code = -1;
    assert_int_equal(hs_child_run(&s, &code, &end, err), HS_OK);
    assert_int_equal(end.exit_status, 0);
    assert_true(end.answered);
    assert_int_equal(code, 0);
}

static void in_child(const char *spec, const int *only, int n_only, const char *path,
                     child_body body, const void *arg)
{
    in_child_job(spec, only, n_only, true, path, body, arg);
}

/* The routes and transfers among the machine's sampled GPUs. */
static void dump_body(FILE *out, const plat_platform *plat, const void *arg)
{
    int gpus[MAX_SAMPLE] = {0}, n = sample(plat, arg, gpus);
    dump_routes(out, plat, gpus, n);
    dump_transfers(out, plat, gpus, n);
    dump_rings(out, plat, gpus, n);
    fprintf(out, "NICs %d\n", plat_nics_per_node(plat)); /* the file's counted on its routes */
}

static void dump_in_child(const char *spec, const machine *m, const int *only, int n_only,
                          const char *path)
{
    in_child(spec, only, n_only, path, dump_body, m);
}

/* The machine's XML without its digest: read in full and loaded by SimGrid's parser. */
static void write_plain_xml(const char *spec, const char *path)
{
    char err[HS_ERR_LEN], store[512];
    pg_params p;
    assert_int_equal(pg_spec_parse(spec, &p, store, sizeof store, 1, err), HS_OK);
    assert_int_equal(pg_write_file(&p, path, err), HS_OK);
    size_t len;
    char *text = slurp(path, &len);
    assert_non_null(text);
    char *digest = strstr(text, "<!-- hybridsim:digest");
    assert_non_null(digest);
    *digest = '\0';
    assert_int_equal(spit(path, text), 0);
    free(text);
}

/* Only the lines of `all` between sampled GPUs of the given racks (a partial build's). */
static char *lines_within(const char *all, const plat_platform *plat, const unsigned char *rack)
{
    char *out = calloc(strlen(all) + 1, 1);
    const char *line = all;
    size_t n = 0;
    assert_non_null(out);
    while (*line) {
        const char *end = strchr(line, '\n');
        int a, b;
        end = end ? end + 1 : line + strlen(line);
        if (sscanf(line, "%d>%d", &a, &b) == 2 && rack[pg_rack_of_gpu(plat->gen, a)] &&
            rack[pg_rack_of_gpu(plat->gen, b)] && strchr(line, ':')) {
            memcpy(out + n, line, (size_t)(end - line));
            n += (size_t)(end - line);
        }
        line = end;
    }
    return out;
}

static void check_machine(const machine *m, int index)
{
    char xml[256], from_xml[256], built[256], partial[256];
    snprintf(xml, sizeof xml, TMP "-%d.xml", index);
    snprintf(from_xml, sizeof from_xml, TMP "-%d.xml.routes", index);
    snprintf(built, sizeof built, TMP "-%d.built.routes", index);
    snprintf(partial, sizeof partial, TMP "-%d.partial.routes", index);
    write_plain_xml(m->spec, xml);
    dump_in_child(xml, m, NULL, 0, from_xml);
    dump_in_child(m->spec, m, NULL, 0, built);
    char *a = slurp(from_xml, NULL), *b = slurp(built, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(strlen(a) > 100);
    assert_string_equal(a, b); /* the same links, latencies, bandwidths, transfer times */

    /* Two racks built: the first and the last; their routes are the whole machine's. */
    char err[HS_ERR_LEN];
    plat_platform plat;
    assert_int_equal(plat_open(m->spec, &plat, err), HS_OK);
    int racks = pg_racks(plat.gen), only[2] = {0, plat.n_gpus - 1};
    unsigned char *rack = calloc((size_t)racks, 1);
    rack[0] = rack[racks - 1] = 1;
    dump_in_child(m->spec, m, only, 2, partial);
    char *c = slurp(partial, NULL), *want = lines_within(a, &plat, rack), *got = lines_within(c, &plat, rack);
    assert_true(strlen(want) > 0);
    assert_string_equal(got, want);

    /* Without SimGrid: the route resolver's latencies and bandwidths. */
    int gpus[MAX_SAMPLE], n = sample(&plat, m, gpus);
    for (const char *line = a; *line; line = strchr(line, '\n') + 1) {
        int x, y;
        double lat, bw, want_lat, want_bw;
        if (sscanf(line, "%d>%d %la %la:", &x, &y, &want_lat, &want_bw) != 4)
            break; /* the transfers follow the routes */
        plat_route(&plat, x, y, &lat, &bw);
        if (lat != want_lat || bw != want_bw) {
            print_error("%s: %d>%d: %a %a, SimGrid %a %a\n", m->spec, x, y, lat, bw, want_lat,
                        want_bw);
            fail();
        }
    }
    assert_true(n > 4);
    plat_free(&plat);
    free(rack);
    free(a), free(b), free(c), free(want), free(got);
}

static void test_routes_identical(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_MACHINES; i++)
        check_machine(&machines[i], (int)i);
}

/* The GPUs' routes and transfers, then how many GPUs have a host memory and whether the
 * platform says it left them out. */
static void memory_body(FILE *out, const plat_platform *plat, const void *arg)
{
    dump_body(out, plat, arg);
    int with = 0;
    for (int g = 0; g < plat->n_gpus; g++)
        with += plat->host_mem[g] != NULL;
    fprintf(out, "host memories %d, left out %d\n", with, plat->host_memory_out);
}

/* A job that stages nothing gets its racks without host memories: every GPU's route and
 * transfer as with them (one CPU a node on ABCI, two on the DGX-1); a whole machine keeps
 * them. */
static void test_without_host_memory(void **state)
{
    (void)state;
    const machine *ms[] = {&machines[0], &machines[2]};
    for (size_t i = 0; i < 2; i++) {
        char err[HS_ERR_LEN];
        plat_platform plat;
        assert_int_equal(plat_open(ms[i]->spec, &plat, err), HS_OK);
        int only[2] = {0, plat.n_gpus - 1};
        in_child_job(ms[i]->spec, only, 2, true, TMP "-mem.routes", memory_body, ms[i]);
        in_child_job(ms[i]->spec, only, 2, false, TMP "-nomem.routes", memory_body, ms[i]);
        in_child_job(ms[i]->spec, NULL, 0, false, TMP "-whole.routes", memory_body, ms[i]);
        char *with = slurp(TMP "-mem.routes", NULL), *without = slurp(TMP "-nomem.routes", NULL);
        char *whole = slurp(TMP "-whole.routes", NULL);
        assert_non_null(with);
        assert_non_null(without);
        assert_non_null(whole);
        char *tail_with = strstr(with, "host memories");
        char *tail_without = strstr(without, "host memories");
        assert_non_null(tail_with);
        assert_non_null(tail_without);
        int n_with, out_with, n_without, out_without;
        assert_int_equal(sscanf(tail_with, "host memories %d, left out %d", &n_with, &out_with), 2);
        assert_int_equal(sscanf(tail_without, "host memories %d, left out %d", &n_without,
                                &out_without), 2);
        assert_true(n_with > 0); /* the two racks' GPUs */
        assert_int_equal(out_with, 0);
        assert_int_equal(n_without, 0);
        assert_int_equal(out_without, 1);
        *tail_with = *tail_without = '\0';
        assert_true(strlen(with) > 100);
        assert_string_equal(without, with);
        assert_null(strstr(whole, "left out 1"));
        plat_free(&plat);
        free(with), free(without), free(whole);
    }
}

/* ---------------------------------------------------------------- routed uplinks */

/* One route line of dump_routes as the routed machine must give it: the zones' route (fat),
 * each uplink replaced by the cable pg_uplink_cable picks for the pair. */
static void expect_routed(const pg_params *p, const char *fat_line, char *want, size_t len)
{
    int x, y, level;
    const char *colon = strchr(fat_line, ':'), *end = strchr(fat_line, '\n');
    assert_int_equal(sscanf(fat_line, "%d>%d", &x, &y), 2);
    size_t n = (size_t)snprintf(want, len, "%.*s", (int)(colon + 1 - fat_line), fat_line);
    char link[PG_NAME_LEN], cable[PG_NAME_LEN];
    for (const char *t = colon + 1; t < end; t += strlen(link) + 1) {
        assert_int_equal(sscanf(t, " %63s", link), 1);
        char base[PG_NAME_LEN], *side = strrchr(link, '_'); /* SimGrid's _UP, _DOWN */
        snprintf(base, sizeof base, "%.*s", side ? (int)(side - link) : (int)strlen(link), link);
        int cables = pg_uplink_cables(p, base, &level);
        if (cables > 0)
            pg_uplink_cable_name(base, pg_uplink_cable(p, level, cables, x, y), cables, cable);
        n += (size_t)snprintf(want + n, len - n, " %s%s", cables > 0 ? cable : base,
                              side ? side : "");
    }
    snprintf(want + n, len - n, "\n");
}

/* Two messages of 100 MB at once from rack 0 to rack 2 (different NICs at both ends): their
 * durations and route latency. D-mod-K puts both on rack cable 4 (NICs 136 and 158, mod 22). */
static void collide_body(FILE *out, const plat_platform *plat, const void *arg)
{
    (void)arg;
    transfer t[2] = {{.src = 0, .dst = 272, .bytes = 1e8}, {.src = 4, .dst = 316, .bytes = 1e8}};
    run_transfers(plat, t, 2);
    fprintf(out, "%a %a %a\n", t[0].duration_s, t[1].duration_s,
            sg_host_get_route_latency(plat->gpus[0], plat->gpus[272]));
}

static void check_collision(const char *spec, double want_Bps)
{
    double d0, d1, lat;
    in_child(spec, NULL, 0, TMP "-collide", collide_body, NULL);
    char *text = slurp(TMP "-collide", NULL);
    assert_non_null(text);
    assert_int_equal(sscanf(text, "%la %la %la", &d0, &d1, &lat), 3);
    double want = lat + 1e8 / want_Bps;
    if (fabs(d0 - want) > 1e-9 * want || fabs(d1 - want) > 1e-9 * want) {
        print_error("%s: %.9g and %.9g s, want %.9g\n", spec, d0, d1, want);
        fail();
    }
    free(text);
}

/* Routed uplinks: every sampled route is the zones' with the pair's cables, to the bit in
 * latency and bottleneck (a cable carries at least a NIC's rate); the XML refuses them; two
 * flows on one cable share it where the fat link carried both at full rate. */
static void test_routed_uplinks(void **state)
{
    (void)state;
    const machine *m = &machines[1]; /* cable latencies on the uplinks */
    const char *routings[] = {"dmodk", "hash"};
    dump_in_child(m->spec, m, NULL, 0, TMP "-fat.routes");
    char *fat = slurp(TMP "-fat.routes", NULL);
    assert_non_null(fat);
    for (int r = 0; r < 2; r++) {
        char spec[256], store[512], err[HS_ERR_LEN], want[4096];
        pg_params p;
        snprintf(spec, sizeof spec, "%s,uplink-routing=%s", m->spec, routings[r]);
        assert_int_equal(pg_spec_parse(spec, &p, store, sizeof store, 1, err), HS_OK);
        assert_int_equal(pg_write_file(&p, TMP "-routed.xml", err), HS_EINPUT);
        assert_non_null(strstr(err, "gen:abci:uplink-routing=hash"));
        dump_in_child(spec, m, NULL, 0, TMP "-routed.routes");
        char *routed = slurp(TMP "-routed.routes", NULL), *got = routed;
        assert_non_null(routed);
        int cabled = 0;
        for (const char *line = fat; *line != 'T'; line = strchr(line, '\n') + 1) {
            expect_routed(&p, line, want, sizeof want);
            size_t n = strlen(want);
            assert_memory_equal(got, want, n);
            cabled += strstr(want, "uplink-c") != NULL;
            got += n;
        }
        assert_true(cabled > 100);
        free(routed);
    }
    free(fat);
    /* ABCI: a rack's uplink 2 x 34 NICs x 12.5 GB/s / 3 = 283.3 GB/s, 22 cables of 12.9 GB/s;
     * fat, each flow at its NIC's 12.5 GB/s; D-mod-K, both on rack cable 4, half of it each. */
    double rack_Bps = 2 * 34 * 12.5e9 / 3;
    check_collision("gen:abci:nodes=136", 12.5e9);
    check_collision("gen:abci:nodes=136,uplink-routing=dmodk", rack_Bps / 22 / 2);
}

/* ---------------------------------------------------------------- without SimGrid */

/* The XML a spec generates, in memory. */
static char *xml_of(const pg_params *p)
{
    char *text = NULL, err[HS_ERR_LEN];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(pg_write(p, f, err), HS_OK);
    fclose(f);
    return text;
}

/* A machine's spec (pg_spec_format) reads back to parameters that write the same file. */
static void test_spec_round_trip(void **state)
{
    (void)state;
    const char *flags[] = {"gen:abci", "gen:dgx1", "gen:nvswitch-ndr",
                           "gen:abci:nvlink-bw=20GBps,nodes=8,nodes-per-leaf=2,leaves-per-rack=2",
                           "gen:dgx1:nvlink-topology=nvswitch,gpu-model=A%2CB%25C",
                           "gen:abci:nic-latency=1.23456789us,leaf-oversub=1:3,rack-oversub=2.5",
                           "gen:dgx1:nvlink-topology=none,nics-per-node=2,cpu-link-bw=40GBps",
                           "gen:dgx1:cpu-cores=40,cpu-threads=80"};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
        char err[HS_ERR_LEN], store[2048], spec[4096], store2[4096];
        pg_params p, q;
        assert_int_equal(pg_spec_parse(flags[i], &p, store, sizeof store, 1, err), HS_OK);
        assert_int_equal(pg_spec_format(&p, spec, sizeof spec, err), HS_OK);
        assert_int_equal(pg_spec_parse(spec, &q, store2, sizeof store2, 0, err), HS_OK);
        char *x = xml_of(&p), *y = xml_of(&q);
        assert_string_equal(x, y);
        free(x), free(y);
        /* a node's CPUs are written when said, and only then (files of before read alike) */
        assert_true((strstr(spec, "cpu-cores=40,cpu-threads=80") != NULL) ==
                    (strstr(flags[i], "cpu-cores") != NULL));
        assert_int_equal(q.cpu_cores, p.cpu_cores);
        assert_int_equal(q.cpu_threads, p.cpu_threads);
    }
}

static void assert_spec_refused(const char *spec, const char *needle)
{
    char err[HS_ERR_LEN] = "";
    plat_platform plat;
    assert_int_equal(plat_open(spec, &plat, err), HS_EINPUT);
    if (!strstr(err, needle)) {
        print_error("%s: '%s' lacks '%s'\n", spec, err, needle);
        fail();
    }
}

static void test_spec_errors(void **state)
{
    (void)state;
    assert_spec_refused("gen:summit", "unknown preset");
    assert_spec_refused("gen:abci:nodez=4", "unknown flag 'nodez'");
    assert_spec_refused("gen:abci:nodes", "not FLAG=VALUE");
    assert_spec_refused("gen:abci:pcie-bw=fast", "--pcie-bw");
    assert_spec_refused("gen:abci:nic-type=hdr,nic-bw=20GBps", "--nic-type");
    assert_spec_refused("gen:abci:nvswitch-latency=1us", "--nvswitch-latency");
    assert_spec_refused("gen:abci:gpu-model=%zz", "escape");
    assert_spec_refused("gen:dgx1:cpu-threads=80", "--cpu-threads 80: needs --cpu-cores");
    assert_spec_refused("gen:dgx1:cpu-cores=40,cpu-threads=30", "--cpu-threads: must be");
    assert_spec_refused("gen:dgx1:cpu-cores=-1", "--cpu-cores: must be 0");
    assert_spec_refused("gen:dgx1:cpu-cores=many", "--cpu-cores: 'many' is not a whole number");
}

/* A file the generator wrote is opened from its parameters; one edited byte, and it is checked
 * in full instead (and still opens: the edit is a valid one). */
static void test_generated_file(void **state)
{
    (void)state;
    char err[HS_ERR_LEN], store[256];
    pg_params p;
    plat_platform plat;
    assert_int_equal(pg_spec_parse("gen:abci:nodes=68", &p, store, sizeof store, 1, err), HS_OK);
    assert_int_equal(pg_write_file(&p, TMP "-file.xml", err), HS_OK);
    assert_int_equal(plat_open(TMP "-file.xml", &plat, err), HS_OK);
    assert_non_null(plat.gen);
    assert_true(plat_routes_known(&plat));
    assert_int_equal(plat.n_gpus, 272);
    assert_string_equal(plat.name, "test_platform_gen-file");
    plat_free(&plat);

    char *text = slurp(TMP "-file.xml", NULL);
    assert_non_null(text);
    assert_true(spit_variant(TMP "-edited.xml", text, "latency=\"110ns\"", "latency=\"120ns\"") > 0);
    assert_int_equal(plat_open(TMP "-edited.xml", &plat, err), HS_OK);
    assert_null(plat.gen);
    assert_false(plat_routes_known(&plat)); /* SimGrid's, once loaded */
    assert_int_equal(plat.n_gpus, 272);
    plat_free(&plat);
    free(text);

    /* the shipped platforms are all generated and current */
    const char *shipped[] = {"abci", "dgx1", "nvswitch-ndr"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(plat_open(shipped[i], &plat, err), HS_OK);
        assert_non_null(plat.gen);
        plat_free(&plat);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_round_trip),
        cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_generated_file),
        cmocka_unit_test(test_routes_identical),
        cmocka_unit_test(test_without_host_memory),
        cmocka_unit_test(test_routed_uplinks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
