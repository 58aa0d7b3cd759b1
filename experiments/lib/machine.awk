# machine.awk: the layout of experiments/machine.sh's picture: one run's `--links` CSV placed on
# the machine's fat tree (spine, racks, leaf groups, nodes), as gnuplot data.
# Usage: awk -f machine.awk -v nodes=N -v gpus_per_node=G -v nodes_per_leaf=L
#            -v leaves_per_rack=R -v dir=DIR [-v top=5] LINKS.csv
# Link names are the generator's (platforms/README.md): nNNNN-nicK, nNNNN-pcieG, nNNNN-nvlA-B,
# nNNNN-nvsG, ..., lNNN-uplink[-cK], lNNN-switch, rNN-uplink[-cK], rNN-switch, spine-switch;
# other names are counted and left out. A link's colour is the higher of its two directions'
# utilisation (mean over the iteration, and peak: its fullest busy period); a node's box is its
# hottest link inside the node (NVLink, PCIe, CPU link). Switches never limit a flow (their
# utilisation may pass 1): drawn, not coloured.
# Only the racks whose links carried traffic are drawn (all with --links-all output that
# carried some). A bottom box is a node while the racks drawn hold at most 72 nodes, else a
# leaf group (its nodes' hottest links) while they hold at most 96 leaf groups, else a rack.
# Writes DIR/cables.dat (x y dx dy mean peak), DIR/idle.dat (x y dx dy: cables that carried
# nothing), DIR/boxes.dat (x y half-width half-height mean peak), DIR/empty.dat (x y hw hh:
# node boxes whose inside carried nothing), DIR/switches.dat (x y hw hh), DIR/names.dat (x y
# "text"), DIR/marks.dat (x y "1,2": where the hottest links are), DIR/top.txt (the hottest
# links, one a line: rank, link, direction, kind, mean, peak), DIR/panel.gp (ranges, the notes).
# Exit 2 with a message on a CSV without the links columns.

BEGIN {
    FS = ","
    if (top == "") top = 5
    leaves = int((nodes + nodes_per_leaf - 1) / nodes_per_leaf)
    racks = int((leaves + leaves_per_rack - 1) / leaves_per_rack)
    # the rows' heights: nodes, leaf switches, rack switches, spine
    y_node = 1; y_leaf = 2; y_rack = 3; y_spine = 4
}

function die(msg) { print "machine: " msg > "/dev/stderr"; failed = 2; exit 2 }

function max(a, b) { return a > b ? a : b }
function min(a, b) { return a < b ? a : b }

NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    k = split("link kind direction bytes background_bytes mean_utilisation peak_utilisation", need, " ")
    for (i = 1; i <= k; i++)
        if (!(need[i] in col)) die(FILENAME ": no column '" need[i] "' (not a --links CSV)")
    next
}

# The number after the first letter of a name ("n0042-nic1" -> 42).
function index_of(name,    s) { s = substr(name, 2); sub(/-.*/, "", s); return s + 0 }

{
    name = $col["link"]; kind = $col["kind"]; dirn = $col["direction"]
    mean = $col["mean_utilisation"] + 0; peak = $col["peak_utilisation"] + 0
    if ($col["bytes"] + $col["background_bytes"] <= 0) next
    if (name ~ /^n[0-9]+-/) {
        n = index_of(name)
        if (n >= nodes) { unplaced++; next }
        use_rack[rack_of_node(n)] = 1
        if (kind == "nic") { nic_mean[n] = max(nic_mean[n], mean); nic_peak[n] = max(nic_peak[n], peak) }
        else { in_mean[n] = max(in_mean[n], mean); in_peak[n] = max(in_peak[n], peak); in_used[n] = 1 }
        nic_used[n] = nic_used[n] || kind == "nic"
    } else if (name ~ /^l[0-9]+-/) {
        l = index_of(name)
        if (l >= leaves) { unplaced++; next }
        use_rack[int(l / leaves_per_rack)] = 1
        if (kind == "leaf-up") { up_mean[l] = max(up_mean[l], mean); up_peak[l] = max(up_peak[l], peak); up_used[l] = 1 }
    } else if (name ~ /^r[0-9]+-/) {
        r = index_of(name)
        if (r >= racks) { unplaced++; next }
        use_rack[r] = 1
        if (kind == "rack-up") { rup_mean[r] = max(rup_mean[r], mean); rup_peak[r] = max(rup_peak[r], peak); rup_used[r] = 1 }
    } else if (name != "spine-switch") {
        unplaced++
        next
    }
    if (kind ~ /switch$/ || kind == "spine") next
    # a hottest-link candidate: the link (a routed uplink's cable on its own), its hotter
    # direction
    if (!(name in hot_mean) || mean > hot_mean[name]) { hot_mean[name] = mean; hot_dir[name] = dirn }
    hot_peak[name] = max(hot_peak[name], peak); hot_kind[name] = kind
}

