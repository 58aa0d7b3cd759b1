/* test_platform.c: the platforms module on the real machine, platforms/abci.xml.
 *
 * First, without a SimGrid engine: units, the presets, the generator's parameter and flag errors
 * (each names its flag), the atomic -o, the generation shorthands (--nvlink-gen, --pcie-gen,
 * --nic-type), that the committed abci.xml, dgx1.xml and nvswitch-ndr.xml are exactly what the
 * generator writes, and the checker's "file:line: what" on broken files (a failed check never
 * starts the engine). test_platform_abci.c loads abci.xml, test_platform_nvlink.c the other
 * platforms. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <simgrid/host.h>
#include <xbt/sysdep.h>

#include "platcheck.h"
#include "platform.h"
#include "out_helpers.h"
#include "platform_helpers.h"
#include "platgen.h"
#include "units.h"

#define TMP HS_TEST_TMP "/test_platform"

/* ---------------------------------------------------------------- units */

static void assert_parses(const char *text, un_kind kind, double want)
{
    double v = -1;
    assert_int_equal(un_parse(text, kind, &v), 0);
    if (!close_rel(v, want, 1e-15)) {
        print_error("%s parsed as %.17g, want %.17g\n", text, v, want);
        fail();
    }
}

static void test_units_parse(void **state)
{
    (void)state;
    double v;
    assert_parses("50GBps", UN_BANDWIDTH, 50e9);
    assert_parses("12.5GBps", UN_BANDWIDTH, 12.5e9);
    assert_parses("100Gbps", UN_BANDWIDTH, 12.5e9); /* bits */
    assert_parses("1KiBps", UN_BANDWIDTH, 1024);
    assert_parses("9us", UN_TIME, 9e-6);
    assert_parses("110ns", UN_TIME, 110e-9);
    assert_parses("3ms", UN_TIME, 3e-3);
    assert_parses("2", UN_TIME, 2);
    assert_parses("16GB", UN_SIZE, 16e9);
    assert_parses("16GiB", UN_SIZE, 16.0 * 1024 * 1024 * 1024);
    assert_parses("7.8Tf", UN_SPEED, 7.8e12);
    assert_parses("1e9", UN_BANDWIDTH, 1e9);
    assert_int_equal(un_parse("50GB", UN_BANDWIDTH, &v), -1); /* a size, not a bandwidth */
    assert_int_equal(un_parse("9 us", UN_TIME, &v), -1);
    assert_int_equal(un_parse("", UN_TIME, &v), -1);
    assert_int_equal(un_parse("fast", UN_SPEED, &v), -1);
    assert_int_equal(un_parse("nan", UN_SIZE, &v), -1);
    assert_int_equal(un_parse("12KB", UN_SIZE, &v), -1); /* SimGrid's prefix is k */
}

