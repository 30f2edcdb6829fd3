/* util.h - the leaf every other file may include: allocation, the clock,
 * the random generator, checked arithmetic, alignment and error codes.
 * It includes nothing of the project. */
#ifndef MP_UTIL_H
#define MP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Error codes returned by every fallible call of the library.  Exit codes
 * are chosen from them by the CLI alone (src/cmd_*.c). */
typedef enum mp_err {
  MP_OK = 0,
  MP_EINPUT,   /* bad input: a file or a value that cannot be used */
  MP_EUSAGE,   /* bad request: unknown solver or option, value out of range */
  MP_ESOLVER,  /* a solver failed, refused or gave no plan */
  MP_EIO       /* an output could not be written */
} mp_err;

/* A message to go with an error: what is wrong, naming the file and the
 * node or line. */
typedef struct mp_error {
  char msg[512];
} mp_error;

/* Set the message printf-style; returns -1 for convenience. */
int mp_errorf(mp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* snprintf for messages: one too long for buf keeps its beginning and its
 * end (the reason), " ... " between.  Returns the length it wanted. */
int mp_msgf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int mp_vmsgf(char *buf, size_t cap, const char *fmt, va_list ap);

/* Allocation that exits with a message when memory runs out. */
void *mp_xmalloc(size_t n);
void *mp_xcalloc(size_t n, size_t sz);
void *mp_xrealloc(void *p, size_t n);
/* From now on mp_xmalloc and mp_xcalloc back a block of at least min_bytes
 * (0: none, the default) with memory at once (madvise MADV_POPULATE_WRITE:
 * one call instead of a page fault per page; ignored where the kernel lacks
 * it); mp_xrealloc does not.  For a process's start, before any thread:
 * the CLI sets it (memplan_set_prefault), the library leaves it off. */
void mp_alloc_prefault(size_t min_bytes);
/* Whether the blocks mp_alloc_prefault backs go on transparent huge pages
 * first (madvise MADV_HUGEPAGE on their whole 2 MiB pages; off by default,
 * ignored where the kernel has none).  Set like mp_alloc_prefault. */
void mp_alloc_huge_pages(bool on);
char *mp_xstrdup(const char *s); /* NULL stays NULL */
/* Append printf-formatted text of any length to the malloc'ed string *s
 * (NULL: an empty one). */
void mp_xappendf(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a printf-formatted copy (at most 700 bytes) to the list *list of
 * *n strings, growing it by one. */
void mp_strlist_addf(char ***list, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The one reading of every comma-separated list (solver chains, bench's
 * graphs, seeds, time limits, budgets): the items, each trimmed of spaces
 * and tabs, as a new list of new strings.  An empty item ("a,,b", "a,",
 * ",a", "") is refused, never dropped: -1 with a message naming `what`
 * (the option, "--order") and the list. */
int mp_list_split(const char *what, const char *list, char ***items, int *n, mp_error *err);
void mp_list_free(char **items, int n);

double mp_now(void);     /* monotonic seconds */
/* The busy threads of this process that ended (a run's baseline beside its
 * stages, run_baseline.c): a thread that went alone for want of a free core
 * (the packer's pace, pack_batch.c) looks again when the count moves.  A
 * hint for speed only: no figure or plan depends on it. */
unsigned mp_busy_threads_ended(void);
void mp_busy_thread_ends(void);
/* Tests: mp_now on the calling thread returns fn() instead of the
 * monotonic clock (NULL: the clock again), so a test can make a deadline
 * pass at a chosen clock reading whatever the machine's speed.  Other
 * threads (a run's baseline) keep the real clock. */
void mp_now_override(double (*fn)(void));
/* CPU seconds of the calling thread: a stage's solver call runs on it, and
 * a thread beside it (the baseline, run_baseline.c) must not count. */
double mp_thread_cpu_now(void);

/* splitmix64-seeded xoshiro256** generator: deterministic for a seed. */
typedef struct mp_rng {
  uint64_t s[4];
} mp_rng;
void mp_rng_seed(mp_rng *r, uint64_t seed);
uint64_t mp_rng_next(mp_rng *r);
double mp_rng_unit(mp_rng *r);                /* [0, 1) */
uint64_t mp_rng_below(mp_rng *r, uint64_t n); /* [0, n) */

/* Checked arithmetic on byte counts and times: false when the result does
 * not fit in int64 (and *out is then unspecified). */
static inline bool mp_add_ok(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}
static inline bool mp_mul_ok(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
/* *acc += b * c, checked (a tally of bytes: count x size per kind). */
static inline bool mp_add_mul_ok(int64_t *acc, int64_t b, int64_t c) {
  int64_t t;
  return mp_mul_ok(b, c, &t) && mp_add_ok(*acc, t, acc);
}

/* The limits every reader and option enforces, so that no figure can wrap:
 * one buffer at most 2^56 bytes; the sizes of one problem (every buffer and
 * workspace) sum to at most 2^60; an alignment is at most 2^30 and a pinned
 * offset at most 2^60; at most 2^28 nodes (or CSV rows) and 2^29 buffers.
 * Then even a placement that stacks every buffer, each padded to its
 * alignment, above every pinned one ends below MP_MAX_ARENA = 2^62, where
 * the verifier stops.  Times of a fixed-lifetime file lie in [0, 2^40].
 * The costs of a graph's nodes (DESIGN 6.1) sum to at most 2^60, so that a
 * duration, which counts a node once per run, stays finite. */
#define MP_MAX_SIZE ((int64_t)1 << 56)
#define MP_MAX_TOTAL ((int64_t)1 << 60)
#define MP_MAX_ALIGN ((int64_t)1 << 30)
#define MP_MAX_OFFSET ((int64_t)1 << 60)
#define MP_MAX_TIME ((int64_t)1 << 40)
#define MP_MAX_ARENA ((int64_t)1 << 62)
#define MP_MAX_COST_TOTAL 0x1p60
/* Node ids and counts are ints: a graph has at most this many nodes. */
#define MP_MAX_NODES (1 << 28)

/* MP_CLONES_OK: a function may be built in clones the loader picks from
 * (target_clones: an ifunc).  Not under ThreadSanitizer: the clones'
 * resolver runs while the loader relocates the program, before TSan's
 * runtime is set up, and, instrumented, crashes it at start; the default
 * clone computes the same. */
#if defined(__SANITIZE_THREAD__)
#define MP_CLONES_OK 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MP_CLONES_OK 0
#endif
#endif
#ifndef MP_CLONES_OK
#define MP_CLONES_OK 1
#endif

/* Exact text to number: the whole string, no blanks, no wrap-around or
 * clamping (a value beyond the type is an error, not its maximum).  0, or
 * MP_PARSE_BAD / MP_PARSE_RANGE (an integer beyond the type) with *why set
 * to a short reason ("not an integer", "out of range", "not a finite
 * number"). */
enum { MP_PARSE_BAD = -1, MP_PARSE_RANGE = -2 };
int mp_parse_int64(const char *s, int64_t *out, const char **why);
int mp_parse_uint64(const char *s, uint64_t *out, const char **why);
/* Reals: NaN and infinities are refused (they pass no range check). */
int mp_parse_real(const char *s, double *out, const char **why);
/* A number as it should be printed: integers (|x| < 2^53) without a
 * fraction or exponent, others with the 17 digits that round-trip. */
void mp_format_number(double x, char *out, size_t cap);
/* x rounded to 12 significant digits, as the figures of `solve --format
 * json` (and so the results rows) are: no float noise in the files. */
double mp_round12(double x);
/* The lower median of the values of v[0..n) that are not NaN (absent), NaN
 * if none; v is reordered. */
double mp_median_present(double *v, int n);
/* Sort a[0..n) and drop repeats; returns how many are kept. */
int mp_sort_unique_ints(int *a, int n);

/* Sort m (key, val) pairs by key, stably (val rides along): an LSD radix
 * sort over the key's bytes that skips a byte all keys share, so O(m x the
 * bytes in which keys differ) instead of a comparison sort's O(m log m)
 * calls.  Signed keys: pass mp_radix_key(x), which keeps their order. */
void mp_radix_sort(uint64_t *key, uint32_t *val, size_t m);
/* v in decimal as printf's %lld writes it, at p (room for 20 chars); returns
 * the end (no NUL).  For the writers of 10^6 keys and offsets, where
 * snprintf took most of the time. */
static inline char *mp_put_decimal(char *p, int64_t v) {
  char t[20], *e = t + sizeof t, *q = e;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do *--q = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) *p++ = '-';
  while (q < e) *p++ = *q++;
  return p;
}
static inline uint64_t mp_radix_key(int64_t x) { return (uint64_t)x ^ ((uint64_t)1 << 63); }
/* Sort m records of `size` bytes in place, stably, by several keys:
 * key_of(record, pass) for pass 0 .. passes - 1, the least significant
 * first (a radix sort of the order per pass, then one permutation). */
typedef uint64_t (*mp_radix_key_fn)(const void *rec, int pass);
void mp_radix_sort_records(void *rec, size_t size, size_t m, int passes, mp_radix_key_fn key_of);

/* FNV-1a, 64 bits: the readers' and the verifier's hash tables of names.
 * mp_hash_more continues a hash over n more bytes (start from
 * MP_HASH_START). */
#define MP_HASH_START 1469598103934665603ULL
uint64_t mp_hash_more(uint64_t h, const void *bytes, size_t n);
uint64_t mp_str_hash(const char *s);

/* x rounded up to a multiple of a (a >= 1).  Callers keep x and a far below
 * INT64_MAX (the limits above); mp_align_up_ok checks. */
static inline int64_t mp_align_up(int64_t x, int64_t a) {
  return a <= 1 ? x : (x + a - 1) / a * a;
}
static inline bool mp_align_up_ok(int64_t x, int64_t a, int64_t *out) {
  if (a <= 1) return (*out = x), true;
  int64_t t;
  if (!mp_add_ok(x, a - 1, &t)) return false;
  *out = t / a * a;
  return true;
}

/* Greatest common divisor of a, b >= 0 (gcd(a, 0) = a). */
static inline int64_t mp_gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The lcm of alignments a, b >= 1, or 0 when it passes MP_MAX_ALIGN
 * (alignments that are not powers of two: it could pass any int64). */
static inline int64_t mp_align_lcm(int64_t a, int64_t b) {
  int64_t q = a / mp_gcd(a, b);
  return q > MP_MAX_ALIGN / b ? 0 : q * b;
}

#endif