function rack_of_node(n) { return int(int(n / nodes_per_leaf) / leaves_per_rack) }
function leaf_nodes(l) { return min(nodes_per_leaf, nodes - l * nodes_per_leaf) }
function rack_leaves(r) { return min(leaves_per_rack, leaves - r * leaves_per_rack) }

END {
    if (failed) exit failed
    n_drawn = 0; drawn_nodes = 0; drawn_leaves = 0
    for (r = 0; r < racks; r++)
        if (r in use_rack) {
            drawn[++n_drawn] = r
            drawn_leaves += rack_leaves(r)
            for (l = r * leaves_per_rack; l < r * leaves_per_rack + rack_leaves(r); l++)
                drawn_nodes += leaf_nodes(l)
        }
    if (n_drawn == 0) { drawn[++n_drawn] = 0; drawn_leaves = rack_leaves(0); drawn_nodes = min(nodes, nodes_per_leaf * leaves_per_rack) }
    mode = drawn_nodes <= 72 ? "node" : drawn_leaves <= 96 ? "leaf" : "rack"
    layout()
    draw()
    hottest()
    notes()
}

# x of every box: bottom boxes one unit apart, a wider gap between leaf groups and racks; a
# switch centred over what it joins. Sets bx[] (bottom boxes), lx[] (leaf boxes), rx[], sx.
function layout(    i, r, l, n, x, first, last, lfirst) {
    if (mode == "rack") return layout_rack_groups()
    x = 0
    for (i = 1; i <= n_drawn; i++) {
        r = drawn[i]
        lfirst = x
        for (l = r * leaves_per_rack; l < r * leaves_per_rack + rack_leaves(r); l++) {
            first = x
            if (mode == "node") {
                for (n = l * nodes_per_leaf; n < l * nodes_per_leaf + leaf_nodes(l); n++) {
                    bottom_of_node[n] = ++nb; bx[nb] = x; bw[nb] = 0.38; x += 1
                }
                last = x - 1; x += 0.5
            } else {
                bottom_of_leaf[l] = ++nb; bx[nb] = x; bw[nb] = 0.38; last = x; x += 1.2
            }
            lx[l] = (first + last) / 2
        }
        rx[r] = (lfirst + x - (mode == "node" ? 1.5 : 1.2)) / 2
        x += mode == "node" ? 1.5 : 1.0
    }
    width = x - (mode == "node" ? 2.0 : 2.2)
    sx = width / 2
}

# A box a rack, or with more than 64 racks drawn a box a group of consecutive drawn racks (at
# most 48 groups): group_of[rack], gx[group] (its x), gfirst[] and glast[] (its racks).
function layout_rack_groups(    i, r, q, k) {
    k = n_drawn <= 64 ? 1 : int((n_drawn + 47) / 48)
    for (i = 1; i <= n_drawn; i++) {
        q = int((i - 1) / k) + 1; r = drawn[i]
        if (!(q in gx)) { gx[q] = (q - 1) * 1.6; gfirst[q] = r; ngroups = q }
        group_of[r] = q; glast[q] = r; rx[r] = gx[q]
    }
    per_group = k
    width = (ngroups - 1) * 1.6
    sx = width / 2
}

function cable(x1, y1, x2, y2, used, m, p) {
    if (used) printf "%.4f %.4f %.4f %.4f %.6g %.6g\n", x1, y1, x2 - x1, y2 - y1, m, p > (dir "/cables.dat")
    else printf "%.4f %.4f %.4f %.4f\n", x1, y1, x2 - x1, y2 - y1 > (dir "/idle.dat")
}

function box(x, y, hw, hh, used, m, p) {
    if (used) printf "%.4f %.4f %.4f %.4f %.6g %.6g\n", x, y, hw, hh, m, p > (dir "/boxes.dat")
    else printf "%.4f %.4f %.4f %.4f\n", x, y, hw, hh > (dir "/empty.dat")
}