static void test_units_format_reads_back(void **state)
{
    (void)state;
    struct { double v; un_kind kind; const char *text; } cases[] = {
        {50e9, UN_BANDWIDTH, "50GBps"}, {12.5e9, UN_BANDWIDTH, "12.5GBps"},
        {9e-6, UN_TIME, "9us"},         {110e-9, UN_TIME, "110ns"},
        {15e-6, UN_TIME, "15us"},       {0, UN_TIME, "0s"},
        {16e9, UN_SIZE, "16GB"},        {7.8e12, UN_SPEED, "7.8Tf"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double back;
        un_format(cases[i].v, cases[i].kind, buf, sizeof buf);
        assert_string_equal(buf, cases[i].text);
        assert_int_equal(un_parse(buf, cases[i].kind, &back), 0);
        assert_true(close_rel(back, cases[i].v, 1e-15));
    }
    /* Not a round number in any unit: still reads back. */
    double odd = 850e9 / 3, back;
    un_format(odd, UN_BANDWIDTH, buf, sizeof buf);
    assert_int_equal(un_parse(buf, UN_BANDWIDTH, &back), 0);
    assert_true(close_rel(back, odd, 1e-15));
}

/* ---------------------------------------------------------------- generator */

static void test_abci_preset(void **state)
{
    (void)state;
    pg_params p;
    char err[HS_ERR_LEN];
    pg_abci(&p);
    assert_int_equal(p.nodes, 1088);
    assert_int_equal(p.gpus_per_node, 4);
    assert_int_equal(p.gpus_per_pcie_switch, 2);
    assert_int_equal(p.nodes_per_leaf, 17);
    assert_int_equal(p.leaves_per_rack, 2);
    assert_int_equal(p.nics_per_node, 0); /* one per PCIe switch */
    assert_int_equal(p.nvlink_topology, PG_NVLINK_ALL_TO_ALL);
    /* 2 NVLink 2 links per pair: the oracle's 50 GB/s (the file says 50GBps, see below). */
    assert_true(p.nvlink_link_bw_Bps == 25e9);
    assert_int_equal(p.nvlink_links_per_pair, 2);
    assert_true(p.nvlink_bw_Bps == 0);
    assert_true(p.nic_bw_Bps == 12.5e9);
    assert_true(p.rack_oversub == 3 && p.leaf_oversub == 1);
    assert_int_equal(pg_check(&p, err), HS_OK);
}

/* The what-if presets: at least 1024 GPUs, the documented node (platforms/README.md). */
static void test_other_presets(void **state)
{
    (void)state;
    pg_params p;
    char err[HS_ERR_LEN] = "";
    assert_int_equal(pg_preset("dgx1", &p, err), HS_OK);
    assert_true(p.nodes * p.gpus_per_node >= 1024);
    assert_int_equal(p.gpus_per_node, 8);
    assert_int_equal(p.nvlink_topology, PG_NVLINK_CUBE_MESH);
    assert_true(p.nvlink_link_bw_Bps == 25e9);      /* NVLink 2 */
    assert_int_equal(p.gpus_per_node / p.gpus_per_pcie_switch, 4);
    assert_int_equal(p.nics_per_node, 4);
    assert_true(p.nic_bw_Bps == 12.5e9);             /* EDR */
    assert_true(p.pcie_bw_Bps == 12e9);              /* Gen3 x16, as NCCL plans */
    assert_true(p.gpu_memory_bytes == 32e9);
    assert_int_equal(pg_check(&p, err), HS_OK);
    assert_int_equal(pg_preset("nvswitch-ndr", &p, err), HS_OK);
    assert_true(p.nodes * p.gpus_per_node >= 1024);
    assert_int_equal(p.gpus_per_node, 8);
    assert_int_equal(p.nvlink_topology, PG_NVLINK_NVSWITCH);
    assert_true(p.nvlink_links_per_gpu * p.nvlink_link_bw_Bps == 450e9);
    assert_int_equal(p.nics_per_node, 8);
    assert_true(p.nic_bw_Bps == 50e9);               /* NDR */
    assert_true(p.pcie_bw_Bps == 48e9);              /* Gen5 x16, as NCCL plans */
    assert_true(p.gpu_memory_bytes == 80e9);
    assert_true(p.leaf_oversub == 1 && p.rack_oversub == 1);
    assert_int_equal(pg_check(&p, err), HS_OK);
    assert_int_equal(pg_preset("summit", &p, err), HS_EINPUT);
    assert_non_null(strstr(err, "--preset"));
}

/* pg_check must fail with HS_EINPUT and a message naming `flag`. */
static void assert_bad(const pg_params *p, const char *flag)
{
    char err[HS_ERR_LEN] = "";
    assert_int_equal(pg_check(p, err), HS_EINPUT);
    if (!strstr(err, flag)) {
        print_error("message '%s' does not name %s\n", err, flag);
        fail();
    }
}

static void test_generator_errors_name_the_flag(void **state)
{
    (void)state;
    pg_params p;
    char err[HS_ERR_LEN];
    pg_abci(&p);
    p.nodes = 0;
    assert_bad(&p, "--nodes");
    pg_abci(&p);
    p.nodes_per_leaf = 0;
    assert_bad(&p, "--nodes-per-leaf");
    pg_abci(&p);
    p.leaves_per_rack = 0; /* levels that do not divide are fine: test_platform_partial */
    assert_bad(&p, "--leaves-per-rack");
    pg_abci(&p);
    p.gpus_per_pcie_switch = 3;
    assert_bad(&p, "--gpus-per-pcie-switch");
    pg_abci(&p);
    p.nic_latency_s = -1e-6;
    assert_bad(&p, "--nic-latency");
    pg_abci(&p);
    p.nvlink_bw_Bps = -1; /* 0 is auto */
    assert_bad(&p, "--nvlink-bw");
    pg_abci(&p);
    p.nvlink_link_bw_Bps = 0;
    assert_bad(&p, "--nvlink-link-bw");
    pg_abci(&p);
    p.nvlink_links_per_pair = 0;
    assert_bad(&p, "--nvlink-links-per-pair");
    pg_abci(&p);
    p.nvlink_topology = PG_NVLINK_CUBE_MESH; /* 4 GPUs per node */
    assert_bad(&p, "--nvlink-topology");
    pg_abci(&p);
    p.nvlink_topology = PG_NVLINK_PAIRS;
    p.gpus_per_node = 6;
    p.gpus_per_pcie_switch = 3;
    assert_int_equal(pg_check(&p, err), HS_OK);
    p.gpus_per_node = 3; /* pairs need an even count */
    p.gpus_per_pcie_switch = 1;
    assert_bad(&p, "--nvlink-topology");
    assert_int_equal(pg_preset("dgx1", &p, err), HS_OK);
    p.nvlink_bw_Bps = 50e9; /* its pairs have 1 or 2 links */
    assert_bad(&p, "--nvlink-bw");
    pg_abci(&p);
    p.gpus_per_node = 12; /* 3 PCIe switches: 2 NICs are neither a multiple nor a divisor */
    p.gpus_per_pcie_switch = 4;
    p.nics_per_node = 2;
    assert_bad(&p, "--nics-per-node");
    pg_abci(&p);
    p.nics_per_node = 1;  /* 2 PCIe switches share one NIC: fine */
    assert_int_equal(pg_check(&p, err), HS_OK);
    pg_abci(&p);
    p.nics_per_node = 6;  /* 4 GPUs */
    assert_bad(&p, "--nics-per-node");
    pg_abci(&p);
    p.nics_per_node = -2;
    assert_bad(&p, "--nics-per-node");
    pg_abci(&p);
    p.nvswitch_latency_s = NAN;
    assert_bad(&p, "--nvswitch-latency");
    pg_abci(&p);
    p.rack_oversub = 0;
    assert_bad(&p, "--rack-oversub");
    pg_abci(&p);
    p.gpu_model = "";
    assert_bad(&p, "--gpu-model");
}

/* pg_main on the given flags must fail with HS_EINPUT naming `flag`. */
static void assert_main_bad(const char *flag, int argc, char **argv)
{
    char err[HS_ERR_LEN] = "";
    assert_int_equal(pg_main(argc, argv, err), HS_EINPUT);
    if (!strstr(err, flag)) {
        print_error("message '%s' does not name %s\n", err, flag);
        fail();
    }
}

static void test_pg_main_flag_errors(void **state)
{
    (void)state;
    char *bad_unit[] = {"platform", "--nvlink-bw", "50GB", "-o", TMP "-x.xml"};
    assert_main_bad("--nvlink-bw", 5, bad_unit);
    char *bad_int[] = {"platform", "--nodes", "many"};
    assert_main_bad("--nodes", 3, bad_int);
    char *bad_ratio[] = {"platform", "--rack-oversub=1:"};
    assert_main_bad("--rack-oversub", 2, bad_ratio);
    char *unknown[] = {"platform", "--nodez", "4"};
    assert_main_bad("--nodez", 3, unknown);
    char *missing[] = {"platform", "--nic-latency"};
    assert_main_bad("--nic-latency", 2, missing);
    char *preset[] = {"platform", "--preset", "summit"};
    assert_main_bad("--preset", 3, preset);
    char *topo[] = {"platform", "--nvlink-topology", "torus"};
    assert_main_bad("--nvlink-topology", 3, topo);
    char *gen[] = {"platform", "--nvlink-gen=5"};
    assert_main_bad("--nvlink-gen", 2, gen);
    char *pcie[] = {"platform", "--pcie-gen", "16GBps"};
    assert_main_bad("--pcie-gen", 3, pcie);
    char *nic[] = {"platform", "--nic-type", "fdr"};
    assert_main_bad("--nic-type", 3, nic);
    char *nics[] = {"platform", "--nics-per-node", "some"};
    assert_main_bad("--nics-per-node", 3, nics);
    char *gpu[] = {"platform", "--gpu", "a100"};
    assert_main_bad("a100-40gb", 3, gpu); /* the message lists the known devices */
    char *label[] = {"platform", "--gpu-model", "A100-40GB"}; /* abci's GPU is a V100 */
    assert_main_bad("--gpu a100-40gb", 3, label);
    /* Two ways to set one quantity, in either order. */
    char *both_nic[] = {"platform", "--nic-bw", "25GBps", "--nic-type", "hdr"};
    assert_main_bad("--nic-bw", 5, both_nic);
    char *both_pcie[] = {"platform", "--pcie-gen", "4", "--pcie-bw", "32GBps"};
    assert_main_bad("--pcie-gen", 5, both_pcie);
    char *both_nvl[] = {"platform", "--nvlink-gen", "3", "--nvlink-bw", "100GBps"};
    assert_main_bad("--nvlink-bw", 5, both_nvl);
    /* Flags the topology would ignore. */
    char *per_gpu[] = {"platform", "--nvlink-links-per-gpu", "12"};
    assert_main_bad("--nvlink-links-per-gpu", 3, per_gpu);
    char *per_pair[] = {"platform", "--preset", "nvswitch-ndr", "--nvlink-links-per-pair", "2"};
    assert_main_bad("--nvlink-links-per-pair", 5, per_pair);
    char *sw_lat[] = {"platform", "--preset=dgx1", "--nvswitch-latency", "1us"};
    assert_main_bad("--nvswitch-latency", 4, sw_lat);
    char *cube4[] = {"platform", "--preset", "dgx1", "--gpus-per-node", "4"};
    assert_main_bad("--nvlink-topology", 5, cube4);
    char *no_dir[] = {"platform", "-o", TMP "-no-such-dir/x.xml"};
    assert_main_bad("-o", 3, no_dir);
    /* A value missing before the next flag, which is not taken for it; a negative number
     * stays a value. */
    char *next_short[] = {"platform", "--gpu-model", "-o", TMP "-x.xml"};
    assert_main_bad("--gpu-model needs a value (the next word, '-o', is a flag)", 4, next_short);
    char *next_long[] = {"platform", "--nodes", "--gpus-per-node", "2"};
    assert_main_bad("--nodes needs a value (the next word, '--gpus-per-node'", 4, next_long);
    char *next_early[] = {"platform", "--preset", "--nodes", "2"};
    assert_main_bad("--preset needs a value (the next word, '--nodes'", 4, next_early);
    char *out_flag[] = {"platform", "-o", "--nodes", "2"};
    assert_main_bad("-o needs a value (the next word, '--nodes'", 4, out_flag);
    char *negative[] = {"platform", "--cpu-cores", "-3", "-o", TMP "-x.xml"};
    assert_main_bad("--cpu-cores: must be 0 (not said) to 4096 (got -3)", 5, negative);
    /* A failure writes nothing, not even the temporary file. */
    assert_int_equal(access(TMP "-x.xml", F_OK), -1);
    assert_int_equal(temps_beside(TMP "-x.xml"), 0);
}

/* Flags override the preset, in any order, with units and ratios. */
static void test_pg_main_writes_what_the_flags_say(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    char *argv[] = {"platform", "--nodes", "8", "--nodes-per-leaf=2", "--leaves-per-rack", "2",
                    "--gpus-per-node", "2", "--gpus-per-pcie-switch", "1", "--nic-bw",
                    "100Gbps", "--rack-oversub", "1:4", "--nvlink-bw", "20GBps",
                    "--gpu-model", "A&B", "-o", TMP "-flags.xml", "--preset", "abci"};
    assert_int_equal(pg_main(22, argv, err), HS_OK);
    char *xml = slurp(TMP "-flags.xml", NULL);
    assert_non_null(xml);
    /* 2 nodes x 2 NICs x 12.5 GB/s per leaf uplink (1:1); 2 of them / 4 per rack uplink. */
    assert_non_null(strstr(xml, "<link id=\"l000-uplink\" bandwidth=\"50GBps\""));
    assert_non_null(strstr(xml, "<link id=\"r00-uplink\" bandwidth=\"25GBps\""));
    assert_non_null(strstr(xml, "<link id=\"n0000-nvl0-1\" bandwidth=\"20GBps\" latency=\"9us\""));
    assert_non_null(strstr(xml, "<link id=\"n0007-nic1\" bandwidth=\"12.5GBps\""));
    assert_null(strstr(xml, "n0008"));
    assert_non_null(strstr(xml, "value=\"A&amp;B\""));
    free(xml);
    assert_int_equal(temps_beside(TMP "-flags.xml"), 0);
}

/* --gpu sets the device, its label and its memory; an explicit --gpu-memory wins wherever it
 * stands. */
static void test_pg_main_gpu(void **state)
{
    (void)state;
    static const char *const props[] = {
        "\"hybridsim:gpu_device\" value=\"a100-80gb\"",
        "\"hybridsim:gpu_model\" value=\"A100-80GB\"",
        "\"hybridsim:gpu_memory_bytes\" value=\"70000000000\"",
    };
    char err[HS_ERR_LEN] = "", *argv[] = {"platform", "--gpu-memory", "70GB", "--gpu", "A100-80GB",
                                          "--nodes", "2", "--leaves-per-rack", "1", "-o",
                                          TMP "-gpu.xml", "--nodes-per-leaf", "2"};
    assert_int_equal(pg_main(13, argv, err), HS_OK);
    char *xml = slurp(TMP "-gpu.xml", NULL);
    for (int i = 0; i < 3; i++)
        assert_non_null(xml && strstr(xml, props[i]));
    free(xml);
    plat_facts facts;
    assert_int_equal(plat_check_file(TMP "-gpu.xml", &facts, err), HS_OK);
    assert_string_equal(facts.gpu_device, "a100-80gb");
    plat_facts_free(&facts);
}

/* The shorthands set the bandwidths they name; links multiply a link's bandwidth. */
static void test_pg_main_generations(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    char *argv[] = {"platform", "--nodes", "8", "--nodes-per-leaf", "2", "--leaves-per-rack",
                    "2", "--nvlink-gen", "1", "--nvlink-links-per-pair", "3", "--pcie-gen", "4",
                    "--nic-type", "hdr", "--nics-per-node", "4", "-o", TMP "-gen.xml"};
    assert_int_equal(pg_main(19, argv, err), HS_OK);
    char *xml = slurp(TMP "-gen.xml", NULL);
    assert_non_null(xml);
    assert_non_null(strstr(xml, "<link id=\"n0000-nvl2-3\" bandwidth=\"60GBps\""));
    assert_non_null(strstr(xml, "<link id=\"n0000-pcie3\" bandwidth=\"32GBps\""));
    assert_non_null(strstr(xml, "<link id=\"n0000-nic3\" bandwidth=\"25GBps\""));
    /* 4 NICs on 2 switches: GPU g has NIC g. */
    assert_non_null(strstr(xml, "<link_ctn id=\"n0000-pcie3\" direction=\"UP\"/>"
                                "<link_ctn id=\"n0000-nic3\" direction=\"UP\"/>"));
    /* 2 nodes x 4 NICs x 25 GB/s per leaf uplink. */
    assert_non_null(strstr(xml, "<link id=\"l000-uplink\" bandwidth=\"200GBps\""));
    free(xml);
    char *nvswitch[] = {"platform", "--nodes", "8", "--nodes-per-leaf", "2",
                        "--leaves-per-rack", "2", "--nvlink-topology", "nvswitch",
                        "--nvlink-gen", "4", "--nvlink-links-per-gpu", "18",
                        "--nvswitch-latency", "100ns", "-o", TMP "-gen.xml"};
    assert_int_equal(pg_main(17, nvswitch, err), HS_OK);
    xml = slurp(TMP "-gen.xml", NULL);
    assert_non_null(xml);
    assert_non_null(strstr(xml, "<link id=\"n0007-nvs3\" bandwidth=\"450GBps\" "
                                "latency=\"4.5us\""));
    assert_non_null(strstr(xml, "<link id=\"n0007-nvswitch\" bandwidth=\"1.8TBps\" "
                                "latency=\"100ns\" sharing_policy=\"FATPIPE\""));
    assert_null(strstr(xml, "-nvl0-1"));
    free(xml);
}

/* platforms/NAME.xml is the generator's output for the preset NAME, byte for byte: it cannot
 * drift from the code, and regenerating it is `hybridsim platform --preset NAME -o ...`. */
static void assert_committed_is_generator_output(const char *preset)
{
    pg_params p;
    char err[HS_ERR_LEN], path[1024], fresh_path[1024];
    size_t n_new, n_old;
    assert_int_equal(pg_preset(preset, &p, err), HS_OK);
    snprintf(fresh_path, sizeof fresh_path, TMP "-%s.xml", preset);
    snprintf(path, sizeof path, HYBRIDSIM_SOURCE_DIR "/platforms/%s.xml", preset);
    assert_int_equal(pg_write_file(&p, fresh_path, err), HS_OK);
    char *fresh = slurp(fresh_path, &n_new);
    char *committed = slurp(path, &n_old);
    assert_non_null(fresh);
    assert_non_null(committed);
    assert_int_equal(n_new, n_old);
    assert_memory_equal(fresh, committed, n_new);
    assert_true(n_old < 5 * 1000 * 1000); /* a few MB */
    free(fresh);
    free(committed);
}

static void test_committed_platforms_are_generator_output(void **state)
{
    (void)state;
    assert_committed_is_generator_output("abci");
    assert_committed_is_generator_output("dgx1");
    assert_committed_is_generator_output("nvswitch-ndr");
}

/* ---------------------------------------------------------------- the checker */

static char *small_xml; /* a valid 8-node platform as text, made in group setup */

static int make_small_xml(void **state)
{
    (void)state;
    pg_params p;
    char err[HS_ERR_LEN];
    pg_abci(&p);
    p.nodes = 8;
    p.nodes_per_leaf = 2;
    p.leaves_per_rack = 2;
    if (pg_write_file(&p, TMP "-small.xml", err) != HS_OK)
        return -1;
    small_xml = slurp(TMP "-small.xml", NULL);
    return small_xml ? 0 : -1;
}

static int free_small_xml(void **state)
{
    (void)state;
    free(small_xml);
    return 0;
}

/* Write small_xml with one replacement and expect plat_load to fail with HS_EINPUT and a
 * message "path:LINE: ...what...", LINE being at_line, or the replacement's line when 0. */
static void assert_rejected(const char *from, const char *to, int at_line, const char *what)
{
    const char *path = TMP "-bad.xml";
    char err[HS_ERR_LEN] = "", want[1200];
    plat_platform plat;
    int line = spit_variant(path, small_xml, from, to);
    assert_true(line > 0);
    assert_int_equal(plat_load(path, &plat, err), HS_EINPUT);
    snprintf(want, sizeof want, "%s:%d: ", path, at_line ? at_line : line);
    if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, what)) {
        print_error("got '%s'\nwant '%s...%s...'\n", err, want, what);
        fail();
    }
}

