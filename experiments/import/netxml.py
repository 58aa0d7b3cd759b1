"""netxml.py: the workload builder the generator scripts share (unet_tf1.py, nnunet_pytorch.py,
ssd_pytorch.py): layers appended in execution order, each taking its producer's output shape
as its input, and the workload XML they make (workloads/README.md, workloads/workload.dtd).
wl_load checks every shape again when hybridsim reads the file."""

import os
import sys

# The attributes of a <layer>, in the order the shipped workloads write them.
ORDER = ["id", "type", "x", "w", "kernel", "y", "stride", "padding", "inputs"]


def fmt(shape):
    """A shape as the format writes it: 64x56x56."""
    return "x".join(str(d) for d in shape)


class Net:
    """Layers in execution order; shape[id] is each layer's output, last the latest layer."""

    def __init__(self, sample):
        self.layers = []             # each layer's attributes, as text
        self.shape = {"data": sample}
        self.last = "data"
        self.params = 0              # counted by the generators, as their sources count them

    def add(self, ident, type_, y, x_from=None, inputs=None, **attrs):
        """A layer reading x_from (default: the last layer) or several inputs; returns its id.
        A concat's x is its output (the inputs' channels summed, workloads/README.md)."""
        src = x_from or self.last
        x = y if type_ == "concat" else self.shape[src]
        a = dict(id=ident, type=type_, x=fmt(x))
        a.update({k: str(v) for k, v in attrs.items()})
        a["y"] = fmt(y)
        if inputs:
            a["inputs"] = " ".join(inputs)
        elif x_from and x_from != self.last:
            a["inputs"] = x_from
        self.layers.append(" ".join('%s="%s"' % (k, a[k]) for k in ORDER if k in a))
        self.shape[ident] = y
        self.last = ident
        return ident


def write(path, name, description, dataset, samples, sample, layers):
    """The workload file: no measured time (calibration none), the compute model times it.
    Written beside path and renamed when complete, so a failed run leaves the old file."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            f.write('<!DOCTYPE workload SYSTEM "workload.dtd">\n')
            f.write('<workload name="%s">\n' % name)
            f.write("  <description>%s</description>\n" % description)
            f.write('  <dataset name="%s" samples="%d" sample="%s"/>\n' %
                    (dataset, samples, sample))
            f.write('  <calibration method="none"/>\n  <layers>\n')
            for layer in layers:
                f.write("    <layer %s/>\n" % layer)
            f.write("  </layers>\n</workload>\n")
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        sys.stderr.write("%s: cannot write %s: %s\n" % (name, path, e.strerror))
        sys.exit(2)


def outdir(argv, doc, default):
    """The OUTDIR an import script's arguments give (default when none): --help prints doc
    and exits 0; a flag, a second argument or a missing directory: a message, exit 2."""
    name = os.path.basename(sys.argv[0])
    if argv and argv[0] in ("-h", "--help"):
        print(doc.strip())
        sys.exit(0)
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        sys.stderr.write("%s: usage: %s [OUTDIR] (not '%s'; --help)\n" %
                         (name, name, " ".join(argv)))
        sys.exit(2)
    out = argv[0] if argv else default
    if not os.path.isdir(out):
        sys.stderr.write("%s: OUTDIR %s: no such directory\n" % (name, out))
        sys.exit(2)
    return out
