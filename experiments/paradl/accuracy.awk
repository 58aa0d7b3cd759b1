# accuracy.awk: the paradl study's accuracy table: every measured ABCI configuration of the
# reference table beside the analytic and simulated epoch times of the same configuration (model,
# strategy, p, p1 x p2, B), with each one's ratio to the measurement and its error in percent.
# Usage: awk -f accuracy.awk -v measured=MEASURED.tsv RUNS.tsv   (prints CSV)
#   MEASURED.tsv  model strategy p p1 p2 B emp_comp_s emp_comm_s emp_total_s paradl_comp_s
#                 paradl_comm_s paradl_total_s emp_rank ('#' lines skipped; read with getline,
#                 so that an empty one (/dev/null) is not mistaken for RUNS.tsv)
#   RUNS.tsv      from csv.awk: workload strategy gpus p1 p2 batch an_epoch_compute_s
#                 an_epoch_comm_s an_epoch_total_s sim_epoch_compute_s sim_epoch_comm_s
#                 sim_epoch_total_s status (header first)
# ratio = model / measured; err_pct = 100 (model - measured) / measured. A measured row with no
# run of the same p1 x p2 and B reads "not run" (e.g. --quick did not sweep it).

BEGIN {
    FS = "\t"
    print "model,strategy,p,p1,p2,batch,measured_comp_s,measured_comm_s,measured_total_s," \
          "oracle_total_s,analytic_comp_s,analytic_comm_s,analytic_total_s,simulated_comp_s," \
          "simulated_comm_s,simulated_total_s,analytic_ratio,analytic_err_pct," \
          "simulated_ratio,simulated_err_pct,note"
    while (measured != "" && (getline line < measured) > 0) {
        if (line ~ /^#/ || split(line, f, "\t") < 12) continue
        n++
        for (i = 1; i <= 12; i++) m[n, i] = f[i]
    }
}

FNR == 1 { next }

$13 == "ok" {
    k = $1 SUBSEP $2 SUBSEP ($3 + 0) SUBSEP ($4 + 0) SUBSEP ($5 + 0) SUBSEP ($6 + 0)
    run[k] = $7 "\t" $8 "\t" $9 "\t" $10 "\t" $11 "\t" $12
}

END {
    for (r = 1; r <= n; r++) {
        k = m[r, 1] SUBSEP m[r, 2] SUBSEP (m[r, 3] + 0) SUBSEP (m[r, 4] + 0) SUBSEP \
            (m[r, 5] + 0) SUBSEP (m[r, 6] + 0)
        printf "%s,%s,%d,%d,%d,%d,%s,%s,%s,%s", m[r, 1], m[r, 2], m[r, 3], m[r, 4], m[r, 5],
            m[r, 6], m[r, 7], m[r, 8], m[r, 9], m[r, 12]
        if (!(k in run)) { print ",,,,,,,,,,,not run"; continue }
        split(run[k], v, "\t")
        meas = m[r, 9]
        printf ",%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%+.1f,%.3f,%+.1f,\n", v[1], v[2], v[3], v[4],
            v[5], v[6], v[3] / meas, 100 * (v[3] - meas) / meas, v[6] / meas,
            100 * (v[6] - meas) / meas
    }
}
