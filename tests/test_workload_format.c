/* test_workload_format.c: what the workload format says for the compute model: grouped and
 * depthwise convolutions (groups), padding per extent, a calibration without any time
 * (method="none") or with its batch, squeeze-and-excitation (the activations, a mul by a
 * broadcast per-channel scale), a concatenation of more than 8 inputs, and the errors of
 * each; the shipped EfficientNet-WideSE workloads against EfficientNet's and their parameter
 * counts; the shipped SSD300 (experiments/import/ssd_pytorch.py): its weights, anchors and
 * loss layers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "workload_helpers.h"

#define HEAD                                                                                  \
    "<?xml version=\"1.0\"?>\n<workload name=\"fmt\">\n"                                    \
    "  <dataset name=\"toy\" samples=\"100\" sample=\"8x16x16\"/>\n"
#define TIMED "  <calibration device=\"V100-16GB\" sample_time_s=\"0.001\"/>\n"
#define UNTIMED "  <calibration method=\"none\"/>\n"
#define LAYERS(body) "  <layers>\n" body "  </layers>\n</workload>\n"

/* A depthwise 3x3 (groups = channels), a grouped 1x1 and a 1x7 with padding 3 across only. */
static const char grouped_xml[] =
    HEAD UNTIMED LAYERS(
        "    <layer id=\"dw\" type=\"conv\" x=\"8x16x16\" w=\"8x8x3x3\" y=\"8x16x16\" padding=\"1\""
        " groups=\"8\"/>\n"
        "    <layer id=\"g\" type=\"conv\" x=\"8x16x16\" w=\"8x16x1x1\" y=\"16x16x16\""
        " groups=\"2\"/>\n"
        "    <layer id=\"t\" type=\"conv\" x=\"16x16x16\" w=\"16x16x7x1\" y=\"16x16x16\""
        " padding=\"3x0\"/>\n");

static void test_groups_and_padding(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "grouped.xml", grouped_xml), &wl);
    assert_int_equal(wl.layers[0].groups, 8);
    assert_int_equal(wl.layers[0].w_elems, 8 * 9);           /* one 3x3 filter a channel */
    assert_true(wl.layers[0].flops == 2.0 * 8 * 9 * 256);     /* 2 C k Y, not 2 C F k Y */
    assert_int_equal(wl.layers[1].groups, 2);
    assert_int_equal(wl.layers[1].w_elems, 16 * 4);           /* F x C/g */
    assert_int_equal(wl.layers[2].groups, 1);
    assert_int_equal(wl.layers[2].padding[0], 3);
    assert_int_equal(wl.layers[2].padding[1], 0);
    assert_int_equal(wl.w_total, 72 + 64 + 16 * 16 * 7);
    wl_free(&wl);
}

static void test_untimed(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "untimed.xml", grouped_xml), &wl);
    assert_int_equal(wl.calibration, WL_CAL_NONE);
    assert_true(wl.sample_time_s == 0);
    assert_string_equal(wl.device, "");
    for (int i = 0; i < wl.n_layers; i++)
        assert_true(wl.layers[i].fw_s == 0 && wl.layers[i].bw_s == 0);
    wl_free(&wl);
    /* a measured time with its batch; the shipped ones say theirs */
    load_ok(tmp_file(path, sizeof path, "batch.xml",
                     HEAD "  <calibration device=\"V100-16GB\" sample_time_s=\"0.5\" batch=\"32\"/>\n"
                     LAYERS("    <layer id=\"r\" type=\"relu\" x=\"8x16x16\" y=\"8x16x16\"/>\n")),
            &wl);
    assert_int_equal(wl.calibration, WL_CAL_MEASURED);
    assert_int_equal(wl.calibration_batch, 32);
    wl_free(&wl);
    load_ok("resnet50", &wl);
    assert_int_equal(wl.calibration_batch, 64);
    wl_free(&wl);
    load_ok("cosmoflow-512", &wl); /* exactly 8 x cosmoflow-256's time: derived */
    assert_int_equal(wl.calibration, WL_CAL_DERIVED);
    wl_free(&wl);
    load_ok(MODEL_DIR "ALEXNET_ImageNet.net", &wl); /* no time column */
    assert_int_equal(wl.calibration, WL_CAL_NONE);
    wl_free(&wl);
    load_ok(MODEL_DIR "ALEXNET_ImageNet_profall.net_sc", &wl);
    assert_int_equal(wl.calibration, WL_CAL_MEASURED);
    wl_free(&wl);
}

#define RELU "    <layer id=\"r\" type=\"relu\" x=\"8x16x16\" y=\"8x16x16\"%s/>\n"

