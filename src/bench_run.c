/* bench_run.c - run the cells of a matrix in child processes and store one
 * row per finished cell in the results file.
 *
 * Each cell is `memplan solve FILE ... --format json` (with another
 * program, --memplan, also `--out N.plan` in the scratch folder: its plan,
 * verified by bench_rejudge.c and removed) in its own process
 * group, with RLIMIT_AS (memory cap), PR_SET_PDEATHSIG (it dies with the
 * runner, even after a kill -9) and a wall-clock kill at time limit + grace;
 * with --repeat N it runs up to N times.  A crash, a kill or a non-zero exit
 * becomes a row with status error or timeout and the reason; it never stops
 * the run.  Two deaths are no result: by a request to stop (SIGTERM, SIGINT,
 * SIGHUP, which the runner never sends, or any signal once the runner was
 * told to stop: mp_run_stop_signal), which stops the run as a signal to it
 * would (exit 128 + signal, the cell runs on resume); and without output
 * because the scratch folder cannot take files (bench_scratch.c), which
 * stops the run with that error.  Before a cell runs it is claimed in the results file, so that
 * several bench processes on one file run each cell once; the row and the
 * end of the claim are one transaction.  Each graph's independent bound and
 * the baseline of reduction_vs_given (the given order placed by bysize at
 * the default alignment, quadratic in live-together buffers: 28 s on a
 * 10^5-node training graph) are computed once per file by a child of its
 * own (`bench --graph-bound FILE ALLOWANCE`), the bound first so that a
 * baseline cut by its allowance (half of max_wall_s) never costs it; cells
 * without an alignment of their own then run with --no-baseline, and their
 * rows take reduction_vs_given from the graphs table when they are read
 * (resdb.c).  A graph's job reruns when its file or the baseline's solvers
 * changed; it is claimed like a cell, so that bench processes sharing a
 * file compute it once. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_row.h"
#include "bench_scratch.h"
#include "util.h"
#include "resdb_schema.h"

/* ------------------------------------------------------------ provenance */

static char g_version[128], g_host[256], g_cpu[256];

static void chomp(char *s) {
  size_t l = strlen(s);
  while (l && (s[l - 1] == '\n' || s[l - 1] == '\r' || s[l - 1] == ' ')) s[--l] = 0;
}

/* The version of results rows: $MEMPLAN_VERSION, else the commit the build
 * was made from (scripts/gen_commit.sh, at build time: no git at run time). */
const char *mp_version_string(void) {
  if (g_version[0]) return g_version;
  const char *env = getenv("MEMPLAN_VERSION");
  snprintf(g_version, sizeof g_version, "%s", env && env[0] ? env : mp_build_commit());
  return g_version;
}

const char *mp_machine_host(void) {
  if (!g_host[0] && gethostname(g_host, sizeof g_host - 1)) snprintf(g_host, sizeof g_host, "unknown");
  return g_host;
}

