/* gen_family.c - the generator families and the `memplan gen` options each
 * one takes, so that an option a family would ignore can be refused instead
 * of silently leaving the graph unchanged. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

/* Every family, with the options only it (or some families) reads; the
 * order is the one `gen --help` and the error messages use. */
static const struct {
  const char *family, *flags;
} family_flags[] = {
    {"randwire", "--model -n -k -p -m --channels --resolution --batch --dtype-bytes --inplace-relu"},
    {"nas", "--cells --blocks --channels --resolution --batch --dtype-bytes --inplace-relu"},
    {"layered", "-n --layers --fan-in --span --min-size --max-size"},
    {"tree", "-n --fan-in --input-prob --min-size --max-size"},
    {"sp", "-n --par-prob --min-size --max-size"},
    {"chain", "-n --min-size --max-size"},
};

/* What every family reads. */
static const char every_family[] = "--ws-prob --inplace-prob --backward --seed --name --out";

/* randwire's graph models: -k, -p and -m each belong to some of them. */
static const char model_flags[] = "-k -p -m";
static const struct {
  const char *model, *flags;
} models[] = {{"ws", "-k -p"}, {"er", "-p"}, {"ba", "-m"}};

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* Is `word` one of the space-separated words of `list`? */
static bool has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *s = list; (s = strstr(s, word)) != NULL; s += n)
    if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0')) return true;
  return false;
}

static const char *family_row(const char *family) {
  for (size_t i = 0; family && i < COUNT(family_flags); i++)
    if (!strcmp(family, family_flags[i].family)) return family_flags[i].flags;
  return NULL;
}

/* The flags of randwire's `model` (NULL: ws); "" for a model it lacks. */
static const char *model_row(const char *model) {
  for (size_t i = 0; i < COUNT(models); i++)
    if (!strcmp(model ? model : "ws", models[i].model)) return models[i].flags;
  return "";
}

bool mp_gen_family_known(const char *family) { return family_row(family) != NULL; }

bool mp_gen_takes(const char *family, const char *model, const char *flag) {
  const char *row = family_row(family);
  if (!row || !flag) return false;
  if (has_word(every_family, flag)) return true;
  if (!has_word(row, flag)) return false;
  return strcmp(family, "randwire") || !has_word(model_flags, flag) ||
         has_word(model_row(model), flag);
}

/* Append `flag` to out (cap bytes) as ", flag" (or "flag" first). */
static void append_flag(char *out, size_t cap, const char *flag, size_t len) {
  size_t used = strlen(out);
  if (used < cap)
    snprintf(out + used, cap - used, "%s%.*s", used ? ", " : "", (int)len, flag);
}

void mp_gen_flags(const char *family, const char *model, char *out, size_t cap) {
  if (!cap) return;
  out[0] = '\0';
  const char *row = family_row(family);
  if (!row) return;
  const char *lists[2] = {row, every_family};
  for (int l = 0; l < 2; l++)
    for (const char *s = lists[l]; *s;) {
      size_t len = strcspn(s, " ");
      char flag[32];
      snprintf(flag, sizeof flag, "%.*s", (int)len, s);
      if (mp_gen_takes(family, model, flag)) append_flag(out, cap, s, len);
      s += len + (s[len] == ' ');
    }
}
