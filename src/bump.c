/* bump.c - the chunked bump allocator of bump.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bump.h"
#include "util.h"

/* Under AddressSanitizer each piece is followed by a poisoned gap, so an
 * overrun of one node's array is still caught as it was with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define BUMP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUMP_ASAN 1
#endif
#endif
#ifdef BUMP_ASAN
#include <sanitizer/asan_interface.h>
#define REDZONE 16
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define REDZONE 0
#endif

#define FIRST_CHUNK ((size_t)4 << 10)
#define MAX_CHUNK ((size_t)1 << 20)

struct mp_bump_chunk {
  mp_bump_chunk *next;
  size_t size;
  _Alignas(8) char data[];
};

static mp_bump_chunk *new_chunk(size_t size) {
  if (size > SIZE_MAX - sizeof(mp_bump_chunk)) {
    fprintf(stderr, "memplan: out of memory (%zu bytes)\n", size);
    exit(3);
  }
  mp_bump_chunk *c = mp_xcalloc(1, sizeof *c + size); /* calloc: pieces come zeroed */
  c->size = size;
  ASAN_POISON_MEMORY_REGION(c->data, size);
  return c;
}

/* A piece too big to share a chunk: its own chunk, behind the head so the
 * head's free space stays in use. */
static void *own_chunk(mp_bump *b, size_t n) {
  mp_bump_chunk *c = new_chunk(n);
  if (b->head) {
    c->next = b->head->next;
    b->head->next = c;
  } else {
    b->head = c;
    b->used = b->cap = n;
  }
  ASAN_UNPOISON_MEMORY_REGION(c->data, n);
  return c->data;
}

static void *cut(mp_bump *b, size_t n, size_t align) {
  size_t at = (b->used + align - 1) & ~(align - 1);
  if (!b->head || at > b->cap || b->cap - at < n + REDZONE) {
    if (!b->next_cap) b->next_cap = FIRST_CHUNK;
    if (n > b->next_cap / 4) return own_chunk(b, n);
    mp_bump_chunk *c = new_chunk(b->next_cap);
    c->next = b->head;
    b->head = c;
    b->cap = b->next_cap;
    if (b->next_cap < MAX_CHUNK) b->next_cap *= 2;
    at = 0;
  }
  char *p = b->head->data + at;
  b->used = at + n + REDZONE;
  ASAN_UNPOISON_MEMORY_REGION(p, n);
  return p;
}

void *mp_bump_array(mp_bump *b, size_t n, size_t sz) {
  if (!n) n = 1;
  if (sz && n > SIZE_MAX / sz) {
    fprintf(stderr, "memplan: out of memory (%zu x %zu bytes)\n", n, sz);
    exit(3);
  }
  size_t bytes = n * sz;
  return cut(b, bytes ? bytes : 1, 8);
}

char *mp_bump_strdup(mp_bump *b, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  return memcpy(cut(b, n, 1), s, n);
}

static size_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (size_t)h;
}

static void set_grow(mp_bump *b) {
  size_t cap = b->set_cap ? 2 * b->set_cap : 64;
  char **set = mp_xcalloc(cap, sizeof *set);
  for (size_t i = 0; i < b->set_cap; i++) {
    if (!b->set[i]) continue;
    size_t j = hash_str(b->set[i]) & (cap - 1);
    while (set[j]) j = (j + 1) & (cap - 1);
    set[j] = b->set[i];
  }
  free(b->set);
  b->set = set;
  b->set_cap = cap;
}

char *mp_bump_intern(mp_bump *b, const char *s) {
  if (!s) return NULL;
  if (2 * (b->set_n + 1) > b->set_cap) set_grow(b);
  size_t j = hash_str(s) & (b->set_cap - 1);
  for (; b->set[j]; j = (j + 1) & (b->set_cap - 1))
    if (strcmp(b->set[j], s) == 0) return b->set[j];
  b->set_n++;
  return b->set[j] = mp_bump_strdup(b, s);
}

void mp_bump_adopt(mp_bump *dst, mp_bump *src) {
  if (!src->head) return;
  mp_bump_chunk *last = src->head;
  while (last->next) last = last->next;
  if (dst->head) { /* behind dst's head, whose free space stays in use */
    last->next = dst->head->next;
    dst->head->next = src->head;
  } else {
    dst->head = src->head;
    dst->used = src->used;
    dst->cap = src->cap;
    dst->next_cap = src->next_cap;
  }
  free(src->set);
  memset(src, 0, sizeof *src);
}

void mp_bump_free(mp_bump *b) {
  for (mp_bump_chunk *c = b->head, *next; c; c = next) {
    next = c->next;
    ASAN_UNPOISON_MEMORY_REGION(c->data, c->size);
    free(c);
  }
  free(b->set);
  memset(b, 0, sizeof *b);
}
