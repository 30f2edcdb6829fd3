/* part.c - one independent part of a placement problem, as the exact search
 * sees it: its unpinned items on the virtual time line (lib/sweep.h), their
 * sections, static ranks and twins, and every pinned buffer as an obstacle.
 *
 * The set-up never compares items pairwise: the geometry (O(n log n)) is
 * built once per part and shared by its rank copies, which own only their
 * ranks and twins (a sort each); the pinned buffers are stored once for
 * all parts; the rank keys' totals and the per-section item lists (for the
 * threshold inference alone) take O(section entries), after the memory
 * estimate (ex_part_bytes) has accepted them. */
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

void ex_pins_init(ex_pins *Q, const mp_problem *p) {
  int np = 0;
  for (int i = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].size > 0) np++;
  size_t pz = (size_t)(np ? np : 1);
  Q->np = np;
  Q->off = mp_xmalloc(sizeof(int64_t) * pz);
  Q->sz = mp_xmalloc(sizeof(int64_t) * pz);
  Q->lo = mp_xmalloc(sizeof(int64_t) * pz);
  Q->hi = mp_xmalloc(sizeof(int64_t) * pz);
  for (int i = 0, b = 0; i < p->n; i++)
    if (p->items[i].fixed >= 0 && p->items[i].size > 0) {
      Q->off[b] = p->items[i].fixed;
      Q->sz[b] = p->items[i].size;
      Q->lo[b] = p->items[i].lo;
      Q->hi[b++] = p->items[i].hi;
    }
}

void ex_pins_destroy(ex_pins *Q) {
  free(Q->off);
  free(Q->sz);
  free(Q->lo);
  free(Q->hi);
  memset(Q, 0, sizeof *Q);
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
  P->spans = 0;
  for (int k = 0, a = 0; k < m; k++) {
    const mp_item *it = &p->items[members[k]];
    if (it->fixed >= 0) continue;
    P->ilo[a] = it->lo;
    P->ihi[a] = it->hi;
    P->gid[a] = members[k];
    P->size[a] = it->size;
    P->al[a] = it->align < 1 ? 1 : it->align;
    P->s0[a] = S.s0[k];
    P->s1[a] = S.s1[k];
    P->spans += S.s1[k] - S.s0[k];
    a++;
  }
  mp_sections_destroy(&S);
}

/* items by first section */
static void part_by_start(ex_part *P) {
  int nf = P->n, ns = P->ns;
  P->by_s0 = mp_xmalloc(sizeof(int) * (size_t)(nf ? nf : 1));
  P->first = mp_xcalloc((size_t)ns + 2, sizeof(int));
  for (int i = 0; i < nf; i++) P->first[P->s0[i] + 1]++;
  for (int t = 0; t <= ns; t++) P->first[t + 1] += P->first[t];
  int *fill = mp_xmalloc(sizeof(int) * ((size_t)ns + 1));
  memcpy(fill, P->first, sizeof(int) * ((size_t)ns + 1));
  for (int i = 0; i < nf; i++) P->by_s0[fill[P->s0[i]]++] = i;
  free(fill);
}

/* Summed in doubles in item order, as the ranks have always been. */
void ex_part_totals(ex_part *P) {
  int nf = P->n;
  double *tot = mp_xcalloc((size_t)P->ns, sizeof(double));
  for (int i = 0; i < nf; i++)
    for (int s = P->s0[i]; s < P->s1[i]; s++) tot[s] += (double)P->size[i];
  P->busiest = mp_xmalloc(sizeof(double) * (size_t)(nf ? nf : 1));
  for (int i = 0; i < nf; i++) {
    double t = 0;
    for (int s = P->s0[i]; s < P->s1[i]; s++)
      if (tot[s] > t) t = tot[s];
    P->busiest[i] = t;
  }
  free(tot);
}

void ex_part_init(ex_part *P, const mp_problem *p, const ex_pins *pins, const int *members,
                  const int64_t *vlo, const int64_t *vhi, int m) {
  memset(P, 0, sizeof *P);
  P->owner = true;
  P->rank_mode = -1;
  P->np = pins->np;
  P->poff = pins->off;
  P->psz = pins->sz;
  P->plo = pins->lo;
  P->phi = pins->hi;
  part_items(P, p, members, vlo, vhi, m);
  part_by_start(P);
}

/* the items spanning each section (CSR), for the threshold inference */
void ex_part_sec_lists(ex_part *P) {
  int nf = P->n, ns = P->ns;
  P->sec_start = mp_xcalloc((size_t)ns + 1, sizeof(int));
  for (int i = 0; i < nf; i++)
    for (int t = P->s0[i]; t < P->s1[i]; t++) P->sec_start[t + 1]++;
  for (int t = 0; t < ns; t++) P->sec_start[t + 1] += P->sec_start[t];
  P->sec_items = mp_xmalloc(sizeof(int) * ((size_t)P->sec_start[ns] + 1));
  int *fill = mp_xmalloc(sizeof(int) * ((size_t)ns + 1));
  memcpy(fill, P->sec_start, sizeof(int) * ((size_t)ns + 1));
  for (int i = 0; i < nf; i++)
    for (int t = P->s0[i]; t < P->s1[i]; t++) P->sec_items[fill[t]++] = i;
  free(fill);
}

