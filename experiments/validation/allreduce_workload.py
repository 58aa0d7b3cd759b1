#!/usr/bin/env python3
"""allreduce_workload.py: a workload whose data-parallel iteration is one gradient allreduce of
N fp32 values and nothing else, to time a bare allreduce (DeepBench's measured NCCL allreduce,
experiments/validation/make_rows.py's deepbench-allreduce rows).

Usage: experiments/validation/allreduce_workload.py N > allreduce-N.xml
       experiments/validation/allreduce_workload.py --all DIR   (every size make_rows.py uses:
       experiments/validation/workloads/ holds what --all writes)

The network is one fully connected layer of N inputs and one output: weights "Nx1x1x1", N
values (the format counts no biases), so data parallelism allreduces exactly 4N bytes of fp32
gradients once an iteration and communicates nothing else: `simulate --json`'s
iteration.comm_s is that allreduce (the runs do not overlap it with the compute, which the
format cannot set to zero: method="none", the compute model times the layer's tiny kernels
apart). The dataset's samples and sample shape only make the file valid; the epoch is unused.
"""

import os
import sys

# DeepBench's all-reduce sizes (code/kernels/all_reduce_problems.h; the sizes of
# ../shared/reference/measured/deepbench-allreduce.tsv).
SIZES = [100000, 3097600, 4194304, 6553600, 16777216, 38360000, 64500000]

TEMPLATE = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE workload SYSTEM "workload.dtd">
<workload name="allreduce-{n}">
  <description>A bare allreduce of {n} fp32 values (DeepBench's all-reduce benchmark): one fully connected layer of {n} inputs and 1 output holds {n} weights, so data parallelism allreduces {b} bytes of gradients; it has no measured time (its one kernel, a matrix-vector product, is timed by the compute model and is not part of the allreduce's time, iteration.comm_s). Written by experiments/validation/allreduce_workload.py.</description>
  <dataset name="none" samples="1" sample="{n}x1x1"/>
  <calibration method="none"/>
  <layers>
    <layer id="GRAD" type="fc" x="{n}x1x1" w="{n}x1x1x1" y="1x1x1"/>
  </layers>
</workload>
"""


def main(argv):
    if len(argv) == 2 and argv[0] == "--all":
        for n in SIZES:  # each file whole or not at all: written beside, then renamed
            path = os.path.join(argv[1], "allreduce-%d.xml" % n)
            with open(path + ".tmp", "w") as f:
                f.write(TEMPLATE.format(n=n, b=4 * n))
            os.replace(path + ".tmp", path)
        return 0
    if len(argv) != 1 or not argv[0].isdigit() or int(argv[0]) < 1:
        print("usage: allreduce_workload.py N (a positive number of fp32 values) | --all DIR",
              file=sys.stderr)
        return 2
    n = int(argv[0])
    sys.stdout.write(TEMPLATE.format(n=n, b=4 * n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