/* The line of the first occurrence of s in small_xml. */
static int line_of(const char *s)
{
    const char *at = strstr(small_xml, s);
    int line = 1;
    for (const char *c = small_xml; c < at; c++)
        line += *c == '\n';
    return line;
}

/* The unmodified file passes, and the check reads the machine from it. */
static void test_checker_accepts_generated(void **state)
{
    (void)state;
    plat_facts facts;
    char err[HS_ERR_LEN] = "";
    assert_int_equal(plat_check_file(TMP "-small.xml", &facts, err), HS_OK);
    assert_int_equal(facts.nodes, 8);
    assert_int_equal(facts.gpus_per_node, 4);
    assert_int_equal(facts.n_gpus, 32);
    assert_int_equal(facts.nodes_per_leaf, 2);
    assert_int_equal(facts.leaves_per_rack, 2);
    assert_string_equal(facts.gpu_names[0], "n0000-gpu0");
    assert_string_equal(facts.gpu_names[31], "n0007-gpu3");
    assert_string_equal(facts.gpu_model, "V100-16GB");
    assert_string_equal(facts.gpu_device, "v100-sxm2-16gb");
    plat_facts_free(&facts);
    /* hybridsim:gpu_device is optional (files older than the device table lack it) */
    const char *path = TMP "-nodevice.xml";
    assert_true(spit_variant(path, small_xml,
                             " <prop id=\"hybridsim:gpu_device\" value=\"v100-sxm2-16gb\"/>\n",
                             "") > 0);
    assert_int_equal(plat_check_file(path, &facts, err), HS_OK);
    assert_string_equal(facts.gpu_device, "");
    plat_facts_free(&facts);
}

