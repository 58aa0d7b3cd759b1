# plotcsv.awk: the data and the gnuplot script of experiments/plot.sh, from a sweep's columns
# (csv.awk's TSV, header first).
# Usage: awk -f plotcsv.awk -v x=COL -v y=COL[/COL] [-v by=COL[,COL]] [-v where="COL=V;COL=V"]
#            [-v logx=0|1|auto] [-v logy=0|1] [-v title=TEXT] [-v jobcols="COL COL"]
#            -v dir=DIR -v out=FILE -v term=pngcairo|png|svg FILE.tsv
# Writes DIR/plot.dat (a block per series: title line, then "x y" or "index y" lines) and
# DIR/plot.gp (the script). Rows whose status is not ok, or whose y is not a number, are left
# out. The configuration columns that differ between the rows kept must be --x or --by: a line
# joining different workloads or batches would mean nothing, so that is an error (exit 3, the
# columns named). The title says what the rows share (workload, platform, batch, ...).
# jobcols: the sweep's job-key columns (precision, compute, runtime, allreduce, ...): the rows
# are never joined across their values: a line per combination of those that differ (said in
# each line's title), those the rows share said in the plot's title. A row whose
# fits_in_memory is false is marked by a filled red dot on its point, named in the key.

BEGIN {
    FS = "\t"
    nconf = split("mode workload platform strategy gpus batch_rule micro_batches placement " \
                  "collectives layers", conf, " ")
    # What the columns mean, for the axes, the legend and the title.
    label["gpus"] = "GPUs"; label["batch"] = "global batch"; label["workload"] = "model"
    label["platform"] = "platform"; label["strategy"] = "strategy"
    label["placement"] = "placement"; label["collectives"] = "collectives"
    label["batch_rule"] = "batch"; label["micro_batches"] = "micro-batches"
    label["p1"] = "data-parallel groups"; label["p2"] = "GPUs per group"
    label["memory_per_gpu_bytes"] = "memory per GPU (bytes)"
    label["agreement"] = "agreement (1 - |sim - an| / sim)"
    label["sim_congestion_share"] = "share of message time waiting on shared links"
    label["sim_top_link_mean_utilisation"] = "mean utilisation of the busiest link"
    label["wall_s"] = "wall time of the run (s)"
    side["an"] = "analytic"; side["sim"] = "simulated"
    part["compute"] = "compute"; part["comm"] = "communication"
    part["exposed_comm"] = "exposed communication"; part["total"] = "total"
    if (index(y, "/")) { split(y, yy, "/"); ynum = yy[1]; yden = yy[2] }
    else { ynum = y; yden = "" }
    nby = by == "" ? 0 : split(by, bycol, ",")
    nwhere = where == "" ? 0 : split(where, wh, ";")
    njob = jobcols == "" ? 0 : split(jobcols, jobcol, " ")
}

function die(msg) { print "plot: " msg > "/dev/stderr"; failed = 3; exit 3 }

# "sim_epoch_total_s" -> "simulated epoch total (s)"
function name_of(c,    f, n) {
    if (c in label) return label[c]
    n = split(c, f, "_")
    if (n == 4 && (f[1] in side) && f[4] == "s")
        return side[f[1]] " " (f[2] == "iter" ? "iteration" : f[2]) " " f[3] " (s)"
    if (n == 5 && (f[1] in side) && f[5] == "s")
        return side[f[1]] " " (f[2] == "iter" ? "iteration" : f[2]) " " part[f[3] "_" f[4]] " (s)"
    return c
}

function numeric(v) { return v ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }

NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    if (!(x in col)) die("no column '" x "' (see the CSV's header)")
    if (!(ynum in col) || (yden != "" && !(yden in col))) die("no column in '" y "'")
    for (i = 1; i <= nby; i++) if (!(bycol[i] in col)) die("no column '" bycol[i] "'")
    for (i = 1; i <= nwhere; i++) {
        eq = index(wh[i], "=")
        wname[i] = substr(wh[i], 1, eq - 1); wvalue[i] = substr(wh[i], eq + 1)
        if (eq < 2 || !(wname[i] in col)) die("--where '" wh[i] "': no such column")
    }
    next
}

