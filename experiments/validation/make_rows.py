#!/usr/bin/env python3
"""make_rows.py: every row of ../shared/reference/measured/ mapped to the hybridsim run that
predicts it: experiments/validation/rows.tsv, which run.sh reads.

Usage: experiments/validation/make_rows.py [MEASURED_DIR] > experiments/validation/rows.tsv

The mapping is rules, written here once for each file (no constant per row):
  - the network: its shipped workload (workloads/*.xml); networks without one (TensorFlow 1's
    SSD320) are rows with a reason;
  - the machine: systems.tsv gives the `gen:` platform of each system (its sources there);
    systems not listed there are rows with a reason;
  - GPUs, the global batch (GPUs x per-GPU batch as the run used), the precision (FP32 -> fp32,
    TF32 -> tf32, AMP / mixed -> mixed; MLPerf's submissions trained in mixed precision);
  - the dataset's options (datasets.tsv: how each dataset's runs reduced their gradients);
  - DLE's PyTorch ConvNets' input loader workers a GPU (`loader_workers`, which run.sh always
    passes as --loader-workers N): configs.yml@097c7ff9 `platform:` DGX1V 8, DGX2V 8, DGXA100
    16 (`workers`, main.py's DataLoader num_workers);
  - a row's own runtime (`runtime`) where its run's software differs from its dataset's:
    DLE's PyTorch nnU-Net (Lightning, DALI, FusedAdam) and SSD300 (apex DDP, channels-last in
    every precision, DALI), and DLE's TensorFlow 1 rows that compiled with XLA (the table
    says "+ XLA" or the script passes --xla; horovod-nccl-xla.rt: XLA's batch normalisation
    fused with its ReLU and residual add): experiments/validation/runtime/;
  - the row's own published settings as hybridsim options (`options`): DLE's PyTorch ConvNets
    step their optimizer once in optimizer_batch_size / (GPUs x batch) iterations
    (main.py@7bdfc81d:368 batch_size_multiplier, training.py@7bdfc81d:284; the configs.yml
    value dle-throughput.tsv's batch_source gives): --optimizer-every N.
What is measured: DLE rows throughput (images/s of the whole job; the prediction is the global
batch over the simulated iteration: unit img/s); MLPerf rows the training set over the epoch's
time (mlperf-resnet50.tsv: throughput_img_s = 1281167 / median_epoch_s), an epoch of
ceil(1281167 / global batch) whole iterations (its iters_per_epoch): each GPU's DALI iterator
runs its shard of num_examples // GPUs in batches of full size, the last one filled
(training_results_v0.7 NVIDIA/benchmarks/resnet/implementations/mxnet/common/dali.py:341,
DALIClassificationIterator's fill_last_batch left True) or padded in arrays of the batch's
shape (v1.0 and v1.1 common/dali.py:467-469 and :420-422, fill_last_batch=False; the step's
CUDA graphs are captured at that shape, v1.1 common/fit.py:935-942), so the prediction is the
samples over iterations_per_epoch simulated iterations (unit epoch img/s; 1281167 images over
38 iterations of 34,560 at 768 GPUs: 2.5% below the batch over the iteration); ParaDL's rows
the epoch (seconds); DeepBench's allreduce rows the time of one allreduce of N fp32 values
(unit s: simulate's iteration.comm_s of workloads/allreduce-N.xml, one layer of N weights and no
compute, allreduce_workload.py). DeepBench's kernels are not rows here: run.sh takes the
held-out kernels from experiments/compute/fit.sh.
"""

import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COLUMNS = ["dataset", "id", "label", "group", "workload", "platform", "strategy", "gpus",
           "batch", "precision", "measured", "unit", "reason", "note", "options",
           "loader_workers", "runtime"]
# DLE PyTorch ConvNets configs.yml@097c7ff9 `platform:` workers (DataLoader workers a GPU), by
# dle-throughput.tsv's system.
DLE_PYTORCH_WORKERS = {"DGX-1": 8, "DGX-2": 8, "DGX A100": 16}

