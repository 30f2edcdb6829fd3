/* igraph_util.h - the library's one door to igraph's error handling.
 *
 * igraph reports a failure (out of memory, a bad argument) through its
 * error handler before the failing call returns its code, and the default
 * handler prints "Error at FILE:LINE" and aborts the process: `memplan gen
 * randwire --model er -n 100000 -p 1` died with SIGABRT before the code's
 * check of the returned code ran.  So every igraph caller of the library
 * (src/gen.c, solvers/coloring.c) calls mp_igraph_init() before its first
 * igraph call, checks every returned code, and reports a failure with
 * mp_igraph_error(code).
 *
 * mp_igraph_init installs, once per process, a handler that keeps igraph's
 * message, frees igraph's temporaries (IGRAPH_FINALLY_FREE, as igraph's own
 * non-aborting handlers do) and returns, so that the call returns its error
 * code.  A program that installed its own handler before (one that is not
 * igraph's aborting default) keeps it. */
#ifndef MP_IGRAPH_UTIL_H
#define MP_IGRAPH_UTIL_H

#include <igraph.h>

/* Call before a sequence of igraph calls (it also forgets an earlier
 * failure's message). */
void mp_igraph_init(void);

/* igraph as Debian builds it is not thread-safe (IGRAPH_THREAD_SAFE 0: one
 * stack of temporaries, one default RNG per process): two threads in
 * igraph at once abort the process ("Corrupt finally stack").  Every
 * sequence of igraph calls of the library holds this process-wide lock,
 * so that memplan.h's calls may run on several threads. */
void mp_igraph_lock(void);
void mp_igraph_unlock(void);

/* The message of a failed igraph call that returned `code`: igraph's
 * reason when the handler kept one on this thread, and the code's text
 * ("Cannot reserve space for vector (out of memory)"). */
const char *mp_igraph_error(igraph_error_t code);

#endif
