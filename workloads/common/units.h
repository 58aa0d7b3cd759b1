/* units.h: physical quantities written with units ("12.5GBps", "9us", "16GB", "7.8Tf").
 *
 * Units are parsed at the edge (command-line flags, platform XML) and everything inside
 * hybridsim is SI: seconds, bytes, bytes per second, flop/s. The grammar is SimGrid's own (a
 * C number, then a unit with an optional decimal k M G T P E or binary Ki Mi Gi Ti Pi Ei
 * prefix), so a value that SimGrid accepts in a platform file is accepted here too and means
 * the same. A bare number is taken in the SI unit. */
#ifndef UNITS_H
#define UNITS_H

#include <stddef.h>

typedef enum {
    UN_TIME,      /* s, ms, us, ns, ps, m, h, d, w; bare = seconds */
    UN_SIZE,      /* B or b (bits) with prefixes; bare = bytes */
    UN_BANDWIDTH, /* Bps or bps (bits) with prefixes; bare = bytes per second */
    UN_SPEED      /* f or flops with decimal prefixes; bare = flop/s */
} un_kind;

/* Parse text as a quantity of the given kind into *value (SI). Returns 0, or -1 when the
 * number or the unit is not understood (value untouched). Negative values are returned as
 * parsed: range checks belong to the caller, who knows what the value is for. */
int un_parse(const char *text, un_kind kind, double *value);

/* Whether v lies in the physical range of its kind for a machine's description (a link's
 * bandwidth or latency, a GPU's speed or memory): from a 1 kB/s link to a 1 PB/s one (NVLink 5
 * is 1.8 TB/s), latencies from 0 to an hour, speeds from 1 Mflop/s to 1 Zflop/s, memories from
 * 1 kB to 1 EB. Wide enough for any machine, narrow enough that every time computed from them
 * (terabytes over the slowest link, millions of latencies) stays a finite number. */
int un_in_range(un_kind kind, double v);

/* That range in words for messages, "between 1kBps and 1PBps". */
const char *un_range_text(un_kind kind);

/* The unit names of a kind for messages, e.g. "Bps, GBps, Gbps, ...". */
const char *un_hint(un_kind kind);

/* Write v so that strtod gives back exactly v, as short as possible ("1.5e-05", "50000000000"). */
void un_format_exact(double v, char *buf, size_t len);

/* Write v with a readable unit ("50GBps", "110ns", "16GB", "7.8Tf") that SimGrid and un_parse
 * read back as v to within a few ulps; otherwise the exact SI number plus unit ("1.5e-05s"). */
void un_format(double v, un_kind kind, char *buf, size_t len);

#endif
