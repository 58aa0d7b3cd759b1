#!/usr/bin/env bash
# common.sh: what every study script (experiments/<study>/run.sh) shares: its command line, where
# the hybridsim executable is, generated platforms, resumable sweeps, gnuplot output in PNG and SVG
# (written to a temp name, then renamed), tables, and the MANIFEST of a run.
# Sourced, not run: `source "$(dirname "$0")/../lib/common.sh"; hs_study_args STUDY "$@"`.
# Every function here prefixes hs_; study scripts read the HS_* variables hs_study_args sets.

HS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HS_LIB="$HS_ROOT/experiments/lib"

hs_die() { echo "$HS_STUDY: $*" >&2; exit 2; }

# hs_checkout_state DIR: the checkout's short commit, and " (with uncommitted changes)" when its
# tracked files differ from it. Call it before a run writes into the checkout: its own outputs
# (a MANIFEST is emptied as it is opened) would count as changes.
hs_checkout_state() {
    echo "$(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
        git -C "$1" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
}

hs_usage() {
    cat <<EOF
usage: experiments/$HS_STUDY/run.sh [--quick] [-o OUTDIR] [options]
  --quick            the small size (CI runs it; a few minutes on 2 cores)
  -o, --output DIR   where platforms, CSVs, plots and the summary go (default: full
                     experiments/results/$HS_STUDY, quick experiments/out/$HS_STUDY-quick);
                     rerunning into the same DIR skips the rows already there
  -j, --jobs N       simulations at a time (default: the cores)
  --exe PATH         the hybridsim executable (default: \$HYBRIDSIM, else build/hybridsim,
                     else experiments/setup.sh builds it)
  --reference PATH   the measured ABCI table (a .tsv, or the shared reference folder holding
                     measured/abci-resnet50-tableVIII.tsv; default ../shared/reference beside
                     the checkout); paradl only
  -h, --help         this text
EOF
}

# Parses a study's command line into HS_QUICK (0/1), HS_OUT, HS_JOBS, HS_EXE, HS_REF_TSV, and
# makes HS_OUT and HS_TMP (removed at exit). A bad flag exits 2 with the flag named.
hs_study_args() {
    HS_STUDY="$1"; shift
    HS_QUICK=0; HS_OUT=""; HS_JOBS="$(nproc 2>/dev/null || echo 2)"; HS_EXE="${HYBRIDSIM:-}"
    local ref="$HS_ROOT/../shared/reference"
    HS_CMDLINE="experiments/$HS_STUDY/run.sh $*"
    while [ $# -gt 0 ]; do
        case "$1" in
            --quick) HS_QUICK=1 ;;
            -o|--output) [ $# -ge 2 ] && [ -n "$2" ] || hs_die "$1 needs a directory"
                HS_OUT="$2"; shift ;;
            -j|--jobs) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] ||
                    hs_die "$1 needs a positive integer (got '${2:-}')"
                HS_JOBS="$2"; shift ;;
            --exe) [ $# -ge 2 ] && [ -x "$2" ] || hs_die "--exe: '${2:-}' is not an executable"
                HS_EXE="$2"; shift ;;
            --reference) [ $# -ge 2 ] && [ -n "$2" ] || hs_die "--reference needs a path"
                ref="$2"; shift ;;
            -h|--help) hs_usage; exit 0 ;;
            *) hs_usage >&2; hs_die "unknown argument '$1'" ;;
        esac
        shift
    done
    if [ -z "$HS_OUT" ]; then
        if [ "$HS_QUICK" = 1 ]; then HS_OUT="$HS_ROOT/experiments/out/$HS_STUDY-quick"
        else HS_OUT="$HS_ROOT/experiments/results/$HS_STUDY"; fi
    fi
    if [ -d "$ref" ]; then HS_REF_TSV="$ref/measured/abci-resnet50-tableVIII.tsv"
    else HS_REF_TSV="$ref"; fi
    hs_find_exe
    mkdir -p "$HS_OUT/platforms" || hs_die "-o: cannot create '$HS_OUT'"
    HS_OUT="$(cd "$HS_OUT" && pwd)"
    HS_TMP="$(mktemp -d "${TMPDIR:-/tmp}/hs-$HS_STUDY-XXXXXX")"
    trap 'rm -rf "$HS_TMP"' EXIT
    HS_START_S="$(date +%s)"
    HS_RAN=0 # runs this invocation made (rows it added); the study adds its own runs
    if command -v gnuplot >/dev/null; then
        # the list read whole first: grep -q on a pipe may leave gnuplot a SIGPIPE, which
        # pipefail would take for "no pngcairo"
        if grep -q pngcairo <<<"$(gnuplot -e 'set terminal' 2>&1)"; then HS_PNGTERM=pngcairo
        else HS_PNGTERM=png; fi
    else
        HS_PNGTERM=""
        echo "$HS_STUDY: gnuplot is missing: CSVs and tables only, no plots" >&2
    fi
}

