/* cli_args.h - exact option parsing for every subcommand: option names
 * spelled out in full, values read exactly (no wrap-around, no clamping, no
 * NaN or infinity) and checked against their range.  Each function prints
 * "memplan CMD: ..." on stderr and returns -1 when the value is refused; the
 * caller then exits with MP_EXIT_USAGE. */
#ifndef MP_CLI_ARGS_H
#define MP_CLI_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

/* getopt_long takes any unambiguous prefix (--ord for --order), whose
 * meaning changes when an option is added.  Refuse every long option that is
 * not one of `opts` spelled out in full (up to '='), a flag given a value
 * (mp_opt_flag's message on every subcommand), and an option with a value
 * given twice unless its name is in `repeatable` (" set order ", names
 * between blanks).  0, or -1 after a message. */
int mp_args_exact(const char *cmd, int argc, char **argv, const struct option *opts,
                  const char *repeatable);

/* One command-line item read as getopt_long reads a long option, for the
 * subcommands that loop over argv themselves: "--name=value" is the option
 * "--name" with the value "value" (everything after the first '=': it may
 * hold '=', start with '-' or be empty), exactly as "--name value".  Any
 * other item is its own name.  getopt_long splits such items itself; its
 * users' names are checked with this reader (mp_args_exact).  The struct
 * points into itself: do not copy. */
typedef struct mp_opt {
  const char *name;  /* "--order" of "--order=greedy"; else the item itself */
  const char *value; /* the part after '=', else the next item; NULL: none */
  bool glued;        /* value is the part after '=' */
  char buf[64];      /* holds name when it is cut from the item */
} mp_opt;

/* The single-valued options met so far on one command line (a second one
 * used to replace the first without a word: `--budget 1000 --budget 2000`,
 * `--out a --out b`, `bench --results a --results b`). */
typedef struct mp_seen {
  char name[48][64];
  const char *value[48];
  int n;
} mp_seen;
/* Is `name` one of the blank-separated `names` (" --order --set ", or
 * " order set " for names without "--"; NULL: none)? */
bool mp_opt_listed(const char *names, const char *name);
/* Every subcommand's refusal of an option given twice: option `name`
 * ("--out", or "out") with `value`, unless it is one of `repeatable` (as
 * mp_opt_listed reads them; NULL: none is).  -1 after a usage message
 * naming both values when it was met before, else 0 (it is recorded). */
int mp_opt_once(const char *cmd, mp_seen *seen, const char *repeatable, const char *name,
                const char *value);

/* Read argv[i] (i < argc) into o. */
void mp_opt_read(int argc, char **argv, int i, mp_opt *o);
/* The option takes its value: o->value, with *i moved past the item that
 * held it when that is the next one. */
const char *mp_opt_take(const mp_opt *o, int *i);
/* An option that takes no value given one ("--list=x"): -1 after a usage
 * message naming it, as getopt_long's; else 0. */
int mp_opt_flag(const char *cmd, const mp_opt *o);

/* An integer in [lo, hi]. */
int mp_arg_int(const char *cmd, const char *opt, const char *val, int64_t lo, int64_t hi,
               int64_t *out);
/* A random seed: an integer in [0, 2^63 - 1] (results files store int64). */
int mp_arg_seed(const char *cmd, const char *opt, const char *val, uint64_t *out);
/* A finite real in [lo, hi]. */
int mp_arg_real(const char *cmd, const char *opt, const char *val, double lo, double hi,
                double *out);
/* One of the words of `choices`, separated by '|' ("text|json"). */
int mp_arg_choice(const char *cmd, const char *opt, const char *val, const char *choices);
/* The limits of the public API (memplan.h): an alignment in [1, 2^30]; a
 * capacity in bytes in [1, 2^60]. */
int mp_arg_align(const char *cmd, const char *opt, const char *val, int64_t *out);
int mp_arg_capacity(const char *cmd, const char *opt, const char *val, int64_t *out);

/* An output path that names the same file as one of inputs[0..n) (NULL
 * entries skipped; a link or another spelling of it too) is refused: the
 * output would replace the input it is made from. */
int mp_arg_out(const char *cmd, const char *out, const char *const *inputs, int n);
/* The same for an output given by another option (opt: "--write-lp"). */
int mp_arg_out_as(const char *cmd, const char *opt, const char *out, const char *const *inputs,
                  int n);
/* Two outputs of one run that name the same file (an existing one, or the
 * same name in the same folder) are refused: the second would replace the
 * first. */
int mp_arg_outs_apart(const char *cmd, const char *opt_a, const char *a, const char *opt_b,
                      const char *b);
/* An output path that is a directory is refused up front (a run would
 * only find out when writing, after the work). */
int mp_arg_not_dir(const char *cmd, const char *opt, const char *path);
/* An output file that could never be written is refused up front, as
 * mp_arg_not_dir does: an empty name, a directory, a folder that is
 * missing or not a folder.  (A device such as /dev/full is tried.) */
int mp_arg_out_place(const char *cmd, const char *opt, const char *path);

/* The input formats `--input-format` takes. */
#define MP_INPUT_FORMATS "json|graphml|nodelink|csv"

#endif