function switch_box(x, y, hw) { printf "%.4f %.4f %.4f 0.09\n", x, y, hw > (dir "/switches.dat") }

# Folds node n's links into the accumulators of the bottom box b and its NIC cable.
function fold(b, n) {
    if (n in in_used) { bu[b] = 1; bm[b] = max(bm[b], in_mean[n]); bp[b] = max(bp[b], in_peak[n]) }
    if (nic_used[n]) { cu[b] = 1; cm[b] = max(cm[b], nic_mean[n]); cp[b] = max(cp[b], nic_peak[n]) }
}

function draw(    i, r, l, n, b, lo, hi) {
    for (f = 1; f <= split("cables idle boxes empty switches names marks", fl, " "); f++)
        printf "" > (dir "/" fl[f] ".dat")
    printf "-100 -100 0 0\n" > (dir "/idle.dat")   # never empty: gnuplot warns on an empty file
    printf "-100 -100 0 0\n" > (dir "/empty.dat")
    printf "-100 -100 0 0 0 0\n" > (dir "/cables.dat")
    printf "-100 -100 0 0 0 0\n" > (dir "/boxes.dat")
    printf "-100 -100 \"\"\n" > (dir "/marks.dat")
    if (mode == "rack") draw_rack_groups()
    for (i = 1; mode != "rack" && i <= n_drawn; i++) {
        r = drawn[i]
        lo = r * leaves_per_rack; hi = lo + rack_leaves(r)
        for (l = lo; l < hi; l++) {
            for (n = l * nodes_per_leaf; n < l * nodes_per_leaf + leaf_nodes(l); n++) {
                b = mode == "node" ? bottom_of_node[n] : bottom_of_leaf[l]
                fold(b, n)
                if (mode == "node") draw_bottom(b, l)
            }
            if (mode == "leaf") draw_bottom(bottom_of_leaf[l], l)
            switch_box(lx[l], y_leaf, mode == "node" ? min(0.3 * leaf_nodes(l), 2) : 0.3)
            cable(lx[l], y_leaf + 0.09, rx[r], y_rack - 0.09, l in up_used, up_mean[l], up_peak[l])
        }
        draw_rack(rx[r], r in rup_used, rup_mean[r], rup_peak[r],
                  n_drawn <= 40 ? sprintf("r%02d", r) : "")
    }
    if (racks > 1) switch_box(sx, y_spine, max(0.6, 0.04 * width))
}

# A rack switch at x, its uplink to the spine, its name above it.
function draw_rack(x, used, m, p, name) {
    switch_box(x, y_rack, 0.5)
    if (racks > 1) cable(x, y_rack + 0.09, sx, y_spine - 0.09, used, m, p)
    if (name != "") printf "%.4f %.4f \"%s\"\n", x, y_rack + 0.3, name > (dir "/names.dat")
}

# Rack mode: a column a group of racks, every level's links folded into its hottest.
function draw_rack_groups(    q, i, r, l, n, lu, lm, lp, ru, rm, rp, name) {
    for (q = 1; q <= ngroups; q++) {
        lu = lm = lp = ru = rm = rp = 0
        for (i = 1; i <= n_drawn; i++) {
            r = drawn[i]
            if (group_of[r] != q) continue
            for (l = r * leaves_per_rack; l < r * leaves_per_rack + rack_leaves(r); l++) {
                for (n = l * nodes_per_leaf; n < l * nodes_per_leaf + leaf_nodes(l); n++) fold(q, n)
                if (l in up_used) { lu = 1; lm = max(lm, up_mean[l]); lp = max(lp, up_peak[l]) }
            }
            if (r in rup_used) { ru = 1; rm = max(rm, rup_mean[r]); rp = max(rp, rup_peak[r]) }
        }
        box(gx[q], y_node, 0.42, 0.16, bu[q], bm[q], bp[q])
        cable(gx[q], y_node + 0.16, gx[q], y_leaf - 0.09, cu[q], cm[q], cp[q])
        switch_box(gx[q], y_leaf, 0.3)
        cable(gx[q], y_leaf + 0.09, gx[q], y_rack - 0.09, lu, lm, lp)
        name = gfirst[q] == glast[q] ? sprintf("r%02d", gfirst[q]) : sprintf("r%02d-%02d", gfirst[q], glast[q])
        draw_rack(gx[q], ru, rm, rp, ngroups <= 40 ? name : "")
    }
}

