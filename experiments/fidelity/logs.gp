# logs.gp: the measured code's own logged iterations (code-logs.tsv) against the simulation's
# defaults, seconds an iteration, log-log, one point style per network and strategy, with the
# line of perfect prediction and the band of accuracy 0.85.
# Run by run.sh through hs_plot with: term, pngterm, out, dir (NAME.dat per series: a header
# line whose second column is the series' label, then measured s, predicted s), names (the
# series' file names, space-separated).
if (term eq 'png') {
    set terminal @pngterm size 900, 700 font ",11"
} else {
    set terminal svg size 900, 700 dynamic font ",11"
}
set output out
set title "The measured code's own logs on ABCI: simulated (defaults) against logged iteration" noenhanced
set logscale xy
set xrange [0.1:20]
set yrange [0.1:20]
set xlabel "logged iteration (s)"
set ylabel "simulated iteration (s)"
set grid lc rgb "#dddddd"
set key top left font ",10" noenhanced
n = words(names)
colors = "#c0392b #1f4e99 #e67e22 #27ae60 #8e44ad #d35400 #444444"
plot for [i = 1:n] dir . "/" . word(names, i) . ".dat" using 1:2 with points \
         pt (i + 4) ps 1.4 lc rgb word(colors, i) title columnheader(2), \
     x with lines lc rgb "#000000" dt 1 title "simulated = logged", \
     0.85 * x with lines lc rgb "#999999" dt 2 title "accuracy 0.85", \
     1.15 * x with lines lc rgb "#999999" dt 2 notitle