typedef struct twin_ctx {
  const ex_part *P;
  const int *rank;
} twin_ctx;

static bool identical(const ex_part *P, int i, int j) {
  return P->size[i] == P->size[j] && P->ilo[i] == P->ilo[j] && P->ihi[i] == P->ihi[j] &&
         P->al[i] == P->al[j];
}

/* identical items (size, raw lifetime, alignment) together, in rank order */
static int cmp_twin(const void *a, const void *b, void *arg) {
  const twin_ctx *tc = arg;
  const ex_part *P = tc->P;
  int x = *(const int *)a, y = *(const int *)b;
  if (P->size[x] != P->size[y]) return P->size[x] < P->size[y] ? -1 : 1;
  if (P->ilo[x] != P->ilo[y]) return P->ilo[x] < P->ilo[y] ? -1 : 1;
  if (P->ihi[x] != P->ihi[y]) return P->ihi[x] < P->ihi[y] ? -1 : 1;
  if (P->al[x] != P->al[y]) return P->al[x] < P->al[y] ? -1 : 1;
  return tc->rank[x] - tc->rank[y];
}

void ex_part_twins(const ex_part *P, const int *rank, int *twin) {
  int nf = P->n;
  int *ord = mp_xmalloc(sizeof(int) * (size_t)(nf ? nf : 1));
  for (int i = 0; i < nf; i++) ord[i] = i;
  twin_ctx tc = {P, rank};
  qsort_r(ord, (size_t)nf, sizeof *ord, cmp_twin, &tc);
  /* within a run of identical items, each one's twin is the one before */
  for (int q = 0; q < nf; q++)
    twin[ord[q]] = q > 0 && identical(P, ord[q], ord[q - 1]) ? ord[q - 1] : -1;
  free(ord);
}

/* Static ranks: lexicographic keys, largest first (ex_rank_key).  Then
 * twins: each item's nearest identical item (size, lifetime, alignment)
 * earlier in rank order, or -1. */
void ex_part_ranked(ex_part *P, const ex_part *base, int rank_mode) {
  *P = *base;
  P->owner = false;
  P->rank_mode = rank_mode;
  int nf = P->n;
  size_t sz = (size_t)(nf ? nf : 1);
  int *ord = mp_xmalloc(sizeof(int) * sz);
  double *key = mp_xmalloc(sizeof(double) * 3 * sz);
  for (int i = 0; i < nf; i++) {
    ord[i] = i;
    ex_rank_key(rank_mode, P->busiest[i], (double)(P->ihi[i] - P->ilo[i]), (double)P->size[i], i,
                key + 3 * i);
  }
  ex_rank_sort(ord, nf, key, P->gid);
  P->rank = mp_xmalloc(sizeof(int) * sz);
  P->twin = mp_xmalloc(sizeof(int) * sz);
  for (int r = 0; r < nf; r++) P->rank[ord[r]] = r;
  ex_part_twins(P, P->rank, P->twin);
  free(ord);
  free(key);
}

bool ex_part_bytes(const ex_part *base, int64_t *geometry, int64_t *sec_lists, int64_t *ranked) {
  int64_t n = base->n, ns = base->ns;
  /* per item: gid, size, al, s0, s1, ilo, ihi, busiest, by_s0, and the
   * sections' scratch; per section: first, its fill copy, the totals */
  *geometry = 0;
  *sec_lists = 0;
  *ranked = 0;
  bool ok = mp_add_mul_ok(geometry, n, 56 + 24) && mp_add_mul_ok(geometry, ns + 2, 4 + 4 + 8);
  /* sec_start, its fill copy, sec_items: int indices (beyond an int's
   * range, more than any memory holds) */
  if (base->spans >= INT32_MAX)
    *sec_lists = INT64_MAX;
  else
    ok = ok && mp_add_mul_ok(sec_lists, ns + 1, 8) && mp_add_mul_ok(sec_lists, base->spans + 1, 4);
  /* rank and twin, kept; the order, its keys and the twins' order, scratch */
  return ok && mp_add_mul_ok(ranked, n, 8 + 32);
}

void ex_part_destroy(ex_part *P) {
  free(P->rank);
  free(P->twin);
  if (P->owner) {
    free(P->gid);
    free(P->size);
    free(P->al);
    free(P->s0);
    free(P->s1);
    free(P->by_s0);
    free(P->first);
    free(P->sec_start);
    free(P->sec_items);
    free(P->ilo);
    free(P->ihi);
    free(P->busiest);
  }
  memset(P, 0, sizeof *P);
}
