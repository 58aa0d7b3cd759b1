#!/usr/bin/env bash
# shipped.sh: writes the workloads that are networks as NVIDIA and MLPerf trained them
# (workloads/README.md, "Shipped workloads"), from torchvision and networks.py, without a time
# (calibration method none: the compute model times them). Usage:
#   experiments/import/shipped.sh [OUTDIR]   (default: workloads/, where they are committed)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/../../workloads}"
PY=/usr/bin/python3 # Debian's, with python3-torch and python3-torchvision
"$PY" - "$here/import.py" "$out" <<'PY'
import runpy, sys
main = runpy.run_path(sys.argv[1])["main"]  # torch's import paid once
out = sys.argv[2]
for source, name, extra in [
        ("torchvision:resnet50", "resnet50-v1.5", []),
        ("networks:resnext101_32x4d", "resnext101-32x4d", []),
        ("networks:se_resnext101_32x4d", "se-resnext101-32x4d", []),
        ("torchvision:efficientnet_b0", "efficientnet-b0", []),
        ("torchvision:efficientnet_b4", "efficientnet-b4", ["--input", "3x380x380"]),
        ("networks:efficientnet_widese_b0", "efficientnet-widese-b0", []),
        ("networks:efficientnet_widese_b4", "efficientnet-widese-b4", ["--input", "3x380x380"])]:
    if main([source, "-o", "%s/%s.xml" % (out, name), "--name", name] + extra):
        sys.exit(2)
PY
