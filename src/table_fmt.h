/* table_fmt.h - cells, rows and headers of markdown and LaTeX tables, shared
 * by the table views (table.c, table_pivot.c). */
#ifndef MP_TABLE_FMT_H
#define MP_TABLE_FMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"

typedef struct mp_fmt {
  bool md, latex, csv;
} mp_fmt;

/* A byte unit for values up to max: divisor and name (B, KiB, ...). */
double mp_tab_unit(int64_t max, const char **name);
/* Fixed precision without "-0.0"; NaN prints nothing. */
void mp_tab_num(char *out, size_t cap, double x, int prec);
/* Milliseconds with a precision that suits their size. */
void mp_tab_ms(char *out, size_t cap, double ms);
/* A planning time with its spread: "3.21" or "3.21 (2.98-3.50)". */
void mp_tab_ms_spread(const mp_fmt *f, char *out, size_t cap, const mp_agg *g);
/* A signed percentage "+1.2%" ("" for NaN). */
void mp_tab_pct(const mp_fmt *f, char *out, size_t cap, double frac);

void mp_tab_cell(FILE *o, const mp_fmt *f, const char *text, const char *unit, bool best,
                 bool first);
void mp_tab_row_begin(FILE *o, const mp_fmt *f);
void mp_tab_row_end(FILE *o, const mp_fmt *f);
void mp_tab_header(FILE *o, const mp_fmt *f, const char *const *h, const char *align, int nc);
void mp_tab_footer(FILE *o, const mp_fmt *f);
/* One CSV field, quoted when it holds a comma, a quote or a line end. */
void mp_tab_csv_field(FILE *o, const char *s);
/* Text escaped for the format (LaTeX specials, markdown pipes; control
 * characters as spaces but in CSV). */
void mp_tab_text(FILE *o, const mp_fmt *f, const char *s);
/* Text of a note (a Markdown line, a LaTeX comment): control characters as
 * spaces, nothing else changed. */
void mp_tab_plain(FILE *o, const char *s);

/* A geometric mean over the values present: NaN (absent: a graph without a
 * bound or a baseline, a row without a time) is left out, never clamped to
 * `floor` (fmax ignores NaN); n says how many went in. */
typedef struct mp_gmean {
  double log_sum;
  int n;
} mp_gmean;
void mp_gmean_add(mp_gmean *m, double x, double floor);
double mp_gmean_value(const mp_gmean *m); /* NaN when none */

/* Do two planning-time spreads overlap (a tie)? */
bool mp_tab_time_tie(const mp_agg *a, const mp_agg *b);

/* The pivot view (table_pivot.c). */
/* The pivot metric of that name (--metric), or -1. */
int mp_pivot_metric(const char *m);
int mp_table_pivot(FILE *out, const mp_fmt *f, const mp_aggset *s, const mp_table_opts *o,
                   char *msg, size_t cap);

/* The recomputation tables (table_remat.c): suite, smallest budget within
 * the overhead threshold, per graph (not with summary); and their CSV. */
int mp_table_remat(FILE *out, const mp_fmt *f, const mp_raggset *s, const mp_table_opts *o,
                   bool summary);
void mp_table_remat_csv(FILE *out, const mp_raggset *s);

#endif
