# fidelity.gp: predicted against measured epoch time for every measured ABCI row, one point
# style per predictor, log-log, with the line of perfect prediction and the band within which
# the accuracy is at least 0.85 (the issue's target).
# Run by run.sh through hs_plot with: term, pngterm, out, dir (NAME.dat per predictor: a header
# line whose second column is the predictor's label, then measured s, predicted s, strategy),
# names (the predictors' file names, space-separated).
if (term eq 'png') {
    set terminal @pngterm size 900, 700 font ",11"
} else {
    set terminal svg size 900, 700 dynamic font ",11"
}
set output out
set title "ResNet-50 on ABCI, Table VIII: predicted against measured epoch time" noenhanced
set logscale xy
set xrange [50:30000]
set yrange [30:40000]
set xlabel "measured epoch (s)"
set ylabel "predicted epoch (s)"
set grid lc rgb "#dddddd"
set key top left font ",10" noenhanced
n = words(names)
colors = "#444444 #1f4e99 #c0392b #7f8c8d #27ae60 #8e44ad"
plot for [i = 1:n] dir . "/" . word(names, i) . ".dat" using 1:2 with points \
         pt (i + 4) ps 1.4 lc rgb word(colors, i) title columnheader(2), \
     x with lines lc rgb "#000000" dt 1 title "predicted = measured", \
     0.85 * x with lines lc rgb "#999999" dt 2 title "accuracy 0.85", \
     1.15 * x with lines lc rgb "#999999" dt 2 notitle
