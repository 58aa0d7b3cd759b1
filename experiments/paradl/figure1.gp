# figure1.gp: the paradl study's figure, after ParaDL's Figure 1: one panel per model, epoch time
# per strategy and GPU count on a log scale, analytic (blue), simulated (red) and measured on
# ABCI (green) side by side; each source a dark compute bar and a light communication bar from
# the floor (not stacked: on a log axis the upper part of a stack looks far smaller than it is)
# and a black line at their sum. The legend lists only the sources drawn (DIR/kinds).
# Run by run.sh (and quickstudy.sh) through hs_plot with: term, pngterm, out, dir (bars.awk's
# output), models (the panels, space-separated).
n = words(models)
kinds = system("cat " . dir . "/kinds")
if (term eq 'png') {
    set terminal @pngterm size 1800, 450 * n font ",11"
} else {
    set terminal svg size 1800, 450 * n dynamic font ",11"
}
set output out
set multiplot layout n, 1
set logscale y
set format y "10^{%L}"
set ylabel "seconds per epoch (log scale)"
set grid ytics lc rgb "#dddddd"
set key at graph 1, graph 1.2 right horizontal maxrows 2 font ",10" samplen 1.5
set tmargin 4
set tics nomirror
set xtics font ",9" scale 0
set style fill solid 1.0 noborder
has(k) = strstrt(kinds, k) > 0
do for [i = 1:n] {
    m = word(models, i)
    load dir . "/panel-" . m . ".gp"
    if (i == n) {
        set xlabel "GPUs (for each count: analytic, simulated" . (has("M") ? ", measured" : "") . \
                   "; each a compute bar, a communication bar and their sum)"
    } else { unset xlabel }
    if (i > 1) { unset key }
    plot dir . "/bars-" . m . ".dat" using 1:(sqrt($4 * $5)):2:3:4:5:6 \
             with boxxyerror lc rgb variable notitle, \
         dir . "/totals-" . m . ".dat" using 1:2:3:(0) with vectors nohead lw 2 lc rgb "black" \
             notitle, \
         dir . "/marks-" . m . ".dat" using 1:2:3 with labels font ",8" tc rgb "#555555" notitle, \
         NaN with boxes lc rgb "#1f4e99" title (has("A") ? "analytic compute" : ""), \
         NaN with boxes lc rgb "#9dbce8" title (has("A") ? "analytic communication" : ""), \
         NaN with boxes lc rgb "#c0392b" title (has("S") ? "simulated compute" : ""), \
         NaN with boxes lc rgb "#f2b1a8" title (has("S") ? "simulated communication" : ""), \
         NaN with boxes lc rgb "#2e7d32" title (has("M") ? "measured compute" : ""), \
         NaN with boxes lc rgb "#a9d8ab" title (has("M") ? "measured communication" : ""), \
         NaN with lines lw 2 lc rgb "black" title "compute + communication"
}
unset multiplot
