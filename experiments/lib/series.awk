# series.awk: turns a TSV (header first) into gnuplot line series: one block per distinct value
# of the SERIES columns, each block starting with its title (for `title columnheader(1)`), then
# "x y" lines sorted by x, blocks separated by two blank lines (gnuplot's `index`).
# Usage: awk -f series.awk -v series=COL[,COL...] -v x=COL -v y=EXPR [-v where=COL=V] \
#            [-v order="V1|V2 ..."] FILE.tsv
#   y      a column name, or A/B: the ratio of two columns
#   order  the blocks' order, as titles (the series values joined by " "), space-separated with
#          "|" standing for the space inside a title; blocks not listed follow, in file order
# Prints nothing for rows whose y is not a number (a run that did not finish). The number of
# blocks goes to FILE `nblocks` when -v nblocks=FILE is given. With -v placeholders=1, a title of
# `order` without rows still gets its block, one point at x = -100 (outside any plot), so that
# block b is the same series in every panel (and keeps its colour).

BEGIN { FS = "\t" }

NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    ns = split(series, sc, ",")
    for (i = 1; i <= ns; i++) if (!(sc[i] in col)) die("no column " sc[i])
    if (!(x in col)) die("no column " x)
    if (index(y, "/")) { split(y, yy, "/"); ynum = yy[1]; yden = yy[2] }
    else { ynum = y; yden = "" }
    if (!(ynum in col) || (yden != "" && !(yden in col))) die("no column in " y)
    if (where != "") {
        eq = index(where, "="); wname = substr(where, 1, eq - 1); wvalue = substr(where, eq + 1)
        if (!(wname in col)) die("no column " wname)
    }
    next
}

function die(msg) { print "series.awk: " msg > "/dev/stderr"; bad = 1; exit 2 }
function isnum(s) { return s ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ }

{
    if (where != "" && $col[wname] != wvalue) next
    v = $col[ynum]
    if (!isnum(v)) next
    if (yden != "") { if (!isnum($col[yden]) || $col[yden] + 0 == 0) next; v = v / $col[yden] }
    t = $col[sc[1]]
    for (i = 2; i <= ns; i++) t = t " " $col[sc[i]]
    if (!(t in seen)) { seen[t] = 1; titles[++nt] = t }
    n = ++cnt[t]; px[t, n] = $col[x] + 0; py[t, n] = v
}

function block(t,    n, i, j, a, b) {
    n = cnt[t]
    for (i = 2; i <= n; i++) {   # insertion sort by x: a handful of points
        a = px[t, i]; b = py[t, i]
        for (j = i - 1; j >= 1 && px[t, j] > a; j--) { px[t, j + 1] = px[t, j]; py[t, j + 1] = py[t, j] }
        px[t, j + 1] = a; py[t, j + 1] = b
    }
    if (nb++) printf "\n\n"
    printf "\"%s\"\n", t
    for (i = 1; i <= n; i++) printf "%g %.6g\n", px[t, i], py[t, i]
    done[t] = 1
}

END {
    if (bad) exit 2
    no = split(order, ord, " ")
    for (i = 1; i <= no; i++) {
        t = ord[i]; gsub(/\|/, " ", t)
        if (t in seen) block(t)
        else if (placeholders) { if (nb++) printf "\n\n"; printf "\"%s\"\n-100 1\n", t }
    }
    for (i = 1; i <= nt; i++) if (!(titles[i] in done)) block(titles[i])
    if (nblocks != "") { print nb > nblocks; close(nblocks) }
}