static void test_checker_malformed_xml(void **state)
{
    (void)state;
    /* libxml2's own diagnosis, on the line where the damage shows. */
    assert_rejected("</platform>", "</platfrom>", 0, "malformed XML");
    assert_rejected("<host id=\"n0000-gpu0\"", "<host id=n0000-gpu0", 0, "malformed XML");
    /* An element left open swallows what follows: caught at the first misplaced child. */
    assert_rejected("<router id=\"n0000-gw\"/>", "<router id=\"n0000-gw\">",
                    line_of("<route src=\"n0000-gpu0\""), "left open");
    assert_rejected("<platform version=\"4.1\">", "<workload>", 0, "not <platform>");
}

static void test_checker_missing_property(void **state)
{
    (void)state;
    int root = line_of("<zone id=\"machine\"");
    assert_rejected(" <prop id=\"hybridsim:gpu_memory_bytes\" value=\"16000000000\"/>\n", "",
                    root, "lacks the property hybridsim:gpu_memory_bytes");
    assert_rejected(" <prop id=\"hybridsim:format\" value=\"1\"/>\n", "", root,
                    "hybridsim:format");
    assert_rejected("value=\"16000000000\"", "value=\"lots\"", 0, "hybridsim:gpu_memory_bytes");
    assert_rejected("\"hybridsim:nodes\" value=\"8\"", "\"hybridsim:nodes\" value=\"0\"", 0,
                    "hybridsim:nodes");
    assert_rejected("value=\"v100-sxm2-16gb\"", "value=\"tpu-v4\"", 0,
                    "hybridsim:gpu_device: 'tpu-v4'");
}

