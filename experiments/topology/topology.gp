# topology.gp: simulated epoch time of every strategy on each platform variant (log scale), a
# panel per model and GPU count; a point per strategy and variant (the variants are categories:
# no line joins two platforms; the strategies sit side by side), a cross where a run does not
# fit in memory, a ring and the strategy's name on the best (lowest time that fits). The legend
# lists only what the panel shows.
# Run by run.sh through hs_plot with: term, pngterm, out, dir (lines-PANEL.dat/.n from
# series.awk, oom-PANEL.dat, best-PANEL.dat, present-PANEL: the strategies with runs,
# title-PANEL: its two title lines), panels (space-separated), strategies (the blocks' order),
# xtics (the variants as gnuplot xtics), nvariants.
n = words(panels)
ns = words(strategies)
if (term eq 'png') {
    set terminal @pngterm size 1300, 540 * n font ",11"
} else {
    set terminal svg size 1300, 540 * n dynamic font ",11"
}
set output out
set multiplot layout n, 1
set logscale y
set format y "10^{%L}"
set ylabel "simulated seconds per epoch"
set grid lc rgb "#dddddd"
set key outside right top font ",10"
set xrange [-0.5:int(nvariants) - 0.5]
eval "set xtics (" . xtics . ") rotate by -25 font ',10'"
set offsets 0, 0, graph 0.08, graph 0.05
# one colour per strategy, in run.sh's order: data filter channel pipeline data+filter data+spatial
array colours[6] = ["#7b3294", "#1b9e77", "#66a61e", "#e6ab02", "#d95f02", "#1f78b4"]
shift(b) = (b - (ns - 1) / 2.0) * 0.09 # the strategies side by side within a variant
do for [i = 1:n] {
    pn = word(panels, i)
    nb = int(system("cat " . dir . "/lines-" . pn . ".n"))
    present = " " . system("cat " . dir . "/present-" . pn) . " "
    nooms = int(system("wc -l < " . dir . "/oom-" . pn . ".dat")) - 1
    set title system("cat " . dir . "/title-" . pn) noenhanced
    plot for [b = 0:nb - 1] dir . "/lines-" . pn . ".dat" index b using ($1 + shift(b)):2 \
             with points pt 7 ps 1.1 lc rgb colours[b % 6 + 1] \
             title (strstrt(present, " " . word(strategies, b + 1) . " ") ? word(strategies, b + 1) : ""), \
         dir . "/oom-" . pn . ".dat" using ($1 + shift($3)):2 with points pt 2 ps 1.6 \
             lc rgb "#333333" title (nooms > 0 ? "does not fit in memory" : ""), \
         dir . "/best-" . pn . ".dat" using ($1 + shift($4)):2 with points pt 6 ps 3 lw 2 \
             lc rgb "black" title "best that fits", \
         dir . "/best-" . pn . ".dat" using ($1 + shift($4)):2:3 with labels offset 0, -1.8 \
             font ",9" notitle
}
unset multiplot