hs_find_exe() {
    if [ -z "$HS_EXE" ]; then
        if [ -x "$HS_ROOT/build/hybridsim" ]; then HS_EXE="$HS_ROOT/build/hybridsim"
        else
            # shellcheck source=../setup.sh
            source "$HS_ROOT/experiments/setup.sh" >&2
            HS_EXE="$HS_BUILD/hybridsim"
        fi
    fi
    HS_EXE="$(cd "$(dirname "$HS_EXE")" && pwd)/$(basename "$HS_EXE")"
    [ -x "$HS_EXE" ] || hs_die "no hybridsim executable at $HS_EXE"
}

# hs_platform NAME FLAGS...: OUTDIR/platforms/NAME.xml from `hybridsim platform FLAGS`. Sweeps
# run inside OUTDIR and name it platforms/NAME.xml, so the CSV keys do not hold absolute paths.
hs_platform() {
    local name="$1"; shift
    "$HS_EXE" platform "$@" -o "$HS_OUT/platforms/$name.xml" ||
        hs_die "hybridsim platform $* failed"
}

# hs_sweep CSV FLAGS...: one resumable sweep into OUTDIR/CSV (rows already there are skipped;
# several sweeps may share one CSV). Progress shows only on a terminal.
hs_sweep() {
    local csv="$1"; shift
    local quiet=(--quiet) before=0 after
    [ -t 2 ] && quiet=()
    [ -f "$HS_OUT/$csv" ] && before="$(hs_rows "$HS_OUT/$csv")"
    (cd "$HS_OUT" && "$HS_EXE" sweep "$@" -o "$csv" -j "$HS_JOBS" --timeout 1800 "${quiet[@]}") ||
        hs_die "sweep into $HS_OUT/$csv failed (rerun the same command to resume)"
    after="$(hs_rows "$HS_OUT/$csv")"
    HS_RAN=$((HS_RAN + after - before))
}

# hs_rows CSV: its rows, not counting the header.
hs_rows() { awk 'NR > 1 && $0 != ""' "$1" | wc -l; }

# hs_select CSV COLS [WHERE]: the CSV's columns COLS (comma list) as TSV with a header line.
hs_select() {
    awk -f "$HS_LIB/csv.awk" -v cols="$2" -v where="${3:-}" "$1"
}

# hs_plot SCRIPT.gp OUTBASE [NAME=VALUE...]: OUTBASE.png and OUTBASE.svg from one gnuplot script.
# The script reads `term` ("png" or "svg"), `pngterm` (pngcairo or png) and `out` (the file it
# writes), plus the NAME=VALUE strings. Each file is written to a temp name, then renamed.
hs_plot() {
    local gp="$1" base="$2"; shift 2
    [ -n "$HS_PNGTERM" ] || return 0
    local defs="" kv
    for kv in "$@"; do defs="$defs ${kv%%=*}='${kv#*=}';"; done
    local t
    for t in png svg; do
        gnuplot -e "term='$t'; pngterm='$HS_PNGTERM'; out='$base.tmp.$t';$defs" "$gp" \
            2>"$HS_TMP/gnuplot.err" || { cat "$HS_TMP/gnuplot.err" >&2; hs_die "gnuplot $gp failed"; }
        # gnuplot warns (e.g. about an empty range) on stderr without failing; show it.
        [ -s "$HS_TMP/gnuplot.err" ] && sed "s|^|$HS_STUDY: gnuplot: |" "$HS_TMP/gnuplot.err" >&2
        [ -s "$base.tmp.$t" ] || hs_die "gnuplot $gp wrote nothing to $base.$t"
        mv -f "$base.tmp.$t" "$base.$t"
    done
    HS_PLOTS+=("$base.png" "$base.svg")
}

# hs_write FILE: stdin to FILE through FILE.tmp, so that a killed run leaves no half file.
hs_write() {
    cat >"$1.tmp" && mv -f "$1.tmp" "$1"
}

# hs_manifest: appends to OUTDIR/MANIFEST what this invocation did: commit, command, date, wall
# time, how many runs it made (0: it only redrew from the rows already there). Appended, not
# overwritten, so that the block of the invocation that computed the rows stays.
hs_manifest() {
    local commit dirty=""
    commit="$(git -C "$HS_ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
    git -C "$HS_ROOT" diff --quiet HEAD -- analytic sim platforms workloads 2>/dev/null ||
        dirty=" (with uncommitted changes in analytic/ sim/ platforms/ workloads/)"
    {
        [ -s "$HS_OUT/MANIFEST" ] && { cat "$HS_OUT/MANIFEST"; echo; }
        echo "study:     $HS_STUDY ($([ "$HS_QUICK" = 1 ] && echo quick || echo full))"
        echo "commit:    $commit$dirty"
        echo "command:   $HS_CMDLINE"
        echo "date:      $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "wall time: $(($(date +%s) - HS_START_S)) s"
        echo "runs made: $HS_RAN (the others were in OUTDIR already)"
        echo "machine:   $(nproc) cores, $HS_JOBS simulations at a time"
        echo "hybridsim: $("$HS_EXE" --version 2>&1 | head -1)"
    } | hs_write "$HS_OUT/MANIFEST"
}

# hs_table: a TSV on stdin as aligned columns.
hs_table() {
    column -t -s "$(printf '\t')"
}
