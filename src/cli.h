/* cli.h - the subcommands; main.c only parses the command word and
 * dispatches to one of these.  Each returns the process exit code:
 * 0 success, 1 bad input, 2 bad usage, 3 the solver failed or gave no plan. */
#ifndef MP_CLI_H
#define MP_CLI_H

enum { MP_EXIT_OK = 0, MP_EXIT_INPUT = 1, MP_EXIT_USAGE = 2, MP_EXIT_SOLVER = 3 };

typedef struct mp_command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} mp_command;

int mp_cmd_solve(int argc, char **argv);
int mp_cmd_verify(int argc, char **argv);
int mp_cmd_info(int argc, char **argv);
int mp_cmd_solvers(int argc, char **argv);
int mp_cmd_gen(int argc, char **argv);
int mp_cmd_convert(int argc, char **argv);
int mp_cmd_bench(int argc, char **argv);
int mp_cmd_merge(int argc, char **argv);
int mp_cmd_export(int argc, char **argv);
int mp_cmd_table(int argc, char **argv);
int mp_cmd_plot(int argc, char **argv);

#endif
