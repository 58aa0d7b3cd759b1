/* hs_names.h: the short names a folder offers ("resnet50" for workloads/resnet50.xml), listed
 * in the message when a short name is not one of them, so that a user who typed "ABCI" or
 * "resnet-50" sees what would have worked. */
#ifndef HS_NAMES_H
#define HS_NAMES_H

#include <stddef.h>

/* Every NAME of a file DIR/NAME<suffix>, sorted, joined by ", " into buf (at most len bytes,
 * cut with "..." when longer); "" when there is none or the folder cannot be read. */
void hs_known_names(const char *dir, const char *suffix, char *buf, size_t len);

#endif
