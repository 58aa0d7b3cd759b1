# layerwise.gp: simulated seconds per iteration of OWT, SplitBrain, GHP and the searched plan,
# relative to the best whole-model strategy (1 = as fast; below 1 = faster), against GPUs; a panel
# per platform and model.
# Run by run.sh through hs_plot with: term, pngterm, out, dir (rel-PANEL.dat: one block per
# strategy, "GPUs ratio" lines), panels (platform-model, space-separated), ncols.
n = words(panels)
rows = (n + int(ncols) - 1) / int(ncols)
if (term eq 'png') {
    set terminal @pngterm size 460 * int(ncols), 380 * rows font ",10"
} else {
    set terminal svg size 460 * int(ncols), 380 * rows dynamic font ",10"
}
set output out
set multiplot layout rows, int(ncols)
set logscale x 2
set logscale y
set yrange [0.5:*]
set ytics (0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.5, 2, 3, 5, 10)
set xlabel "GPUs"
set ylabel "simulated time / best uniform"
set grid lc rgb "#dddddd"
set key top left font ",9"
array colours[4] = ["#d95f02", "#1b9e77", "#7570b3", "#000000"]
# equal values stay apart (as experiments/plot.sh draws them): a dash type and an open point
# shape each, a later line thinner, its points smaller
array shapes[4] = [6, 4, 8, 12]
do for [i = 1:n] {
    pn = word(panels, i)
    set title pn
    plot for [b = 0:3] dir . "/rel-" . pn . ".dat" index b using 1:2 \
             with linespoints lw 2.4 - 0.4 * b dt 1 + b + 3 * (b == 1) pt shapes[b + 1] \
             ps 1.5 - 0.25 * b lc rgb colours[b + 1] title columnheader(1), \
         1 with lines dt 2 lc rgb "#888888" title "best uniform"
}
unset multiplot