const char *mp_machine_cpu(void) {
  if (g_cpu[0]) return g_cpu;
  snprintf(g_cpu, sizeof g_cpu, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (!strncmp(line, "model name", 10)) {
        char *c = strchr(line, ':');
        if (c) {
          c++;
          while (*c == ' ' || *c == '\t') c++;
          chomp(c);
          snprintf(g_cpu, sizeof g_cpu, "%s", c);
        }
        break;
      }
    fclose(f);
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  size_t l = strlen(g_cpu);
  if (n > 0) snprintf(g_cpu + l, sizeof g_cpu - l, " (%ld cpus)", n);
  return g_cpu;
}

/* ------------------------------------------------------------ the runner */

enum { JOB_CELL, JOB_BOUND };

typedef struct job {
  pid_t pid;
  int kind, index;          /* a cell of the matrix, or a graph to bound */
  double t0, deadline;
  bool killed;
  char started[32];         /* UTC, first run */
  char out[PATH_MAX], err[PATH_MAX];
  char plan[PATH_MAX];      /* another program's plan file (--out), "" for this memplan's cells */
  mp_cellrun *runs;         /* the finished runs of this cell */
  int n_runs;
} job;

typedef struct gjob {
  const char *path, *file, *digest;
} gjob;

typedef struct runner {
  const mp_experiment *e;
  const mp_matrix *m;
  const mp_bench_opts *o;
  mp_bench_stats *st;
  mp_db *db;
  mp_db_birth birth;       /* did this run make the results file's tables */
  char prog[PATH_MAX], self[PATH_MAX], tmp[1024];
  job *js;
  int jobs, running, done;
  int *todo, n_todo, next;  /* cells to run, in key order */
  int64_t *expect;          /* their rows' rowids when the run started (0: none) */
  gjob *gs;                 /* graphs whose bound or baseline the file lacks */
  char *given_fp;           /* mp_baseline_fingerprint() */
  int n_gs, next_g;
  double t_start, last_progress, last_beat;
  sigset_t chld, oldmask;
  char stopped_by[600];     /* the child whose death by a stop signal stopped the run */
  bool own;                 /* the cells' program is this memplan (no --memplan, or this file) */
  mp_graph_facts facts;     /* bench's own facts of a graph, to back another program's claims */
} runner;

static volatile sig_atomic_t g_stop;
static void on_stop(int sig) { g_stop = sig; }

static void fmt_hms(double s, char *out, size_t cap) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(out, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(out, cap, "%02ld:%02ld", t / 60, t % 60);
}

static void push_arg(char ***a, int *n, const char *s) {
  *a = mp_xrealloc(*a, sizeof(char *) * (size_t)(*n + 2));
  (*a)[(*n)++] = mp_xstrdup(s);
  (*a)[*n] = NULL;
}

/* A remat cell: --remat CHAIN, --budget-frac F ("0.8x") or --budget B, and
 * --bandwidth BW unless it is the graph's own. */
static void remat_args(char ***a, int *n, const mp_cell *c) {
  if (!c->remat[0]) return;
  push_arg(a, n, "--remat");
  push_arg(a, n, c->remat);
  bool frac = mp_budget_arg_frac(c->budget, NULL);
  push_arg(a, n, frac ? "--budget-frac" : "--budget");
  char *b = mp_xstrdup(c->budget);
  if (frac) b[strlen(b) - 1] = 0; /* "0.8x" -> 0.8 */
  push_arg(a, n, b);
  free(b);
  if (c->bandwidth[0]) {
    push_arg(a, n, "--bandwidth");
    push_arg(a, n, c->bandwidth);
  }
}

/* plan: where another program is to write its plan (--out), or NULL. */
static char **cell_argv(const char *prog, const mp_cell *c, const char *plan) {
  char **a = NULL, buf[64];
  int n = 0;
  const char *fixed[] = {prog, "solve", c->file, "--order", c->order, "--place", c->place, "--seed"};
  for (int i = 0; i < 8; i++) push_arg(&a, &n, fixed[i]);
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->seed);
  push_arg(&a, &n, buf);
  if (c->time_limit > 0) {
    push_arg(&a, &n, "--time-limit");
    snprintf(buf, sizeof buf, "%.17g", c->time_limit);
    push_arg(&a, &n, buf);
  }
  push_arg(&a, &n, "--format");
  push_arg(&a, &n, "json");
  if (plan) { /* re-judged by memplan's verifier (bench_rejudge.c) */
    push_arg(&a, &n, "--out");
    push_arg(&a, &n, plan);
  }
  /* the baseline at the default alignment is the graph's, computed once by
   * its own job (store_bound) and joined to the rows when they are read */
  if (!mp_cell_option(c->options, "align")) push_arg(&a, &n, "--no-baseline");
  remat_args(&a, &n, c);
  /* the options string: "align=A", "capacity=C" and solver overrides */
  char *opts = mp_xstrdup(c->options);
  for (char *save = NULL, *t = strtok_r(opts, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    bool al = !strncmp(t, "align=", 6), ca = !strncmp(t, "capacity=", 9);
    push_arg(&a, &n, al ? "--align" : ca ? "--capacity" : "--set");
    push_arg(&a, &n, al ? t + 6 : ca ? t + 9 : t);
  }
  free(opts);
  return a;
}

/* The baseline's allowance: half the graph job's wall-clock limit, so that
 * a baseline too slow for the graph is cut before the bound is lost. */
static double baseline_allowance(const mp_experiment *e) { return e->max_wall_s / 2; }

static char **bound_argv(const char *self, const char *file, double allowance) {
  char **a = NULL, buf[64];
  int n = 0;
  snprintf(buf, sizeof buf, "%.17g", allowance);
  const char *v[] = {self, "bench", "--graph-bound", file, buf};
  for (int i = 0; i < 5; i++) push_arg(&a, &n, v[i]);
  return a;
}

static void free_argv(char **a) {
  for (int i = 0; a[i]; i++) free(a[i]);
  free(a);
}

/* Start a child (argv) in slot j; its output goes to j's files. */
static int spawn(runner *R, job *j, int slot, char **argv, double limit, char *msg, size_t cap) {
  snprintf(j->out, sizeof j->out, "%.1000s/%d.out", R->tmp, slot);
  snprintf(j->err, sizeof j->err, "%.1000s/%d.err", R->tmp, slot);
  pid_t parent = getpid();
  j->t0 = mp_now();
  j->deadline = limit > 0 ? j->t0 + limit : 0;
  j->killed = false;
  rlim_t mem = (rlim_t)(R->e->mem_limit_mb * 1048576.0);
  pid_t pid = fork();
  if (pid < 0) {
    mp_msgf(msg, cap, "fork: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int fo = open(j->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(j->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fi = open("/dev/null", O_RDONLY);
    if (fo < 0 || fe < 0 || fi < 0) _exit(126);
    dup2(fi, 0);
    dup2(fo, 1);
    dup2(fe, 2);
    if (mem > 0) {
      struct rlimit rl = {mem, mem};
      setrlimit(RLIMIT_AS, &rl);
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    sigprocmask(SIG_SETMASK, &R->oldmask, NULL);
    /* a cell that computes its own baseline (an --align of its own) does so
     * after its stages, on its one thread: --jobs N keeps N cores busy, and
     * no thread beside the stages shares the memory cap (its stack, a malloc
     * arena); an environment variable, which an older memplan ignores */
    setenv("MEMPLAN_THREADS", "1", 1);
    execv(argv[0], argv);
    static const char m[] = "memplan bench: cannot execute the solver program\n";
    if (write(2, m, sizeof m - 1) < 0) _exit(127);
    _exit(127);
  }
  setpgid(pid, pid);
  j->pid = pid;
  return 0;
}

static int launch_cell(runner *R, job *j, int slot, char *msg, size_t cap) {
  const mp_cell *c = &R->m->cells[j->index];
  if (j->n_runs == 0) {
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(j->started, sizeof j->started, "%Y-%m-%dT%H:%M:%SZ", &tm);
  }
  /* another program's plan, never an earlier run's: it may write none */
  j->plan[0] = 0;
  if (!R->own) {
    snprintf(j->plan, sizeof j->plan, "%.1000s/%d.plan", R->tmp, slot);
    unlink(j->plan);
  }
  char **argv = cell_argv(R->prog, c, R->own ? NULL : j->plan);
  double limit = c->time_limit > 0 ? c->time_limit + R->e->grace_s : R->e->max_wall_s;
  int rc = spawn(R, j, slot, argv, limit, msg, cap);
  free_argv(argv);
  return rc;
}

static int launch_bound(runner *R, job *j, int slot, char *msg, size_t cap) {
  char **argv = bound_argv(R->self, R->gs[j->index].file, baseline_allowance(R->e));
  int rc = spawn(R, j, slot, argv, R->e->max_wall_s, msg, cap);
  free_argv(argv);
  return rc;
}

/* A child that left no output, though the runner did not kill it: when the
 * scratch folder cannot take files (a full TMPDIR), that is why, and the
 * run stops with that error instead of storing the solver's "failure". */
static int scratch_lost_it(runner *R, bool no_output, bool killed, char *msg, size_t cap) {
  return no_output && !killed ? mp_scratch_probe(R->tmp, msg, cap) : 0;
}

/* An error of the results file: its name first. */
static int db_failed(runner *R, char *msg, size_t cap) {
  char sub[512];
  snprintf(sub, sizeof sub, "%s", msg);
  mp_msgf(msg, cap, "%s: %s", R->o->results, sub);
  return -1;
}

/* The next cell this process may run: claimed in the results file. */
static int next_claimed_cell(runner *R, char *msg, size_t cap) {
  while (R->next < R->n_todo) {
    int k = R->next++;
    const mp_cell *c = &R->m->cells[R->todo[k]];
    mp_row cell;
    memset(&cell, 0, sizeof cell);
    cell.path = c->path;
    cell.order = c->order;
    cell.place = c->place;
    cell.seed = c->seed;
    cell.time_limit = c->time_limit;
    cell.options = c->options;
    cell.remat = c->remat;
    cell.budget_arg = c->budget;
    cell.bandwidth_arg = c->bandwidth;
    int got = mp_db_claim(R->db, &cell, R->expect[k], msg, cap);
    if (got < 0) {
      db_failed(R, msg, cap);
      return -2;
    }
    if (got == MP_CLAIMED) return R->todo[k];
    if (got == MP_CLAIM_TAKEN) R->st->taken++;
    if (got == MP_CLAIM_HANDLED) R->st->handled++;
  }
  return -1;
}

/* The next graph whose job this process may run: claimed in the results
 * file (another process may be computing it, or have stored it since). */
static int next_claimed_graph(runner *R, char *msg, size_t cap) {
  while (R->next_g < R->n_gs) {
    int g = R->next_g++;
    int got = mp_db_claim_graph(R->db, R->gs[g].path, R->gs[g].digest, R->given_fp,
                                R->o->retry_failed, msg, cap);
    if (got < 0) {
      db_failed(R, msg, cap);
      return -2;
    }
    if (got == MP_CLAIMED) return g;
  }
  return -1;
}

/* Fill free slots: graph bounds first, then claimed cells. */
static int fill_slots(runner *R, char *msg, size_t cap) {
  while (R->running < R->jobs && !g_stop) {
    int slot = 0;
    while (R->js[slot].pid) slot++;
    job *j = &R->js[slot];
    memset(j, 0, sizeof *j);
    int gi = next_claimed_graph(R, msg, cap);
    if (gi == -2) return -1;
    if (gi >= 0) {
      j->kind = JOB_BOUND;
      j->index = gi;
      if (launch_bound(R, j, slot, msg, cap)) return -1;
    } else {
      int ci = next_claimed_cell(R, msg, cap);
      if (ci == -2) return -1;
      if (ci < 0) break;
      j->kind = JOB_CELL;
      j->index = ci;
      if (launch_cell(R, j, slot, msg, cap)) return -1;
    }
    R->running++;
  }
  return 0;
}

/* The graph child's JSON lines: the bound, then the baseline. */
static int read_lines(const char *path, json_t **line, int max) {
  FILE *f = fopen(path, "r");
  int n = 0;
  char *buf = NULL;
  size_t cap = 0;
  while (f && n < max && getline(&buf, &cap, f) > 0) {
    line[n] = json_loads(buf, 0, NULL);
    if (!json_is_object(line[n])) {
      json_decref(line[n]);
      break;
    }
    n++;
  }
  free(buf);
  if (f) fclose(f);
  return n;
}

static bool fill_bound(mp_graphrow *row, json_t *o) {
  json_t *b = o ? json_object_get(o, "bound") : NULL;
  if (!json_is_integer(b)) return false;
  row->bound = json_integer_value(b);
  row->graph = (char *)json_string_value(json_object_get(o, "graph"));
  row->bound_kind = (char *)json_string_value(json_object_get(o, "bound_kind"));
  row->nodes = json_integer_value(json_object_get(o, "nodes"));
  row->buffers = json_integer_value(json_object_get(o, "buffers"));
  return true;
}

static bool fill_baseline(mp_graphrow *row, json_t *o) {
  json_t *a = o ? json_object_get(o, "given_arena") : NULL, *al = o ? json_object_get(o, "given_align") : NULL;
  if (!json_is_integer(a) || !json_is_integer(al)) return false;
  row->given_arena = json_integer_value(a);
  row->given_align = json_integer_value(al);
  return true;
}

/* The graphs row of a graph's child: its bound and baseline (each may be
 * absent; why: the message, in why[cap]). */
static void graph_row(const runner *R, const job *j, int ws, const mp_cellrun *run, json_t **line,
                      int n, mp_graphrow *row, char *why, size_t cap) {
  const gjob *g = &R->gs[j->index];
  memset(row, 0, sizeof *row);
  row->path = (char *)g->path;
  row->digest = (char *)g->digest;
  row->given_fingerprint = R->given_fp;
  row->nodes = row->buffers = row->bound = row->given_arena = row->given_align = MP_NA;
  bool exited = WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
  bool bound = n > 0 && fill_bound(row, line[0]);
  bool base = bound && n > 1 && (exited || j->killed) && fill_baseline(row, line[1]);
  const char *given_msg = n > 1 ? json_string_value(json_object_get(line[1], "given_message")) : NULL;
  const char *reason = given_msg ? given_msg : run->errtail;
  why[0] = 0;
  if (!bound || !base) {
    snprintf(why, cap, "%s%s%s%s", bound ? "no baseline: " : "",
             j->killed ? "killed at the time limit" : "", j->killed && reason[0] ? ": " : "", reason);
    row->message = why;
  }
}

/* A graph's child ended: its bound and baseline into the graphs table. */
static int store_bound(runner *R, job *j, int ws, double now, char *msg, size_t cap) {
  mp_cellrun run;
  mp_cellrun_read(&run, j->out, j->err, ws, j->killed, now - j->t0);
  json_t *line[2] = {NULL, NULL};
  int n = read_lines(j->out, line, 2), rc = scratch_lost_it(R, n == 0, j->killed, msg, cap);
  mp_graphrow row;
  char why[600];
  if (!rc) {
    graph_row(R, j, ws, &run, line, n, &row, why, sizeof why);
    rc = mp_db_graph_store(R->db, &row, msg, cap) ? db_failed(R, msg, cap) : 0;
  }
  if (!rc) R->st->bounds++;
  if (!rc && row.bound != MP_NA && row.given_arena == MP_NA && !R->o->quiet)
    fprintf(stderr, "memplan bench: %s: %s (reduction_vs_given absent at the default alignment)\n",
            row.path, why);
  for (int i = 0; i < n; i++) json_decref(line[i]);
  mp_cellrun_destroy(&run);
  return rc;
}

static void report_failure(runner *R, const mp_row *r) {
  if (R->o->quiet) return;
  if (R->o->progress) fputs("\r\033[K", stderr);
  char what[400] = "";
  if (r->remat && r->remat[0])
    snprintf(what, sizeof what, " remat %s budget %s%s%s", r->remat, r->budget_arg,
             r->bandwidth_arg[0] ? " bandwidth " : "", r->bandwidth_arg);
  fprintf(stderr, "memplan bench: %s %s+%s seed %llu%s: %s: %s\n", r->graph, r->order, r->place,
          (unsigned long long)r->seed, what, r->status, r->message ? r->message : "");
}

static void drop_runs(job *j) {
  for (int i = 0; i < j->n_runs; i++) mp_cellrun_destroy(&j->runs[i]);
  free(j->runs);
  j->runs = NULL;
  j->n_runs = 0;
}

/* The summary's counts, of a row stored. */
static void count_row(runner *R, const mp_row *r) {
  bool refused = !strcmp(r->status, "refused");
  R->st->run++;
  R->done++;
  if (refused) R->st->refused++;
  if (mp_row_answered(r->status, r->has_fig)) {
    if (!refused) R->st->ok++;
    return;
  }
  R->st->failed++;
  if (!strcmp(r->status, "timeout")) R->st->timeouts++;
  report_failure(R, r);
}

/* A cell's child ended: run it again (--repeat) or store its row. */
static int cell_ended(runner *R, job *j, int slot, int ws, double now, char *msg, size_t cap) {
  j->runs = mp_xrealloc(j->runs, sizeof(mp_cellrun) * (size_t)(j->n_runs + 1));
  mp_cellrun *run = &j->runs[j->n_runs++];
  mp_cellrun_read(run, j->out, j->err, ws, j->killed, now - j->t0);
  mp_cellrun_judge(run, &R->m->cells[j->index], j->plan[0] ? j->plan : NULL, &R->facts);
  if (j->plan[0]) unlink(j->plan);
  j->pid = 0;
  R->running--;
  if (scratch_lost_it(R, !run->out, j->killed, msg, cap)) {
    drop_runs(j);
    return -1;
  }
  if (mp_cellrun_ok(run) && j->n_runs < R->e->repeat && !g_stop) {
    R->running++;
    return launch_cell(R, j, slot, msg, cap);
  }
  mp_row r;
  mp_row_from_runs(R->e, &R->m->cells[j->index], j->runs, j->n_runs, j->started, &r);
  drop_runs(j);
  int rc = mp_db_store(R->db, &r, true, msg, cap) ? db_failed(R, msg, cap) : 0;
  if (!rc) count_row(R, &r);
  mp_row_destroy(&r);
  return rc;
}

/* A child that died of a request to stop (mp_run_stop_signal) is no
 * result: nothing is stored, its claim ends with the run's (rerun to
 * resume), and the run stops as if it had been sent the signal itself:
 * whoever stops the solvers (scancel signals every process of the job, in
 * no particular order) means to stop the bench. */
static void abandon(runner *R, job *j, int sig) {
  if (!g_stop) {
    char what[480];
    const mp_cell *c = j->kind == JOB_CELL ? &R->m->cells[j->index] : NULL;
    if (c)
      snprintf(what, sizeof what, "%.300s %.60s+%.60s seed %llu", c->path, c->order, c->place,
               (unsigned long long)c->seed);
    else
      snprintf(what, sizeof what, "the graph job of %.300s", R->gs[j->index].path);
    snprintf(R->stopped_by, sizeof R->stopped_by, " (%s died of signal %d, %s, which bench "
             "never sends: a request to stop)", what, sig, strsignal(sig));
    g_stop = sig;
  }
  drop_runs(j);
  j->pid = 0;
  R->running--;
}

static int reap(runner *R, char *msg, size_t cap) {
  double now = mp_now();
  for (int s = 0; s < R->jobs; s++) {
    job *j = &R->js[s];
    if (!j->pid) continue;
    int ws, stop;
    pid_t p = waitpid(j->pid, &ws, WNOHANG);
    if (p == j->pid) {
      if ((stop = mp_run_stop_signal(ws, j->killed, (int)g_stop)))
        abandon(R, j, stop);
      else if (j->kind == JOB_BOUND) {
        j->pid = 0;
        R->running--;
        if (store_bound(R, j, ws, now, msg, cap)) return -1;
      } else if (cell_ended(R, j, s, ws, now, msg, cap)) {
        return -1;
      }
    } else if (j->deadline > 0 && now >= j->deadline && !j->killed) {
      kill(-j->pid, SIGKILL);
      j->killed = true;
    }
  }
  return 0;
}

static void progress(runner *R, double now, bool last) {
  const mp_bench_opts *o = R->o;
  bool tty = o->progress && (now - R->last_progress > 0.5 || last);
  bool log = !o->progress && o->log_every_s > 0 && (now - R->last_progress >= o->log_every_s);
  if (!tty && !log) return;
  R->last_progress = now;
  char el[32], eta[32];
  double elapsed = now - R->t_start;
  fmt_hms(elapsed, el, sizeof el);
  if (R->done > 0)
    fmt_hms(elapsed / R->done * (R->n_todo - R->done - R->st->taken - R->st->handled), eta,
            sizeof eta);
  else
    snprintf(eta, sizeof eta, "--:--");
  fprintf(stderr, "%s[%s] %d/%d cells done (%d before), %d failed, %d refused, %s elapsed, ETA %s%s",
          tty ? "\r\033[K" : "", R->e->name ? R->e->name : "bench", R->st->done_before + R->done,
          R->m->n, R->st->done_before, R->st->failed, R->st->refused, el, eta, tty ? "" : "\n");
  fflush(stderr);
}

static void wait_a_little(runner *R) {
  double now = mp_now(), wait_s = 0.25;
  for (int s = 0; s < R->jobs; s++)
    if (R->js[s].pid && R->js[s].deadline > 0 && !R->js[s].killed &&
        R->js[s].deadline - now < wait_s)
      wait_s = R->js[s].deadline - now;
  if (wait_s < 0) wait_s = 0;
  struct timespec ts = {(time_t)wait_s, (long)((wait_s - (double)(time_t)wait_s) * 1e9)};
  if (R->running > 0 && wait_s > 0) sigtimedwait(&R->chld, NULL, &ts);
}

static void kill_all(runner *R) {
  for (int s = 0; s < R->jobs; s++) {
    job *j = &R->js[s];
    if (j->pid) {
      kill(-j->pid, SIGKILL);
      waitpid(j->pid, NULL, 0);
      j->pid = 0;
    }
    drop_runs(j);
  }
}

/* The run was told to stop (a signal to bench, or a solver's death by one):
 * the children are killed, no row is stored for them.  Checked again when
 * no work is left, since the last child's death may have been the stop. */
static int stopped(runner *R, char *msg, size_t cap) {
  kill_all(R);
  R->st->interrupted = (int)g_stop;
  mp_msgf(msg, cap, "interrupted by signal %d%s: %d cells done, rerun to resume", (int)g_stop,
           R->stopped_by, R->done);
  return -1;
}

static int loop(runner *R, char *msg, size_t cap) {
  int rc = 0;
  while ((R->next_g < R->n_gs || R->next < R->n_todo || R->running > 0) && !rc) {
    if ((rc = fill_slots(R, msg, cap))) break;
    if (g_stop) return stopped(R, msg, cap);
    if (R->running == 0) continue;
    wait_a_little(R);
    if ((rc = reap(R, msg, cap))) break;
    double now = mp_now();
    if (now - R->last_beat > 60) {
      R->last_beat = now;
      if ((rc = mp_db_heartbeat(R->db, msg, cap) ? db_failed(R, msg, cap) : 0)) break;
    }
    progress(R, now, false);
  }
  if (!rc && g_stop) return stopped(R, msg, cap);
  progress(R, mp_now(), true);
  return rc;
}

/* ------------------------------------------------------------ set-up */

/* Is the row of a cell done for this run, or must the cell run (again)? */
static bool must_run(const mp_experiment *e, const mp_bench_opts *o, const mp_cell *c,
                     const mp_cellstate *cs, mp_bench_stats *st) {
  if (!cs) return true;
  mp_row_verdict v = mp_cellstate_verdict(cs, c->fingerprint, e->repeat);
  if (v == MP_ROW_STALE) {
    st->stale++;
    return true;
  }
  if (v == MP_ROW_FAILED && o->retry_failed) return true;
  st->done_before++;
  return false;
}

static int plan_work(runner *R, char *msg, size_t cap) {
  mp_keyset ks;
  if (mp_db_keys(R->db, &ks, msg, cap)) return -1;
  const mp_matrix *m = R->m;
  R->todo = mp_xmalloc(sizeof(int) * (size_t)(m->n ? m->n : 1));
  R->expect = mp_xmalloc(sizeof(int64_t) * (size_t)(m->n ? m->n : 1));
  R->gs = mp_xcalloc((size_t)(m->n ? m->n : 1), sizeof(gjob));
  for (int i = 0; i < m->n; i++) {
    const mp_cell *c = &m->cells[i];
    const mp_cellstate *cs = mp_keyset_find(&ks, c->key);
    if (must_run(R->e, R->o, c, cs, R->st)) {
      R->expect[R->n_todo] = cs ? cs->rowid : 0;
      R->todo[R->n_todo++] = i;
    }
    /* each graph once, when the file lacks its bound for this content or
     * its baseline from these solvers */
    bool seen = false;
    for (int g = 0; g < R->n_gs && !seen; g++) seen = !strcmp(R->gs[g].path, c->path);
    if (!seen && !mp_db_graph_current(R->db, c->path, c->digest, R->given_fp, R->o->retry_failed))
      R->gs[R->n_gs++] = (gjob){c->path, c->file, c->digest};
  }
  mp_keyset_destroy(&ks);
  return 0;
}

static int find_programs(runner *R, char *msg, size_t cap) {
  ssize_t l = readlink("/proc/self/exe", R->self, sizeof R->self - 1);
  if (l <= 0) {
    mp_msgf(msg, cap, "cannot find the memplan program (/proc/self/exe)");
    return -1;
  }
  R->self[l] = 0;
  snprintf(R->prog, sizeof R->prog, "%s", R->o->memplan ? R->o->memplan : R->self);
  struct stat st; /* a directory passes access(X_OK): every cell would fail */
  if (access(R->prog, X_OK) || stat(R->prog, &st) || !S_ISREG(st.st_mode)) {
    mp_msgf(msg, cap, "%s: not an executable file", R->prog);
    return -1;
  }
  struct stat me; /* another program's claims need a bound bench computes (bench_check.c) */
  R->own = !stat(R->self, &me) && me.st_dev == st.st_dev && me.st_ino == st.st_ino;
  return 0;
}

static void start_line(const runner *R) {
  if (R->o->quiet) return;
  fprintf(stderr, "bench %s: %d cells, %d to run (%d done before, %d stale), %d graph bound%s to "
          "compute, %d jobs, results in %s\n",
          R->e->name ? R->e->name : "bench", R->m->n, R->n_todo, R->st->done_before, R->st->stale,
          R->n_gs, R->n_gs == 1 ? "" : "s", R->jobs, R->o->results);
  fflush(stderr);
}

/* SIGINT and SIGTERM stop the run (g_stop); SIGXFSZ is ignored, so that a
 * file-size limit is an error bench reports (EFBIG: the results file or
 * the scratch folder is full) rather than its death.  From before the
 * scratch folder is made until it is removed. */
typedef struct handlers {
  struct sigaction i, t, x;
} handlers;

static void catch_stops(handlers *old) {
  struct sigaction sa, ign;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  g_stop = 0;
  sigaction(SIGINT, &sa, &old->i);
  sigaction(SIGTERM, &sa, &old->t);
  sigaction(SIGXFSZ, &ign, &old->x);
}

static void release_stops(const handlers *old) {
  sigaction(SIGINT, &old->i, NULL);
  sigaction(SIGTERM, &old->t, NULL);
  sigaction(SIGXFSZ, &old->x, NULL);
}

static void free_runner(runner *R) {
  free(R->js);
  free(R->todo);
  free(R->expect);
  free(R->gs);
  free(R->given_fp);
  mp_graph_facts_destroy(&R->facts);
  if (R->db) mp_db_close(R->db);
}

/* The results file, the cells to run, the programs, the scratch folder. */
static int set_up(runner *R, char *msg, size_t cap) {
  /* the program and the scratch folder before a results file is made */
  if (find_programs(R, msg, cap) || mp_scratch_open(R->tmp, sizeof R->tmp, msg, cap)) return -1;
  R->db = mp_db_open_mode(R->o->results, !R->o->shared_fs, &R->birth, msg, cap);
  R->given_fp = R->db ? mp_baseline_fingerprint() : NULL;
  if (R->db && !plan_work(R, msg, cap)) return 0;
  mp_scratch_remove(R->tmp);
  return -1;
}

/* Drop this process's claims, so that other processes need not wait for
 * them to go stale; when even that cannot be written, say so (they are
 * taken over by the next run all the same: their owner is gone). */
static void release_claims(runner *R) {
  char sub[512];
  if (mp_db_unclaim_all(R->db, sub, sizeof sub))
    fprintf(stderr, "memplan bench: %s: this run's claims stay until a later run takes them over "
            "(%s)\n", R->o->results, sub);
}

/* The run itself, SIGCHLD blocked (the loop waits for it); then every
 * child killed and this process's claims dropped. */
static int run(runner *R, char *msg, size_t cap) {
  (void)mp_version_string();
  (void)mp_machine_cpu();
  (void)mp_machine_host();
  R->jobs = R->o->jobs > 0 ? R->o->jobs : 1;
  R->js = mp_xcalloc((size_t)R->jobs, sizeof(job));
  start_line(R);
  sigemptyset(&R->chld);
  sigaddset(&R->chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &R->chld, &R->oldmask);
  int rc = loop(R, msg, cap);
  if (R->o->progress) fputc('\n', stderr);
  kill_all(R);
  release_claims(R);
  sigprocmask(SIG_SETMASK, &R->oldmask, NULL);
  return rc;
}

int mp_bench_run(const mp_experiment *e, const mp_matrix *m, const mp_bench_opts *o,
                 mp_bench_stats *st, char *msg, size_t cap) {
  memset(st, 0, sizeof *st);
  st->total = m->n;
  runner R;
  memset(&R, 0, sizeof R);
  R.e = e, R.m = m, R.o = o, R.st = st;
  R.t_start = R.last_progress = R.last_beat = mp_now();
  handlers old;
  catch_stops(&old);
  struct stat before;
  bool made = stat(o->results, &before) && errno == ENOENT; /* this run makes the file */
  int rc = set_up(&R, msg, cap);
  if (!rc) {
    st->started = true;
    rc = run(&R, msg, cap);
    mp_scratch_remove(R.tmp);
  }
  release_stops(&old);
  /* a failed run's new file, only if it holds no row and no other process
   * uses it (a stopped run's stays: rerun to resume) */
  bool discard = rc && made && !st->interrupted;
  if (discard && R.db) {
    R.birth.made = R.birth.made && made; /* an empty file that was there is not its to remove */
    mp_db_discard_made(R.db, o->results, !o->shared_fs, &R.birth);
    R.db = NULL;
  } else if (discard) { /* not opened: its tables, if any, are another process's */
    mp_db_discard_unused(o->results, !o->shared_fs);
  }
  free_runner(&R);
  st->wall_s = mp_now() - R.t_start;
  return rc;
}
