/* test_workload_xml.c: hybridsim's own workload XML (a tiny network, per-layer times, 3-D,
 * every error naming file and line), ParaDL .net errors and quirks, and short names. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "workload.h"

#define MODEL_DIR HS_SHARED_DIR "/reference/paradl/model/"
#define LOG_DIR HS_SHARED_DIR "/reference/paradl/log/"
#define MAX_ROWS 600
#include "workload_helpers.h"

/* ------------------------------------------------------------------ hybridsim's XML format */

#define XML_HEAD                                                                              \
    "<?xml version=\"1.0\"?>\n"                                                               \
    "<workload name=\"tiny\">\n"                                                              \
    "  <dataset name=\"toy\" samples=\"1000\" sample=\"3x8x8\"/>\n"

static const char tiny_xml[] =
    XML_HEAD
    "  <calibration device=\"V100-16GB\" sample_time_s=\"0.001\"/>\n"
    "  <layers>\n"
    "    <layer id=\"c1\" type=\"conv\" x=\"3x8x8\" w=\"3x4x3x3\" y=\"4x8x8\" padding=\"1\""
    " split=\"filter spatial\"/>\n"
    "    <layer id=\"r1\" name=\"RELU\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\"/>\n"
    "    <layer id=\"c2\" type=\"conv\" x=\"4x8x8\" w=\"4x4x3x3\" y=\"4x8x8\" padding=\"same\"/>\n"
    "    <layer id=\"a\" type=\"add\" x=\"4x8x8\" y=\"4x8x8\" inputs=\"c2 r1\"/>\n"
    "    <layer id=\"p\" type=\"pool\" x=\"4x8x8\" kernel=\"3x3\" y=\"4x4x4\" stride=\"2\""
    " round=\"ceil\"/>\n"
    "    <layer id=\"f\" type=\"fc\" x=\"4x4x4\" w=\"4x10x4x4\" y=\"10x1x1\" wu_s=\"2e-5\"/>\n"
    "  </layers>\n"
    "</workload>\n";

static void test_xml_tiny(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "tiny.xml", tiny_xml), &wl);
    assert_string_equal(wl.name, "tiny");
    assert_string_equal(wl.device, "V100-16GB");
    assert_int_equal(wl.n_layers, 6);
    assert_int_equal(wl.layers[0].split_mask, WL_SPLIT_FILTER | WL_SPLIT_SPATIAL);
    assert_int_equal(wl.layers[1].split_mask, 0);
    assert_string_equal(wl.layers[1].name, "RELU");
    assert_string_equal(wl.layers[0].name, "c1");
    assert_int_equal(wl.layers[3].n_inputs, 2);
    assert_int_equal(wl.layers[3].inputs[1], 1);
    assert_int_equal(wl.layers[4].stride, 2);
    assert_true(wl.layers[5].wu_s == 2e-5);
    assert_int_equal(wl.layers[5].w_elems, 4 * 10 * 16);
    /* ParaDL conventions for weightless layers: w written CxCx0x0, pool 0x0xK */
    assert_int_equal(wl.layers[1].w_in, 4);
    assert_int_equal(wl.layers[1].w_kernel[0], 0);
    assert_int_equal(wl.layers[4].w_in, 0);
    assert_int_equal(wl.layers[4].w_kernel[1], 3);
    /* hand-computed spread: 2*flops + |w| per layer */
    double weight[6] = {
        2 * (2.0 * 3 * 4 * 9 * 64) + 108, 2 * 256.0,  2 * (2.0 * 4 * 4 * 9 * 64) + 144,
        2 * 256.0,                        2 * (4.0 * 4 * 9 * 16), 2 * 640.0 + 640,
    };
    double total = 0;
    for (int i = 0; i < 6; i++)
        total += weight[i];
    for (int i = 0; i < 6; i++)
        assert_true(rel_close(wl.layers[i].fw_s + wl.layers[i].bw_s, 0.001 * weight[i] / total,
                              1e-12));
    /* in-place layers (ReLU) are left out of the activation totals */
    assert_int_equal(wl.x_total, 192 + 256 + 256 + 256 + 64);
    assert_int_equal(wl.w_total, 108 + 144 + 640);
    wl_free(&wl);
}

static void test_xml_per_layer_times(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    tmp_file(path, sizeof path, "timed.xml",
             XML_HEAD
             "  <calibration device=\"A100\"/>\n"
             "  <layers>\n"
             "    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" w=\"3x4x1x1\" y=\"4x8x8\" time_s=\"3e-4\"/>\n"
             "    <layer id=\"r\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\" time_s=\"1e-4\"/>\n"
             "  </layers>\n"
             "</workload>\n");
    load_ok(path, &wl);
    assert_true(rel_close(wl.sample_time_s, 4e-4, 1e-12));
    assert_true(rel_close(wl.layers[0].fw_s, 1e-4, 1e-12));
    assert_true(rel_close(wl.layers[0].bw_s, 2e-4, 1e-12));
    assert_true(rel_close(wl.layers[1].fw_s, 5e-5, 1e-12));
    wl_free(&wl);
}

