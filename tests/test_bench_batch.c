/* test_bench_batch.c - the batch promises of bench and merge under the
 * accidents of a cluster: a scheduler's stop signals, merges racing each
 * other and a bench, resubmitted shards, full disks, killed runs.  Each race
 * is forced at a known point (a fake solver that signals, stops or fills at
 * the moment under test), never left to timing.  Runs ../bin/memplan from
 * tests/. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>

#include "bench.h"
#include "bench_row.h"
#include "owner.h"
#include "util.h"
#include "bench_fixture.h"

/* ------------------------------------------------------------ stop signals */

/* The classification: SIGTERM, SIGINT and SIGHUP are requests to stop;
 * other signals are failures unless the runner was stopping already; the
 * runner's own time-limit kill is a timeout. */
START_TEST(stop_signals_are_not_failures) {
  int term = SIGTERM, segv = SIGSEGV, kill9 = SIGKILL; /* wait statuses of a signal death */
  ck_assert_int_eq(mp_run_stop_signal(term, false, 0), SIGTERM);
  ck_assert_int_eq(mp_run_stop_signal(SIGINT, false, 0), SIGINT);
  ck_assert_int_eq(mp_run_stop_signal(SIGHUP, false, 0), SIGHUP);
  ck_assert_int_eq(mp_run_stop_signal(segv, false, 0), 0);
  ck_assert_int_eq(mp_run_stop_signal(kill9, false, 0), 0);
  ck_assert_int_eq(mp_run_stop_signal(kill9, false, SIGTERM), SIGTERM);
  ck_assert_int_eq(mp_run_stop_signal(kill9, true, SIGTERM), 0);
  ck_assert_int_eq(mp_run_stop_signal(1 << 8, false, SIGTERM), 0); /* exit 1: a result */
}
END_TEST

/* A solver that dies of SIGTERM (scancel signals every process of the job,
 * the solvers too, and one may die before bench hears of it): no row, the
 * claim released, exit 143; the rerun runs the cell. */
START_TEST(solver_sigterm_stops_the_run) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/t.sqlite", dir);
  write_file("term.sh", "#!/bin/sh\nkill -TERM $$\n", 0755);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2 --results %s --memplan "
                      "%s/term.sh", dir, db, dir), 143);
  ck_assert_msg(file_has("err.txt", "died of signal 15"), "message");
  ck_assert_msg(file_has("err.txt", "rerun to resume"), "message");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), 0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 0);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2 --results %s", dir, db), 0);
  ck_assert_msg(file_has("out.txt", "0 already done, 2 run: 2 ok"), "resume");
  teardown();
}
END_TEST

/* bench is told to stop while a solver lies dead but not yet reaped: the
 * solver stops bench (SIGSTOP), queues SIGTERM for it, dies of SIGKILL,
 * and a helper lets bench go on (SIGCONT), which then meets both at once.
 * The dead solver is part of the stop: no row, exit 143. */
START_TEST(stopping_bench_stores_no_dead_solver) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/s.sqlite", dir);
  write_file("race.sh", "#!/bin/sh\nb=$PPID\n(sleep 0.3; kill -CONT $b) &\n"
                        "kill -STOP $b\nkill -TERM $b\nkill -KILL $$\n", 0755);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s --memplan %s/race.sh",
                      dir, db, dir), 143);
  ck_assert_msg(file_has("err.txt", "interrupted by signal 15"), "message");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), 0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 0);
  teardown();
}
END_TEST


/* ------------------------------------------------------------ merge */

/* The shim (tests/data/before_rename.c) built into the scratch folder. */
static void build_shim(char *so, size_t cap) {
  snprintf(so, cap, "%s/shim.so", dir);
  char *src = realpath("data/before_rename.c", NULL);
  ck_assert_ptr_nonnull(src);
  ck_assert_int_eq(sh("cc -shared -fPIC -o %s %s -ldl", so, src), 0);
  free(src);
}

/* Does any file of the folder begin with `prefix`? */
static bool left_over(const char *prefix) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls %s* >/dev/null 2>&1", prefix);
  return system(cmd) == 0;
}

