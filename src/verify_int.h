/* verify_int.h - what the judge's files share (verify.c: plans of an
 * order and fixed-lifetime plans; verify_events.c: event plans).  Model
 * headers only, like the judge itself. */
#ifndef MP_VERIFY_INT_H
#define MP_VERIFY_INT_H

#include <jansson.h>

#include "events.h"
#include "io_util.h"
#include "verify.h"

/* A figure the plan states recomputes: integers exactly, reals to 1e-9
 * (they were printed with 12 significant digits); absent or null: not
 * stated.  0, or -1 with err. */
int mp_vf_figure(mp_jdoc *plan, const char *key, double want, bool integer, mp_error *err);
/* An integer figure (bytes, counts): compared as an integer, so that a
 * figure above 2^53 off by one is not read as equal through a double. */
int mp_vf_count(mp_jdoc *plan, const char *key, int64_t want, mp_error *err);
/* An integer the plan states as an input to other figures: *out, or -1
 * when absent or null.  0, or -1 with err when it is not an integer >= 0. */
int mp_vf_stated(mp_jdoc *plan, const char *key, int64_t *out, mp_error *err);
/* The figures of DESIGN 1.3 of a verified placement of p.  A stated
 * lower_bound must lie in [least_lb, live peak]: least_lb is the bound
 * every plan of its kind meets (per-node for an order, the events floor).
 * The recomputed figures in *out (may be NULL). */
int mp_vf_figures(const mp_graph *g, mp_jdoc *plan, const mp_problem *p, const int64_t *off,
                  int64_t least_lb, mp_figures *out, mp_error *err);
/* The plan's alignment: "align", or the override when > 0 (default 64);
 * -1 with err when "align" is there but no integer in [1, MP_MAX_ALIGN]. */
int mp_vf_align(mp_jdoc *plan, int64_t align_override, int64_t *align, mp_error *err);

/* Offsets read from members of "offsets" by name: per slot (a buffer or a
 * residency) the value under its main name, else under its other name
 * (MP_VF_ALT: "J:0"); a later member of the same name replaces an earlier
 * one, as in a whole-file parse; both names at once are an error.  `off`
 * is the caller's. */
enum { MP_VF_MAIN = 1, MP_VF_ALT = 2, MP_VF_INT = 4 };
typedef struct mp_vf_slots {
  int64_t *off;
  unsigned char *state; /* MP_VF_MAIN or MP_VF_ALT, | MP_VF_INT when an integer */
} mp_vf_slots;
void mp_vf_slots_init(mp_vf_slots *s, int n, int64_t *off);
void mp_vf_slots_destroy(mp_vf_slots *s);
/* 0, or -1 when the slot already has a value under its other name. */
int mp_vf_slots_take(mp_vf_slots *s, int i, unsigned char which, json_t *v);

/* An event plan (a plan with "events"): the rules of DESIGN 6.2, the first
 * runs against "order", the budget, the residencies' offsets and every
 * figure.  0 (what it recomputed in *out, which may be NULL), or -1 with
 * err naming the first violation. */
int mp_vf_events_plan(const mp_graph *g, mp_jdoc *plan, int64_t align_override, mp_plan_facts *out,
                      mp_error *err);

#endif
