#!/usr/bin/env bash
# ablate.sh: the validation (run.sh) as shipped and once with each opt-in fidelity mechanism
# ablations.tsv lists, and each dataset's figures side by side: what every mechanism kept off
# by default would do to each dataset's accuracy. A variant is either the kernel-time model's
# opt-in mechanisms with the efficiencies fitted with them (kind `fit`: compute_fit
# --mechanisms LIST, run.sh --fit a wrapper passing it, and a scratch build of hybridsim,
# a copy of this checkout whose workloads/compute/kernel_time.c ablate.py rewrites with the
# refitted values as compute_fit prints them, 3 significant digits, and the mechanisms in
# force; the runtime constants calibrated on the kernel model, calibrations.tsv, calibrated
# again with it by calibrate.py as the committed values were, on the same rows, and the
# variant's rows run under those runtime copies, run.sh --swap-runtime) or runtime keys
# (kind `runtime`: a copy of each runtime file the variant names with the keys set, run.sh
# --swap-runtime). Nothing of the checkout changes; build/ is brought up
# to date first (hybridsim, compute_fit).
#
# Usage: experiments/validation/ablate.sh [-o OUTDIR] [-j N] [--only NAME[,NAME...]]
#            [--variants FILE] [--measured DIR]
#   -o DIR        results (default experiments/results/ablation): summary.tsv (a line a
#                 variant and dataset: rows, mean accuracy, median error, rows at accuracy
#                 >= 0.80; deepbench's median error is the held-out kernels'), summary.txt
#                 (its tables), rows.tsv (every training row's prediction under each
#                 variant), recalibrated.tsv (each fit variant's calibrated constants: the
#                 committed value, the variant's, its calibration run's prediction), MANIFEST
#   -j N          simulations at a time, each run.sh's -j, and the builds' jobs (default: the
#                 cores)
#   --only L      only the variants L names (and `shipped`, always run)
#   --variants F  the variants (default experiments/validation/ablations.tsv, which says
#                 what its columns mean)
#   --measured D  the measured files (default ../shared/reference/measured beside the checkout)
# Takes one run.sh a variant (on 2 busy cores 15-60 s each) and one scratch build of
# hybridsim (15 s and more), then a recompile of kernel_time.c and a relink a fit variant:
# the 16 variants of ablations.tsv, 3 to 10 minutes on 2 busy cores.
# Exit status 0, 2 (bad arguments, missing data, a variant hybridsim refuses, which stops it
# before any run and before -o is made, a failed build or run: its message says).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=../lib/common.sh
source "$root/experiments/lib/common.sh"
commit_line="$(hs_checkout_state "$root")" # before this run writes into the checkout
die() { echo "ablate: $*" >&2; exit 2; }

out="$root/experiments/results/ablation" jobs="$(nproc 2>/dev/null || echo 2)" only=""
variants="$here/ablations.tsv" measured="$root/../shared/reference/measured"
cmdline="experiments/validation/ablate.sh $*"
while [ $# -gt 0 ]; do
    case "$1" in
        -o) [ $# -ge 2 ] || die "-o needs a directory"; out="$2"; shift ;;
        -j) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "-j needs a positive integer"
            jobs="$2"; shift ;;
        --only) [[ "${2:-}" =~ ^[a-z0-9,-]+$ ]] ||
                die "--only needs variant names, comma-separated"
            only="${2//,/ }"; shift ;;
        --variants) [ -f "${2:-}" ] || die "--variants: no file '${2:-}'"
            variants="$2"; shift ;;
        --measured) [ -d "${2:-}" ] || die "--measured: no directory '${2:-}'"
            measured="$2"; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (--help lists them)" ;;
    esac
    shift