/* A new OUT that appears while the merge builds it (a bench writing it,
 * another merge): the merge never replaces it, it merges into it; no row
 * of either is lost.  The shim makes OUT appear just before the merge puts
 * its build in place. */
START_TEST(merge_into_new_out_keeps_what_appeared) {
  setup();
  char so[600], out[600], s0[600], s1[600], other[600];
  build_shim(so, sizeof so);
  snprintf(out, sizeof out, "%s/out.sqlite", dir);
  snprintf(s0, sizeof s0, "%s/s0.sqlite", dir);
  snprintf(s1, sizeof s1, "%s/s1.sqlite", dir);
  snprintf(other, sizeof other, "%s/other.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2,3,4 --shard 0/2 --results %s "
                      "--quiet", dir, s0), 0);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2,3,4 --shard 1/2 --results %s "
                      "--quiet", dir, s1), 0);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g1.json --seeds 1,2,3 --results %s --quiet", dir,
                      other), 0);
  /* a bench writes OUT meanwhile */
  ck_assert_int_eq(sh("SHIM_TARGET=%s SHIM_BEFORE_RENAME='" MEMPLAN " bench --graphs %s/g1.json "
                      "--seeds 1,2,3 --results %s --quiet' LD_PRELOAD=%s " MEMPLAN " merge %s %s %s",
                      out, dir, out, so, out, s0, s1), 0);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM results"), 4 + 3);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM results WHERE path LIKE '%g1.json'"), 3);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM claims"), 0);
  /* another merge makes OUT meanwhile */
  unlink(out);
  ck_assert_int_eq(sh("SHIM_TARGET=%s SHIM_BEFORE_RENAME='" MEMPLAN " merge %s %s' LD_PRELOAD=%s "
                      MEMPLAN " merge %s %s %s", out, out, other, so, out, s0, s1), 0);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM results"), 4 + 3);
  char pre[700];
  snprintf(pre, sizeof pre, "%s.tmp", out);
  ck_assert_msg(!left_over(pre), "a build of OUT left behind");
  teardown();
}
END_TEST

/* A merge into a new OUT killed (-9) just before it puts its build in
 * place: no OUT; the next merge removes the build and makes OUT. */
START_TEST(killed_merge_leaves_nothing_for_long) {
  setup();
  char so[600], out[600], in[600], pre[700];
  build_shim(so, sizeof so);
  snprintf(out, sizeof out, "%s/out.sqlite", dir);
  snprintf(in, sizeof in, "%s/in.sqlite", dir);
  snprintf(pre, sizeof pre, "%s.tmp", out);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2 --results %s --quiet", dir, in), 0);
  ck_assert_int_eq(sh("SHIM_TARGET=%s SHIM_BEFORE_RENAME='kill -9 $PPID' LD_PRELOAD=%s " MEMPLAN
                      " merge %s %s", out, so, out, in), 137);
  struct stat st;
  ck_assert_int_ne(stat(out, &st), 0);
  ck_assert_msg(left_over(pre), "the kill came after the build was in place");
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s", out, in), 0);
  ck_assert_int_eq(q1(out, "SELECT count(*) FROM results"), 2);
  ck_assert_msg(!left_over(pre), "the killed merge's build is still there");
  teardown();
}
END_TEST

/* Resubmitted shards repair the merged file: a failed row gives way to the
 * --retry-failed rerun's answer, a stale row (other solver sources) to a
 * current one; merged again or in the other order, the same file. */
