/* remat_round.c - Checkmate's rounding of the LP relaxation (see
 * remat_milp.h) and the peak of decoded decisions. */
#include <stdlib.h>

#include "lib/remat_check.h"
#include "lib/remat_milp.h"

int64_t rm_peak(const rs_model *m, const rs_dec *d, const int *order) {
  mp_events p;
  mp_events_init(&p);
  rs_decode(m, d, &p);
  int64_t peak = -1;
  if (mp_remat_check(m->g, order, &p, false, &peak, NULL)) peak = -1;
  mp_events_destroy(&p);
  return peak;
}

static void try_rounding(const rs_model *m, rs_dec *d, int64_t budget, rs_dec *best,
                         double *best_cost, int *fits) {
  if (rs_complete(m, d)) return;
  int64_t peak = rm_peak(m, d, NULL);
  if (peak < 0 || peak > budget) return;
  (*fits)++;
  double c = rs_cost(m, d);
  if (c < *best_cost) {
    *best_cost = c;
    rs_dec_copy(best, d);
  }
}

int rm_round(const rs_model *m, const rm_frac *f, const double *thr, int n_thr, int rounds,
             mp_rng *rng, int64_t budget, const mp_ctx *c, rs_dec *best, double *best_cost) {
  rs_dec d;
  rs_dec_init(m, &d);
  size_t ns = ((size_t)m->n_pos + 2) * (size_t)m->nb;
  int fits = 0;
  for (int i = 0; i < n_thr + rounds; i++) {
    if (c && i > 0 && mp_time_up(c)) break;
    for (size_t j = 0; j < ns; j++) {
      double s = f->s[j];
      d.S[j] = i < n_thr ? s >= thr[i] : mp_rng_unit(rng) < s;
    }
    try_rounding(m, &d, budget, best, best_cost, &fits);
  }
  rs_dec_destroy(&d);
  return fits;
}
