/* runtime_loader.c: what the input loaders of a node's GPUs keep of their workers' rate when
 * they share the node's CPU cores (rt_loader_host_share, runtime.h).
 *
 * A runtime's loader_samples_per_s is one worker's rate with a core to itself (pytorch-ddp.rt
 * calibrates it on one GPU's 16 workers on a DGX A100's 128 cores). A node's GPUs each run
 * their workers and their training process's busy threads (loader_host_threads_per_gpu) on
 * the same cores: past one thread a core, two threads share a core's execution units
 * (simultaneous multithreading) and do RT_SMT_GAIN more than one; past two a core, the OS
 * shares the hardware threads out in time. Every busy thread gets the same part. */
#include "runtime.h"

/* What a second busy hardware thread adds to a core's work: Intel's figure for its
 * Hyper-Threading, "performance gains of up to 30% on common server application
 * benchmarks" (D. T. Marr et al., "Hyper-Threading Technology Architecture and
 * Microarchitecture", Intel Technology Journal 6(1), 2002, Conclusion). "Up to": an upper
 * bound, taken for the JPEG decoding and resizing of a loader's workers, which no source
 * measures with and without SMT. */
#define RT_SMT_GAIN 0.30

double rt_loader_host_share(const rt_runtime *rt, double workers, int gpus, int cores,
                            int threads)
{
    if (!rt || cores <= 0 || gpus <= 0 || !(workers > 0) ||
        !(rt->kernels.loader_samples_per_s > 0))
        return 1.0;
    double busy = gpus * (workers + rt->loader_host_threads);
    if (busy <= cores)
        return 1.0;
    int hw = threads > cores ? threads : cores;
    double paired = (busy < hw ? busy : hw) - cores; /* threads sharing a core with another */
    return (cores + paired * RT_SMT_GAIN) / busy;
}
