/* util.c - allocation, time, the random generator and error formatting. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels refuse it (EINVAL) */
#endif
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14 /* refused (EINVAL) by kernels without transparent huge pages */
#endif

static size_t prefault_min; /* 0: off */
static bool prefault_huge;

void mp_alloc_prefault(size_t min_bytes) { prefault_min = min_bytes; }
void mp_alloc_huge_pages(bool on) { prefault_huge = on; }

/* madvise(advice) on the whole units of [p, p + n), a unit a power of two
 * bytes; nothing when no whole unit fits.  The kernel's answer is ignored:
 * a kernel without the advice refuses it, and the block works either way. */
static void advise_units(void *p, size_t n, uintptr_t unit, int advice) {
  uintptr_t mask = unit - 1, lo = ((uintptr_t)p + mask) & ~mask, hi = ((uintptr_t)p + n) & ~mask;
  if (hi > lo) (void)madvise((void *)lo, hi - lo, advice);
}

/* The whole pages of [p, p + n) backed now.  On this project's virtual
 * machine a page fault costs several microseconds of system time: greedy +
 * noreuse at 10^6 nodes spent a third of its CPU time faulting in the
 * arrays it allocates (README, "Memory backed at once"). */
static void *prefault(void *p, size_t n) {
  if (!prefault_min || n < prefault_min) return p;
  long page = sysconf(_SC_PAGESIZE);
  /* huge pages first, the whole 2 MiB ones (x86-64's; where huge pages are
   * larger the advice only marks the range), so that the population takes
   * them: on this project's virtual machine a populated 4 KiB page still
   * took about 5 us to write first, a huge page's share of that far less
   * (README, "Huge pages"; scripts/page_touch.sh) */
  if (prefault_huge) advise_units(p, n, (uintptr_t)2 << 20, MADV_HUGEPAGE);
  advise_units(p, n, page > 0 ? (uintptr_t)page : 4096, MADV_POPULATE_WRITE);
  return p;
}

void *mp_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "memplan: out of memory (%zu bytes)\n", n);
    exit(3);
  }
  return prefault(p, n);
}

void *mp_xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (!p) {
    fprintf(stderr, "memplan: out of memory (%zu x %zu bytes)\n", n, sz);
    exit(3);
  }
  return prefault(p, n * sz); /* calloc checked the product */
}

void *mp_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fprintf(stderr, "memplan: out of memory (%zu bytes)\n", n);
    exit(3);
  }
  return q; /* not backed: a grown block's new part may stay unused (arrays that double) */
}

char *mp_xstrdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = mp_xmalloc(n);
  memcpy(d, s, n);
  return d;
}

double mp_thread_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* per thread: a test's clock drives the thread that set it, never the
 * baseline's thread beside a run (run_baseline.c) */
static _Thread_local double (*now_override)(void);

void mp_now_override(double (*fn)(void)) { now_override = fn; }

double mp_now(void) {
  if (now_override) return now_override();
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static atomic_uint busy_ended;

unsigned mp_busy_threads_ended(void) { return atomic_load_explicit(&busy_ended, memory_order_relaxed); }

void mp_busy_thread_ends(void) { atomic_fetch_add_explicit(&busy_ended, 1, memory_order_relaxed); }

/* Where a cut at byte i of s may fall: not inside a UTF-8 character. */
static size_t char_start(const char *s, size_t i) {
  while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80) i--;
  return i;
}

/* A message longer than its buffer keeps its beginning and its end, where
 * the reason is ("PATH: cannot open: File name too long" with a 5,000-byte
 * PATH kept only the path), with " ... " between. */
int mp_vmsgf(char *buf, size_t cap, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(buf, cap, fmt, ap);
  if (n >= 0 && (size_t)n >= cap && cap >= 64) {
    char *all = mp_xmalloc((size_t)n + 1);
    vsnprintf(all, (size_t)n + 1, fmt, again);
    size_t head = char_start(all, (cap - 6) / 4), tail = cap - 6 - head;
    size_t from = (size_t)n - tail;
    while (from < (size_t)n && ((unsigned char)all[from] & 0xc0) == 0x80) from++;
    snprintf(buf, cap, "%.*s ... %s", (int)head, all, all + from);
    free(all);
  }
  va_end(again);
  return n;
}

int mp_msgf(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = mp_vmsgf(buf, cap, fmt, ap);
  va_end(ap);
  return n;
}

