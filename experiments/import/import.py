#!/usr/bin/python3
"""import.py: a network from torchvision (CNNs and vision transformers), the importer's own
networks or an ONNX file -> a hybridsim workload XML.

Usage: /usr/bin/python3 experiments/import/import.py SOURCE -o FILE.xml [options]
  SOURCE                  torchvision:NAME (built with weights=None: nothing is downloaded),
                          networks:NAME (networks.py: resnext101_32x4d, se_resnext101_32x4d,
                          efficientnet_widese_b0, efficientnet_widese_b4) or a path to an
                          .onnx file
  -o, --output FILE       the workload to write (whole or not at all; experiments/lib/hs_out.py)
  --input CxHxW           one sample's shape (default 3x224x224; 3x299x299 for inception_v3;
                          an ONNX file's own input shape)
  --name NAME             the workload's name (default: the model's)
  --dataset NAME          dataset name (default ImageNet)
  --samples N             samples per epoch (default 1281167, ImageNet-1k's training set)
  --sample-time-s T       a measured forward+backward seconds per sample; without it the
                          workload has no time (method="none") and its compute must come from
                          the kernel-time model
  --device NAME           where T was measured (required with --sample-time-s), e.g. V100-16GB
  --batch B               the samples per GPU T was measured at (optional)

Runs with Debian's python3-torch, python3-torchvision and python3-onnx (experiments/setup.sh):
call /usr/bin/python3, not a python3 of its own environment. Exit status 0, or 2 with a message
naming what is wrong (for an unsupported operator: the node and its op) and nothing written.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import hs_out  # noqa: E402 (experiments/lib: the scripts' one safe writer)

from layers import Network, Unsupported  # noqa: E402


class InputError(Exception):
    pass


def parse_shape(text):
    try:
        dims = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        dims = ()
    if len(dims) not in (3, 4) or min(dims) < 1:
        raise InputError("--input: '%s' is not CxHxW or CxDxHxW with positive integers" % text)
    return dims


def positive(kind, what):
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            v = None
        if v is None or not v > 0 or v != v or v == float("inf"):
            raise argparse.ArgumentTypeError("%s: '%s' is not a positive %s"
                                             % (what, text, kind.__name__))
        return v
    return parse


def arguments(argv):
    p = argparse.ArgumentParser(
        prog="import.py", description="A torchvision classification model (any of them: CNNs "
        "and vision transformers), the importer's own networks or ONNX -> a hybridsim "
        "workload XML (experiments/import/import.py; README.md there lists every torchvision "
        "classification model and whether it imports).",
        epilog="Exit status 0, or 2 with a message naming what is wrong (for an unsupported "
        "operator: the node and its op) and nothing written.")
    p.add_argument("source", metavar="SOURCE",
                   help="torchvision:NAME (a torchvision classification model, built with "
                   "weights=None: nothing is downloaded), networks:NAME (networks.py: "
                   "resnext101_32x4d, se_resnext101_32x4d, efficientnet_widese_b0, "
                   "efficientnet_widese_b4) or a path to an .onnx file (exported in training "
                   "mode)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.xml",
                   help="the workload to write (whole or not at all: experiments/lib/hs_out.py)")
    p.add_argument("--input", metavar="CxHxW",
                   help="one sample's shape, channels first (CxDxHxW for a 3-D network); "
                   "default 3x224x224, 3x299x299 for inception_v3, an ONNX file's own")
    p.add_argument("--name", help="the workload's name (default: the model's)")
    p.add_argument("--dataset", default="ImageNet", help="the dataset's name (default "
                   "ImageNet)")
    p.add_argument("--samples", type=positive(int, "--samples"), default=1281167,
                   metavar="N", help="samples per epoch (default 1281167, ImageNet-1k's "
                   "training set)")
    p.add_argument("--sample-time-s", type=positive(float, "--sample-time-s"), metavar="T",
                   help="a measured forward+backward seconds per sample; without it the "
                   "workload has no time (method=\"none\") and the compute model times it")
    p.add_argument("--device", help="the GPU T was measured on (required with "
                   "--sample-time-s), e.g. V100-16GB")
    p.add_argument("--batch", type=positive(int, "--batch"), metavar="B",
                   help="the samples per GPU T was measured at (optional)")
    args = p.parse_args(argv)
    if args.sample_time_s is None and (args.device or args.batch):
        p.error("--device and --batch describe a measured time: give --sample-time-s too")
    if args.sample_time_s is not None and not args.device:
        p.error("--sample-time-s: say where it was measured with --device (e.g. V100-16GB)")
    return args


def read_source(args):
    """(network, name, provenance) of args.source."""
    if args.source.startswith("torchvision:"):
        import from_fx
        name = args.source.split(":", 1)[1]
        shape = parse_shape(args.input) if args.input else (
            (3, 299, 299) if name == "inception_v3" else (3, 224, 224))
        network, how = from_fx.load(name, shape, Network)
        return network, name, "torchvision:%s (%s, weights=None)" % (name, how)
    if args.source.startswith("networks:"):
        import from_fx
        import networks
        import torch
        import torchvision
        name = args.source.split(":", 1)[1]
        shape = parse_shape(args.input) if args.input else (3, 224, 224)
        def make():
            with from_fx.no_weight_init(torch):
                return networks.build(torch, torchvision, name)
        network = from_fx.load_module(make, shape, Network, args.source)
        return network, name, "networks:%s (experiments/import/networks.py on torchvision %s's " \
            "%s, torch.fx)" % (name, torchvision.__version__, networks.BASES[name])
    if not os.path.isfile(args.source):
        raise InputError("%s: no such file (SOURCE is torchvision:NAME or an .onnx file)"
                         % args.source)
    import from_onnx
    shape = parse_shape(args.input) if args.input else None
    network, how = from_onnx.load(args.source, shape, Network)
    name = os.path.splitext(os.path.basename(args.source))[0]
    return network, name, "%s (%s)" % (os.path.basename(args.source), how)


def calibration(args):
    if args.sample_time_s is None:
        return {"method": "none"}
    cal = {"device": args.device, "sample_time_s": repr(args.sample_time_s)}
    if args.batch:
        cal["batch"] = str(args.batch)
    cal["source"] = "measured by the user (import.py --sample-time-s)"
    return cal


def main(argv):
    args = arguments(argv)
    try:
        hs_out.check("-o", args.output)  # before the minutes a model may take
        network, name, provenance = read_source(args)
        if not network.layers:
            raise InputError("%s: no layers found" % args.source)
        name = args.name or name
        text = network.xml(name, "Imported from %s by experiments/import/import.py; one "
                           "sample %s. Split marks: every dense convolution (filter, channel, "
                           "spatial%s)." % (provenance, "x".join(map(str, (
                               network.sample.channels,) + network.sample.spatial)),
                               "; spatial only before the first layer that reshapes"
                               if network.reshaped else ""),
                           args.dataset, args.samples, calibration(args))
        hs_out.write("-o", args.output, text)
    except (InputError, ValueError, Unsupported, hs_out.Refused) as e:
        print("import: %s" % e, file=sys.stderr)
        return 2
    except hs_out.Failed as e:
        print("import: %s" % e, file=sys.stderr)
        return 1
    time = ("no compute time (method=\"none\")" if args.sample_time_s is None
            else "%g s a sample on %s" % (args.sample_time_s, args.device))
    print("import: %s -> %s: %s, %s" % (args.source, args.output, network.summary(), time))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
