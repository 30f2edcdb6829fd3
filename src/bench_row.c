/* bench_row.c - a cell's results row from its child processes.
 *
 * The figures are the evaluator's (the child's JSON); this file only copies
 * them and decides the row's status: the solve's own, or error (non-zero
 * exit without a plan, a signal, no output), or timeout (killed at time
 * limit + grace).  With --repeat N the same cell ran up to N times: the
 * figures are those of the first run, the times those of the run with the
 * median planning time, with the minimum and maximum beside them. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_row.h"
#include "util.h"

static void one_line(char *s) {
  size_t l = strlen(s);
  while (l && (s[l - 1] == '\n' || s[l - 1] == '\r' || s[l - 1] == ' ')) s[--l] = 0;
  for (char *c = s; *c; c++)
    if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
}

/* The last bytes of a file on one line. */
static void tail(const char *path, char *out, size_t cap) {
  out[0] = 0;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  off_t end = lseek(fd, 0, SEEK_END);
  off_t from = end > (off_t)(cap - 1) ? end - (off_t)(cap - 1) : 0;
  lseek(fd, from, SEEK_SET);
  ssize_t n = read(fd, out, cap - 1);
  close(fd);
  out[n < 0 ? 0 : n] = 0;
  one_line(out);
}

void mp_cellrun_read(mp_cellrun *run, const char *out_path, const char *err_path, int wstatus,
                     bool killed, double wall_s) {
  memset(run, 0, sizeof *run);
  run->wstatus = wstatus;
  run->killed = killed;
  run->wall_s = wall_s;
  tail(err_path, run->errtail, sizeof run->errtail);
  struct stat st;
  if (stat(out_path, &st) == 0 && st.st_size > 0) run->out = json_load_file(out_path, 0, NULL);
  if (run->out && !json_is_object(run->out)) {
    json_decref(run->out);
    run->out = NULL;
  }
}

void mp_cellrun_destroy(mp_cellrun *run) {
  json_decref(run->out);
  run->out = NULL;
}