/* A workload of one ReLU (with relu_attrs) after `calibration` must fail naming where and what. */
static void expect_bad_relu(const char *name, const char *calibration, const char *relu_attrs,
                            const char *where, const char *what)
{
    char relu[256], body[1024];
    snprintf(relu, sizeof relu, RELU, relu_attrs);
    snprintf(body, sizeof body, HEAD "%s  <layers>\n%s  </layers>\n</workload>\n", calibration,
             relu);
    expect_bad(name, body, where, what);
}

static void test_errors(void **state)
{
    (void)state;
    char text[2048], body[1024];
    const char *conv = "    <layer id=\"c\" type=\"conv\" x=\"8x16x16\" w=\"8x12x1x1\" "
                       "y=\"12x16x16\" %s/>\n";
    snprintf(body, sizeof body, HEAD TIMED "  <layers>\n%s  </layers>\n</workload>\n", conv);
    snprintf(text, sizeof text, body, "groups=\"3\""); /* 3 divides 12 but not 8 */
    expect_bad("groups.xml", text, "wl_groups.xml:6:", "groups 3 must divide");
    snprintf(text, sizeof text, body, "groups=\"0\"");
    expect_bad("groups0.xml", text, "wl_groups0.xml:6:", "groups '0'");
    snprintf(text, sizeof text, body, "padding=\"1x2x3\"");
    expect_bad("pad3.xml", text, "wl_pad3.xml:6:", "padding '1x2x3'");
    expect_bad_relu("relugroups.xml", TIMED, " groups=\"2\"", "wl_relugroups.xml:6:",
                    "conv layers only");
    /* zero time: method="none" says so instead */
    expect_bad_relu("zero.xml", "  <calibration device=\"d\" sample_time_s=\"0\"/>\n", "",
                    "wl_zero.xml:4:", "method=\"none\"");
    expect_bad_relu("zerolayers.xml", "  <calibration device=\"d\"/>\n", " time_s=\"0\"",
                    "wl_zerolayers.xml", "time_s is 0");
    /* method="none" with anything describing a time */
    expect_bad_relu("nonedev.xml", "  <calibration method=\"none\" device=\"d\"/>\n", "",
                    "wl_nonedev.xml:4:", "no device");
    expect_bad_relu("nonetime.xml", UNTIMED, " time_s=\"1\"", "wl_nonetime.xml:6:",
                    "method=\"none\"");
    /* a measured time must say where, and its batch is a count */
    expect_bad_relu("nodev.xml", "  <calibration sample_time_s=\"1\"/>\n", "", "wl_nodev.xml:4:",
                    "device");
    expect_bad_relu("batch.xml", "  <calibration device=\"d\" sample_time_s=\"1\" batch=\"-4\"/>\n",
                    "", "wl_batch.xml:4:", "batch '-4'");
}

/* A squeeze-and-excitation block (pool to 8x1x1, two 1x1 convolutions, sigmoid, mul by the
 * broadcast scale), silu beside it, and a concat of 20 inputs. */
static const char se_xml[] =
    HEAD UNTIMED LAYERS(
        "    <layer id=\"c\" type=\"conv\" x=\"8x16x16\" w=\"8x8x3x3\" y=\"8x16x16\" padding=\"1\"/>\n"
        "    <layer id=\"s\" type=\"silu\" x=\"8x16x16\" y=\"8x16x16\"/>\n"
        "    <layer id=\"p\" type=\"pool\" x=\"8x16x16\" kernel=\"16x16\" y=\"8x1x1\"/>\n"
        "    <layer id=\"f1\" type=\"conv\" x=\"8x1x1\" w=\"8x2x1x1\" y=\"2x1x1\"/>\n"
        "    <layer id=\"r\" type=\"relu\" x=\"2x1x1\" y=\"2x1x1\"/>\n"
        "    <layer id=\"f2\" type=\"conv\" x=\"2x1x1\" w=\"2x8x1x1\" y=\"8x1x1\"/>\n"
        "    <layer id=\"g\" type=\"sigmoid\" x=\"8x1x1\" y=\"8x1x1\"/>\n"
        "    <layer id=\"m\" type=\"mul\" x=\"8x16x16\" y=\"8x16x16\" inputs=\"s g\"/>\n"
        "    <layer id=\"m2\" type=\"mul\" x=\"8x16x16\" y=\"8x16x16\" inputs=\"m s\"/>\n"
        "    <layer id=\"k\" type=\"concat\" x=\"160x16x16\" y=\"160x16x16\" inputs=\""
        "m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2 m2\"/>\n");