static void test_checker_gpu_numbering(void **state)
{
    (void)state;
    assert_rejected("<host id=\"n0003-gpu1\"", "<host id=\"n003-gpu1\"", 0, "zero-padded");
    assert_rejected("\"hybridsim:nodes\" value=\"8\"", "\"hybridsim:nodes\" value=\"9\"",
                    0, "node 8 GPU 0");
    assert_rejected("\"hybridsim:gpus_per_node\" value=\"4\"",
                    "\"hybridsim:gpus_per_node\" value=\"3\"", line_of("n0000-gpu3\""),
                    "GPU 3");
}

static void test_checker_routes_and_links(void **state)
{
    (void)state;
    assert_rejected("<link_ctn id=\"n0000-nvl0-1\"", "<link_ctn id=\"n0000-nvl0-9\"", 0,
                    "link 'n0000-nvl0-9' is not declared");
    assert_rejected("<link_ctn id=\"n0000-nvl0-1\" direction=\"UP\"/>",
                    "<link_ctn id=\"n0000-nvl0-1\"/>", 0, "SPLITDUPLEX");
    assert_rejected("<link_ctn id=\"l000-switch\"/>",
                    "<link_ctn id=\"l000-switch\" direction=\"UP\"/>",
                    0, "not SPLITDUPLEX");
    assert_rejected("<route src=\"n0000-gpu0\" dst=\"n0000-gpu1\">",
                    "<route src=\"n0000-gpu0\" dst=\"n0001-gpu1\">", 0, "not declared");
    assert_rejected("<route src=\"n0000-gpu0\" dst=\"n0000-gpu2\">",
                    "<route src=\"n0000-gpu1\" dst=\"n0000-gpu0\">", 0, "already declared");
    assert_rejected("bandwidth=\"50GBps\"", "bandwidth=\"50GB\"", 0, "bandwidth '50GB'");
    assert_rejected("speed=\"7.8Tf\"", "speed=\"fast\"", 0, "speed 'fast'");
    assert_rejected("gw_src=\"l000-up\" gw_dst=\"l001-up\"",
                    "gw_src=\"n0002-gw\" gw_dst=\"l001-up\"", 0,
                    "gw_src 'n0002-gw' is not inside zone 'l000'");
    assert_rejected("<platform version=\"4.1\">",
                    "<platform version=\"4.1\"><config>"
                    "<prop id=\"network/model\" value=\"LV08\"/></config>",
                    0, "<config> is not allowed");
    assert_rejected("<platform version=\"4.1\">", "<platform version=\"4\">", 0, "version");
    assert_rejected("<zone id=\"n0001\" routing=\"Full\">",
                    "<zone id=\"n0001\" routing=\"Cluster\">",
                    0, "routing 'Cluster'");
    assert_rejected("<zone id=\"n0001\" routing=\"Full\">",
                    "<zone id=\"n0001\" routing=\"Dijkstra\">", 0, "routing 'Dijkstra'");
}

