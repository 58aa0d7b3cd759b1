/* fuzz_runtime_file.c: a runtime file (rt_parse_file, workloads/runtime/runtime.h): a file that
 * parses must keep the parser's promises: a known library, an allreduce algorithm, a bucket
 * only with overlap, efficiencies in their ranges; a broken promise aborts. */
#include "fuzz.h"
#include "hs_error.h"
#include "runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[HS_ERR_LEN];
    const char *path = fuzz_file(0, data, size, ".rt");
    rt_runtime rt;
    if (!path || rt_parse_file(path, &rt, err) != HS_OK)
        return 0;
    if ((unsigned)rt.library > RT_NCCL || (unsigned)rt.allreduce >= CO_ALGO_COUNT ||
        (rt.bucket_bytes > 0) != rt.overlap || (unsigned)rt.optimizer > RT_OPT_ADAM ||
        !(rt.kernels.stream_rel > 0 && rt.kernels.stream_rel <= 1) ||
        !(rt.kernels.depthwise_rel > 0 && rt.kernels.depthwise_rel <= 1) ||
        !(rt.kernels.library_rel > 0 && rt.kernels.library_rel <= 2) ||
        (rt.library == RT_NCCL) != (rt.nccl_version > 0))
        abort();
    return 0;
}