static void test_squeeze_excitation(void **state)
{
    (void)state;
    char path[1024];
    wl_workload wl;
    load_ok(tmp_file(path, sizeof path, "se.xml", se_xml), &wl);
    assert_int_equal(wl.layers[1].type, WL_SILU);
    assert_int_equal(wl.layers[6].type, WL_SIGMOID);
    const wl_layer *m = &wl.layers[7], *m2 = &wl.layers[8];
    assert_int_equal(m->type, WL_MUL);
    assert_int_equal(m->n_inputs, 2);
    assert_true(m->broadcast && !m2->broadcast);
    assert_true(wl_input_resized(m, &wl.layers[6]));  /* the scale follows the layout */
    assert_false(wl_input_resized(m, &wl.layers[1]));
    assert_true(wl_is_activation(WL_SILU) && wl_is_activation(WL_RELU) &&
                !wl_is_activation(WL_MUL));
    assert_int_equal(wl.layers[9].n_inputs, 20);
    assert_int_equal(wl.layers[9].y.channels, 160);
    wl_free(&wl);
}

static void test_mul_errors(void **state)
{
    (void)state;
    expect_bad("mul1.xml", HEAD UNTIMED LAYERS(
        "    <layer id=\"r\" type=\"relu\" x=\"8x16x16\" y=\"8x16x16\"/>\n"
        "    <layer id=\"m\" type=\"mul\" x=\"8x16x16\" y=\"8x16x16\" inputs=\"r r r\"/>\n"),
        "layer m: a mul layer multiplies one or two inputs, not 3", NULL);
    expect_bad("mul2.xml", HEAD UNTIMED LAYERS(
        "    <layer id=\"r\" type=\"relu\" x=\"8x16x16\" y=\"8x16x16\"/>\n"
        "    <layer id=\"p\" type=\"pool\" x=\"8x16x16\" kernel=\"2x2\" y=\"8x15x15\"/>\n"
        "    <layer id=\"m\" type=\"mul\" x=\"8x16x16\" y=\"8x16x16\" inputs=\"r p\"/>\n"),
        "its second input p produces 8x15x15", "one value a channel");
    expect_bad("sig.xml", HEAD UNTIMED LAYERS(
        "    <layer id=\"g\" type=\"sigmoid\" x=\"8x16x16\" y=\"8x8x8\"/>\n"),
        "a sigmoid layer's output has its input's shape", NULL);
    expect_bad("two.xml", HEAD UNTIMED LAYERS(
        "    <layer id=\"r\" type=\"relu\" x=\"8x16x16\" y=\"8x16x16\"/>\n"
        "    <layer id=\"g\" type=\"gelu\" x=\"8x16x16\" y=\"8x16x16\" inputs=\"r r\"/>\n"),
        "only add, mul, matmul and concat layers take several inputs", NULL);
}

/* ------------------------------------------------------------------ EfficientNet-WideSE */

/* The parameters PyTorch counts: the weights, a bias for each convolution or fully connected
 * layer no batch normalisation follows (torchvision's Conv2dNormActivation has none; SE's two
 * convolutions and the classifier have one), and each batch normalisation's scale and shift. */
static int64_t torch_parameters(const wl_workload *wl)
{
    int64_t n = wl->w_total;
    for (int i = 0; i < wl->n_layers; i++) {
        const wl_layer *l = &wl->layers[i];
        int normalised = i + 1 < wl->n_layers && wl->layers[i + 1].type == WL_BNORM;
        if (l->type == WL_BNORM)
            n += 2 * l->y.channels;
        else if ((l->type == WL_CONV || l->type == WL_FC) && !normalised)
            n += l->y.channels;
    }
    return n;
}

/* WideSE is `base` with each SE's squeeze width a quarter of the block's expanded channels
 * (DeepLearningExamples' efficientnet.py@729963dd lines 404-406, squeeze_hidden=True): every
 * layer the same but the SE's squeeze, its activation and its excitation; `blocks` SE blocks,
 * `unexpanded` of them in the first stage (expansion ratio 1), `layers` layers, and PyTorch's
 * parameter counts of the two models. */
static void check_widese(const char *base, const char *wide, int blocks, int unexpanded,
                         int layers, int64_t base_params, int64_t wide_params)
{
    wl_workload b, w;
    load_ok(base, &b);
    load_ok(wide, &w);
    assert_int_equal(b.n_layers, layers);
    assert_int_equal(w.n_layers, layers);
    int se = 0, wider = 0, differ = 0;
    for (int i = 0; i < w.n_layers; i++) {
        const wl_layer *p = &b.layers[i], *q = &w.layers[i];
        assert_string_equal(p->name, q->name);
        assert_int_equal(p->type, q->type);
        differ += p->y.channels != q->y.channels || p->x.channels != q->x.channels ||
                  p->w_elems != q->w_elems;
        if (q->type != WL_MUL || !q->broadcast)
            continue;
        /* mul <- sigmoid <- excitation conv <- silu <- squeeze conv <- pool of expanded */
        int squeeze = q->inputs[1] - 3;
        assert_int_equal(w.layers[squeeze].type, WL_CONV);
        int64_t expanded = w.layers[squeeze].x.channels;
        assert_int_equal(expanded, q->x.channels);
        assert_int_equal(w.layers[squeeze].y.channels, expanded / 4 > 1 ? expanded / 4 : 1);
        assert_true(b.layers[squeeze].y.channels <= w.layers[squeeze].y.channels);
        wider += b.layers[squeeze].y.channels < w.layers[squeeze].y.channels;
        se++;
    }
    assert_int_equal(se, blocks);
    /* the squeeze, its activation and the excitation of each block with an expansion; the
     * first stage's blocks have none (expanded = input channels: the same SE) */
    assert_int_equal(wider, blocks - unexpanded);
    assert_int_equal(differ, 3 * wider);
    if (torch_parameters(&b) != base_params || torch_parameters(&w) != wide_params)
        fail_msg("%s %lld, %s %lld parameters", base, (long long)torch_parameters(&b), wide,
                 (long long)torch_parameters(&w));
    wl_free(&b);
    wl_free(&w);
}

