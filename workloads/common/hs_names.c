/* hs_names.c: the short names a folder offers (hs_names.h). */
#include "hs_names.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HS_NAMES_MAX 256 /* names listed at most: a message, not an inventory */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void hs_known_names(const char *dir, const char *suffix, char *buf, size_t len)
{
    char *names[HS_NAMES_MAX];
    size_t n = 0, k = strlen(suffix);
    if (len)
        buf[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while (n < HS_NAMES_MAX && (e = readdir(d))) {
        size_t m = strlen(e->d_name);
        if (m > k && e->d_name[0] != '.' && strcmp(e->d_name + m - k, suffix) == 0 &&
            (names[n] = strndup(e->d_name, m - k)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= len - used) {
            if (len >= 4)
                snprintf(buf + (used < len - 4 ? used : len - 4), 4, "...");
            used = len;
        } else {
            used += (size_t)w;
        }
        free(names[i]);
    }
}
