/* bench_run.c - run the cells of a matrix in child processes and append
 * one row per finished cell to the results file.
 *
 * Each cell is `memplan solve FILE ... --format json` in its own process
 * group, with RLIMIT_AS (memory cap), PR_SET_PDEATHSIG (it dies with the
 * runner, even after a kill -9) and a wall-clock kill at time limit + grace.
 * A crash, a kill or a non-zero exit becomes a row with status error or
 * timeout and the reason; it never stops the run.  Only this (parent)
 * process writes the results file, one transaction per row. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "solver.h"

/* ------------------------------------------------------------ provenance */

static char g_version[128], g_host[256], g_cpu[256];

static void chomp(char *s) {
  size_t l = strlen(s);
  while (l && (s[l - 1] == '\n' || s[l - 1] == '\r' || s[l - 1] == ' ')) s[--l] = 0;
}

const char *mp_version_string(void) {
  if (g_version[0]) return g_version;
  const char *env = getenv("MEMPLAN_VERSION");
  if (env && env[0]) {
    snprintf(g_version, sizeof g_version, "%s", env);
    return g_version;
  }
  /* the repository the binary was built in: bin/memplan -> .. */
  char exe[PATH_MAX];
  ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
  snprintf(g_version, sizeof g_version, "unknown");
  if (l <= 0) return g_version;
  exe[l] = 0;
  for (int up = 0; up < 2; up++) {
    char *s = strrchr(exe, '/');
    if (s) *s = 0;
  }
  char cmd[PATH_MAX + 96];
  snprintf(cmd, sizeof cmd, "git -C '%s' describe --always --dirty 2>/dev/null", exe);
  FILE *p = popen(cmd, "r");
  if (p) {
    char buf[128];
    if (fgets(buf, sizeof buf, p)) {
      chomp(buf);
      if (buf[0]) snprintf(g_version, sizeof g_version, "%s", buf);
    }
    pclose(p);
  }
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

/* ------------------------------------------------------------ jobs */

typedef struct job {
  pid_t pid;
  int cell;
  double t0, deadline;
  bool killed;
  char started[32];
  char out[PATH_MAX], err[PATH_MAX];
} job;

static volatile sig_atomic_t g_stop;
static void on_stop(int sig) { g_stop = sig; }

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
  if (n < 0) n = 0;
  out[n] = 0;
  chomp(out);
  for (char *c = out; *c; c++)
    if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
}

static const char *jstr(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_string(v) ? json_string_value(v) : NULL;
}
static int64_t jint(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_number(v) ? (int64_t)json_number_value(v) : 0;
}
static double jnum(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_number(v) ? json_number_value(v) : 0;
}

static void fmt_hms(double s, char *out, size_t cap) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(out, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(out, cap, "%02ld:%02ld", t / 60, t % 60);
}