done
# shellcheck disable=SC2086 # the names, one a word
list="$(python3 "$here/ablate.py" variants "$variants" $only)" || exit 2
[ -f "$measured/dle-throughput.tsv" ] || die "no measured files at $measured (--measured)"
[ -f "$root/build/CMakeCache.txt" ] || die "no build at $root/build (experiments/setup.sh first)"
[ -n "$list" ] || die "$variants: no variant"
calibrations="$here/calibrations.tsv"
[ -f "$calibrations" ] || die "no $calibrations"
[ ! -e "$out" ] || [ -d "$out" ] || die "-o: $out is not a directory"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/hs-ablate-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
start_s=$(date +%s)
cmake --build "$root/build" -j "$jobs" --target hybridsim compute_fit >"$tmp/build.log" 2>&1 ||
    die "building $root/build failed: $(tail -3 "$tmp/build.log")"

# One validation into $tmp/NAME: run.sh with the arguments given, its output kept apart.
validate() {
    local name="$1"; shift
    echo "ablate: $name" >&2
    "$here/run.sh" -j "$jobs" --measured "$measured" -o "$tmp/$name" "$@" \
        >"$tmp/$name.log" 2>&1 || die "$name: run.sh failed: $(tail -3 "$tmp/$name.log")"
    results="$results $name=$tmp/$name/results.tsv"
}

# The scratch checkout the fit variants build: this one's files (tracked and not ignored),
# its kernel_time.c rewritten a variant.
scratch_build() {
    mkdir -p "$tmp/src"
    git -C "$root" ls-files -z --cached --others --exclude-standard |
        grep -zv '^experiments/results/' | (cd "$root" && tar --null -T - -cf -) |
        tar -xf - -C "$tmp/src" || die "cannot copy the checkout into $tmp/src"
    cmake -S "$tmp/src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$tmp/cmake.log" 2>&1 ||
        die "configuring the scratch build failed: $(tail -3 "$tmp/cmake.log")"
}

