/* part.c - one independent part of a placement problem, as the exact search
 * sees it: its unpinned items on the virtual time line (lib/sweep.h), their
 * sections, static ranks and twins, and every pinned buffer as an obstacle. */
#include <stdlib.h>
#include <string.h>

#include "exact/exact.h"

void ex_rank_key(int mode, double t, double w, double size, int i, double *k3) {
  double a = w * size;
  switch (mode) {
  case 0: k3[0] = t; k3[1] = a; k3[2] = w; break;
  case 1: k3[0] = w; k3[1] = a; k3[2] = t; break;
  case 2: k3[0] = a; k3[1] = t; k3[2] = w; break;
  case 3: k3[0] = size; k3[1] = w; k3[2] = t; break;
  case 4: k3[0] = t; k3[1] = w; k3[2] = a; break;
  default: k3[0] = -i; k3[1] = 0; k3[2] = 0; break;
  }
}

typedef struct key_ctx {
  const double *key;
  const int *gid;
} key_ctx;

static int cmp_key(const void *a, const void *b, void *arg) {
  const key_ctx *kc = arg;
  int x = *(const int *)a, y = *(const int *)b;
  for (int k = 0; k < 3; k++) {
    double u = kc->key[3 * x + k], v = kc->key[3 * y + k];
    if (u != v) return u > v ? -1 : 1;
  }
  return kc->gid[x] - kc->gid[y]; /* ties: input order */
}

void ex_rank_sort(int *ord, int m, const double *key, const int *gid) {
  key_ctx kc = {key, gid};
  qsort_r(ord, (size_t)m, sizeof *ord, cmp_key, &kc);
}

/* every pinned buffer of the problem, with raw times */
static void part_obstacles(ex_part *P, const mp_problem *p) {
  int np = 0;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].size > 0) np++;
  size_t pz = (size_t)(np ? np : 1);
  P->np = np;
  P->poff = mp_xmalloc(sizeof(int64_t) * pz);
  P->psz = mp_xmalloc(sizeof(int64_t) * pz);
  P->plo = mp_xmalloc(sizeof(int64_t) * pz);
  P->phi = mp_xmalloc(sizeof(int64_t) * pz);
  for (int i = 0, b = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].size > 0) {
      P->poff[b] = p->items[i].fixed;
      P->psz[b] = p->items[i].size;
      P->plo[b] = p->items[i].lo;
      P->phi[b++] = p->items[i].hi;
    }
}

/* the unpinned members and their sections */
static void part_items(ex_part *P, const mp_problem *p, const int *members, const int64_t *vlo,
                       const int64_t *vhi, int m) {
  mp_sections S;
  mp_sections_init(&S, vlo, vhi, m);
  P->ns = S.ns;
  int nf = 0;
  for (int k = 0; k < m; k++)
    if (p->items[members[k]].fixed < 0) nf++;
  P->n = nf;
  size_t sz = (size_t)(nf ? nf : 1);
  P->gid = mp_xmalloc(sizeof(int) * sz);
  P->size = mp_xmalloc(sizeof(int64_t) * sz);
  P->al = mp_xmalloc(sizeof(int64_t) * sz);
  P->s0 = mp_xmalloc(sizeof(int) * sz);
  P->s1 = mp_xmalloc(sizeof(int) * sz);
  P->ilo = mp_xmalloc(sizeof(int64_t) * sz);
  P->ihi = mp_xmalloc(sizeof(int64_t) * sz);
  for (int k = 0, a = 0; k < m; k++) {
    const mp_item *it = &p->items[members[k]];
    if (it->fixed >= 0) continue;
    P->ilo[a] = it->lo;
    P->ihi[a] = it->hi;
    P->gid[a] = members[k];
    P->size[a] = it->size;
    P->al[a] = it->align < 1 ? 1 : it->align;
    P->s0[a] = S.s0[k];
    P->s1[a++] = S.s1[k];
  }
  mp_sections_destroy(&S);
}

