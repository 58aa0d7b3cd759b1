#!/usr/bin/env bash
# e2e_engine_layers.sh: sim/engine's files are the layers sim/engine/engine_int.h lists (a
# number starts a layer, the files under it share it): every call from one file of the folder
# to a function another defines goes to a lower layer, so the files form no circle, and every
# .c of the folder has a layer. Definitions and calls are read by a regex over the eng_*
# names, comments and strings left out. Prints the calls that break the order. Skipped (77)
# without python3.
# Usage (from ctest): e2e_engine_layers.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

python3 - "$SRC/sim/engine" >"$TMP/out" 2>&1 <<'EOF'
import glob, os, re, sys

folder = sys.argv[1]
layer, current = {}, None
for line in open(os.path.join(folder, "engine_int.h")):
    if line.startswith("#ifndef"):
        break
    m = re.match(r"\s*\*\s+(\d+\s+)?(engine\w*\.c)\s", line)
    if m:
        current = int(m.group(1)) if m.group(1) else current
        layer[m.group(2)] = current
bad = []
defined, text = {}, {}
for path in sorted(glob.glob(os.path.join(folder, "*.c"))):
    name = os.path.basename(path)
    s = re.sub(r"/\*.*?\*/|//[^\n]*", " ", open(path).read(), flags=re.S)
    s = re.sub(r'"(\\.|[^"\\])*"', '""', s)
    text[name] = s
    if layer.get(name) is None:
        bad.append(f"{name}: no layer in engine_int.h")
    for m in re.finditer(r"^[A-Za-z_][\w \*]*?\b(eng_\w+)\s*\([^;{]*\)\s*\{", s, flags=re.M):
        if "static" not in m.group(0).split("(")[0].split():
            defined[m.group(1)] = name
for name, s in text.items():
    for callee in sorted(set(re.findall(r"\b(eng_\w+)\s*\(", s))):
        to = defined.get(callee)
        if to and to != name and layer.get(name) is not None and layer.get(to) is not None \
                and layer[to] >= layer[name]:
            bad.append(f"{name} (layer {layer[name]}) calls {callee} of {to} (layer {layer[to]})")
if len(layer) < 5 or len(defined) < 20:
    bad.append(f"read {len(layer)} layers and {len(defined)} definitions: the table or the "
               "regex no longer matches")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
[ $? -eq 0 ] || fail "engine layers: $(cat "$TMP/out")"

finish e2e_engine_layers