/* Turn a finished child into a row. */
static void finish_row(const mp_experiment *e, const mp_cell *c, const job *j, int wstatus,
                       double now, mp_row *r) {
  memset(r, 0, sizeof *r);
  r->path = mp_xstrdup(c->path);
  r->order = mp_xstrdup(c->order);
  r->place = mp_xstrdup(c->place);
  r->options = mp_xstrdup(c->options);
  r->seed = c->seed;
  r->time_limit = c->time_limit;
  r->version = mp_xstrdup(mp_version_string());
  r->machine = mp_xstrdup(mp_machine_host());
  r->cpu = mp_xstrdup(mp_machine_cpu());
  r->started_at = mp_xstrdup(j->started);
  r->experiment = mp_xstrdup(e->name ? e->name : "");
  r->wall_s = now - j->t0;
  r->align = e->align;
  char errtail[320], msg[700];
  tail(j->err, errtail, sizeof errtail);
  json_t *o = NULL;
  struct stat st;
  if (stat(j->out, &st) == 0 && st.st_size > 0) o = json_load_file(j->out, 0, NULL);
  const char *st_name = o ? jstr(o, "status") : NULL;
  if (o && jstr(o, "graph")) r->graph = mp_xstrdup(jstr(o, "graph"));
  if (o) {
    r->nodes = jint(o, "nodes");
    r->buffers = jint(o, "buffers");
    r->align = jint(o, "align");
    r->order_ms = jnum(o, "order_ms");
    r->place_ms = jnum(o, "place_ms");
    r->plan_ms = jnum(o, "plan_ms");
    r->order_cpu_ms = jnum(o, "order_cpu_ms");
    r->place_cpu_ms = jnum(o, "place_cpu_ms");
  }
  if (j->killed) {
    r->status = mp_xstrdup("timeout");
    snprintf(msg, sizeof msg, "killed after %.1f s (time limit %g s + grace %g s)%s%s", r->wall_s,
             c->time_limit, c->time_limit > 0 ? e->grace_s : e->max_wall_s - c->time_limit,
             errtail[0] ? ": " : "", errtail);
    r->message = mp_xstrdup(msg);
  } else if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    r->status = mp_xstrdup("error");
    snprintf(msg, sizeof msg, "killed by signal %d (%s)%s%s", sig, strsignal(sig),
             errtail[0] ? ": " : "", errtail);
    r->message = mp_xstrdup(msg);
  } else {
    int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    if (st_name) {
      r->status = mp_xstrdup(st_name);
      r->has_fig = !strcmp(st_name, "optimal") || !strcmp(st_name, "feasible") ||
                   !strcmp(st_name, "timeout");
      if (code != 0 && r->has_fig) {
        free(r->status);
        r->status = mp_xstrdup("error");
        r->has_fig = false;
      }
      const char *m = jstr(o, "message");
      if (code != 0)
        snprintf(msg, sizeof msg, "exit %d: %s", code, m && m[0] ? m : errtail);
      else
        snprintf(msg, sizeof msg, "%s", m ? m : "");
      if (msg[0]) r->message = mp_xstrdup(msg);
    } else {
      r->status = mp_xstrdup("error");
      snprintf(msg, sizeof msg, "exit %d%s%s", code, errtail[0] ? ": " : ", no output", errtail);
      r->message = mp_xstrdup(msg);
    }
    if (r->has_fig) {
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
  }
  if (!r->graph) {
    /* the file name without directory and extension */
    const char *b = strrchr(c->path, '/');
    r->graph = mp_xstrdup(b ? b + 1 : c->path);
    char *dot = strrchr(r->graph, '.');
    if (dot && dot != r->graph) *dot = 0;
  }
  json_decref(o);
}

static char **cell_argv(const char *prog, const mp_experiment *e, const mp_cell *c) {
  int cap = 16 + 2 * e->n_sets, n = 0;
  char **a = mp_xcalloc((size_t)cap, sizeof(char *));
  char buf[64];
  a[n++] = mp_xstrdup(prog);
  a[n++] = mp_xstrdup("solve");
  a[n++] = mp_xstrdup(c->file);
  a[n++] = mp_xstrdup("--order");
  a[n++] = mp_xstrdup(c->order);
  a[n++] = mp_xstrdup("--place");
  a[n++] = mp_xstrdup(c->place);
  a[n++] = mp_xstrdup("--seed");
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->seed);
  a[n++] = mp_xstrdup(buf);
  if (c->time_limit > 0) {
    a[n++] = mp_xstrdup("--time-limit");
    snprintf(buf, sizeof buf, "%.17g", c->time_limit);
    a[n++] = mp_xstrdup(buf);
  }
  a[n++] = mp_xstrdup("--format");
  a[n++] = mp_xstrdup("json");
  /* the options string: "align=A" and solver overrides, space separated */
  char *opts = mp_xstrdup(c->options);
  for (char *save = NULL, *t = strtok_r(opts, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    if (!strncmp(t, "align=", 6)) {
      a[n++] = mp_xstrdup("--align");
      a[n++] = mp_xstrdup(t + 6);
    } else {
      a[n++] = mp_xstrdup("--set");
      a[n++] = mp_xstrdup(t);
    }
  }
  free(opts);
  a[n] = NULL;
  return a;
}

static void free_argv(char **a) {
  for (int i = 0; a[i]; i++) free(a[i]);
  free(a);
}