# The measured networks hybridsim has as shipped workloads.
DLE_NETWORKS = {"resnet50": "resnet50-v1.5", "resnet50v1.5": "resnet50-v1.5",
                "resnext101-32x4d": "resnext101-32x4d",
                "se-resnext101-32x4d": "se-resnext101-32x4d",
                "efficientnet-b0": "efficientnet-b0", "efficientnet-b4": "efficientnet-b4",
                "efficientnet-widese-b0": "efficientnet-widese-b0",
                "efficientnet-widese-b4": "efficientnet-widese-b4",
                # TensorFlow 1 U-Nets as their model code builds them
                # (experiments/import/unet_tf1.py; UNet_Industrial's benchmarks train tinyUNet)
                "UNet_Medical (2D, EM segmentation)": "unet-medical",
                "UNet_Industrial": "unet-industrial",
                # PyTorch SSD300 as its model code builds it (experiments/import/ssd_pytorch.py)
                "SSD300 v1.1 (ResNet-50 backbone)": "ssd300"}
# Networks whose benchmark scripts compile with XLA although their README tables' headers do
# not say so (dle-throughput.tsv's xla column reads the headers), with the script and line
# that passes --xla (DeepLearningExamples@729963dd, TensorFlow/Segmentation/).
DLE_XLA_SCRIPTS = {
    "UNet_Medical (2D, EM segmentation)":
        "UNet_Medical/examples/unet_TRAIN_BENCHMARK*.sh:18",
    "UNet_Industrial": "UNet_Industrial/scripts/benchmarking/UNet_trainbench*.sh:43 (1 GPU), "
                       ":53 (4 and 8)"}
# nnU-Net by its variant (the dimension): the DynUNets its benchmark builds for MSD Task01
# (experiments/import/nnunet_pytorch.py), each run under its own runtime (the row's `runtime`,
# which run.sh passes instead of its dataset's): Lightning's DDP with DALI input and FusedAdam,
# not the ConvNets' DataLoader and SGD that pytorch-ddp.rt describes; the two files differ in
# the layout alone (2D keeps NCHW under AMP, 3D runs NDHWC).
DLE_VARIANTS = {("nnUNet", "dim=2"): "nnunet-2d", ("nnUNet", "dim=3"): "nnunet-3d"}
# SSD300 wraps its model in apex's DistributedDataParallel, computes channels-last in every
# precision and reads COCO through DALI (pytorch-apex-ddp.rt gives the sources).
DLE_RUNTIMES = {("nnUNet", "dim=2"): "experiments/validation/runtime/pytorch-nnunet-2d.rt",
                ("nnUNet", "dim=3"): "experiments/validation/runtime/pytorch-nnunet-3d.rt",
                ("SSD300 v1.1 (ResNet-50 backbone)", ""):
                    "experiments/validation/runtime/pytorch-apex-ddp.rt"}
# The TensorFlow 1 rows that compiled with XLA (the table's header says "+ XLA", or the
# benchmark script passes --xla) run under TensorFlow 1's runtime with XLA's fusion of batch
# normalisation with its ReLU and residual add (the file gives the XLA sources).
XLA_RUNTIME = "experiments/validation/runtime/horovod-nccl-xla.rt"
XLA_NOTE = "fuses batch normalisation with its ReLU and add (horovod-nccl-xla.rt); " \
           "its other element-wise fusions: not modelled"
# Networks whose input pipeline is DALI's, whose rate no source gives.
DLE_DALI = ("nnUNet", "SSD300 v1.1 (ResNet-50 backbone)")
PRECISIONS = {"FP32": "fp32", "TF32": "tf32", "AMP (mixed)": "mixed"}


def read_tsv(path):
    """(line number, row dict) of every data row: comment lines skipped, the header first (or,
    in ParaDL's table, the last comment line)."""
    with open(path) as f:
        text = list(f)
    lines = [(i + 1, l) for i, l in enumerate(text) if not l.startswith("#")]
    comments = [l for l in text if l.startswith("#")]
    if comments and "\t" in comments[-1] and "\t" in lines[0][1] and \
            len(comments[-1].split("\t")) == len(lines[0][1].split("\t")):
        header = comments[-1].lstrip("# ").rstrip("\n").split("\t")
    else:
        header, lines = lines[0][1].rstrip("\n").split("\t"), lines[1:]
    for number, line in lines:
        yield number, dict(zip(header, line.rstrip("\n").split("\t")))


def systems():
    """systems.tsv: system and GPU -> (spec with {nodes}, GPUs a node)."""
    table = {}
    for _, r in read_tsv(os.path.join(HERE, "systems.tsv")):
        table[(r["system"], r["gpu"])] = (r["platform"], int(r["gpus_per_node"]))
    return table