static void test_xml_3d(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    tmp_file(path, sizeof path, "vol.xml",
             "<?xml version=\"1.0\"?>\n<workload name=\"vol\">\n"
             "  <dataset name=\"v\" samples=\"8\" sample=\"4x16x16x16\"/>\n"
             "  <calibration device=\"V100-16GB\" sample_time_s=\"0.5\"/>\n"
             "  <layers>\n"
             "    <layer id=\"c\" type=\"conv\" x=\"4x16x16x16\" w=\"4x8x3x3x3\" y=\"8x7x7x7\" stride=\"2\"/>\n"
             "    <layer id=\"p\" type=\"pool\" x=\"8x7x7x7\" kernel=\"2x2x2\" y=\"8x3x3x3\" stride=\"2\"/>\n"
             "  </layers>\n</workload>\n");
    load_ok(path, &wl);
    assert_int_equal(wl.layers[1].x.n_spatial, 3);
    assert_true(wl.layers[0].flops == 2.0 * 4 * 8 * 27 * 343);
    assert_true(wl.layers[1].flops == 8.0 * 8 * 8 * 27);
    wl_free(&wl);
}

static void test_xml_errors(void **state)
{
    (void)state;
    const char *cal = "  <calibration device=\"d\" sample_time_s=\"1\"/>\n  <layers>\n";
    char text[4096];
    /* not well-formed: an unquoted attribute on line 6 */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"relu\" x=3x8x8 y=\"3x8x8\"/>\n"
             "  </layers>\n</workload>\n", cal);
    expect_bad("malformed.xml", text, "wl_malformed.xml:6:", NULL);
    /* not valid: unknown layer type, line 6 */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"lstm\" x=\"3x8x8\" "
             "y=\"3x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("badtype.xml", text, "wl_badtype.xml:6:", "lstm");
    /* not valid: an input id nobody has, line 7 */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\"/>\n    <layer id=\"q\" type=\"relu\" x=\"3x8x8\" y=\"3x8x8\" "
             "inputs=\"nobody\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("badinput.xml", text, "wl_badinput.xml:7:", "nobody");
    /* an input that is not earlier, line 6 */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\" inputs=\"q\"/>\n    <layer id=\"q\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("later.xml", text, "wl_later.xml:6:", "not an earlier layer");
    /* negative size */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x-8x8\" "
             "y=\"3x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("negative.xml", text, "wl_negative.xml:6:", "3x-8x8");
    /* x is not what feeds it */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\"/>\n    <layer id=\"s\" type=\"relu\" x=\"4x8x8\" y=\"4x8x8\"/>\n"
             "  </layers>\n</workload>\n", cal);
    expect_bad("chain.xml", text, "wl_chain.xml:7:", "previous layer");
    /* convolution extent that the window cannot give */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" "
             "w=\"3x4x3x3\" y=\"4x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("extent.xml", text, "wl_extent.xml:6:", "give 6");
    /* weights that do not fit the channels */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" "
             "w=\"5x4x1x1\" y=\"4x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("weights.xml", text, "wl_weights.xml:6:", "channels");
    /* an add whose shortcut differs without shortcut="projection" */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"c\" type=\"conv\" x=\"3x8x8\" "
             "w=\"3x4x1x1\" y=\"4x8x8\"/>\n    <layer id=\"a\" type=\"add\" x=\"4x8x8\" "
             "y=\"4x8x8\" inputs=\"c r\"/>\n    <layer id=\"r\" type=\"relu\" x=\"4x8x8\" "
             "y=\"4x8x8\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("later2.xml", text, "wl_later2.xml:7:", "earlier");
    /* unknown split strategy */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\" split=\"pipeline\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("split.xml", text, "wl_split.xml:6:", "pipeline");
    /* both calibrations */
    snprintf(text, sizeof text, XML_HEAD "%s    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" "
             "y=\"3x8x8\" time_s=\"1\"/>\n  </layers>\n</workload>\n", cal);
    expect_bad("twocal.xml", text, "wl_twocal.xml:6:", "sample_time_s");
    /* no calibration at all */
    snprintf(text, sizeof text, XML_HEAD "  <calibration device=\"d\"/>\n  <layers>\n"
             "    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" y=\"3x8x8\"/>\n  </layers>\n"
             "</workload>\n");
    expect_bad("nocal.xml", text, "wl_nocal.xml:6:", "time_s");
    /* a negative time */
    snprintf(text, sizeof text, XML_HEAD "  <calibration device=\"d\" sample_time_s=\"-1\"/>\n"
             "  <layers>\n    <layer id=\"r\" type=\"relu\" x=\"3x8x8\" y=\"3x8x8\"/>\n"
             "  </layers>\n</workload>\n");
    expect_bad("negtime.xml", text, "wl_negtime.xml:4:", "-1");
    /* valid against the DTD, but not a workload */
    expect_bad("root.xml", "<?xml version=\"1.0\"?>\n<layers>\n  <layer id=\"r\" type=\"relu\" "
               "x=\"3x8x8\" y=\"3x8x8\"/>\n</layers>\n", "wl_root.xml:2:", "workload");
}

