/* hs_grow.h: the one growable array: room for `need` items in an array whose capacity is
 * counted in items, doubled (from 16) as it fills, so n appends cost O(n) copies in all.
 *
 * Folder: workloads/common/ (prefix hs_grow). */
#ifndef HS_GROW_H
#define HS_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Make *items (an array of `size`-byte items, *cap of them allocated) hold at least `need`;
 * false when out of memory, *items and *cap then as they were (still to be freed). Call it
 * as hs_grow((void **)&array, &cap, n + 1, sizeof *array) before appending item n. */
bool hs_grow(void **items, int *cap, int need, size_t size);

#endif