function draw_bottom(b, l) {
    box(bx[b], y_node, bw[b], 0.16, bu[b], bm[b], bp[b])
    cable(bx[b], y_node + 0.16, lx[l], y_leaf - 0.09, cu[b], cm[b], cp[b])
}

# Where link `name` is drawn: its cable's middle, or the box of the node it is inside.
function place_of(name, kind,    n, l, r) {
    if (name ~ /^n[0-9]+-/) {
        n = index_of(name); l = int(n / nodes_per_leaf); r = int(l / leaves_per_rack)
        if (mode == "rack")
            return sprintf("%.4f %.4f", rx[r], kind == "nic" ? (y_node + y_leaf) / 2 : y_node)
        b = mode == "node" ? bottom_of_node[n] : bottom_of_leaf[l]
        if (kind != "nic") return sprintf("%.4f %.4f", bx[b], y_node)
        return sprintf("%.4f %.4f", (bx[b] + lx[l]) / 2, (y_node + y_leaf) / 2)
    }
    if (name ~ /^l[0-9]+-/) {
        l = index_of(name); r = int(l / leaves_per_rack)
        if (mode == "rack") return sprintf("%.4f %.4f", rx[r], (y_leaf + y_rack) / 2)
        return sprintf("%.4f %.4f", (lx[l] + rx[r]) / 2, (y_leaf + y_rack) / 2)
    }
    r = index_of(name)
    return sprintf("%.4f %.4f", (rx[r] + sx) / 2, (y_rack + y_spine) / 2)
}

# The hottest links by mean utilisation, numbered on the picture: links of one kind within a
# rounding of each other (0.005) are one line ("r00-uplink and 15 more rack-up links"), so that
# the `top` lines say where in the tree the load is. A group's link is its hottest (ties: the
# first name); groups drawn at one place share a mark ("1,2").
function hottest(    name, key, k, i, j, best, t, at, g) {
    for (name in hot_mean) {
        key = hot_kind[name] SUBSEP sprintf("%.2f", hot_mean[name])
        if (!(key in group)) { group[key] = ++ng; gkey[ng] = key; glink[ng] = name }
        g = group[key]
        members[g]++
        if (hot_mean[name] > hot_mean[glink[g]] ||
            (hot_mean[name] == hot_mean[glink[g]] && name < glink[g])) glink[g] = name
        gpeak[g] = max(gpeak[g], hot_peak[name])
    }
    for (i = 1; i <= ng; i++) order[i] = i
    for (i = 1; i <= ng && i <= top; i++) { # selection of the first `top`: a handful
        best = i
        for (j = i + 1; j <= ng; j++)
            if (hotter(order[j], order[best])) best = j
        t = order[i]; order[i] = order[best]; order[best] = t
    }
    printf "" > (dir "/top.txt")
    for (i = 1; i <= ng && i <= top; i++) {
        g = order[i]; name = glink[g]
        printf "%d %s %s %s %.3f %.3f %d\n", i, name, hot_dir[name], hot_kind[name],
            hot_mean[name], gpeak[g], members[g] - 1 > (dir "/top.txt")
        at = place_of(name, hot_kind[name])
        t = (at in mark) ? mark[at] "," i : i
        mark[at] = t
    }
    for (at in mark) printf "%s \"%s\"\n", at, mark[at] > (dir "/marks.dat")
}

function hotter(a, b) {
    return hot_mean[glink[a]] > hot_mean[glink[b]] ||
           (hot_mean[glink[a]] == hot_mean[glink[b]] && glink[a] < glink[b])
}

function notes(    g, f) {
    g = dir "/panel.gp"
    what = mode == "node" ? "a box a node" : mode == "leaf" ? "a box a leaf group (" nodes_per_leaf " nodes)" \
         : per_group == 1 ? "a box a rack" : "a box " per_group " racks"
    # room on the left for the rows' names
    printf "set xrange [%.3f:%.3f]\nset yrange [0.55:%.2f]\n", -0.1 * width - 2.5, width + 1,
        (racks > 1 ? 4.45 : 3.45) > g
    printf "bottom_note = \"%s; %d of %d racks drawn (those that carried traffic)%s\"\n", what,
        n_drawn, racks, (unplaced ? sprintf("; %d links not on the tree left out", unplaced) : "") > g
    close(g)
    for (f = 1; f <= 7; f++) close(dir "/" fl[f] ".dat")
}
