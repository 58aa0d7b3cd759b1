/* platdigest.h: the digest that marks a platform file as the generator wrote it (private to
 * platforms/).
 *
 * `hybridsim platform` ends every file with a comment holding a 64-bit digest of all the bytes
 * before it. plat_load recomputes it: when it matches, the file is exactly what its recorded
 * parameters generate (hybridsim:generator), so the machine is rebuilt from them instead of
 * being parsed; any edit changes the digest and the file is read in full, as a hand-written
 * one. The digest detects edits, it is no protection against forgery. */
#ifndef PLATDIGEST_H
#define PLATDIGEST_H

#include <stddef.h>
#include <stdint.h>

/* The comment, after </platform>: PD_OPEN + 16 lowercase hex digits + PD_CLOSE. */
#define PD_OPEN "<!-- hybridsim:digest "
#define PD_CLOSE " -->\n"
#define PD_HEX 16

/* Four FNV-1a lanes over the 64-bit little-endian words of 32-byte blocks (four independent
 * multiplications at a time), the last partial block byte by byte into lane 0, then the length
 * and a final mix: a 90 MB platform hashes in about 15 ms. */
typedef struct {
    uint64_t lane[4];
    uint64_t bytes;            /* hashed so far */
    unsigned char tail[32];    /* the bytes of an unfinished block */
    unsigned n_tail;
} pd_state;

void pd_init(pd_state *d);
void pd_add(pd_state *d, const void *data, size_t len);
uint64_t pd_final(const pd_state *d);

/* The digest of a buffer. */
uint64_t pd_digest(const void *data, size_t len);

#endif
