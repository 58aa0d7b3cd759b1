# sharing.gp: the slowdown of a job when an identical second job shares the fabric (shared /
# alone iteration time), against rack-uplink oversubscription, a line per model x strategy x
# placement x GPUs per job.
# Run by run.sh through hs_plot with: term, pngterm, out, dir (share.dat and share.n), batches
# (the second title line: each model's batch), ngpus and nplacements (the blocks come in the order model, strategy, GPUs, placement: a colour per model
# and strategy, a point per GPU count, dashed for the second placement).
if (term eq 'png') {
    set terminal @pngterm size 900, 560 font ",11"
} else {
    set terminal svg size 900, 560 dynamic font ",11"
}
set output out
set xlabel "rack uplink oversubscription (1:x)"
set ylabel "slowdown of job a (shared / alone)"
set xrange [0.7:6.5]
set xtics ("1:1" 1, "1:2" 2, "1:3" 3, "1:6" 6)
set grid lc rgb "#dddddd"
set key outside right top font ",9"
set title "Two identical jobs on the same racks of abci, rack uplinks 1:x (abci-rx)\n" . batches noenhanced
array colours[4] = ["#1f4e99", "#c0392b", "#2e7d32", "#e69f00"]
nb = int(system("cat " . dir . "/share.n"))
if (nb > 0) {
    per = int(ngpus) * int(nplacements)
    plot for [b = 0:nb - 1] dir . "/share.dat" index b using 1:2 with linespoints lw 2 ps 1.3 \
         lc rgb colours[(b / per) % 4 + 1] pt ((b / int(nplacements)) % int(ngpus)) * 2 + 5 \
         dt 1 + b % int(nplacements) title columnheader(1)
} else {
    set label 1 "no runs" at graph 0.5, graph 0.5 center
    plot NaN notitle
}
