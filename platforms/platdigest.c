/* platdigest.c: the digest of generated platform files (platdigest.h). */
#include "platdigest.h"

#include <endian.h>
#include <string.h>

#define PD_OFFSET UINT64_C(14695981039346656037)
#define PD_PRIME UINT64_C(1099511628211)
#define PD_BLOCK 32

void pd_init(pd_state *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < 4; i++)
        d->lane[i] = PD_OFFSET + (uint64_t)i;
}

static void block(uint64_t *lane, const unsigned char *b)
{
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        memcpy(&w, b + 8 * i, 8);
        lane[i] = (lane[i] ^ le64toh(w)) * PD_PRIME;
    }
}

void pd_add(pd_state *d, const void *data, size_t len)
{
    const unsigned char *b = data;
    d->bytes += len;
    if (d->n_tail > 0) { /* finish the pending block first */
        size_t k = PD_BLOCK - d->n_tail < len ? PD_BLOCK - d->n_tail : len;
        memcpy(d->tail + d->n_tail, b, k);
        d->n_tail += (unsigned)k;
        b += k;
        len -= k;
        if (d->n_tail < PD_BLOCK)
            return;
        block(d->lane, d->tail);
        d->n_tail = 0;
    }
    for (; len >= PD_BLOCK; b += PD_BLOCK, len -= PD_BLOCK)
        block(d->lane, b);
    memcpy(d->tail, b, len);
    d->n_tail = (unsigned)len;
}

uint64_t pd_final(const pd_state *d)
{
    uint64_t h = d->lane[0];
    for (unsigned i = 0; i < d->n_tail; i++)
        h = (h ^ d->tail[i]) * PD_PRIME;
    for (int i = 1; i < 4; i++)
        h = (h ^ d->lane[i]) * PD_PRIME;
    h ^= d->bytes;
    /* MurmurHash3's finaliser: every input bit reaches every output bit. */
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

uint64_t pd_digest(const void *data, size_t len)
{
    pd_state d;
    pd_init(&d);
    pd_add(&d, data, len);
    return pd_final(&d);
}