int mp_errorf(mp_error *err, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    mp_vmsgf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return -1;
}

void mp_xappendf(char **s, const char *fmt, ...) {
  size_t l = *s ? strlen(*s) : 0;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (k < 0) k = 0;
  *s = mp_xrealloc(*s, l + (size_t)k + 1);
  va_start(ap, fmt);
  vsnprintf(*s + l, (size_t)k + 1, fmt, ap);
  va_end(ap);
}

void mp_strlist_addf(char ***list, int *n, const char *fmt, ...) {
  char buf[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  *list = mp_xrealloc(*list, sizeof(char *) * (size_t)(*n + 1));
  (*list)[(*n)++] = mp_xstrdup(buf);
}

int mp_list_split(const char *what, const char *list, char ***items, int *n, mp_error *err) {
  char **l = NULL;
  int k = 0;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ",");
    const char *a = p, *b = p + len;
    while (a < b && (*a == ' ' || *a == '\t')) a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
    if (a == b) {
      mp_list_free(l, k);
      if (!list[0]) return mp_errorf(err, "%s '': an empty list", what);
      return mp_errorf(err, "%s '%s': item %d is empty (items are separated by one comma)", what,
                       list, k + 1);
    }
    l = mp_xrealloc(l, sizeof(char *) * (size_t)(k + 1));
    l[k] = mp_xmalloc((size_t)(b - a) + 1);
    memcpy(l[k], a, (size_t)(b - a));
    l[k++][b - a] = 0;
    p += len;
    if (!*p) break;
  }
  *items = l;
  *n = k;
  return 0;
}