const char *mp_json_str(json_t *o, const char *k) {
  json_t *v = o ? json_object_get(o, k) : NULL;
  return json_is_string(v) ? json_string_value(v) : NULL;
}
static int64_t jint(json_t *o, const char *k) {
  json_t *v = o ? json_object_get(o, k) : NULL;
  if (json_is_integer(v)) return json_integer_value(v);
  return json_is_number(v) ? (int64_t)json_number_value(v) : MP_NA;
}
static double jnum(json_t *o, const char *k) {
  json_t *v = o ? json_object_get(o, k) : NULL;
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool same_num(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static int exit_code(const mp_cellrun *run) {
  return WIFEXITED(run->wstatus) ? WEXITSTATUS(run->wstatus) : -1;
}

bool mp_cellrun_says_figures(const mp_cellrun *run) {
  const char *st = mp_json_str(run->out, "status");
  if (!st) return false;
  json_t *hf = json_object_get(run->out, "has_figures");
  return json_is_boolean(hf) ? json_is_true(hf)
                             : !strcmp(st, "optimal") || !strcmp(st, "feasible") || !strcmp(st, "timeout");
}

/* A plan with figures bench keeps: said so, exited 0, not refused. */
static bool solve_has_figures(const mp_cellrun *run) {
  if (run->killed || WIFSIGNALED(run->wstatus) || run->refused[0]) return false;
  return mp_cellrun_says_figures(run) && exit_code(run) == 0 && jint(run->out, "arena") != MP_NA;
}

bool mp_cellrun_ok(const mp_cellrun *run) { return solve_has_figures(run); }

bool mp_row_answered(const char *status, bool has_fig) {
  return has_fig || !strcmp(status, "refused") || !strcmp(status, "infeasible");
}

mp_row_verdict mp_cellstate_verdict(const mp_cellstate *cs, const char *fingerprint, int repeat) {
  if (!cs->fingerprint || strcmp(cs->fingerprint, fingerprint) || (cs->has_fig && cs->repeats < repeat))
    return MP_ROW_STALE;
  return mp_row_answered(cs->status, cs->has_fig) ? MP_ROW_CURRENT : MP_ROW_FAILED;
}

/* SIGTERM, SIGINT and SIGHUP are how a scheduler (scancel, a wall-time
 * limit), a user (kill, ^C) or a terminal stop a job, and the runner never
 * sends them (its time-limit kill is SIGKILL, and it knows it sent that):
 * a solver that died of one was stopped, it did not fail, and its cell
 * must run again.  Once the runner itself was told to stop, any death by a
 * signal is part of that stop (a scheduler's SIGKILL after its grace). */
int mp_run_stop_signal(int wstatus, bool killed, int stopping) {
  if (killed || !WIFSIGNALED(wstatus)) return 0;
  int sig = WTERMSIG(wstatus);
  if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) return sig;
  return stopping;
}

/* Status and message of one run. */
static void run_status(const mp_experiment *e, const mp_cell *c, const mp_cellrun *run,
                       char **status, char **message) {
  char msg[800];
  const char *tl = run->errtail, *sep = run->errtail[0] ? ": " : "";
  const char *st = mp_json_str(run->out, "status");
  msg[0] = 0;
  if (run->killed) {
    *status = mp_xstrdup("timeout");
    snprintf(msg, sizeof msg, "killed after %.1f s (time limit %g s + grace %g s)%s%s", run->wall_s,
             c->time_limit, c->time_limit > 0 ? e->grace_s : e->max_wall_s - c->time_limit, sep,
             tl);
  } else if (WIFSIGNALED(run->wstatus)) {
    int sig = WTERMSIG(run->wstatus);
    *status = mp_xstrdup("error");
    snprintf(msg, sizeof msg, "killed by signal %d (%s)%s%s", sig, strsignal(sig), sep, tl);
  } else if (run->refused[0]) {
    *status = mp_xstrdup("error");
    snprintf(msg, sizeof msg, "exit %d, answer refused by bench: %s", exit_code(run), run->refused);
  } else if (!st) {
    *status = mp_xstrdup("error");
    snprintf(msg, sizeof msg, "exit %d%s%s", exit_code(run), tl[0] ? ": " : ", no output", tl);
  } else {
    const char *m = mp_json_str(run->out, "message");
    bool fig_claim = !json_is_false(json_object_get(run->out, "has_figures")) &&
                     (!strcmp(st, "optimal") || !strcmp(st, "feasible") || !strcmp(st, "timeout"));
    /* a non-zero exit with a plan-status is a failure; a refusal, a proven
     * infeasibility and a timeout that says it has no plan (the limit
     * stopped the search first) keep their own status */
    *status = mp_xstrdup(exit_code(run) != 0 && fig_claim ? "error" : st);
    if (exit_code(run) != 0)
      snprintf(msg, sizeof msg, "exit %d: %s", exit_code(run), m && m[0] ? m : tl);
    else if (m)
      snprintf(msg, sizeof msg, "%s", m);
  }
  *message = msg[0] ? mp_xstrdup(msg) : NULL;
}

static void copy_figures(json_t *o, mp_row *r) {
  r->live_peak = jint(o, "live_peak");
  r->arena = jint(o, "arena");
  r->sum_sizes = jint(o, "sum_sizes");
  r->lower_bound = jint(o, "lower_bound");
  r->fragmentation = jnum(o, "fragmentation");
  r->reuse_ratio = jnum(o, "reuse_ratio");
  r->profile_std = jnum(o, "profile_std");
  r->reduction_vs_given = jnum(o, "reduction_vs_given");
  r->reduction_vs_noreuse = jnum(o, "reduction_vs_noreuse");
}

/* DESIGN 6.3's figures of the event plan (a remat cell with a plan). */
static void copy_remat_figures(json_t *o, mp_row *r) {
  r->duration = jnum(o, "duration");
  r->overhead = jnum(o, "overhead"); /* null when base_time is 0: absent */
  r->recompute_time = jnum(o, "recompute_time");
  r->recomputed = jint(o, "recomputed");
  r->stall_time = jnum(o, "stall_time");
  r->transferred = jint(o, "transferred");
  r->residencies = jint(o, "residencies");
  r->stale_reruns = jint(o, "stale_reruns");
}

/* The request of a remat cell as the solve resolved it (with or without a
 * plan): the budget in bytes, the link, base_time, the stage's status. */
static void copy_remat_request(json_t *o, mp_row *r) {
  if (!r->remat[0]) return;
  r->budget = jint(o, "budget");
  r->bandwidth = jnum(o, "bandwidth");
  r->base_time = jnum(o, "base_time");
  const char *st = mp_json_str(o, "remat_status");
  r->remat_status = st ? mp_xstrdup(st) : NULL;
}

static void copy_times(const mp_cellrun *run, mp_row *r) {
  json_t *o = run->out;
  r->order_ms = jnum(o, "order_ms");
  r->place_ms = jnum(o, "place_ms");
  r->plan_ms = jnum(o, "plan_ms");
  r->order_cpu_ms = jnum(o, "order_cpu_ms");
  r->place_cpu_ms = jnum(o, "place_cpu_ms");
  r->remat_ms = jnum(o, "remat_ms");
  r->remat_cpu_ms = jnum(o, "remat_cpu_ms");
  r->wall_s = run->wall_s;
}

/* CPU planning time: every stage (the remat stage's when there is one). */
static double cpu_of(const mp_cellrun *run) {
  double remat = jnum(run->out, "remat_cpu_ms");
  return jnum(run->out, "order_cpu_ms") + jnum(run->out, "place_cpu_ms") +
         (isnan(remat) ? 0 : remat);
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Times over the k successful runs: the median-time run's own times, the
 * min and max of the wall time, the median and min of the CPU time. */
static void spread(const mp_cellrun *runs, int k, mp_row *r) {
  double *w = mp_xmalloc(sizeof(double) * (size_t)k), *cpu = mp_xmalloc(sizeof(double) * (size_t)k);
  for (int i = 0; i < k; i++) {
    w[i] = jnum(runs[i].out, "plan_ms");
    cpu[i] = cpu_of(&runs[i]);
  }
  qsort(w, (size_t)k, sizeof *w, cmp_dbl);
  qsort(cpu, (size_t)k, sizeof *cpu, cmp_dbl);
  double med = w[(k - 1) / 2];
  for (int i = 0; i < k; i++)
    if (jnum(runs[i].out, "plan_ms") == med) {
      copy_times(&runs[i], r);
      break;
    }
  r->repeats = k;
  r->plan_ms_min = w[0];
  r->plan_ms_max = w[k - 1];
  r->plan_cpu_ms = cpu[(k - 1) / 2];
  r->plan_cpu_ms_min = cpu[0];
  free(w);
  free(cpu);
}

static void graph_name(const mp_cell *c, json_t *o, mp_row *r) {
  if (mp_json_str(o, "graph")) {
    r->graph = mp_xstrdup(mp_json_str(o, "graph"));
    return;
  }
  const char *b = strrchr(c->path, '/'); /* the file name without directory and extension */
  r->graph = mp_xstrdup(b ? b + 1 : c->path);
  char *dot = strrchr(r->graph, '.');
  if (dot && dot != r->graph) *dot = 0;
}

static void row_cell(const mp_experiment *e, const mp_cell *c, const char *started, mp_row *r) {
  mp_row_init(r);
  r->path = mp_xstrdup(c->path);
  r->order = mp_xstrdup(c->order);
  r->place = mp_xstrdup(c->place);
  r->options = mp_xstrdup(c->options);
  r->remat = mp_xstrdup(c->remat);
  r->budget_arg = mp_xstrdup(c->budget);
  r->bandwidth_arg = mp_xstrdup(c->bandwidth);
  r->seed = c->seed;
  r->time_limit = c->time_limit;
  r->fingerprint = mp_xstrdup(c->fingerprint);
  r->version = mp_xstrdup(mp_version_string());
  r->machine = mp_xstrdup(mp_machine_host());
  r->cpu = mp_xstrdup(mp_machine_cpu());
  r->started_at = mp_xstrdup(started);
  r->experiment = mp_xstrdup(e->name ? e->name : "");
  r->align = e->align > 0 ? e->align : MP_NA;
}

void mp_row_from_runs(const mp_experiment *e, const mp_cell *c, const mp_cellrun *runs, int n,
                      const char *started, mp_row *r) {
  row_cell(e, c, started, r);
  int k = 0; /* successful runs: all of them, or all but the last */
  while (k < n && mp_cellrun_ok(&runs[k])) k++;
  const mp_cellrun *first = &runs[0], *last = &runs[n - 1];
  json_t *o = k ? first->out : last->refused[0] ? NULL : last->out; /* a refused answer: nothing of it */
  graph_name(c, o, r);
  r->nodes = jint(o, "nodes");
  r->buffers = jint(o, "buffers");
  if (jint(o, "align") != MP_NA) r->align = jint(o, "align");
  r->order_status = mp_json_str(o, "order_status") ? mp_xstrdup(mp_json_str(o, "order_status")) : NULL;
  r->place_status = mp_json_str(o, "place_status") ? mp_xstrdup(mp_json_str(o, "place_status")) : NULL;
  copy_remat_request(o, r);
  if (k == 0) { /* the first run failed: the row says why */
    run_status(e, c, last, &r->status, &r->message);
    if (o) copy_times(last, r);
    r->repeats = o && !isnan(r->plan_ms) ? 1 : MP_NA;
    if (!o) r->wall_s = last->wall_s;
    return;
  }
  run_status(e, c, first, &r->status, &r->message);
  r->has_fig = true;
  copy_figures(first->out, r);
  if (r->remat[0]) copy_remat_figures(first->out, r);
  spread(runs, k, r);
  char note[900];
  note[0] = 0;
  for (int i = 1; i < k; i++)
    if (jint(runs[i].out, "arena") != r->arena || jint(runs[i].out, "live_peak") != r->live_peak ||
        (r->remat[0] && !same_num(jnum(runs[i].out, "duration"), r->duration))) {
      snprintf(note, sizeof note, "figures differ across repeats (run %d: arena %lld); the first "
               "run's are kept", i + 1, (long long)jint(runs[i].out, "arena"));
      break;
    }
  if (k < n) {
    char *st = NULL, *m = NULL;
    run_status(e, c, last, &st, &m);
    snprintf(note, sizeof note, "repeat %d of %d failed (%s%s%s): times of the first %d", n,
             e->repeat, st, m ? ": " : "", m ? m : "", k);
    free(st);
    free(m);
  }
  if (note[0]) {
    char both[1800];
    snprintf(both, sizeof both, "%s%s%s", r->message ? r->message : "", r->message ? "; " : "",
             note);
    free(r->message);
    r->message = mp_xstrdup(both);
  }
}
