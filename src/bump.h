/* bump.h - a chunked bump allocator for pieces that live and die together.
 * A graph of 10^5 nodes made a dozen small mallocs per node (its name, op,
 * sizes, inputs and lists); their headers and rounding were about a sixth
 * of the heap at its peak (massif, dtr on the 10^5 training step).  Here
 * pieces are cut one after another from a few big chunks and freed all at
 * once.  (Not "arena": that word is the placement's.)
 * A zeroed mp_bump is empty and valid. */
#ifndef MP_BUMP_H
#define MP_BUMP_H

#include <stddef.h>

typedef struct mp_bump_chunk mp_bump_chunk;

typedef struct mp_bump {
  mp_bump_chunk *head;  /* the chunk being cut, then the older ones */
  size_t used, cap;     /* bytes of head cut and available */
  size_t next_cap;      /* the size of the next chunk (grows) */
  char **set;           /* mp_bump_intern's strings (open addressing) */
  size_t set_cap, set_n;
} mp_bump;

/* n zeroed items of sz bytes (at least one item, as the readers always
 * allocated), aligned for any scalar up to 8 bytes (int64_t, pointers);
 * never NULL (exits when memory runs out, like mp_xmalloc).  Large
 * requests get a chunk of their own. */
void *mp_bump_array(mp_bump *b, size_t n, size_t sz);
/* A copy of s (NULL stays NULL), not aligned. */
char *mp_bump_strdup(mp_bump *b, const char *s);
/* One copy per distinct string: op names repeat on most nodes. */
char *mp_bump_intern(mp_bump *b, const char *s);
/* Every piece of src now lives and dies with dst; src is empty again (its
 * interned strings are no longer found by mp_bump_intern). */
void mp_bump_adopt(mp_bump *dst, mp_bump *src);
/* Free every piece; b is empty again. */
void mp_bump_free(mp_bump *b);

#endif