# A fit variant's runtime constants calibrated on the kernel model (calibrations.tsv),
# calibrated again with its hybridsim as the committed values were (calibrate.py): a copy of
# each runtime in $tmp/NAME.in, its rows run under it (swaps); each value in recalibrated.tsv.
recalibrate() {
    local name="$1" runtime key digits low high row command sample_s copy line target
    local committed value predicted measured
    swaps=()
    while IFS=$'\t' read -r -u 4 runtime key digits low high row command sample_s; do
        copy="$tmp/$name.in/$runtime.rt"
        if [ ! -f "$copy" ]; then
            cp "$root/workloads/runtime/$runtime.rt" "$copy" ||
                die "$calibrations: no runtime $runtime"
            swaps+=(--swap-runtime "$runtime=$copy")
        fi
        target=(--results "$tmp/shipped/results.tsv" --row "$row")
        [ "$row" != - ] || target=(--command "$command" --sample-s "$sample_s")
        line="$(python3 "$here/calibrate.py" --exe "$tmp/build/hybridsim" "${target[@]}" \
            --runtime "$copy" --key "$key" --digits "$digits" --low "$low" --high "$high" \
            --out "$copy" 2>"$tmp/calibrate.err")" ||
            die "$name: calibrating $runtime's $key again: $(cat "$tmp/calibrate.err")"
        committed="$(sed -n "s/^$key *= *//p" "$root/workloads/runtime/$runtime.rt")"
        read -r _ value predicted measured <<<"$line"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$runtime" "$key" "$committed" \
            "$value" "${row/#-/command}" "$predicted" "$measured" >>"$tmp/recalibrated.tsv"
    done 4< <(grep -v '^#' "$calibrations" | tail -n +2)
}

# Every runtime variant's copies, made and loaded by hybridsim before any run: a key it does
# not know is refused now, not after minutes of runs.
while IFS=$'\t' read -r -u 3 name kind sets where source; do
    [ "$kind" = runtime ] || continue
    mkdir -p "$tmp/$name.in"
    for runtime in $where; do
        copy="$tmp/$name.in/$(basename "$runtime" .rt).rt"
        file="$root/workloads/runtime/$runtime.rt"
        [ "${runtime#*/}" = "$runtime" ] || file="$root/$runtime"
        python3 "$here/ablate.py" runtime-copy "$file" "$sets" "$source" "$copy" || exit 2
        "$root/build/hybridsim" analytic -w resnet50 -p dgx1 -s data -g 8 -b 256 \
            --runtime "$copy" >/dev/null 2>"$tmp/check.err" ||
            die "$variants: variant $name: $runtime with '$sets': $(head -3 "$tmp/check.err")"
    done
done 3<<<"$list"

# -o, made once every input is known good: a refused run leaves none.
mkdir -p "$out" 2>/dev/null || die "-o: cannot create $out"
out="$(cd "$out" && pwd)"
[ -w "$out" ] || die "-o: cannot write into $out"
for f in summary.tsv rows.tsv summary.txt recalibrated.tsv MANIFEST; do
    [ ! -e "$out/$f" ] || [ -f "$out/$f" ] || die "-o: $out/$f is not a regular file"
done
trap 'rm -rf "$tmp" "$out"/.ablate-*.tmp' EXIT

results=""
validate shipped
while IFS=$'\t' read -r -u 3 name kind sets where source; do
    mkdir -p "$tmp/$name.in"
    if [ "$kind" = fit ]; then
        [ -d "$tmp/build" ] || scratch_build
        mech=(); [ "$sets" = none ] || mech=(--mechanisms "$sets")
        "$root/build/compute_fit" --data "$measured" "${mech[@]}" >"$tmp/$name.in/fit.txt" ||
            die "$name: compute_fit ${mech[*]} failed: $(tail -3 "$tmp/$name.in/fit.txt")"
        cp "$root/workloads/compute/kernel_time.c" "$tmp/src/workloads/compute/kernel_time.c"
        python3 "$here/ablate.py" patch-fit "$tmp/src/workloads/compute/kernel_time.c" \
            "$tmp/$name.in/fit.txt" "$sets" || exit 2
        cmake --build "$tmp/build" -j "$jobs" --target hybridsim compute_fit \
            >"$tmp/$name.in/build.log" 2>&1 ||
            die "$name: the scratch build failed: $(tail -3 "$tmp/$name.in/build.log")"
        printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$tmp/build/compute_fit" "${mech[*]}" \
            >"$tmp/$name.in/fit.sh"
        chmod +x "$tmp/$name.in/fit.sh"
        recalibrate "$name"
        validate "$name" --exe "$tmp/build/hybridsim" --fit "$tmp/$name.in/fit.sh" \
            "${swaps[@]}"
    else
        swaps=()
        for runtime in $where; do  # the copies made and checked above
            swaps+=(--swap-runtime "$runtime=$tmp/$name.in/$(basename "$runtime" .rt).rt")
        done
        validate "$name" "${swaps[@]}"
    fi
done 3<<<"$list"

mkdir -p "$tmp/out"
# shellcheck disable=SC2086 # NAME=FILE pairs, one a word
python3 "$here/ablate.py" summary "$tmp/out" $results || exit 2
{
    printf 'variant\truntime\tkey\tcommitted\tvalue\tcalibrated_on\tpredicted\tmeasured\n'
    [ ! -f "$tmp/recalibrated.tsv" ] || cat "$tmp/recalibrated.tsv"
} >"$tmp/out/recalibrated.tsv" || die "cannot write $tmp/out/recalibrated.tsv"
{
    echo "command: $cmdline"
    echo "hybridsim: $root/build/hybridsim ($("$root/build/hybridsim" --version 2>/dev/null |
        head -1)); fit variants: scratch builds of this checkout"
    echo "commit: $commit_line"
    echo "measured: ${measured#"$root/"}"
    echo "variants: ${variants#"$root/"}"
    echo "seconds: $(($(date +%s) - start_s))"
} >"$tmp/out/MANIFEST" || die "cannot write $tmp/out/MANIFEST"
# Each file copied beside its place, then renamed over it (a rename within -o's file system).
for f in summary.tsv rows.tsv summary.txt recalibrated.tsv MANIFEST; do
    cp "$tmp/out/$f" "$out/.ablate-$f.tmp" && mv -f "$out/.ablate-$f.tmp" "$out/$f" ||
        die "-o: cannot write $out/$f"
done
cat "$out/summary.txt"
