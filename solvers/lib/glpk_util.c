/* glpk_util.c - see glpk_util.h. */
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/glpk_util.h"
#include "outfile.h"

int mp_glp_tm_lim(const mp_ctx *c, double own) { return mp_glp_tm_lim_reserve(c, own, 0); }

int mp_glp_tm_lim_reserve(const mp_ctx *c, double own, double reserve) {
  double left = -1; /* seconds; < 0: unlimited */
  if (c->deadline > 0) left = c->deadline - mp_now() - (reserve > 0 ? reserve : 0);
  if (own > 0 && (left < 0 || own < left)) left = own;
  if (left < 0 && c->deadline <= 0) return INT_MAX;
  double ms = left * 1000.0;
  if (!(ms >= 1.0)) return 1; /* spent (or NaN): the smallest limit */
  if (ms >= (double)INT_MAX) return INT_MAX;
  return (int)ms;
}

/* Below this GLPK's own arithmetic fails first: at M = 1.6e12 and 1e-12 it
 * called a model NOFEAS whose incumbent fits (an unsound `infeasible`
 * under --capacity); there the default stands, as before stop 50. */
#define MIN_TOL_INT 1e-9

int mp_glp_run_mip(glp_prob *lp, const mp_ctx *c, double own, double big_m, bool solve, int *rc,
                   int *st) {
  if (c->write_lp && mp_glp_write_lp(lp, c->write_lp) != 0) return -1;
  if (!solve) return 0;
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.presolve = GLP_ON;
  parm.msg_lev = c->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
  parm.tm_lim = mp_glp_tm_lim(c, own);
  if (big_m > 0 && 0.25 / big_m >= MIN_TOL_INT) {
    double tol = 0.25 / big_m;
    parm.tol_int = tol > 1e-5 ? 1e-5 : tol;
  }
  *rc = glp_intopt(lp, &parm);
  *st = glp_mip_status(lp);
  return (*st == GLP_OPT || *st == GLP_FEAS) && (*rc == 0 || *rc == GLP_ETMLIM);
}

static int to_stderr(void *info, const char *s) {
  (void)info;
  fputs(s, stderr);
  return 1; /* printed: GLPK must not print it again */
}

void mp_glp_term(const mp_ctx *c) {
  glp_term_hook(c->verbose ? to_stderr : NULL, NULL);
  glp_term_out(c->verbose ? GLP_ON : GLP_OFF);
}

typedef struct guard {
  jmp_buf jump;
} guard;

static void on_error(void *info) {
  guard *g = info;
  longjmp(g->jump, 1);
}

int mp_glp_guarded(void (*fn)(void *arg), void *arg) {
  guard g;
  glp_error_hook(on_error, &g);
  if (setjmp(g.jump) == 0) {
    fn(arg);
    glp_error_hook(NULL, NULL);
    return 0;
  }
  glp_error_hook(NULL, NULL);
  glp_free_env(); /* frees every GLPK object; the next call starts afresh */
  return -1;
}

int mp_glp_write_lp(glp_prob *lp, const char *path) {
  struct stat st;
  /* "-" (GLPK makes a file of that name), a device or a pipe: in place */
  if (!strcmp(path, "-") || (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
    return glp_write_lp(lp, NULL, path) ? -1 : 0;
  mp_outfile o;
  mp_error err;
  if (mp_out_open(&o, path, &err)) return -1;
  /* GLPK writes the temporary file by a name that opens it (nothing is
   * buffered in o.fp); it is renamed into place only once GLPK says the
   * whole model was written */
  const char *tmp = mp_out_tmp_path(&o);
  if (!tmp || glp_write_lp(lp, NULL, tmp)) {
    mp_out_abort(&o);
    return -1;
  }
  return mp_out_commit(&o, &err);
}
