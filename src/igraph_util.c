/* igraph_util.c - a non-aborting igraph error handler (see igraph_util.h). */
#include <pthread.h>
#include <stdio.h>

#include "igraph_util.h"

/* igraph's reason for the failure on this thread since mp_igraph_init
 * ("" after a message was taken). */
static _Thread_local char last_reason[256];
static _Thread_local char message[400];

static void keep_error(const char *reason, const char *file, int line, igraph_error_t code) {
  (void)file;
  (void)line;
  (void)code;
  /* copied first: IGRAPH_FINALLY_FREE may free the buffer `reason` is in.
   * An error reaches the handler once where it happens, then again with an
   * empty reason from every IGRAPH_CHECK it passes on the way up: the
   * first reason stays. */
  if (reason && reason[0] && !last_reason[0]) snprintf(last_reason, sizeof last_reason, "%s", reason);
  IGRAPH_FINALLY_FREE();
}

static void install(void) {
  igraph_error_handler_t *old = igraph_set_error_handler(keep_error);
  if (old && old != igraph_error_handler_abort) igraph_set_error_handler(old); /* the program's own */
}

static pthread_mutex_t igraph_mutex = PTHREAD_MUTEX_INITIALIZER;

void mp_igraph_lock(void) { pthread_mutex_lock(&igraph_mutex); }
void mp_igraph_unlock(void) { pthread_mutex_unlock(&igraph_mutex); }

void mp_igraph_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, install);
  last_reason[0] = '\0';
}

const char *mp_igraph_error(igraph_error_t code) {
  if (last_reason[0])
    snprintf(message, sizeof message, "%s (%s)", last_reason, igraph_strerror(code));
  else
    snprintf(message, sizeof message, "%s", igraph_strerror(code));
  last_reason[0] = '\0';
  return message;
}