{
    if (("status" in col) && $col["status"] != "ok") next
    for (i = 1; i <= nwhere; i++) if ($col[wname[i]] != wvalue[i]) next
    yv = $col[ynum]
    if (!numeric(yv)) next
    if (yden != "") { if (!numeric($col[yden]) || $col[yden] + 0 == 0) next; yv = yv / $col[yden] }
    s = ""
    for (i = 1; i <= nby; i++) s = s (i > 1 ? " " : "") $col[bycol[i]]
    sk = s
    for (j = 1; j <= njob; j++) {
        v = (jobcol[j] in col) ? $col[jobcol[j]] : ""
        sk = sk SUBSEP v
        if (!((j, v) in jseen)) { jseen[j, v] = 1; jnval[j]++; jone[j] = v }
    }
    if (!(sk in sid)) {
        sid[sk] = ++ns; sname[ns] = s
        for (j = 1; j <= njob; j++) sjob[ns, j] = (jobcol[j] in col) ? $col[jobcol[j]] : ""
    }
    s = sk
    xv = $col[x]
    if (!numeric(xv)) allnum = allnum "no"
    if (!(xv in xid)) { xid[xv] = ++nx; xname[nx] = xv }
    n = ++np[sid[s]]; px[sid[s], n] = xv; py[sid[s], n] = yv
    pfit[sid[s], n] = ("fits_in_memory" in col) && $col["fits_in_memory"] == "false"
    nofit += pfit[sid[s], n]
    rows++
    for (c = 1; c <= nconf; c++) {
        k = conf[c]
        if (!(k in col)) continue
        v = $col[k]
        if (!((k, v) in seen)) { seen[k, v] = 1; nval[k]++; oneval[k] = v }
        if (!((sid[s], k, v) in sseen)) { sseen[sid[s], k, v] = 1; snval[sid[s], k]++; sval[sid[s], k] = v }
    }
}

function sort_series(s,    i, j, tx, ty, tf, n) {
    n = np[s]
    for (i = 2; i <= n; i++) {
        tx = px[s, i]; ty = py[s, i]; tf = pfit[s, i]
        for (j = i - 1; j >= 1 && key(px[s, j]) > key(tx); j--) {
            px[s, j + 1] = px[s, j]; py[s, j + 1] = py[s, j]; pfit[s, j + 1] = pfit[s, j]
        }
        px[s, j + 1] = tx; py[s, j + 1] = ty; pfit[s, j + 1] = tf
    }
}
function key(v) { return categorical ? xid[v] : v + 0 }

END {
    if (failed) exit failed
    if (rows == 0) die("no row to plot (status ok, a number in " y ", and --where)")
    # The job keys that differ between rows name each line (a line per combination of them).
    for (t = 1; t <= ns; t++)
        for (j = 1; j <= njob; j++)
            if (jnval[j] > 1 && jobcol[j] != x && !is_by(jobcol[j]))
                sname[t] = sname[t] (sname[t] == "" ? "" : ", ") jobcol[j] " " \
                    (sjob[t, j] == "" || sjob[t, j] == "-" ? "default" : sjob[t, j])
    # A column that differs inside one series would join unlike runs; one that differs only
    # between series (a batch rule per strategy) is said in each series' title.
    ambiguous = ""
    for (c = 1; c <= nconf; c++) {
        k = conf[c]
        if (nval[k] <= 1 || k == x || is_by(k)) continue
        for (t = 1; t <= ns; t++)
            if (snval[t, k] > 1) { ambiguous = ambiguous (ambiguous == "" ? "" : ", ") k; break }
        if (t > ns)
            for (t = 1; t <= ns; t++) sname[t] = sname[t] " (" conf_words(k, sval[t, k]) ")"
    }
    if (ambiguous != "")
        die("the rows differ in " ambiguous ": give it as --by (a line each) or pick one " \
            "with --where COL=VALUE")
    categorical = allnum != ""
    lx = logx == "auto" ? 0 : logx + 0
    if (logx == "auto" && !categorical) {
        lo = 1e300; hi = -1e300
        for (v in xid) { if (v + 0 < lo) lo = v + 0; if (v + 0 > hi) hi = v + 0 }
        lx = lo > 0 && hi / lo >= 16
    }
    write_data(dir "/plot.dat")
    write_script(dir "/plot.gp")
}

# A point's x as the data file has it: the number, or the category's index.
function xout(s, i) { return categorical ? xid[px[s, i]] - 1 : px[s, i] }

# A block per series, then (when some row does not fit in memory) a block of those points.
function write_data(f,    s, i) {
    printf "" > f
    for (s = 1; s <= ns; s++) {
        sort_series(s)
        printf "\"%s\"\n", (sname[s] == "" ? name_of(ynum) : sname[s]) > f
        for (i = 1; i <= np[s]; i++) printf "%s %.17g\n", xout(s, i), py[s, i] > f
        printf "\n\n" > f
    }
    if (nofit) {
        printf "\"does not fit (fits_in_memory)\"\n" > f
        for (s = 1; s <= ns; s++)
            for (i = 1; i <= np[s]; i++) if (pfit[s, i]) printf "%s %.17g\n", xout(s, i), py[s, i] > f
        printf "\n\n" > f
    }
    close(f)
}

function is_by(k,    i) { for (i = 1; i <= nby; i++) if (bycol[i] == k) return 1; return 0 }

