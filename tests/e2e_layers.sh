#!/usr/bin/env bash
# e2e_layers.sh: the folders whose files are layers (sim/engine, sim/cli, the platform checker)
# are the layers their internal header lists (a number starts a layer, the files under it share
# it): every call from one file of the folder to a function another defines goes to a lower
# layer, so the files form no circle, and every .c of the folder has a layer. Definitions and
# calls are read by a regex over the folder's prefix (eng_, cli_, ck_), comments and strings
# left out. Prints the calls that break the order. Skipped (77) without python3.
# Usage (from ctest): e2e_layers.sh HYBRIDSIM SOURCE_DIR SHARED_DIR
set -uo pipefail
SRC="$2"
source "$(dirname "${BASH_SOURCE[0]}")/lib_e2e.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

python3 - "$SRC" >"$TMP/out" 2>&1 <<'PY'
import glob, os, re, sys

# folder, its internal header, the files of the layers, the prefix of their shared names
FOLDERS = [("sim/engine", "engine_int.h", r"engine\w*\.c", "eng_"),
           ("sim/cli", "cli_int.h", r"(?:cli|main)\w*\.c", "cli_"),
           ("platforms", "platcheck_int.h", r"platcheck\w*\.c", "ck_")]

def check(root, folder, header, files, prefix):
    label, folder = folder, os.path.join(root, folder)
    layer, current, bad = {}, None, []
    for line in open(os.path.join(folder, header)):
        if line.startswith("#ifndef"):
            break
        m = re.match(r"\s*\*\s+(\d+\s+)?(" + files + r")\s", line)
        if m:
            current = int(m.group(1)) if m.group(1) else current
            layer[m.group(2)] = current
    defined, text = {}, {}
    for path in sorted(glob.glob(os.path.join(folder, "*.c"))):
        name = os.path.basename(path)
        if not re.fullmatch(files, name):
            continue
        s = re.sub(r"/\*.*?\*/|//[^\n]*", " ", open(path).read(), flags=re.S)
        s = re.sub(r'"(\\.|[^"\\])*"', '""', s)
        text[name] = s
        if layer.get(name) is None:
            bad.append(f"{name}: no layer in {header}")
        for m in re.finditer(r"^[A-Za-z_][\w \*]*?\b(" + prefix + r"\w+)\s*\([^;{]*\)\s*\{", s,
                             flags=re.M):
            if "static" not in m.group(0).split("(")[0].split():
                defined[m.group(1)] = name
    for name, s in text.items():
        for callee in sorted(set(re.findall(r"\b(" + prefix + r"\w+)\s*\(", s))):
            to = defined.get(callee)
            if to and to != name and layer.get(name) is not None and \
                    layer.get(to) is not None and layer[to] >= layer[name]:
                bad.append(f"{name} (layer {layer[name]}) calls {callee} of {to} "
                           f"(layer {layer[to]})")
    if len(set(layer.values())) < 3 or len(defined) < 10:
        bad.append(f"read {len(layer)} files in {len(set(layer.values()))} layers and "
                   f"{len(defined)} definitions: the table or the regex no longer matches")
    return [f"{label}/{b}" for b in bad]

bad = []
for folder, header, files, prefix in FOLDERS:
    bad += check(sys.argv[1], folder, header, files, prefix)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || fail "layers: $(cat "$TMP/out")"

finish e2e_layers