/* items by first section, and the items spanning each section (CSR) */
static void part_index(ex_part *P) {
  int nf = P->n, ns = P->ns;
  P->by_s0 = mp_xmalloc(sizeof(int) * (size_t)(nf ? nf : 1));
  P->first = mp_xcalloc((size_t)ns + 2, sizeof(int));
  for (int i = 0; i < nf; i++) P->first[P->s0[i] + 1]++;
  for (int t = 0; t <= ns; t++) P->first[t + 1] += P->first[t];
  int *fill = mp_xmalloc(sizeof(int) * ((size_t)ns + 1));
  memcpy(fill, P->first, sizeof(int) * ((size_t)ns + 1));
  for (int i = 0; i < nf; i++) P->by_s0[fill[P->s0[i]]++] = i;
  P->sec_start = mp_xcalloc((size_t)ns + 1, sizeof(int));
  for (int i = 0; i < nf; i++)
    for (int t = P->s0[i]; t < P->s1[i]; t++) P->sec_start[t + 1]++;
  for (int t = 0; t < ns; t++) P->sec_start[t + 1] += P->sec_start[t];
  P->sec_items = mp_xmalloc(sizeof(int) * ((size_t)P->sec_start[ns] + 1));
  memcpy(fill, P->sec_start, sizeof(int) * ((size_t)ns + 1));
  for (int i = 0; i < nf; i++)
    for (int t = P->s0[i]; t < P->s1[i]; t++) P->sec_items[fill[t]++] = i;
  free(fill);
}

/* Static ranks: lexicographic keys, largest first.  "total" = the most
 * bytes live in any section the item spans (items in the busiest sections
 * first), area = size x lifetime, width = lifetime.  Then twins: identical
 * items (size, lifetime, alignment), chained in rank order. */
static void part_ranks(ex_part *P, int rank_mode) {
  int nf = P->n;
  size_t sz = (size_t)(nf ? nf : 1);
  int *ord = mp_xmalloc(sizeof(int) * sz);
  double *key = mp_xmalloc(sizeof(double) * 3 * sz);
  double *tot = mp_xcalloc((size_t)P->ns, sizeof(double));
  for (int i = 0; i < nf; i++)
    for (int s = P->s0[i]; s < P->s1[i]; s++) tot[s] += (double)P->size[i];
  P->rank_mode = rank_mode;
  for (int i = 0; i < nf; i++) {
    double t = 0;
    for (int s = P->s0[i]; s < P->s1[i]; s++)
      if (tot[s] > t) t = tot[s];
    ord[i] = i;
    ex_rank_key(rank_mode, t, (double)(P->ihi[i] - P->ilo[i]), (double)P->size[i], i, key + 3 * i);
  }
  free(tot);
  ex_rank_sort(ord, nf, key, P->gid);
  P->rank = mp_xmalloc(sizeof(int) * sz);
  P->twin = mp_xmalloc(sizeof(int) * sz);
  for (int r = 0; r < nf; r++) P->rank[ord[r]] = r;
  for (int r = 0; r < nf; r++) {
    int i = ord[r];
    P->twin[i] = -1;
    for (int q = r - 1; q >= 0; q--) {
      int j = ord[q];
      if (P->size[i] == P->size[j] && P->ilo[i] == P->ilo[j] && P->ihi[i] == P->ihi[j] &&
          P->al[i] == P->al[j]) {
        P->twin[i] = j;
        break;
      }
    }
  }
  free(ord);
  free(key);
}

void ex_part_init(ex_part *P, const mp_problem *p, const int *members, const int64_t *vlo,
                  const int64_t *vhi, int m, int rank_mode) {
  memset(P, 0, sizeof *P);
  part_obstacles(P, p);
  part_items(P, p, members, vlo, vhi, m);
  part_index(P);
  part_ranks(P, rank_mode);
}

void ex_part_destroy(ex_part *P) {
  free(P->gid);
  free(P->size);
  free(P->al);
  free(P->s0);
  free(P->s1);
  free(P->rank);
  free(P->twin);
  free(P->by_s0);
  free(P->first);
  free(P->sec_start);
  free(P->sec_items);
  free(P->poff);
  free(P->psz);
  free(P->plo);
  free(P->phi);
  free(P->ilo);
  free(P->ihi);
  memset(P, 0, sizeof *P);
}
