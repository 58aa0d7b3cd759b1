# allreduce.gp: the simulated gradient allreduce an iteration against the GPUs, a panel per
# machine and model, a line per algorithm of --allreduce (log-log); auto, NCCL 2.4's choice, as
# open rings on the algorithm it picked.
# Run by run.sh through hs_plot with: term, pngterm, out, dir (lines-PANEL.dat/.n from
# series.awk, title-PANEL), panels (space-separated), algorithms (the blocks' order).
n = words(panels)
cols = n > 1 ? 2 : 1
rows = (n + cols - 1) / cols
if (term eq 'png') {
    set terminal @pngterm size 650 * cols, 430 * rows font ",10"
} else {
    set terminal svg size 650 * cols, 430 * rows dynamic font ",10"
}
set output out
set multiplot layout rows, cols
set logscale xy 2
set format y "%g"
set xlabel "GPUs"
set ylabel "gradient allreduce, ms an iteration"
set grid lc rgb "#dddddd"
set key top left opaque box font ",8"
set xrange [6:1400]
# ring hier tree rings (auto drawn apart). Lines of equal values stay apart, as
# experiments/plot.sh draws them: each its colour, dash type and open point shape, a later line
# thinner and its points smaller, nesting inside an earlier one's.
array colours[4] = ["#7b3294", "#1b9e77", "#d95f02", "#1f78b4"]
array shapes[4] = [4, 8, 12, 14]
na = words(algorithms)
do for [i = 1:n] {
    pn = word(panels, i)
    set title system("cat " . dir . "/title-" . pn) noenhanced font ",9"
    plot for [b = 0:na - 2] dir . "/lines-" . pn . ".dat" index b using 1:2 \
             with linespoints pt shapes[b + 1] ps 1.5 - 0.25 * b lw 2.4 - 0.4 * b dt b + 1 \
             lc rgb colours[b + 1] title word(algorithms, b + 1), \
         dir . "/lines-" . pn . ".dat" index (na - 1) using 1:2 with points pt 6 ps 2 lw 1.5 \
             lc rgb "black" title "auto (NCCL 2.4's pick)"
}
unset multiplot