void mp_list_free(char **items, int n) {
  for (int i = 0; i < n; i++) free(items[i]);
  free(items);
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void mp_rng_seed(mp_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t mp_rng_next(mp_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double mp_rng_unit(mp_rng *r) { return (double)(mp_rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t mp_rng_below(mp_rng *r, uint64_t n) {
  if (n <= 1) return 0;
  /* Lemire's multiply-shift with rejection: unbiased */
  uint64_t x = mp_rng_next(r);
  __uint128_t m = (__uint128_t)x * n;
  uint64_t l = (uint64_t)m;
  if (l < n) {
    uint64_t t = -n % n;
    while (l < t) {
      x = mp_rng_next(r);
      m = (__uint128_t)x * n;
      l = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

int mp_parse_int64(const char *s, int64_t *out, const char **why) {
  const char *w = "not an integer";
  if (!s || !*s || isspace((unsigned char)*s)) goto bad;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end) goto bad;
  if (errno == ERANGE) {
    if (why) *why = "out of range (a signed 64-bit integer: -2^63 to 2^63 - 1)";
    return MP_PARSE_RANGE;
  }
  *out = (int64_t)v;
  return 0;
bad:
  if (why) *why = w;
  return MP_PARSE_BAD;
}

int mp_parse_uint64(const char *s, uint64_t *out, const char **why) {
  const char *w = "not a non-negative integer";
  if (!s || !isdigit((unsigned char)*s)) goto bad; /* strtoull would take "-1" */
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end) goto bad;
  if (errno == ERANGE) {
    if (why) *why = "out of range (beyond 64 bits)";
    return MP_PARSE_RANGE;
  }
  *out = (uint64_t)v;
  return 0;
bad:
  if (why) *why = w;
  return MP_PARSE_BAD;
}

int mp_parse_real(const char *s, double *out, const char **why) {
  const char *w = "not a number";
  /* strtod also reads hexadecimal ("0x10" is 16): only decimal is taken */
  if (!s || !*s || isspace((unsigned char)*s) || strpbrk(s, "xX")) goto bad;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end) goto bad;
  if (!isfinite(v)) { /* "nan", "inf" and overflow (HUGE_VAL) */
    w = "not a finite number";
    goto bad;
  }
  if (errno == ERANGE && v == 0) { /* "1e-400": read as 0, which often means "none" */
    w = "out of range (rounds to 0)";
    goto bad;
  }
  *out = v;
  return 0;
bad:
  if (why) *why = w;
  return -1;
}

double mp_round12(double x) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.12g", x);
  return strtod(buf, NULL);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int mp_sort_unique_ints(int *a, int n) {
  if (n <= 1) return n;
  if (n <= 16) { /* most lists (a node's inputs): qsort's set-up dominated */
    for (int i = 1; i < n; i++) {
      int x = a[i], j = i;
      for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
      a[j] = x;
    }
  } else {
    qsort(a, (size_t)n, sizeof *a, cmp_int);
  }
  int m = 1;
  for (int i = 1; i < n; i++)
    if (a[i] != a[m - 1]) a[m++] = a[i];
  return m;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double mp_median_present(double *v, int n) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!isnan(v[i])) v[k++] = v[i];
  if (!k) return NAN;
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return v[(k - 1) / 2];
}

void mp_format_number(double x, char *out, size_t cap) {
  if (x == floor(x) && fabs(x) < 9007199254740992.0)
    snprintf(out, cap, "%lld", (long long)x);
  else
    for (int digits = 15; digits <= 17; digits++) { /* the shortest that reads back */
      snprintf(out, cap, "%.*g", digits, x);
      if (strtod(out, NULL) == x) break;
    }
}

/* One pass finds the bytes in which keys differ, one more counts them all,
 * then one stable scatter per such byte, back and forth between two
 * buffers. */
void mp_radix_sort(uint64_t *key, uint32_t *val, size_t m) {
  if (m < 2) return;
  uint64_t differ = 0;
  for (size_t k = 1; k < m; k++) differ |= key[k] ^ key[0];
  int bytes[8], nb = 0;
  for (int d = 0; d < 8; d++)
    if ((differ >> (8 * d)) & 255) bytes[nb++] = d;
  if (nb == 0) return;
  size_t(*count)[256] = mp_xcalloc((size_t)nb, sizeof *count);
  for (size_t k = 0; k < m; k++)
    for (int j = 0; j < nb; j++) count[j][(key[k] >> (8 * bytes[j])) & 255]++;
  uint64_t *k_from = key, *k_to = mp_xmalloc(sizeof(uint64_t) * m), *k_spare = k_to;
  uint32_t *v_from = val, *v_to = mp_xmalloc(sizeof(uint32_t) * m), *v_spare = v_to;
  for (int j = 0; j < nb; j++) {
    int d = bytes[j];
    size_t *at = count[j], sum = 0;
    for (int b = 0; b < 256; b++) {
      size_t c = at[b];
      at[b] = sum;
      sum += c;
    }
    for (size_t k = 0; k < m; k++) {
      size_t to = at[(k_from[k] >> (8 * d)) & 255]++;
      k_to[to] = k_from[k];
      v_to[to] = v_from[k];
    }
    uint64_t *kt = k_from;
    uint32_t *vt = v_from;
    k_from = k_to, v_from = v_to, k_to = kt, v_to = vt;
  }
  if (k_from != key) {
    memcpy(key, k_from, sizeof(uint64_t) * m);
    memcpy(val, v_from, sizeof(uint32_t) * m);
  }
  free(k_spare);
  free(v_spare);
  free(count);
}

void mp_radix_sort_records(void *rec, size_t size, size_t m, int passes, mp_radix_key_fn key_of) {
  if (m < 2) return;
  char *r = rec;
  uint64_t *key = mp_xmalloc(sizeof(uint64_t) * m);
  uint32_t *idx = mp_xmalloc(sizeof(uint32_t) * m);
  for (size_t k = 0; k < m; k++) idx[k] = (uint32_t)k;
  for (int pass = 0; pass < passes; pass++) {
    for (size_t k = 0; k < m; k++) key[k] = key_of(r + (size_t)idx[k] * size, pass);
    mp_radix_sort(key, idx, m);
  }
  char *sorted = mp_xmalloc(size * m);
  /* the usual record sizes copied with a constant size (inlined), not a
   * call per record */
#define COPY_ALL(SZ) \
  for (size_t k = 0; k < m; k++) memcpy(sorted + k * (SZ), r + (size_t)idx[k] * (SZ), (SZ))
  if (size == 8) COPY_ALL(8);
  else if (size == 16) COPY_ALL(16);
  else if (size == 24) COPY_ALL(24);
  else COPY_ALL(size);
#undef COPY_ALL
  memcpy(r, sorted, size * m);
  free(sorted);
  free(key);
  free(idx);
}

uint64_t mp_hash_more(uint64_t h, const void *bytes, size_t n) {
  const unsigned char *c = bytes;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}

uint64_t mp_str_hash(const char *s) { return mp_hash_more(MP_HASH_START, s, strlen(s)); }
