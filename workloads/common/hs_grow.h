/* hs_grow.h: the one growable array: room for `need` items in an array whose capacity is
 * counted in items, doubled (from 16) as it fills, so n appends cost O(n) copies in all.
 * Counts are size_t: an array of one item per message of a large run (sim/observe/links.c)
 * outgrows an int; a caller whose count is an int passes it converted.
 *
 * Folder: workloads/common/ (prefix hs_grow). */
#ifndef HS_GROW_H
#define HS_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Make *items (an array of `size`-byte items, *cap of them allocated) hold at least `need`;
 * false when out of memory or when need * size would not fit in a size_t, *items and *cap
 * then as they were (still to be freed). Call it as
 * hs_grow((void **)&array, &cap, (size_t)n + 1, sizeof *array) before appending item n. */
bool hs_grow(void **items, size_t *cap, size_t need, size_t size);

#endif
