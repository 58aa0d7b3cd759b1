/* fuzz_strategy_file.c: a strategy file (st_plan_load: libxml2, strategy.dtd, the meaning) for
 * AlexNet, then checked against its own GPU count and a batch (st_plan_check, st_plan_stages).
 * A plan that loads must keep st_plan_write's promise: what is written reads back to the same
 * file, byte for byte (written, read, written again); a broken promise aborts. */
#include "fuzz.h"
#include "hs_error.h"
#include "plan.h"
#include "workload.h"

/* The plan written to file 1, read back, written again: the same bytes. */
static void round_trip(const st_plan *plan, const wl_workload *wl)
{
    char err[HS_ERR_LEN], *first = NULL, *second = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *f = open_memstream(&first, &n1);
    if (!f || st_plan_write(f, plan, wl, "fuzz", err) != HS_OK || fclose(f) != 0)
        abort();
    const char *path = fuzz_file(1, (const uint8_t *)first, n1, ".xml");
    st_plan back = {0};
    if (!path || st_plan_load(path, wl, &back, err) != HS_OK)
        abort();
    f = open_memstream(&second, &n2);
    if (!f || st_plan_write(f, &back, wl, "fuzz", err) != HS_OK || fclose(f) != 0)
        abort();
    if (n1 != n2 || memcmp(first, second, n1) != 0)
        abort();
    st_plan_free(&back);
    free(first);
    free(second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wl_workload wl; /* loaded once: the layers the file's refs must name */
    static int loaded = -1;
    char err[HS_ERR_LEN];
    if (loaded < 0)
        loaded = wl_load("alexnet", &wl, err) == HS_OK;
    const char *path = fuzz_file(0, data, size, ".xml");
    if (!loaded || !path)
        return 0;
    st_plan plan = {0};
    if (st_plan_load(path, &wl, &plan, err) != HS_OK)
        return 0;
    round_trip(&plan, &wl);
    if (plan.gpus >= 1 && plan.gpus <= 4096 &&
        st_plan_check(&plan, &wl, plan.gpus, 64LL * plan.gpus, err) == HS_OK &&
        plan.micro_batches > 0) {
        int first[256], rank[256], n;
        if (plan.n_layers < 255) {
            st_plan_stages(&plan, first, rank, &n);
        }
    }
    st_plan_free(&plan);
    return 0;
}