/* Parameter counts: torchvision's efficientnet_b0/_b4 and DeepLearningExamples' own
 * efficientnet-b0/-b4 and efficientnet-widese-b0/-b4 (efficientnet.py@729963dd
 * `architectures`, built and counted with sum(p.numel() for p in model.parameters())). */
static void test_efficientnet_widese(void **state)
{
    (void)state;
    /* B4's first stage: ceil(1 x 1.8) = 2 blocks */
    check_widese("efficientnet-b0", "efficientnet-widese-b0", 16, 1, 248, 5288548, 8423848);
    check_widese("efficientnet-b4", "efficientnet-widese-b4", 32, 2, 501, 19341616, 34927246);
}

/* SSD300 v1.1 (DeepLearningExamples' PyTorch/Detection/SSD ssd/model.py@729963dd) as
 * experiments/import/ssd_pytorch.py writes it: its convolution weights counted here from the
 * model's structure (torchvision's ResNet-50 to layer3, the five additional blocks, a 3x3 loc
 * and conf head on each of the six feature maps; biases left out), the 8732 anchors the heads'
 * concatenations hold (4 coordinates and 81 classes each), and the loss's two layers last. */
static void test_ssd300(void **state)
{
    (void)state;
    static const int64_t stage[3][4] = {{64, 64, 256, 3}, {256, 128, 512, 4}, {512, 256, 1024, 6}};
    static const int64_t extra[5][3] = {{1024, 256, 512}, {512, 256, 512}, {512, 128, 256},
                                        {256, 128, 256}, {256, 128, 256}};
    static const int64_t maps[6][3] = {{1024, 38, 4}, {512, 19, 6}, {512, 10, 6},
                                       {256, 5, 6},   {256, 3, 4},  {256, 1, 4}};
    int64_t weights = 3 * 64 * 7 * 7, anchors = 0;
    for (int s = 0; s < 3; s++)
        for (int b = 0; b < stage[s][3]; b++) {
            int64_t in = b ? stage[s][2] : stage[s][0], width = stage[s][1], out = stage[s][2];
            weights += in * width + width * width * 9 + width * out + (b ? 0 : in * out);
        }
    for (int i = 0; i < 5; i++)
        weights += extra[i][0] * extra[i][1] + extra[i][1] * extra[i][2] * 9;
    for (int j = 0; j < 6; j++) {
        weights += maps[j][0] * maps[j][2] * (4 + 81) * 9;
        anchors += maps[j][1] * maps[j][1] * maps[j][2];
    }
    assert_int_equal(anchors, 8732);
    wl_workload wl;
    load_ok("ssd300", &wl);
    assert_int_equal(wl.n_layers, 200);
    assert_int_equal(wl.w_total, weights);
    assert_true(wl.calibration == WL_CAL_NONE);
    int concats = 0, moves = 0;
    for (int i = 0; i < wl.n_layers; i++) {
        concats += wl.layers[i].type == WL_CONCAT;
        moves += wl.layers[i].type == WL_MOVE;
        if (wl.layers[i].type == WL_CONCAT)
            assert_true(wl.layers[i].y.channels == 4 * anchors ||
                        wl.layers[i].y.channels == 81 * anchors);
    }
    assert_int_equal(concats, 2);
    assert_int_equal(moves, 12); /* each head's channels-last reshape, a copy */
    const wl_layer *loc = &wl.layers[wl.n_layers - 2], *conf = &wl.layers[wl.n_layers - 1];
    assert_true(loc->type == WL_ADD && loc->y.channels == 4 && loc->y.spatial[0] == anchors);
    assert_true(conf->type == WL_SOFTMAX && conf->y.channels == 81 &&
                conf->y.spatial[0] == anchors);
    wl_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_and_padding),
        cmocka_unit_test(test_untimed),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_squeeze_excitation),
        cmocka_unit_test(test_mul_errors),
        cmocka_unit_test(test_efficientnet_widese),
        cmocka_unit_test(test_ssd300),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
