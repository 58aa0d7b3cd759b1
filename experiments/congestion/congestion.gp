# congestion.gp: simulated / analytic epoch time against rack-uplink oversubscription, a panel per
# model, a line per strategy x placement x GPU count (colour: strategy and placement; point: p).
# Run by run.sh through hs_plot with: term, pngterm, out, dir (cong-MODEL.dat and .n from
# series.awk), models (the panels), per (GPU counts swept: blocks per colour).
n = words(models)
if (term eq 'png') {
    set terminal @pngterm size 700 * n, 620 font ",11"
} else {
    set terminal svg size 700 * n, 620 dynamic font ",11"
}
set output out
set multiplot layout 1, n
set xlabel "rack uplink oversubscription (1:x)"
set ylabel "simulated / analytic epoch time"
set xrange [0.7:6.5]
set xtics ("1:1" 1, "1:2" 2, "1:3" 3, "1:6" 6)
set grid lc rgb "#dddddd"
set key below font ",9" maxrows 4 spacing 0.9
array colours[4] = ["#1f4e99", "#6fa0e0", "#c0392b", "#f0a070"]
do for [i = 1:n] {
    m = word(models, i)
    f = dir . "/cong-" . m . ".dat"
    nb = int(system("cat " . dir . "/cong-" . m . ".n"))
    set title m
    if (nb > 0) {
        # blocks come in the order strategy, placement, then p: `per` GPU counts per colour
        plot for [b = 0:nb - 1] f index b using 1:2 with linespoints lw 2 ps 1.2 \
             lc rgb colours[(b / int(per)) % 4 + 1] pt (b % int(per)) * 2 + 5 title columnheader(1)
    } else {
        set label 1 "no runs" at graph 0.5, graph 0.5 center
        plot NaN notitle
        unset label 1
    }
}
unset multiplot