START_TEST(merge_takes_rows_that_supersede) {
  setup();
  char a[600], b[600], ab[600], ba[600];
  snprintf(a, sizeof a, "%s/a.sqlite", dir);
  snprintf(b, sizeof b, "%s/b.sqlite", dir);
  snprintf(ab, sizeof ab, "%s/ab.sqlite", dir);
  snprintf(ba, sizeof ba, "%s/ba.sqlite", dir);
  write_file("crash.sh", "#!/bin/sh\nkill -SEGV $$\n", 0755);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2,3 --results %s --memplan "
                      "%s/crash.sh --quiet", dir, a, dir), 0);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s", ab, a), 0); /* OUT: three failures */
  ck_assert_int_eq(sh("{ cp %s %s && " MEMPLAN " bench --graphs %s/g0.json --seeds 1,2,3 --results %s "
                      "--retry-failed --quiet; }", a, b, dir, b), 0);
  /* and a's seed 3 answered too, but by solvers of other sources: stale */
  ck_assert_int_eq(sh("{ " MEMPLAN " bench --graphs %s/g0.json --seeds 1,2,3 --results %s "
                      "--retry-failed --quiet && sqlite3 %s \"UPDATE results SET fingerprint = "
                      "fingerprint || ' old=0', started_at = '2999-01-01T00:00:00Z' WHERE seed = 3\"; }",
                      dir, a, a), 0);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s %s", ab, a, b), 0);
  ck_assert_msg(!file_has("out.txt", ": 0 new rows"), "the rows that supersede");
  ck_assert_int_eq(q1(ab, "SELECT count(*) FROM results WHERE status IN ('optimal', 'feasible') "
                          "AND fingerprint NOT LIKE '% old=0'"), 3);
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s %s", ab, b, a), 0);
  ck_assert_msg(file_has("out.txt", ": 0 new rows"), "merging again changed OUT");
  ck_assert_int_eq(sh(MEMPLAN " merge %s %s %s", ba, b, a), 0);
  ck_assert_int_eq(sh(MEMPLAN " export %s > %s/ab.csv && " MEMPLAN " export %s > %s/ba.csv && "
                      "cmp %s/ab.csv %s/ba.csv", ab, dir, ba, dir, dir, dir), 0);
  teardown();
}
END_TEST

/* ------------------------------------------------------------ full disks */

/* A scratch folder that cannot take a child's output (here a file-size
 * limit below the probe's 64 KiB, as a full TMPDIR) is an error of the
 * run, named, before any cell runs and before the results file is made. */
START_TEST(unwritable_scratch_stops_before_the_cells) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/l.sqlite", dir);
  ck_assert_int_eq(sh("ulimit -f 96; " MEMPLAN " bench --graphs %s/g0.json --results %s", dir, db), 1);
  ck_assert_msg(file_has("err.txt", "cannot write scratch files in "), "message");
  ck_assert_msg(file_has("err.txt", "File too large"), "the error");
  /* the scratch folder is made first: no results file at all (no rows) */
  ck_assert_msg(access(db, F_OK) != 0, "a results file was made");
  teardown();
}
END_TEST

/* The scratch folder lost during the run (the solver puts a file in its
 * place, as a disk filling up would make its writes fail): the child's
 * missing output is not a solver failure; no row, the run stops, named. */
START_TEST(lost_scratch_is_no_solver_failure) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/n.sqlite", dir);
  write_file("lose.sh", "#!/bin/sh\nd=$(dirname \"$(readlink /proc/$$/fd/1)\")\n"
                        "mv \"$d\" \"$d.gone\" && : > \"$d\"\nexit 1\n", 0755);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --seeds 1,2 --results %s --memplan %s/lose.sh",
                      dir, db, dir), 1);
  ck_assert_msg(file_has("err.txt", "cannot write scratch files in "), "message");
  ck_assert_msg(file_has("err.txt", "Not a directory"), "the error");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM results"), 0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 0);
  teardown();
}
END_TEST

/* The results file fills up (a file-size limit the scratch probe passes):
 * the error names the file, the summary counts the rows stored, and the
 * claims are released. */
START_TEST(full_results_file_is_named_and_counted) {
  setup();
  char db[600], sql[700];
  snprintf(db, sizeof db, "%s/f.sqlite", dir);
  ck_assert_int_eq(sh("ulimit -f 256; " MEMPLAN " bench --graphs %s/g0.json --results %s --seeds "
                      "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20", dir, db), 1);
  snprintf(sql, sizeof sql, "%s: ", db);
  ck_assert_msg(file_has("err.txt", sql), "the file is not named");
  long long rows = q1(db, "SELECT count(*) FROM results");
  ck_assert_int_lt(rows, 20);
  snprintf(sql, sizeof sql, " %lld run: %lld ok", rows, rows);
  ck_assert_msg(file_has("out.txt", sql), "the summary counts rows not stored");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 0);
  teardown();
}
END_TEST