static int launch(const char *prog, const char tmp[1024], int slot, const mp_experiment *e,
                  const mp_cell *c, job *j, const sigset_t *oldmask, char *msg, size_t cap) {
  snprintf(j->out, sizeof j->out, "%.1000s/%d.out", tmp, slot);
  snprintf(j->err, sizeof j->err, "%.1000s/%d.err", tmp, slot);
  char **argv = cell_argv(prog, e, c);
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(j->started, sizeof j->started, "%Y-%m-%dT%H:%M:%SZ", &tm);
  pid_t parent = getpid();
  j->t0 = mp_now();
  double limit = c->time_limit > 0 ? c->time_limit + e->grace_s : e->max_wall_s;
  j->deadline = limit > 0 ? j->t0 + limit : 0;
  j->killed = false;
  rlim_t mem = (rlim_t)(e->mem_limit_mb * 1048576.0);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(msg, cap, "fork: %s", strerror(errno));
    free_argv(argv);
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
    sigprocmask(SIG_SETMASK, oldmask, NULL);
    execv(argv[0], argv);
    static const char m[] = "memplan bench: cannot execute the solver program\n";
    if (write(2, m, sizeof m - 1) < 0) _exit(127);
    _exit(127);
  }
  setpgid(pid, pid);
  j->pid = pid;
  free_argv(argv);
  return 0;
}

static void rm_tmp(const char tmp[1024], int slots) {
  char p[PATH_MAX];
  for (int i = 0; i < slots; i++) {
    snprintf(p, sizeof p, "%.1000s/%d.out", tmp, i);
    unlink(p);
    snprintf(p, sizeof p, "%.1000s/%d.err", tmp, i);
    unlink(p);
  }
  rmdir(tmp);
}