# A category as a tic: a platform file's name without its folder and .xml ("abci-r6").
function shown(v) { if (v ~ /\.xml$/) { sub(/.*\//, "", v); sub(/\.xml$/, "", v) } return v }

# A configuration column's value in words: "batch 64/gpu", "on abci", "8 GPUs".
function conf_words(k, v) {
    if (k == "platform") return "on " shown(v)
    if (k == "gpus") return v " GPUs"
    if (k == "batch_rule") return "batch " v (v ~ /\// ? "" : " samples")
    if (k == "workload" || k == "strategy" || k == "mode") return v
    return k " " v
}

# What the rows share, for the title: "resnet50 on abci, data, batch 64/gpu (compare)".
function context(    t, k, j) {
    t = ""
    if (nval["workload"] == 1 && x != "workload") t = oneval["workload"]
    if (nval["platform"] == 1 && x != "platform") t = t (t == "" ? "" : " ") "on " shown(oneval["platform"])
    if (nval["strategy"] == 1 && x != "strategy") t = t (t == "" ? "" : ", ") oneval["strategy"]
    if (nval["gpus"] == 1 && x != "gpus") t = t ", " oneval["gpus"] " GPUs"
    if (nval["batch_rule"] == 1 && x != "batch_rule")
        t = t ", batch " oneval["batch_rule"] (oneval["batch_rule"] ~ /\// ? "" : " samples")
    for (k = 7; k <= nconf; k++)
        if (nval[conf[k]] == 1 && oneval[conf[k]] != "-" && oneval[conf[k]] != "" && x != conf[k])
            t = t ", " conf[k] " " oneval[conf[k]]
    # the job keys the rows share (not said: the default, left out)
    for (j = 1; j <= njob; j++)
        if (jnval[j] == 1 && jone[j] != "" && jone[j] != "-" && x != jobcol[j] && !is_by(jobcol[j]))
            t = t ", " jobcol[j] " " jone[j]
    if (nval["mode"] == 1) t = t " (" oneval["mode"] ")"
    sub(/^, /, "", t)
    return t
}

function write_script(f,    ylab, t, i, tics) {
    ylab = yden == "" ? name_of(ynum) : name_of(ynum) " / " name_of(yden)
    t = title != "" ? title : ylab " by " name_of(x)
    if (title == "" && context() != "") t = t "\\n" context() # two lines: the plot is narrow
    gsub(/"/, "'", t)
    printf "" > f
    if (term == "svg") printf "set terminal svg size 1000, 600 dynamic font \",11\"\n" > f
    else printf "set terminal %s size 1000, 600 font \",11\"\n", term > f
    printf "set output \"%s\"\nset title \"%s\" noenhanced\n", out, t > f
    printf "set xlabel \"%s\" noenhanced\nset ylabel \"%s\" noenhanced\n", name_of(x), ylab > f
    printf "set grid lc rgb \"#dddddd\"\nset key outside right top noenhanced\n" > f
    if (logy) printf "set logscale y\n" > f
    if (categorical) {
        tics = ""
        for (i = 1; i <= nx; i++) tics = tics (i > 1 ? ", " : "") sprintf("\"%s\" %d", shown(xname[i]), i - 1)
        printf "set xtics (%s) noenhanced rotate by -25\nset xrange [-0.5:%d.5]\n", tics, nx - 1 > f
    } else if (lx) {
        printf "set logscale x 2\n" > f
    }
    if (nby == 0 && ns == 1 && !nofit) printf "unset key\n" > f
    # categories: points only (no line joins two platforms); numbers: lines between points.
    # Series of equal values must stay visible on top of each other: each has its colour
    # (gnuplot's 8), its dash type (5) and an open point shape (8); lines thin and points
    # shrink from series to series, so a later line dashes inside an earlier one and its
    # points nest inside the earlier points.
    printf "array shapes[8] = [6, 4, 8, 12, 10, 14, 1, 2]\n" > f
    printf "plot for [b = 0:%d] \"%s\" index b using 1:2 with %s lt b %% 8 + 1 " \
           "dt b %% 5 + 1 pt shapes[b %% 8 + 1] ps 2.6 - 0.22 * (b %% 8) " \
           "lw 3.5 - 0.35 * (b %% 8) title columnheader(1)%s\n",
        ns - 1, dir "/plot.dat", (categorical ? "points" : "linespoints"),
        # the runs that do not fit: a filled red dot inside their point (no series uses
        # filled shapes)
        nofit ? sprintf(", \"%s\" index %d using 1:2 with points pt 7 ps 1.3 " \
                        "lc rgb \"#d00000\" title columnheader(1)", dir "/plot.dat", ns) : "" > f
    close(f)
}
