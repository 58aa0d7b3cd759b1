# figure1.gp: the paradl study's figure, ParaDL's Figure 1 layout: one panel per model, stacked
# compute + communication epoch time, analytic (blue), simulated (red) and measured on ABCI
# (green) side by side for each strategy and GPU count, log scale.
# Run by run.sh through hs_plot with: term, pngterm, out, dir (bars.awk's output), models (the
# panels, space-separated).
n = words(models)
if (term eq 'png') {
    set terminal @pngterm size 1800, 430 * n font ",11"
} else {
    set terminal svg size 1800, 430 * n dynamic font ",11"
}
set output out
set multiplot layout n, 1
set logscale y
set format y "10^{%L}"
set ylabel "seconds per epoch"
set grid ytics lc rgb "#dddddd"
set key at graph 1, graph 1.1 right horizontal font ",10" samplen 1.5
set tmargin 3
set tics nomirror
set xtics font ",9" scale 0
set style fill solid 1.0 noborder
do for [i = 1:n] {
    m = word(models, i)
    load dir . "/panel-" . m . ".gp"
    if (i == n) { set xlabel "GPUs (per strategy; bars: analytic, simulated, measured)" } else { unset xlabel }
    if (i > 1) { unset key }
    plot dir . "/bars-" . m . ".dat" using 1:(sqrt($4 * $5)):2:3:4:5:6 \
             with boxxyerror lc rgb variable notitle, \
         dir . "/marks-" . m . ".dat" using 1:2:3 with labels font ",8" tc rgb "#555555" notitle, \
         NaN with boxes lc rgb "#1f4e99" title "analytic compute", \
         NaN with boxes lc rgb "#9dbce8" title "analytic comm", \
         NaN with boxes lc rgb "#c0392b" title "simulated compute", \
         NaN with boxes lc rgb "#f2b1a8" title "simulated comm", \
         NaN with boxes lc rgb "#2e7d32" title "measured compute", \
         NaN with boxes lc rgb "#a9d8ab" title "measured comm"
}
unset multiplot
