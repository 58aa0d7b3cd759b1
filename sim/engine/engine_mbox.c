/* engine_mbox.c: the mailbox of every ordered rank pair, in an open-addressing table built
 * before the simulation starts (engine_int.h's eng_mbox_table), so that a message costs a
 * hash probe instead of formatting and looking up a name. Every pair has two mailboxes:
 * channel 0 for its messages, channel 1 for the first half of its messages staged through host
 * memory (to the relay, engine_p2p.c). Channel 0's slots also say which private edge the
 * pair is, if any (engine_private.c). */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t pair_key(const eng_sim *s, int src, int dst, int channel)
{
    return ((uint64_t)src * (uint64_t)s->g->n_ranks + (uint64_t)dst) * 2 + (uint64_t)channel + 1;
}

void eng_pair_of(const eng_sim *s, uint64_t key, int *src, int *dst, int *channel)
{
    uint64_t k = key - 1, n = (uint64_t)s->g->n_ranks;
    *channel = (int)(k % 2);
    *src = (int)(k / 2 / n);
    *dst = (int)(k / 2 % n);
}

static size_t key_slot(uint64_t key, size_t cap)
{
    /* Fibonacci hashing: neighbouring pairs spread over the table. */
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (cap - 1);
}

static sg_mailbox_t mailbox_by_pair(int src, int dst, int channel)
{
    char name[40];
    snprintf(name, sizeof name, channel ? "%d>%d@host" : "%d>%d", src, dst);
    return sg_mailbox_by_name(name);
}

static int mbox_grow(eng_mbox_table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 256;
    uint64_t *keys = calloc(cap, sizeof *keys);
    sg_mailbox_t *boxes = calloc(cap, sizeof *boxes);
    int *edge = malloc(cap * sizeof *edge);
    if (!keys || !boxes || !edge) {
        free(keys);
        free(boxes);
        free(edge);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        edge[i] = -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->keys[i])
            continue;
        size_t j = key_slot(t->keys[i], cap);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
        boxes[j] = t->boxes[i];
        edge[j] = t->edge[i];
    }
    free(t->keys);
    free(t->boxes);
    free(t->edge);
    *t = (eng_mbox_table){keys, boxes, edge, cap, t->used};
    return 0;
}

/* The pair's slot on the channel, or where it would go (a free slot): the table has one. */
static size_t slot_of(const eng_mbox_table *t, uint64_t key)
{
    size_t j = key_slot(key, t->cap);
    while (t->keys[j] && t->keys[j] != key)
        j = (j + 1) & (t->cap - 1);
    return j;
}

int eng_mbox_add(eng_sim *s, int src, int dst, int channel)
{
    eng_mbox_table *t = &s->mbox;
    if (2 * (t->used + 1) > t->cap && mbox_grow(t) != 0)
        return -1;
    uint64_t key = pair_key(s, src, dst, channel);
    size_t j = slot_of(t, key);
    if (!t->keys[j]) {
        t->keys[j] = key;
        t->boxes[j] = mailbox_by_pair(src, dst, channel);
        t->used++;
    }
    return 0;
}

sg_mailbox_t eng_mbox_on(const eng_sim *s, int src, int dst, int channel)
{
    const eng_mbox_table *t = &s->mbox;
    if (t->cap) {
        size_t j = slot_of(t, pair_key(s, src, dst, channel));
        if (t->keys[j])
            return t->boxes[j];
    }
    return mailbox_by_pair(src, dst, channel); /* not foreseen by eng_comm_prepare: correct */
}

sg_mailbox_t eng_mbox(const eng_sim *s, int src, int dst)
{
    return eng_mbox_on(s, src, dst, 0);
}

long eng_pair_slot(const eng_sim *s, int src, int dst)
{
    const eng_mbox_table *t = &s->mbox;
    if (!t->cap)
        return -1;
    size_t j = slot_of(t, pair_key(s, src, dst, 0));
    return t->keys[j] ? (long)j : -1;
}

int eng_pair_edge(const eng_sim *s, int src, int dst)
{
    long j = eng_pair_slot(s, src, dst);
    return j >= 0 ? s->mbox.edge[j] : -1;
}
