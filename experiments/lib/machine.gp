# machine.gp: experiments/machine.sh's picture from machine.awk's layouts: a column per run
# (DIR/m1, DIR/m2), in each the tree coloured by mean utilisation above and by peak below, the
# hottest links listed under it; one colour scale for all.
# Run by machine.sh with: term (png|svg), pngterm, out, dir, n (1 or 2 runs).
W = 1000; H = 920
if (term eq 'png') {
    set terminal @pngterm size W * n + 110, H font ",10"
} else {
    set terminal svg size W * n + 110, H dynamic font ",10"
}
set output out
set multiplot
# light yellow (a link barely used) to dark red (full); a link that carried nothing is grey
set palette defined (0 "#fff5b8", 0.3 "#fdb24c", 0.6 "#f0592b", 0.85 "#c4151c", 1 "#67000d")
set cbrange [0:1]
unset xtics; unset ytics; unset border; unset key
set style textbox opaque noborder
right = 1.0 * W * n / (W * n + 110)   # the colour bar's room on the right
do for [i = 1:n] {
    d = dir . "/m" . i
    load d . "/panel.gp"
    title = system("cat " . d . "/title.txt")
    ntop = int(system("wc -l < " . d . "/top.txt"))
    x0 = right * (i - 1) / n; w = right / n
    do for [row = 0:1] {
        c = row == 0 ? 5 : 6
        set origin x0 + 0.005, row == 0 ? 0.59 : 0.2
        set size w - 0.01, 0.37
        set lmargin 0; set rmargin 0; set tmargin 2; set bmargin 0
        set title (row == 0 ? title . ": mean utilisation over the iteration" \
                            : "peak utilisation (each link's fullest busy period)") noenhanced
        unset label
        set label 1 "spine" at graph 0, first 4 left font ",9" tc rgb "#555555"
        set label 2 "racks" at graph 0, first 3 left font ",9" tc rgb "#555555"
        set label 3 "leaf groups" at graph 0, first 2 left font ",9" tc rgb "#555555"
        set label 4 "nodes" at graph 0, first 1 left font ",9" tc rgb "#555555"
        if (row == 1) {
            set label 5 bottom_note at graph 0, graph -0.06 left font ",9" noenhanced
            set label 6 "hottest links (mean utilisation, peak):" at graph 0, graph -0.15 left font ",10"
            do for [k = 1:ntop] {
                line = system(sprintf("sed -n %dp %s/top.txt", k, d))
                more = int(word(line, 7))
                set label 10 + k sprintf("%s  %s %s%s: %s, %s", word(line, 1), word(line, 2), \
                    word(line, 3), more > 0 ? sprintf(" and %d more %s link%s", more, word(line, 4), \
                    more > 1 ? "s" : "") \
                    : " (" . word(line, 4) . ")", word(line, 5), word(line, 6)) \
                    at graph 0.02, graph -0.15 - 0.075 * k left font ",10" noenhanced
            }
        }
        if (i == n && row == 0) {
            set colorbox user origin right + 0.01, 0.3 size 0.012, 0.55
            set cblabel "utilisation" offset 1, 0
        } else { unset colorbox }
        plot d . "/idle.dat" using 1:2:3:4 with vectors nohead lw 1 lc rgb "#c8c8c8", \
             d . "/cables.dat" using 1:2:3:4:c with vectors nohead lw 3 lc palette, \
             d . "/empty.dat" using 1:2:3:4 with boxxyerror fs solid 1 border lc rgb "#b0b0b0" \
                 fc rgb "#f2f2f2", \
             d . "/boxes.dat" using 1:2:3:4:c with boxxyerror fs solid 1 border lc rgb "#555555" \
                 fc palette, \
             d . "/switches.dat" using 1:2:3:4 with boxxyerror fs solid 1 border lc rgb "black" \
                 fc rgb "white", \
             d . "/names.dat" using 1:2:3 with labels font ",8" tc rgb "#333333", \
             d . "/marks.dat" using 1:2:3 with labels boxed font ",10" tc rgb "#0033aa"
    }
}
unset multiplot