def platform(table, system, gpu, gpus):
    """The gen: platform for `gpus` GPUs of `system`, or None."""
    entry = table.get((system, gpu))
    if entry is None:
        return None
    spec, per_node = entry
    return spec


def row(dataset, ident, label, group, **kw):
    r = dict.fromkeys(COLUMNS, "")
    r.update(dataset=dataset, id=ident, label=label, group=group, strategy="data")
    r.update({k: str(v) for k, v in kw.items()})
    return r


def optimizer_every(r, gpus, per_gpu):
    """DLE PyTorch ConvNets: the iterations per optimizer step, int(optimizer_batch_size /
    (GPUs x batch)) as main.py@7bdfc81d:368 computes it, from the configs.yml value the row's
    batch_source names; 1 where it names none, or where that value is below one iteration's
    batch (the run could not have used it: a multi-node row whose batch the README does not
    state)."""
    m = re.search(r"optimizer_batch_size=(\d+)", r["batch_source"])
    if r["framework"] != "PyTorch" or not m:
        return 1
    return max(1, int(int(m.group(1)) / (gpus * per_gpu)))


def dle_rows(measured, table):
    out = []
    for line, r in read_tsv(os.path.join(measured, "dle-throughput.tsv")):
        dataset = "dle-pytorch" if r["framework"] == "PyTorch" else "dle-tensorflow1"
        gpus, per_gpu = int(r["num_gpus"]), int(r["batch_per_gpu"])
        label = "%s %s %s %dx%s %s b%d" % (r["framework"], r["network"], r["system"], gpus,
                                           r["gpu"], r["precision"], per_gpu)
        group = "%s %s %s %s %d" % (r["framework"], r["system"], r["gpu"], r["precision"], gpus)
        base = dict(gpus=gpus, batch=gpus * per_gpu, measured=r["throughput"], unit="img/s",
                    precision=PRECISIONS.get(r["precision"], ""))
        workload = DLE_NETWORKS.get(r["network"]) if not r["variant"] else \
            DLE_VARIANTS.get((r["network"], r["variant"]))
        spec = platform(table, r["system"], r["gpu"], gpus)
        reason = ""
        if workload is None:
            reason = "no workload for %s%s (none written: the shipped ones are CNN " \
                     "classifiers, the TensorFlow 1 U-Nets, nnU-Net and SSD300)" % (
                         r["network"], " " + r["variant"] if r["variant"] else "")
        elif spec is None:
            reason = "no platform for %s with %s (systems.tsv)" % (r["system"], r["gpu"])
        elif "inconsistent" in r["notes"]:
            reason = "the source's table is inconsistent (dle-throughput.tsv notes)"
        notes = ["input pipeline included"]
        runtime = DLE_RUNTIMES.get((r["network"], r["variant"]), "")
        xla = r["xla"] == "yes" or r["network"] in DLE_XLA_SCRIPTS
        if xla:
            notes.append("XLA%s %s" % (
                "" if r["xla"] == "yes" else " (--xla, %s)" % DLE_XLA_SCRIPTS[r["network"]],
                XLA_NOTE))
            runtime = runtime or XLA_RUNTIME
        if r["network"] in DLE_DALI:
            notes.append("DALI's input pipeline: not priced (no rate sourced)")
        if "does not state the batch" in r["notes"]:
            notes.append("per-GPU batch of multi-node runs not stated: configs.yml's")
        every = optimizer_every(r, gpus, per_gpu)
        out.append(row(dataset, "dle-throughput.tsv:%d" % line, label, group,
                       workload=workload or "", platform=spec or "", reason=reason,
                       note="; ".join(notes),
                       options="--optimizer-every %d" % every if every > 1 else "",
                       loader_workers=DLE_PYTORCH_WORKERS.get(r["system"], "")
                       if dataset == "dle-pytorch" and not runtime else "",
                       runtime=runtime, **base))
    return out


