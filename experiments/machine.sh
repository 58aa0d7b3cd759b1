#!/usr/bin/env bash
# machine.sh: a picture of the machine from a run's `--links` CSV: the fat tree (spine, racks,
# leaf groups, nodes) with every cable coloured by its utilisation, mean over the iteration
# (top) and peak (bottom: the fullest busy period), each node by its hottest link inside it
# (NVLink, PCIe), the hottest links numbered and listed. Two CSVs: side by side, on one colour
# scale (packed against spread).
# Usage: experiments/machine.sh LINKS.csv [LINKS2.csv] [-p PLATFORM]... [--title TEXT]...
#                               [--top N] -o FILE.png|FILE.svg
#   -p         the platform the run used (default abci): a short name, a file written by
#              `hybridsim platform`, or a gen: spec; given twice, the second is the second run's
#   --title    a run's title (default the CSV's name); given twice, the second run's
#   --top      how many of the hottest links to name (default 5)
# Only the racks whose links carried traffic are drawn; a box is a node, or on large drawings
# a leaf group or a rack (its nodes' hottest links: the bottom line says which). Links not on
# the generator's tree (hand-written platforms' own names) are counted and left out. Written to
# FILE through a temp file; the hottest links are printed too. Needs gnuplot and, for gen:
# specs, hybridsim ($HYBRIDSIM, else build/hybridsim).
# Example: experiments/machine.sh packed.csv spread.csv -p abci --title packed --title spread \
#              -o machine.png
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lib="$root/experiments/lib"
die() { echo "machine: $*" >&2; exit 2; }
csvs=() platforms=() titles=() top=5 out=""
while [ $# -gt 0 ]; do
    case "$1" in
        -p|--platform|--title|--top|-o)
            [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"
            case "$1" in
                -p|--platform) platforms+=("$2") ;; --title) titles+=("$2") ;; -o) out="$2" ;;
                --top) [[ "$2" =~ ^[1-9][0-9]?$ ]] || die "--top: '$2' is not a count (1-99)"
                       top="$2" ;;
            esac
            shift ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown argument '$1' (see experiments/machine.sh --help)" ;;
        *) csvs+=("$1") ;;
    esac
    shift
done
[ "${#csvs[@]}" -ge 1 ] && [ "${#csvs[@]}" -le 2 ] || die "one or two links CSVs (see --help)"
[ -n "$out" ] || die "-o FILE.png|FILE.svg is required"
[ "${#platforms[@]}" -le 2 ] && [ "${#titles[@]}" -le 2 ] || die "-p and --title: at most one per CSV"
for c in "${csvs[@]}"; do [ -f "$c" ] && [ -r "$c" ] || die "$c: not a readable file"; done
case "$out" in
    *.png) term=png ;;
    *.svg) term=svg ;;
    *) die "-o $out: a .png or .svg file" ;;
esac
command -v gnuplot >/dev/null || die "gnuplot is missing (apt-get install gnuplot-nox)"
pngterm=png
grep -q pngcairo <<<"$(gnuplot -e 'set terminal' 2>&1)" && pngterm=pngcairo
tmp="$(mktemp -d "${TMPDIR:-/tmp}/hs-machine-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# shape PLATFORM: "nodes gpus_per_node nodes_per_leaf leaves_per_rack", from the root zone's
# properties of the platform file, or of the file the generator writes for a gen: spec.
shape() {
    local p="$1" xml="$1"
    case "$p" in
        gen:*)
            local hs="${HYBRIDSIM:-$root/build/hybridsim}" spec="${p#gen:}" args=() kv
            [ -x "$hs" ] || die "-p $p: needs hybridsim to read a gen: spec (\$HYBRIDSIM or build/hybridsim)"
            args=(--preset "${spec%%:*}")
            [[ "$spec" == *:* ]] && while IFS= read -r kv; do
                [ -n "$kv" ] || continue
                # the shape does not depend on the routing, which the XML cannot hold
                [[ "$kv" == uplink-routing=* ]] && continue
                kv="${kv//%2C/,}"; kv="${kv//%25/%}"
                args+=("--${kv%%=*}" "${kv#*=}")
            done < <(tr ',' '\n' <<<"${spec#*:}")
            "$hs" platform "${args[@]}" -o "$tmp/gen.xml" 2>"$tmp/err" ||
                die "-p $p: $(cat "$tmp/err")"
            xml="$tmp/gen.xml" ;;
        */*|*.xml) ;;
        *) xml="$root/platforms/$p.xml" ;;
    esac
    [ -r "$xml" ] || die "-p $p: no platform file $xml"
    head -c 20000 "$xml" | awk -v p="$p" '
        /<prop id="hybridsim:/ {
            id = $0; sub(/.*id="hybridsim:/, "", id); sub(/".*/, "", id)
            v = $0; sub(/.*value="/, "", v); sub(/".*/, "", v); prop[id] = v }
        END {
            if (!("nodes" in prop) || !("nodes_per_leaf" in prop)) {
                print "machine: -p " p ": no hybridsim:nodes / nodes_per_leaf properties" > "/dev/stderr"
                exit 2 }
            print prop["nodes"], prop["gpus_per_node"], prop["nodes_per_leaf"], prop["leaves_per_rack"] }'
}

n=${#csvs[@]}
for i in $(seq 1 "$n"); do
    c="${csvs[$((i - 1))]}"
    p="${platforms[$((i - 1))]:-${platforms[0]:-abci}}"
    read -r nodes gpn npl lpr < <(shape "$p") || exit 2
    [ -n "${nodes:-}" ] || exit 2
    mkdir -p "$tmp/m$i"
    awk -f "$lib/machine.awk" -v nodes="$nodes" -v gpus_per_node="$gpn" -v nodes_per_leaf="$npl" \
        -v leaves_per_rack="$lpr" -v dir="$tmp/m$i" -v top="$top" "$c" || exit 2
    t="${titles[$((i - 1))]:-$(basename "$c" .csv)}"
    printf '%s on %s\n' "$t" "$(sed 's|.*/||; s|\.xml$||' <<<"$p")" >"$tmp/m$i/title.txt"
done
gnuplot -e "term='$term'; pngterm='$pngterm'; out='$tmp/out.$term'; dir='$tmp'; n=$n" \
    "$lib/machine.gp" 2>"$tmp/gnuplot.err" || { cat "$tmp/gnuplot.err" >&2; exit 1; }
[ -s "$tmp/out.$term" ] || { cat "$tmp/gnuplot.err" >&2; echo "machine: gnuplot wrote nothing" >&2; exit 1; }
mv -f "$tmp/out.$term" "$out"
echo "machine: $out"
for i in $(seq 1 "$n"); do # the hottest links as the picture lists them
    echo "$(cat "$tmp/m$i/title.txt"): hottest links (mean utilisation, peak)"
    awk '{ printf "  %s %s %s (%s%s): %s, %s\n", $1, $2, $3, $4, ($7 > 0 ? " and " $7 " more" : ""), $5, $6 }' \
        "$tmp/m$i/top.txt"
done
