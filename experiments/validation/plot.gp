# plot.gp: predicted against measured, every row of run.sh's results.tsv (log-log, y = x), a
# colour a dataset. Called by run.sh: gnuplot -e "data='results.tsv'; out='PREFIX'; term='png'"
# Units differ by dataset (DeepBench kernels, held out or of GPUs never fitted, DeepBench
# allreduces and ParaDL epochs in seconds, throughputs in images/s): each dataset keeps its
# own, the diagonal holds for all.
set datafile separator "\t"
set logscale xy
set xlabel "measured (kernel s, allreduce s, epoch s, or images/s)"
set ylabel "predicted (same unit)"
set key top left
set grid
set size square
set format xy "10^{%L}"
# deepbench-unseen first, under the others: its 2,181 kernels would hide them
datasets = "deepbench-unseen deepbench dle-pytorch dle-tensorflow1 mlperf paradl deepbench-allreduce"
colors = "#a6761d #1b9e77 #d95f02 #7570b3 #e7298a #66a61e #e6ab02"
# only the rows that ran: predicted present (column 6), status ok (column 9)
pick(d) = sprintf("< awk -F'\t' 'NR > 1 && $1 == \"%s\" && $9 == \"ok\"' '%s'", d, data)
do for [t in "svg png"] {
    if (t eq "svg") { set terminal svg size 760,720 font "sans,11" } else {
        if (term eq "pngcairo") { set terminal pngcairo size 760,720 font "sans,10" } else {
            set terminal png size 760,720 } }
    set output out . "." . t
    plot x with lines lc rgb "#888888" dt 2 title "y = x", \
        for [i=1:7] pick(word(datasets, i)) using 5:6 with points \
            pt int(word("4 7 5 9 13 11 15", i)) ps 0.8 \
            lc rgb word(colors, i) title word(datasets, i)
    unset output
}