MLPERF_GPUS = {  # the system JSON's accelerator -> the device table (device.h)
    "NVIDIA A100-SXM4-80GB": "a100-80gb", "NVIDIA A100-SXM-80GB": "a100-80gb",
    "A100-SXM4-80GB": "a100-80gb", "NVIDIA A100-SXM4-40GB": "a100-40gb",
    "A100-SXM4-40GB": "a100-40gb", "NVIDIA A100": "a100-40gb",
    "NVIDIA V100-SXM2-16GB": "v100-sxm2-16gb", "Nvidia Tesla V100-SXM2-32GB": "v100-sxm2-32gb",
    "NVIDIA V100-SXM3-32GB": "v100-sxm3-32gb", "Nvidia Tesla V100": "v100-sxm2-16gb",
    "NVIDIA V100": "v100-sxm2-16gb",
    # PCIe boards: nodes without NVLink (systems.tsv's "PCIe" systems)
    "NVIDIA A100-PCIE-40GB": "a100-pcie-40gb", "NVIDIA A100-PCIe-40GB": "a100-pcie-40gb",
    "NVIDIA A100-PCIE-80GB": "a100-pcie-80gb", "NVIDIA A100-PCIe-80GB": "a100-pcie-80gb",
    "Nvidia Tesla V100S-PCIe-32GB": "v100s-pcie-32gb"}

# The PCIe generation of a PCIe board's slot, from its system JSON's
# accelerator_host_interconnect: Dell's DSS8440 ("PCIe 3.0x16", its switches are Gen3, whatever
# the board) and Lenovo's SR670 of v1.0 ("PCIe 3.0x16"); every other PCIe system of the rows
# states Gen4 (R750xa, SR670 V2, Fujitsu GX2460 M1, nettrix X640 G40) or nothing (Supermicro
# AS-4124GS-TNR: its EPYC 7513 and the A100 are both Gen4).
PCIE_GEN3_SYSTEMS = re.compile(r"^(\d+x)?(DSS8440|SR670_)")


def mlperf_system(r):
    """(systems.tsv system, gpu) of an MLPerf submission, or a reason it has none."""
    gpu = re.sub(r"\s*\(\d+W\)", "", r["gpu_model"]).strip()
    device = MLPERF_GPUS.get(gpu)
    links, hosts = r["accelerator_interconnect"], r["host_networking"]
    per_node, nodes = int(r["accel_per_node"]), int(r["num_nodes"])
    if device is None:
        return None, "GPU %s: not in the device table" % r["gpu_model"]
    if "pcie" in device:  # PCIe boards: NVLink bridges where the JSON says so, else none
        kind = "PCIe Gen%d" % (3 if PCIE_GEN3_SYSTEMS.match(r["system"]) else 4)
        if "NVLINK" in links.upper():
            kind += " bridged"
    elif per_node == 4:  # HGX A100 4-GPU and C4140 boards: direct NVLink (no NVSwitch there,
        kind = "4-GPU NVLink"  # whatever a system JSON says)
    elif per_node in (8, 16) and ("NVSWITCH" in links.upper() or device.startswith("a100") or
                                  per_node == 16):
        kind = "NVSwitch"  # HGX A100 8-GPU boards and DGX-2: NVSwitch
    elif per_node == 8:
        kind = "cube-mesh"
    else:
        return None, "%d GPUs a node: no such node in systems.tsv" % per_node
    if nodes > 1 and not re.search(r"(EDR|HDR|InfiniBand|IB)", hosts, re.I):
        return None, "%d nodes joined by %s: no InfiniBand stated" % (nodes, hosts or "?")
    if "TODO" in links:
        return None, "interconnect not stated (TODO in its system JSON)"
    return ("MLPerf %s %dx%s" % (kind, per_node, device), device), ""


def mlperf_rows(measured, table):
    out = []
    for line, r in read_tsv(os.path.join(measured, "mlperf-resnet50.tsv")):
        gpus, batch = int(r["total_gpus"]), int(r["global_batch_size"])
        label = "MLPerf %s %s %s %d GPUs b%d" % (r["version"], r["submitter"], r["system"],
                                                 gpus, batch)
        system, reason = mlperf_system(r)
        spec = platform(table, system[0], system[1], gpus) if system else None
        if system and spec is None:
            reason = "no platform for %s (systems.tsv)" % system[0]
        if not reason and batch % gpus:
            reason = "global batch %d on %d GPUs" % (batch, gpus)
        notes = ["input pipeline included"]
        if "enabled" in r["sharp_setting"] and int(r["num_nodes"]) > 1:
            notes.append("SHARP in-network reduction: not modelled, NCCL's own algorithms "
                         "instead")
        if system and system[0].startswith("MLPerf NVSwitch 8") and r["submitter"] != "NVIDIA":
            notes.append("an HGX A100 8-GPU board, timed as a DGX A100 node")
        out.append(row("mlperf", "mlperf-resnet50.tsv:%d" % line, label, "mlperf %d GPUs" % gpus,
                       workload="resnet50-v1.5", platform=spec or "", gpus=gpus, batch=batch,
                       precision="mixed", measured=r["throughput_img_s"], unit="epoch img/s",
                       reason=reason, note="; ".join(notes)))
    return out


