# routing.gp: what a cable a flow costs against the fat link: the iteration time with routed
# uplinks (D-mod-K, ECMP hashing) over the fat link's, per strategy and placement, at the
# study's largest GPU count, a panel per model.
# Run by run.sh through hs_plot with: term, pngterm, out, dir (routing-MODEL.dat: label,
# dmodk/fat, hash/fat per line), models (space-separated), gpus (the GPU count shown).
if (term eq 'png') {
    set terminal @pngterm size 1100, 540 font ",11"
} else {
    set terminal svg size 1100, 540 dynamic font ",11"
}
set output out
n = words(models)
set multiplot layout 1, n title "Routed uplinks on abci (8 racks, 1:3 between racks), " . gpus . " GPUs: iteration time over the fat link's" noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0.9:*]
set grid ytics lc rgb "#dddddd"
set ylabel "iteration time / fat link's"
set xtics rotate by -35 left font ",9" noenhanced
set offsets 0, 0, graph 0.05, 0
do for [i = 1:n] {
    m = word(models, i)
    set title m noenhanced
    if (i == 1) { set key top right font ",9" } else { unset key }
    plot dir . "/routing-" . m . ".dat" using 2:xtic(1) lc rgb "#1f4e99" title "D-mod-K (dmodk)", \
         "" using 3 lc rgb "#c0392b" title "ECMP hashing (hash)", \
         1 with lines lc rgb "#444444" dt 2 notitle
}
unset multiplot
