# bars.awk: lays out the paradl study's figure (after ParaDL's Figure 1: one panel per model, a
# block of bar groups per strategy, a group per GPU count, in each group the analytic, simulated
# and, where ABCI was measured with the same batch, measured epoch time). Each source is a pair
# of bars from the axis floor, compute and communication side by side, and a black line at their
# sum: on a log axis stacked bars would show the part on top far smaller than it is.
# Usage: awk -f bars.awk -v dir=DIR -v measured=MEASURED.tsv [-v models="W1 W2 ..."]
#            [-v platform=NAME] RUNS.tsv
#   models        the panels, in order (default: every workload, in the order of RUNS.tsv)
#   MEASURED.tsv  the reference table (model strategy p p1 p2 B emp_comp_s emp_comm_s ...; '#'
#                 lines skipped); empty or /dev/null when it is missing (read with getline:
#                 an empty first file would make awk's FNR == NR idiom take RUNS.tsv for it)
#   RUNS.tsv      from csv.awk: workload strategy gpus batch an_epoch_compute_s an_epoch_comm_s
#                 sim_epoch_compute_s sim_epoch_comm_s fits_in_memory status [batch_rule]
#                 (header first); without batch_rule a strategy's label gives its batch B
# Writes, per workload W: DIR/bars-W.dat (x xlo xhi ylo yhi rgb: one box a line),
# DIR/totals-W.dat (x y dx: the sums), DIR/marks-W.dat (x y text: "limit" where the strategy
# refused p, "oom" above a configuration that does not fit in 16 GB) and DIR/panel-W.gp (xtics,
# strategy labels with their batch, ranges, the title); DIR/kinds: the sources drawn (A S M).
# Prints the workloads in order.

BEGIN {
    FS = "\t"
    if (models != "") nw = split(models, wl, " ")
    read_measured(measured)
    nstrat = split("serial data data+filter data+spatial spatial filter channel pipeline", order, " ")
    # compute (dark) and communication (light) colours of analytic, simulated, measured, as
    # decimal RGB (mawk reads no hex constants): #1f4e99 #9dbce8, #c0392b #f2b1a8, #2e7d32 #a9d8ab
    ccol["A"] = 2051737;  mcol["A"] = 10337512
    ccol["S"] = 12597547; mcol["S"] = 15905192
    ccol["M"] = 3046706;  mcol["M"] = 11131051
}