def paradl_rows(measured):
    out = []
    for line, r in read_tsv(os.path.join(measured, "abci-resnet50-tableVIII.tsv")):
        s = r["strategy"]
        if s.startswith("data+"):
            s = "%s:%sx%s" % (s, r["p1"], r["p2"])
        label = "ParaDL %s %s GPUs b%s" % (r["strategy"], r["p"], r["B"])
        out.append(row("paradl", "abci-resnet50-tableVIII.tsv:%d" % line, label,
                       "paradl %s GPUs" % r["p"], workload=r["model"], platform="abci",
                       strategy=s, gpus=r["p"], batch=r["B"], precision="fp32",
                       measured=r["emp_total_s"], unit="s/epoch"))
    return out


# DeepBench's machines (DeepBench README.md@da81ba78:208-216): P100, M40 and TitanX (Maxwell) in
# 8-GPU nodes of two sockets, TitanX Pascal and 1080 Ti in 10-GPU nodes of one socket
# (systems.tsv "DeepBench 8-GPU", "DeepBench 10-GPU").
DEEPBENCH_NODES = {"P100": "DeepBench 8-GPU", "M40": "DeepBench 8-GPU",
                   "TitanX": "DeepBench 8-GPU", "TitanX_Pascal": "DeepBench 10-GPU",
                   "1080Ti": "DeepBench 10-GPU"}


def deepbench_allreduce_rows(measured, table):
    """DeepBench's measured allreduce of N fp32 values on G GPUs: the best time of NCCL 2.0
    (single process or MPI), OSU's and Baidu's ring allreduce (README.md@da81ba78:202, "We
    report the shortest latency achieved from all implementations"; the row's algorithm), each
    the data-parallel iteration of the workload of N weights with no compute."""
    out = []
    for line, r in read_tsv(os.path.join(measured, "deepbench-allreduce.tsv")):
        gpus, n = int(r["num_gpus"]), int(r["size_floats"])
        system = DEEPBENCH_NODES.get(r["gpu"])
        spec = platform(table, system, r["gpu"], gpus) if system else None
        reason = ""
        if spec is None:
            reason = "no platform for %s GPUs (systems.tsv)" % r["gpu"]
        elif not r["mean_time_us"]:
            reason = "no measured time in the sheet"
        notes = ["timed as P100 PCIe: a bare allreduce crosses PCIe and the network only",
                 "the fastest of NCCL 2.0, OSU's and Baidu's allreduce: here %s" %
                 r["algorithm"]]
        if system == "DeepBench 10-GPU" and gpus > 10:
            notes.append("10-GPU nodes' network not stated: FDR as the 8-GPU nodes'")
        out.append(row("deepbench-allreduce", "deepbench-allreduce.tsv:%d" % line,
                       "DeepBench allreduce %s %d floats %d GPUs" % (r["gpu"], n, gpus),
                       "",  # no competing rows: one machine a GPU type, sizes ordered
                       workload="experiments/validation/workloads/allreduce-%d.xml" % n,
                       platform=spec or "", gpus=gpus, batch=gpus, precision="fp32",
                       measured="%.9g" % (float(r["mean_time_us"]) * 1e-6)
                       if r["mean_time_us"] else "",
                       unit="s", reason=reason, note="; ".join(notes)))
    return out


def main(argv):
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("make_rows.py: usage: make_rows.py [MEASURED_DIR]", file=sys.stderr)
        return 2
    measured = argv[0] if argv else os.path.join(ROOT, "..", "shared", "reference", "measured")
    if not os.path.isdir(measured):
        print("make_rows.py: no measured data at %s" % measured, file=sys.stderr)
        return 2
    table = systems()
    rows = dle_rows(measured, table) + mlperf_rows(measured, table) + paradl_rows(measured) + \
        deepbench_allreduce_rows(measured, table)
    w = csv.DictWriter(sys.stdout, COLUMNS, delimiter="\t", lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
