/* fuzz_job_spec.c: the texts of --job and --background (fabric_spec.c: keys, GPU and node
 * ranges joined by '+', rates with units), checked against a machine of 8 nodes x 4 GPUs
 * without SimGrid. The first byte chooses which. */
#include "fabric_int.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN], text[4097];
    if (!fuzz_text(data, size, 1, text, sizeof text))
        return 0;
    plat_platform plat;
    memset(&plat, 0, sizeof plat);
    plat.n_nodes = 8, plat.gpus_per_node = 4, plat.n_gpus = 32;
    if (data[0] & 1) {
        fb_background bg;
        memset(&bg, 0, sizeof bg);
        fb_parse_background(text, 1, &plat, &bg, err);
        fb_list_free(&bg.from);
        fb_list_free(&bg.to);
    } else {
        fb_job j;
        memset(&j, 0, sizeof j);
        fb_parse_job(text, 1, &plat, &j, err);
        fb_list_free(&j.gpu_list);
        fb_list_free(&j.racks);
        free(j.text);
    }
    return 0;
}