/* What SimGrid would stop a run on: a route from a host to itself, and a GPU pair without a
 * route (said at the line of the zone lacking it). */
static void test_checker_every_gpu_pair_routed(void **state)
{
    (void)state;
    assert_rejected("<route src=\"n0000-gpu0\" dst=\"n0000-gpu1\">",
                    "<route src=\"n0000-gpu0\" dst=\"n0000-gpu0\">", 0,
                    "route n0000-gpu0 -> n0000-gpu0: a route from a host or router to itself");
    assert_rejected("<route src=\"n0000-gpu0\" dst=\"n0000-gpu1\">",
                    "<route src=\"n0000-gpu0\" dst=\"n0000-gpu1\" symmetrical=\"NO\">",
                    line_of("<zone id=\"n0000\""),
                    "no route from host 'n0000-gpu1' to host 'n0000-gpu0' in zone 'n0000'");
    assert_rejected("<host id=\"n0000-gpu0\" speed=\"7.8Tf\"/>",
                    "<host id=\"n0000-gpu0\" speed=\"7.8Tf\" state_file=\"x\"/>", 0,
                    "attribute state_file");
}

static void test_checker_missing_file(void **state)
{
    (void)state;
    char err[HS_ERR_LEN] = "";
    plat_platform plat;
    assert_int_equal(plat_load(TMP "-absent.xml", &plat, err), HS_EINPUT);
    assert_non_null(strstr(err, "-absent.xml: cannot open"));
    assert_int_equal(plat_load("no-such-platform", &plat, err), HS_EINPUT);
    assert_non_null(strstr(err, "no-such-platform.xml"));
}

int main(void)
{
    const struct CMUnitTest offline[] = {
        cmocka_unit_test(test_units_parse),
        cmocka_unit_test(test_units_format_reads_back),
        cmocka_unit_test(test_abci_preset),
        cmocka_unit_test(test_other_presets),
        cmocka_unit_test(test_generator_errors_name_the_flag),
        cmocka_unit_test(test_pg_main_flag_errors),
        cmocka_unit_test(test_pg_main_writes_what_the_flags_say),
        cmocka_unit_test(test_pg_main_gpu),
        cmocka_unit_test(test_pg_main_generations),
        cmocka_unit_test(test_committed_platforms_are_generator_output),
        cmocka_unit_test(test_checker_accepts_generated),
        cmocka_unit_test(test_checker_malformed_xml),
        cmocka_unit_test(test_checker_missing_property),
        cmocka_unit_test(test_checker_gpu_numbering),
        cmocka_unit_test(test_checker_routes_and_links),
        cmocka_unit_test(test_checker_every_gpu_pair_routed),
        cmocka_unit_test(test_checker_missing_file),
    };
    return cmocka_run_group_tests_name("platform offline", offline, make_small_xml,
                                       free_small_xml);
}