int mp_bench_run(const mp_experiment *e, const mp_matrix *m, const mp_bench_opts *o,
                 mp_bench_stats *st, char *msg, size_t cap) {
  memset(st, 0, sizeof *st);
  st->total = m->n;
  double t_start = mp_now();
  mp_db *db = mp_db_open(o->results, msg, cap);
  if (!db) return -1;
  mp_keyset ks;
  if (mp_db_keys(db, &ks, msg, cap)) {
    mp_db_close(db);
    return -1;
  }
  int *todo = mp_xmalloc(sizeof(int) * (size_t)(m->n ? m->n : 1));
  int n_todo = 0;
  for (int i = 0; i < m->n; i++) {
    const char *s = mp_keyset_find(&ks, m->cells[i].key);
    if (s && !(o->retry_failed && (!strcmp(s, "error") || !strcmp(s, "timeout")))) {
      st->done_before++;
      continue;
    }
    todo[n_todo++] = i;
  }
  mp_keyset_free(&ks);

  char prog[PATH_MAX];
  if (o->memplan) {
    snprintf(prog, sizeof prog, "%s", o->memplan);
  } else {
    ssize_t l = readlink("/proc/self/exe", prog, sizeof prog - 1);
    if (l <= 0) {
      snprintf(msg, cap, "cannot find the memplan program (/proc/self/exe); use --memplan");
      free(todo);
      mp_db_close(db);
      return -1;
    }
    prog[l] = 0;
  }
  if (access(prog, X_OK)) {
    snprintf(msg, cap, "%s: not executable", prog);
    free(todo);
    mp_db_close(db);
    return -1;
  }
  (void)mp_version_string();
  (void)mp_machine_cpu();
  (void)mp_machine_host();

  const char *tdir = getenv("TMPDIR");
  char tmp[1024];
  char unique[7] = {0}; /* mkdtemp's template: six trailing 'X' it replaces */
  memset(unique, 'X', 6);
  snprintf(tmp, sizeof tmp, "%.900s/memplan-bench-%s", tdir && tdir[0] ? tdir : "/tmp", unique);
  if (!mkdtemp(tmp)) {
    snprintf(msg, cap, "mkdtemp %s: %s", tmp, strerror(errno));
    free(todo);
    mp_db_close(db);
    return -1;
  }
  int jobs = o->jobs > 0 ? o->jobs : 1;
  if (jobs > n_todo && n_todo > 0) jobs = n_todo;
  job *js = mp_xcalloc((size_t)jobs, sizeof(job));
  int running = 0, next = 0, rc = 0, done = 0;

  sigset_t chld, oldmask;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &oldmask);
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  g_stop = 0;
  double last_progress = 0;

  while ((next < n_todo || running > 0) && !rc) {
    while (running < jobs && next < n_todo && !g_stop) {
      int slot = 0;
      while (js[slot].pid) slot++;
      js[slot].cell = todo[next];
      if (launch(prog, tmp, slot, e, &m->cells[todo[next]], &js[slot], &oldmask, msg, cap)) {
        rc = -1;
        break;
      }
      next++;
      running++;
    }
    if (rc) break;
    if (g_stop) {
      for (int s = 0; s < jobs; s++)
        if (js[s].pid) {
          kill(-js[s].pid, SIGKILL);
          waitpid(js[s].pid, NULL, 0);
          js[s].pid = 0;
        }
      snprintf(msg, cap, "interrupted by signal %d: %d cells done, rerun to resume", (int)g_stop,
               done);
      rc = -1;
      break;
    }
    double now = mp_now(), wait_s = 0.25;
    for (int s = 0; s < jobs; s++)
      if (js[s].pid && js[s].deadline > 0 && !js[s].killed && js[s].deadline - now < wait_s)
        wait_s = js[s].deadline - now;
    if (wait_s < 0) wait_s = 0;
    struct timespec ts = {(time_t)wait_s, (long)((wait_s - (double)(time_t)wait_s) * 1e9)};
    if (running > 0 && wait_s > 0) sigtimedwait(&chld, NULL, &ts);
    now = mp_now();
    for (int s = 0; s < jobs; s++) {
      job *j = &js[s];
      if (!j->pid) continue;
      int ws;
      pid_t p = waitpid(j->pid, &ws, WNOHANG);
      if (p == j->pid) {
        mp_row r;
        finish_row(e, &m->cells[j->cell], j, ws, now, &r);
        bool ok = r.has_fig;
        if (mp_db_insert(db, &r, o->retry_failed, msg, cap)) rc = -1;
        if (!ok && !o->quiet) {
          if (o->progress) fputs("\r\033[K", stderr);
          fprintf(stderr, "memplan bench: %s %s+%s seed %llu: %s: %s\n", r.graph, r.order, r.place,
                  (unsigned long long)r.seed, r.status, r.message ? r.message : "");
        }
        st->run++;
        done++;
        if (ok)
          st->ok++;
        else
          st->failed++;
        if (!strcmp(r.status, "timeout") && !ok) st->timeouts++;
        mp_row_free(&r);
        j->pid = 0;
        running--;
      } else if (j->deadline > 0 && now >= j->deadline && !j->killed) {
        kill(-j->pid, SIGKILL);
        j->killed = true;
      }
    }
    if (o->progress && (now - last_progress > 0.5 || (next == n_todo && running == 0))) {
      last_progress = now;
      char el[32], eta[32];
      double elapsed = now - t_start;
      fmt_hms(elapsed, el, sizeof el);
      if (done > 0)
        fmt_hms(elapsed / done * (n_todo - done), eta, sizeof eta);
      else
        snprintf(eta, sizeof eta, "--:--");
      fprintf(stderr, "\r\033[K[%s] %d/%d cells done (%d before), %d failed, %s elapsed, ETA %s",
              e->name ? e->name : "bench", st->done_before + done, m->n, st->done_before,
              st->failed, el, eta);
      fflush(stderr);
    }
  }
  if (o->progress) fputc('\n', stderr);
  for (int s = 0; s < jobs; s++)
    if (js[s].pid) {
      kill(-js[s].pid, SIGKILL);
      waitpid(js[s].pid, NULL, 0);
    }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigprocmask(SIG_SETMASK, &oldmask, NULL);
  rm_tmp(tmp, jobs);
  free(js);
  free(todo);
  mp_db_close(db);
  st->wall_s = mp_now() - t_start;
  return rc;
}