static void test_net_errors(void **state)
{
    (void)state;
    const char *head = "Dataset|toy\r\nInput|10x3x8x8\r\nModel|Toy\r\n";
    char text[1024];
    snprintf(text, sizeof text, "%sCONV1|3x8x8|3x4x1x1|4x8x8|0.1\r\nLSTM|4x8x8|4x4x0x0|4x8x8|0\r\n",
             head);
    expect_bad("type.net", text, "wl_type.net:5:", "LSTM");
    snprintf(text, sizeof text, "%sCONV1|3x8|3x4x1x1|4x8x8|0.1\r\n", head);
    expect_bad("dims.net", text, "wl_dims.net:4:", "3x8");
    snprintf(text, sizeof text, "%s# fine\r\nCONV1|3x8x8|3x4x1x1\r\n", head);
    expect_bad("fields.net", text, "wl_fields.net:5:", "fields");
    snprintf(text, sizeof text, "%sCONV1|3x8x8|3x4x1x1|4x8x8|fast\r\n", head);
    expect_bad("time.net", text, "wl_time.net:4:", "fast");
    snprintf(text, sizeof text, "%sCONV1|3x8x8|3x4x1x1x1|4x8x8|0\r\n", head);
    expect_bad("wdims.net", text, "wl_wdims.net:4:", "weight");
    expect_bad("noinput.net", "Model|x\nCONV1|3x8x8|3x4x1x1|4x8x8|0\n", "wl_noinput.net",
               "Input");
    expect_bad("empty.net", "Input|10x3x8x8\n", "wl_empty.net", "no layers");
    expect_bad("late3d.net", "CONV1|3x8x8|3x4x1x1|4x8x8|0\nInput|10x3x8x8x8\n", "wl_late3d.net",
               "3-D");
}

static void test_net_tolerates_its_quirks(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    /* stray spaces, "#|0" comments, a missing time column, several timed layers, no final
     * newline: the oracle sums the times and spreads the sum */
    tmp_file(path, sizeof path, "quirks.net_sc",
             "Dataset|toy\nInput|10x3x8x8\n#|0\n"
             "CONV1 | 3x8x8 |3x4x1x1| 4x8x8 |0.25\n"
             "# Fully connected|0\n"
             "RELU|4x8x8|4x4x0x0|4x8x8 \n"
             "MPOOL|4x8x8|0x0x2x2|4x4x4 |0.75");
    load_ok(path, &wl);
    assert_int_equal(wl.n_layers, 3);
    assert_string_equal(wl.name, "wl_quirks"); /* no Model| line: the file's stem */
    assert_true(rel_close(wl.sample_time_s, 1.0, 1e-12));
    assert_int_equal(wl.layers[2].y.spatial[1], 4);
    wl_free(&wl);
}

static void test_short_names(void **state)
{
    (void)state;
    wl_workload wl;
    char err[HS_ERR_LEN] = "";
    load_ok("alexnet", &wl);
    assert_non_null(strstr(wl.path, "/workloads/alexnet.xml"));
    wl_free(&wl);
    assert_int_equal(wl_load("no-such-workload", &wl, err), HS_EINPUT);
    assert_non_null(strstr(err, "no-such-workload"));
    assert_int_equal(wl_load(HS_TEST_TMP "/wl_missing.xml", &wl, err), HS_EINPUT);
    assert_non_null(strstr(err, "wl_missing.xml"));

    /* HYBRIDSIM_HOME moves the folder (which must then hold the DTD too) */
    char home[512], dir[600], path[2048];
    snprintf(home, sizeof home, "%s/wl_home", HS_TEST_TMP);
    snprintf(dir, sizeof dir, "%s/workloads", home);
    snprintf(path, sizeof path, "mkdir -p '%s' && cp '%s/workloads/workload.dtd' '%s/'", dir,
             HYBRIDSIM_SOURCE_DIR, dir);
    assert_int_equal(system(path), 0);
    snprintf(path, sizeof path, "%s/tiny.xml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(tiny_xml, f);
    fclose(f);
    setenv("HYBRIDSIM_HOME", home, 1);
    assert_string_equal(wl_default_dir(), dir);
    int rc = wl_load("tiny", &wl, err);
    unsetenv("HYBRIDSIM_HOME");
    if (rc != HS_OK)
        fail_msg("%s", err);
    assert_int_equal(wl.n_layers, 6);
    wl_free(&wl);
    assert_string_equal(wl_default_dir(), HYBRIDSIM_SOURCE_DIR "/workloads");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml_tiny),
        cmocka_unit_test(test_xml_per_layer_times),
        cmocka_unit_test(test_xml_3d),
        cmocka_unit_test(test_xml_errors),
        cmocka_unit_test(test_net_errors),
        cmocka_unit_test(test_net_tolerates_its_quirks),
        cmocka_unit_test(test_short_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
