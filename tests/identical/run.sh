#!/usr/bin/env bash
# run.sh: do two builds of hybridsim give byte-identical outputs? The check behind every change
# that must not change behaviour (a refactoring, a move of files).
#
# Usage: tests/identical/run.sh [--base REV] [--new EXE] [--only REGEX] [--keep]
#   --base REV    the reference: REV (default HEAD) is checked out in a temporary worktree and
#                 built there (a commit from before the change)
#   --new EXE     the build under test (default: build/hybridsim of this tree, built first by
#                 experiments/setup.sh)
#   --only REGEX  run only the invocations whose name matches
#   --keep        keep the work folder (its path is printed) to look at the differences
#
# Every line of tests/identical/invocations.txt runs under both builds, each in an empty folder
# of its own; then the exit status, stdout, stderr and every file the command wrote are compared
# byte for byte, after normalize.py has masked what may differ between two honest runs (wall
# times, the progress clock, the paths of the two trees, folders and executables, the commit in
# a MANIFEST). Prints one line per invocation and a total; exit 0 when all are identical, 1 if
# one differs, 2 on bad usage.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
base_rev=HEAD new_exe="" only="" keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --base) base_rev="${2:?--base needs a revision}"; shift ;;
        --new) new_exe="${2:?--new needs an executable}"; shift ;;
        --only) only="${2:?--only needs a pattern}"; shift ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done

WORK="$(mktemp -d /tmp/hs-identical.XXXXXX)"
cleanup() {
    git -C "$ROOT" worktree remove --force "$WORK/base-tree" >/dev/null 2>&1
    [ "$keep" = 1 ] && echo "work folder kept: $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

# The build under test.
if [ -z "$new_exe" ]; then
    HS_BUILD="${HS_BUILD:-$ROOT/build}" bash -c "source '$ROOT/experiments/setup.sh'" >/dev/null ||
        { echo "run.sh: building this tree failed" >&2; exit 1; }
    new_exe="${HS_BUILD:-$ROOT/build}/hybridsim"
fi
new_src="$ROOT"

# The reference, built from REV in a worktree beside it.
base_src="$WORK/base-tree"
git -C "$ROOT" worktree add --detach "$base_src" "$base_rev" >/dev/null 2>&1 ||
    { echo "run.sh: cannot check out '$base_rev'" >&2; exit 2; }
echo "building $base_rev ($(git -C "$base_src" rev-parse --short HEAD)) ..." >&2
cmake -S "$base_src" -B "$WORK/base-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build "$WORK/base-build" -j"$(nproc)" --target hybridsim >/dev/null ||
    { echo "run.sh: building $base_rev failed" >&2; exit 1; }
base_exe="$WORK/base-build/hybridsim"
# Both trees' tests read ../shared beside them.
[ -e "$WORK/shared" ] || ln -s "$ROOT/../shared" "$WORK/shared"

run_side() { # run_side SIDE EXE SRC NAME COMMAND
    local dir="$WORK/$1/$4"
    mkdir -p "$dir/files"
    (cd "$dir/files" && HS="$2" SRC="$3" HYBRIDSIM="$2" bash -c "$5" >"$dir/stdout" 2>"$dir/stderr"
     echo $? >"$dir/status")
    python3 "$HERE/normalize.py" "$dir" "$2" "$3" "$dir/files"
}

total=0 same=0
while IFS= read -r line; do
    case "$line" in ''|'#'*) continue ;; esac
    name="${line%%:*}"
    cmd="${line#*: }"
    [ -n "$only" ] && ! [[ "$name" =~ $only ]] && continue
    total=$((total + 1))
    # $SRC/../shared must exist for both trees: the base tree's parent is $WORK.
    run_side base "$base_exe" "$base_src" "$name" "$cmd"
    run_side new "$new_exe" "$new_src" "$name" "$cmd"
    if diff -r "$WORK/base/$name" "$WORK/new/$name" >"$WORK/$name.diff" 2>&1; then
        same=$((same + 1))
        printf '  same   %s (exit %s)\n' "$name" "$(cat "$WORK/new/$name/status")"
    else
        printf '  DIFFER %s\n' "$name"
        head -20 "$WORK/$name.diff" | sed 's/^/         /'
    fi
done <"$HERE/invocations.txt"

echo "identical: $same of $total invocations give the same outputs ($base_rev vs $new_exe)"
[ "$same" -eq "$total" ]
