#!/usr/bin/env bash
# out.sh: the scripts' one safe writer, the shell twin of workloads/common/hs_out.h (and of
# experiments/lib/hs_out.py): a finished file is put in place so that nothing is destroyed.
#   - a new file, or an existing regular file (also behind a symbolic link, which is kept):
#     copied into a temp created exclusively beside the resolved file (NAME.XXXXXX.tmp,
#     mktemp), given the old file's mode (a new one: 0666 minus the umask), renamed over it;
#   - a character device or a FIFO: written in place, never replaced;
#   - anything else (a directory, a block device, a socket, a dangling link): refused.
# Sourced, not run. Functions return 2 for a refused path (the message on stderr names the
# flag and the path), 1 for a failed write; the caller exits with that status. A caller's EXIT
# trap should remove "${hs_out_tmp:-}", the temp of an install cut short by a signal.

# hs_out_kind FLAG PATH: prints new, regular or inplace; or says why not and returns 2.
hs_out_kind() {
    local flag="$1" path="$2" what
    [ -n "$path" ] || { echo "$flag needs a file name" >&2; return 2; }
    if [ ! -e "$path" ]; then
        [ -L "$path" ] && { echo "$flag $path: a symbolic link to nothing" >&2; return 2; }
        echo new
        return 0
    fi
    if [ -f "$path" ]; then echo regular; return 0; fi
    if [ -c "$path" ] || [ -p "$path" ]; then echo inplace; return 0; fi
    if [ -d "$path" ]; then what="a directory"
    elif [ -b "$path" ]; then what="a block device"
    elif [ -S "$path" ]; then what="a socket"
    else what="not a regular file"; fi
    echo "$flag $path: is $what, not a file to write" >&2
    return 2
}

# hs_out_temp FLAG TARGET: a new empty temp beside TARGET, its name in hs_out_tmp.
hs_out_temp() {
    hs_out_tmp="$(mktemp "$(dirname -- "$2")/$(basename -- "$2").XXXXXX.tmp" 2>/dev/null)" ||
        { hs_out_tmp=""; echo "$1 $2: cannot create a file there" >&2; return 2; }
}

# hs_out_check FLAG PATH: whether PATH could be written, without writing it (before long work).
hs_out_check() {
    local kind
    kind="$(hs_out_kind "$1" "$2")" || return 2
    if [ "$kind" = inplace ]; then
        [ -w "$2" ] || { echo "$1 $2: cannot write" >&2; return 2; }
        return 0
    fi
    if [ "$kind" = new ]; then
        hs_out_temp "$1" "$2" || return 2
    else
        hs_out_temp "$1" "$(realpath -- "$2")" || return 2
    fi
    rm -f "$hs_out_tmp"
    hs_out_tmp=""
}

# hs_out_install FLAG SRC PATH: SRC's contents become PATH's, as described above.
hs_out_install() {
    local flag="$1" src="$2" path="$3" kind target mode
    kind="$(hs_out_kind "$flag" "$path")" || return 2
    if [ "$kind" = inplace ]; then
        cat -- "$src" >"$path" || { echo "$flag $path: write error" >&2; return 1; }
        return 0
    fi
    target="$path"
    [ "$kind" = new ] || target="$(realpath -- "$path")" || return 2
    hs_out_temp "$flag" "$target" || return 2
    if [ "$kind" = new ]; then
        mode="$(printf '%o' $((0666 & ~$(umask))))"
    else
        mode="$(stat -c %a -- "$target")"
    fi
    if ! cat -- "$src" >"$hs_out_tmp" || ! chmod "$mode" "$hs_out_tmp" ||
        ! mv -fT -- "$hs_out_tmp" "$target"; then
        rm -f -- "$hs_out_tmp"
        hs_out_tmp=""
        echo "$flag $path: write error" >&2
        return 1
    fi
    hs_out_tmp=""
}
