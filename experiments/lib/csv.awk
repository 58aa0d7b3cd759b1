# csv.awk: reads a hybridsim sweep CSV and prints the columns asked for, tab-separated, one line
# per row (the header first, with the same names). POSIX awk (Debian's mawk has no FPAT), so the
# quoted fields of the message column are split by hand.
# Usage: awk -f csv.awk -v cols=workload,strategy,gpus[,...] [-v where=status=ok] FILE.csv
#   cols   the columns to print, by header name; an unknown name is an error (exit 2)
#   where  optional NAME=VALUE: keep only the rows whose column NAME equals VALUE
# Empty fields print as "-" so that gnuplot and `read` see a field; tabs and newlines inside a
# quoted field become spaces.

# Splits one CSV record into f[1..n]; returns n. A quoted field may hold commas and doubled
# quotes; the sweep writes every row on one line, so records never span lines.
function csv_split(line, f,    n, i, c, q, cur) {
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ }
                else q = 0
            } else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}

function clean(s) {
    gsub(/[\t\r\n]/, " ", s)
    return s == "" ? "-" : s
}

BEGIN {
    ncols = split(cols, want, ",")
    if (ncols == 0) { print "csv.awk: -v cols=NAME,... is required" > "/dev/stderr"; exit 2 }
    if (where != "") {
        eq = index(where, "=")
        wname = substr(where, 1, eq - 1); wvalue = substr(where, eq + 1)
    }
}

NR == 1 {
    nh = csv_split($0, h)
    for (i = 1; i <= nh; i++) at[h[i]] = i
    for (j = 1; j <= ncols; j++)
        if (!(want[j] in at)) {
            printf "csv.awk: %s: no column '%s'\n", FILENAME, want[j] > "/dev/stderr"
            bad = 1; exit 2
        }
    if (where != "" && !(wname in at)) {
        printf "csv.awk: %s: no column '%s' (where)\n", FILENAME, wname > "/dev/stderr"
        bad = 1; exit 2
    }
    out = want[1]
    for (j = 2; j <= ncols; j++) out = out "\t" want[j]
    print out
    next
}

{
    if ($0 == "") next
    csv_split($0, f)
    if (where != "" && f[at[wname]] != wvalue) next
    out = clean(f[at[want[1]]])
    for (j = 2; j <= ncols; j++) out = out "\t" clean(f[at[want[j]]])
    print out
}

END { if (bad) exit 2 }
