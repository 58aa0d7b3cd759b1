# congestion.gp: simulated / analytic epoch time against rack-uplink oversubscription, a panel per
# model, a line per strategy x placement x GPU count (colour: strategy and placement; line: thick
# solid packed, thin dashed spread; point: p).
# The legend stands once, right of the panels (below them it ran into the x label).
# Run by run.sh through hs_plot with: term, pngterm, out, dir (cong-MODEL.dat and .n from
# series.awk), models (the panels), per (GPU counts swept: blocks per colour), head1..headN and
# batch1..batchN (each panel's title, two lines: the model and platform, the batches).
n = words(models)
if (term eq 'png') {
    set terminal @pngterm size 640 * n + 300, 600 font ",11"
} else {
    set terminal svg size 640 * n + 300, 600 dynamic font ",11"
}
set output out
right = 1 - 300.0 / (640 * n + 300)
set multiplot layout 1, n margins 0.06, right - 0.02, 0.12, 0.88 spacing 0.07
set xlabel "rack uplink oversubscription (1:x)"
set ylabel "simulated / analytic epoch time"
set xrange [0.7:6.5]
set xtics ("1:1" 1, "1:2" 2, "1:3" 3, "1:6" 6)
set grid lc rgb "#dddddd"
set key at screen right + 0.01, screen 0.88 left top font ",9" spacing 1.1
array colours[4] = ["#1f4e99", "#6fa0e0", "#c0392b", "#f0a070"]
array shapes[3] = [4, 6, 8] # open square, circle, triangle
do for [i = 1:n] {
    m = word(models, i)
    f = dir . "/cong-" . m . ".dat"
    nb = int(system("cat " . dir . "/cong-" . m . ".n"))
    set title value("head" . i) . "\n" . value("batch" . i) noenhanced
    if (i < n) { unset key } else { set key }
    if (nb > 0) {
        # blocks come in the order strategy, placement, then p: `per` GPU counts per colour.
        # Lines of equal value stay visible: packed thick and solid, spread thin and dashed
        # inside it; an open shape per p, spread's smaller, nested inside packed's.
        plot for [b = 0:nb - 1] f index b using 1:2 with linespoints \
             lw ((b / int(per)) % 2 ? 1.5 : 4) dt 1 + (b / int(per)) % 2 \
             ps ((b / int(per)) % 2 ? 1.2 : 2.2) lc rgb colours[(b / int(per)) % 4 + 1] \
             pt shapes[b % int(per) % 3 + 1] title columnheader(1)
    } else {
        set label 1 "no runs" at graph 0.5, graph 0.5 center
        plot NaN notitle
        unset label 1
    }
}
unset multiplot
