/* runtime.h: what the training software does, read from a runtime file (--runtime NAME) (rt_).
 *
 * The same strategy on the same machine runs at different speeds under different software:
 * the collective library and how it picks its allreduce, whether gradients are reduced in
 * buckets behind the backward, in which precision they travel, how halos and a filter layer's
 * output gradients are sent, the optimizer's kernels, and how the framework's kernels compare
 * with the libraries DeepBench measured. A runtime file (workloads/runtime/NAME.rt) says all
 * of that, each value with the source it comes from; workloads/runtime/README.md is the
 * format and the list. A flag given with --runtime overrides the runtime's value.
 *
 * Folder: workloads/runtime/ (this header is its whole public face): the parser and the
 * shipped runtime files. May include workloads/common/ (errors, names, the allreduce
 * algorithms), workloads/compute/ (kt_runtime, what the kernels take) and workloads/strategy/
 * (what it sets in a strategy). */
#ifndef RUNTIME_H
#define RUNTIME_H

#include <stdbool.h>
#include <stdio.h>

#include "collective.h"
#include "compute.h"
#include "hs_error.h"
#include "strategy.h"

/* The collective library the gradients and activations go through. */
typedef enum { RT_MPI = 0, RT_NCCL } rt_library;

/* The optimizer (its states per weight: 0, 0, 1, 2). */
typedef enum { RT_OPT_NONE = 0, RT_OPT_SGD, RT_OPT_MOMENTUM, RT_OPT_ADAM } rt_optimizer;

/* Where the runtime's kernel times come from when --compute is not said (the key `compute`):
 * not said (hybridsim's default), or as --compute measured, model, kernels. */
typedef enum {
    RT_COMPUTE_UNSAID = 0, RT_COMPUTE_MEASURED, RT_COMPUTE_MODEL, RT_COMPUTE_KERNELS
} rt_compute;

/* A runtime file, read. */
typedef struct {
    char name[64];             /* the file's name without .rt ("chainermn") */
    char path[1024];           /* the file read */
    char description[256];     /* one line for `hybridsim runtimes` */
    rt_library library;        /* library = mpi | nccl */
    int nccl_version;          /* nccl_version X.Y.Z as X*10000 + Y*100 + Z (NCCL only; 0) */
    co_algo allreduce;         /* the gradient allreduce, resolved: allreduce = library takes
                                * the library's own choice (rt_library_choice) */
    bool overlap;              /* overlap = on: gradients in buckets behind the backward */
    double bucket_bytes;       /* bucket_bytes: a bucket's size (overlap only; 0 otherwise) */
    double first_bucket_bytes; /* first_bucket_bytes: the size of the first bucket the backward
                                * fills (DDP's 1 MiB); 0: bucket_bytes, as the others */
    double cycle_time_s;       /* cycle_time_s: a bucket's allreduce starts at the next multiple
                                * of it (Horovod's background cycle; overlap only; 0: at once) */
    bool after_backward;       /* gradients_ready = backward: the buckets are handed to their
                                * allreduces when the whole backward is done (TensorFlow's XLA
                                * cluster); kernel (absent): as their kernels end (overlap only) */
    double gradient_bytes;     /* gradient_precision: bytes a gradient element travels in
                                * (fp32 4, fp16 2; 0 = storage: the run's precision says) */
    bool halo_chain;           /* halo = chain (true) | sendrecv */
    bool filter_rs;            /* filter_backward = reduce-scatter (true) | allreduce */
    rt_optimizer optimizer;    /* optimizer = none | sgd | momentum | adam */
    kt_runtime kernels;        /* what the framework adds to the kernels (compute.h): host time
                                * a call, element-wise and library efficiency, input pipeline,
                                * the optimizer's kernels; neutral where the file says nothing */
    rt_compute compute;        /* compute = measured | model | kernels (absent: unsaid) */
    bool autocast_casts;       /* autocast_weight_casts = on: a cast kernel a weight tensor in
                                * the forward and one for its gradient in the backward, in the
                                * precisions with FP32 master weights (st_autocast_cast_s) */
    bool autograd_memory;      /* activation_memory = autograd (true) | paradl (absent): the
                                * activations a GPU holds as the framework's autograd keeps
                                * them, or ParaDL's |x| + |y| beside their gradients
                                * (footprint.h) */
    double loader_host_threads; /* loader_host_threads_per_gpu: threads a GPU's training
                                 * process keeps busy on the node's cores beside its loader's
                                 * workers (rt_loader_host_share); 0 */
    char calibration[512];     /* calibration: the measured rows its efficiencies were
                                * calibrated on (validation row ids, blank-separated; "" none),
                                * left out of every accuracy figure */
} rt_runtime;

/* The folder of the shipped runtime files: $HYBRIDSIM_HOME/workloads/runtime, else the
 * source tree's. */
const char *rt_default_dir(void);

/* Read the runtime file at `path` into rt. HS_EINPUT "path:line: ..." for a line that is not
 * `key = value`, a comment or blank, an unknown or repeated key, a value that is not one the
 * key takes, a value line without a `# source:` comment since the previous one, a required key
 * missing ("path: ..."), keys that contradict each other (bucket_bytes or
 * first_bucket_bytes without overlap). */
int rt_parse_file(const char *path, rt_runtime *rt, char *err);

/* A runtime by name (rt_default_dir()/NAME.rt) or by path (a spec with '/' or ending in .rt).
 * HS_EINPUT naming --runtime and the known names for an unknown name; else rt_parse_file's. */
int rt_load(const char *spec, rt_runtime *rt, char *err);

/* The allreduce NCCL `version` (X*10000 + Y*100 + Z) picks by itself: rings only before 2.4
 * (NCCL 2.3 has no tree), rings or tree by size from 2.4 (CO_AUTO: co_nccl_choice); MPI:
 * ParaDL's ring. */
co_algo rt_library_choice(rt_library library, int nccl_version);

/* Values the runtime's optimizer keeps per weight (0 SGD, 1 momentum, 2 Adam; -1 for none:
 * the workload's own optimizer attribute stands): what a GPU's memory holds for it. */
int rt_optimizer_states(const rt_runtime *rt);

/* How rt trains beyond the split: its gradients' bytes, its optimizer and its activation
 * memory rule (strategy's st_training), for a strategy or a plan. */
st_training rt_training(const rt_runtime *rt);

/* What rt says of a strategy st parsed with the defaults (st_parse, st_from_plan): the
 * gradient allreduce (a strategy file's fused ones too), the overlap and its
 * bucket size, the gradients' bytes and the optimizer (the memory its state takes), the halo
 * (spatial splits and strategy files) and the filter backward (filter splits and files). A caller
 * applies its flags after, so that they override. */
void rt_apply_strategy(const rt_runtime *rt, st_strategy *st);

/* What a loader worker keeps of its own rate (loader_samples_per_s, an isolated worker's)
 * when `gpus` GPUs of a node each run `workers` workers and rt's loader_host_threads on the
 * node's `cores` cores of `threads` hardware threads (0: one a core): 1 while every busy
 * thread has a core; past that a core running two threads does 1 + RT_SMT_GAIN of one's work,
 * and past the hardware threads the OS shares them out; the node's capacity is split evenly
 * over its busy threads. 1 when cores is 0 (not said) or rt has no loader.
 * (workloads/runtime/runtime_loader.c) */
double rt_loader_host_share(const rt_runtime *rt, double workers, int gpus, int cores,
                            int threads);

/* Every shipped runtime, one a line: its name and description. HS_EINPUT when a shipped file
 * does not parse (its message). */
int rt_list(FILE *out, char *err);

#endif