function read_measured(file,    line, f) {
    if (file == "") return
    while ((getline line < file) > 0) {
        if (line ~ /^#/ || split(line, f, "\t") < 8) continue
        k = f[1] SUBSEP f[2] SUBSEP (f[3] + 0)
        meas[k] = 1; mcomp[k] = f[7]; mcomm[k] = f[8]; mbatch[k] = f[6] + 0
    }
    close(file)
}

FNR == 1 { next }

{
    w = $1; s = $2; p = $3 + 0
    if (!(w in seenw)) { seenw[w] = 1; if (models == "") wl[++nw] = w }
    k = w SUBSEP s SUBSEP p
    if (!(k in have)) {
        have[k] = 1
        n = ++np[w, s]; plist[w, s, n] = p
    }
    acomp[k] = $5; acomm[k] = $6; scomp[k] = $7; scomm[k] = $8
    fits[k] = $9; status[k] = $10; batch[k] = $4 + 0
    rule_ = NF >= 11 && $11 != "-" ? "batch " $11 : "B = " $4
    if (!((w, s) in rule)) rule[w, s] = rule_
    else if (rule[w, s] != rule_) rule[w, s] = "several batches"
}

# Sorts plist[w, s, 1..n] numerically (a handful of values: insertion sort).
function sortp(w, s,    n, i, j, t) {
    n = np[w, s]
    for (i = 2; i <= n; i++) {
        t = plist[w, s, i]
        for (j = i - 1; j >= 1 && plist[w, s, j] > t; j--) plist[w, s, j + 1] = plist[w, s, j]
        plist[w, s, j + 1] = t
    }
}

# One source: compute and communication side by side from the axis floor, a line at the sum.
function bar(file, x, kind, comp, comm) {
    if (comp + comm <= 0) return
    kinds[kind] = 1
    if (comp > 0)
        printf "%.3f %.3f %.3f %s %.6g %d\n", x - 0.22, x - 0.44, x, "FLOOR", comp, ccol[kind] > file
    if (comm > 0)
        printf "%.3f %.3f %.3f %s %.6g %d\n", x + 0.22, x, x + 0.44, "FLOOR", comm, mcol[kind] > file
    printf "%.3f %.6g 0.9\n", x - 0.45, comp + comm > tf
    if (comp + comm > top) top = comp + comm
    if (comp + comm < bottom) bottom = comp + comm
    if (comp > 0 && comp < bottom) bottom = comp
    if (comm > 0 && comm < bottom) bottom = comm # the axis floor below every bar drawn
}

END {
    for (wi = 1; wi <= nw; wi++) {
        w = wl[wi]
        if (!(w in seenw)) continue
        bf = dir "/bars-" w ".dat"; mf = dir "/marks-" w ".dat"; gf = dir "/panel-" w ".gp"
        tf = dir "/totals-" w ".dat"
        printf "" > bf
        printf "-100 1 0\n" > tf
        printf "-100 1 none\n" > mf # out of range: gnuplot warns about an empty file
        x = 0; top = 0; bottom = 1e30; tics = ""; labels = ""
        for (si = 1; si <= nstrat; si++) {
            s = order[si]
            if (!((w, s) in np)) continue
            sortp(w, s)
            start = x
            for (i = 1; i <= np[w, s]; i++) {
                p = plist[w, s, i]; k = w SUBSEP s SUBSEP p
                gx = x
                if (status[k] == "ok") {
                    bar(bf, x, "A", acomp[k], acomm[k]); x++
                    bar(bf, x, "S", scomp[k], scomm[k]); x++
                    if ((k in meas) && mbatch[k] == batch[k]) { bar(bf, x, "M", mcomp[k], mcomm[k]); x++ }
                    hi_ = acomp[k] + acomm[k]
                    if (scomp[k] + scomm[k] > hi_) hi_ = scomp[k] + scomm[k]
                    if (fits[k] != "true") printf "%.3f TOP%.6g oom\n", (gx + x - 1) / 2, hi_ > mf
                } else {
                    printf "%.3f LIMIT limit\n", gx + 0.5 > mf
                    x += 2
                }
                tics = tics (tics == "" ? "" : ", ") sprintf("\"%d\" %.3f", p, (gx + x - 1) / 2)
                x += 0.8
            }
            labels = labels sprintf("set label \"%s\\n%s\" at first %.3f, graph 0.92 center\n",
                                    s, rule[w, s], (start + x - 1.8) / 2)
            labels = labels sprintf("set arrow from first %.3f, graph 0 to first %.3f, graph 1 " \
                                    "nohead dt 3 lc rgb \"#999999\"\n", x - 0.4, x - 0.4)
            x += 0.6
        }
        if (top == 0) { top = 1; bottom = 1 }
        lf = log(bottom / 3) / log(10); f = int(lf); if (f > lf) f--
        floor_ = 10 ^ f
        ceil_ = top * 40 # room for the strategies' two-line labels
        printf "" > gf
        printf "unset label; unset arrow\nset xtics (%s)\n", tics > gf
        printf "%s", labels > gf
        printf "set xrange [-1:%.3f]\nset yrange [%g:%g]\n", x - 0.4, floor_, ceil_ > gf
        printf "set label \"%s%s: seconds per epoch\" at graph 0, graph 1.05 left font \",14\"\n",
            w, platform == "" ? "" : " on " platform > gf
        close(bf); close(mf); close(gf); close(tf)
        # The floor and the mark heights are known only now: fill them in.
        fixup(bf, floor_); fixup(mf, floor_)
        print w
    }
    printf "%s%s%s\n", ("A" in kinds) ? "A" : "", ("S" in kinds) ? "S" : "",
        ("M" in kinds) ? "M" : "" > (dir "/kinds")
}

function fixup(file, fl,    line, n, lines, i, f, t) {
    n = 0
    while ((getline line < file) > 0) lines[++n] = line
    close(file)
    printf "" > file
    for (i = 1; i <= n; i++) {
        line = lines[i]
        sub(/FLOOR/, sprintf("%g", fl), line)
        sub(/LIMIT/, sprintf("%g", fl * 3), line)
        if (match(line, /TOP[0-9.eE+-]+/)) {
            t = substr(line, RSTART + 3, RLENGTH - 3) * 1.6
            line = substr(line, 1, RSTART - 1) sprintf("%g", t) substr(line, RSTART + RLENGTH)
        }
        print line > file
    }
    close(file)
}
