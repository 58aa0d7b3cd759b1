/* suggest_int.h: what the oracle's two files share (suggest.h is the module's public face).
 * Nothing here is for use outside sim/compare. */
#ifndef SUGGEST_INT_H
#define SUGGEST_INT_H

#include "suggest.h"

/* A per-layer plan (malloc'd, owned by the list from here on, freed if it does not run) priced
 * on net and added as a candidate named `name`, with its gradient-allreduce variants. */
void su__add_plan(su_list *l, const wl_workload *wl, const kt_compute *kc,
                  const plat_platform *plat, an_net *net, int64_t batch, st_plan *plan,
                  const char *name);

/* The per-layer search on net: its plan added as "searched" unless the best
 * whole-model strategy polished it away; l->search says what it did. Errors only when out of
 * memory: a search that finds nothing says why in l->search.why. */
int su__search(const su_question *q, an_net *net, su_list *l, char *err);

/* How every candidate trains: the runtime's values (rt_apply_strategy; NULL: none), then
 * --overlap, --halo and --filter-backward when said (JS_ON, JS_OFF; 0 not said). A plan's
 * expansion and price read its own st_plan.halo_sendrecv and filter_allreduce, which su__rules
 * sets alike. */
void su__train(const rt_runtime *runtime, int overlap, int halo, int filter_rs, st_strategy *st);

/* The job's settings on a plan as su__train puts them on a built-in: the runtime's gradient
 * allreduce, bytes and optimizer (NULL: the plan's kept), its cycle when the overlap is on (the
 * runtime's, or --overlap when said), its halos and filter backward, or --halo and
 * --filter-backward when said (JS_ON, JS_OFF; 0 not said). The searched plan, every plan
 * candidate and a built-in answer written as a plan are set by it, so that the search prices
 * its candidates as the file written runs (an_search_model.rules). */
void su__rules(const rt_runtime *runtime, int overlap, int halo, int filter_rs, st_plan *plan);

/* A monotonic clock, seconds. */
double su__now_s(void);

#endif