/* ------------------------------------------------------------ scratch folders */

static int scratch_folders(void) {
  char cmd[2 * sizeof dir + 64];
  snprintf(cmd, sizeof cmd, "ls -d %s/memplan-bench-* 2>/dev/null | wc -l > %s/n.txt", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  char n[32];
  slurp("n.txt", n, sizeof n);
  return atoi(n);
}

/* A bench killed by SIGKILL cannot remove its scratch folder; the next
 * bench on the host removes it, its owner being gone. */
START_TEST(killed_bench_scratch_is_removed_later) {
  setup();
  char db[600];
  snprintf(db, sizeof db, "%s/k.sqlite", dir);
  write_file("slow.sh", "#!/bin/sh\nexec sleep 30\n", 0755);
  pid_t p = start("k", MEMPLAN " bench --graphs %s/g0.json --results %s --memplan %s/slow.sh "
                       "--time-limit 0", dir, db, dir);
  double t0 = mp_now();
  struct stat st;
  while (mp_now() - t0 < 10 && !(stat(db, &st) == 0 && q1_try(db, "SELECT count(*) FROM claims") == 1)) {
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
  }
  kill(p, SIGKILL);
  finish(p);
  ck_assert_int_eq(scratch_folders(), 1);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s --time-limit 0", dir, db), 0);
  ck_assert_int_eq(scratch_folders(), 0);
  teardown();
}
END_TEST

/* ------------------------------------------------------------ graph jobs */

/* A graph's job is claimed as a cell is: a bench that finds it held by a
 * live process (this test, standing for another bench computing it) leaves
 * it, and runs the cells. */
START_TEST(graph_jobs_are_claimed) {
  setup();
  char db[600], sql[2048];
  snprintf(db, sizeof db, "%s/g.sqlite", dir);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g1.json --results %s --quiet", dir, db), 0);
  const mp_owner *me = mp_owner_me();
  snprintf(sql, sizeof sql, "sqlite3 %s \"INSERT INTO claims VALUES ('graph' || char(30) || '%s/g0.json', "
           "'%s', '%s', %ld, '%s', '%s', %.3f, 'now')\"", db, dir, me->id, me->host, me->pid,
           me->start, me->boot, (double)time(NULL));
  ck_assert_int_eq(system(sql), 0);
  ck_assert_int_eq(sh(MEMPLAN " bench --graphs %s/g0.json --results %s", dir, db), 0);
  ck_assert_msg(file_has("out.txt", "1 run: 1 ok"), "the cell");
  ck_assert_msg(!file_has("out.txt", "graph bound"), "the graph's job ran though claimed");
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM graphs WHERE path LIKE '%g0.json'"), 0);
  ck_assert_int_eq(q1(db, "SELECT count(*) FROM claims"), 1); /* ours, still */
  teardown();
}
END_TEST

Suite *suite_bench_batch(void) {
  Suite *s = suite_create("bench_batch");
  TCase *tc = tcase_create("bench_batch");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, stop_signals_are_not_failures);
  tcase_add_test(tc, solver_sigterm_stops_the_run);
  tcase_add_test(tc, stopping_bench_stores_no_dead_solver);
  tcase_add_test(tc, merge_into_new_out_keeps_what_appeared);
  tcase_add_test(tc, killed_merge_leaves_nothing_for_long);
  tcase_add_test(tc, merge_takes_rows_that_supersede);
  tcase_add_test(tc, unwritable_scratch_stops_before_the_cells);
  tcase_add_test(tc, lost_scratch_is_no_solver_failure);
  tcase_add_test(tc, full_results_file_is_named_and_counted);
  tcase_add_test(tc, killed_bench_scratch_is_removed_later);
  tcase_add_test(tc, graph_jobs_are_claimed);
  suite_add_tcase(s, tc);
  return s;
}
