#!/bin/sh
# List the functions longer than N lines (default 100) in src/ and solvers/,
# longest first: "lines file:line name".  A function is a line at column 0
# that ends in "{" after a ")" (the house style) up to the next "}" at
# column 0.  Usage: sh scripts/long_functions.sh [N] [files...]
N=${1:-100}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- $(find src solvers -name '*.c' | sort)
awk -v N="$N" '
  FNR == 1 { start = 0; cand = 0 }
  # a definition: an identifier line at column 0 with "(", whose signature
  # (maybe wrapped) ends in "{"
  /^[A-Za-z_][^;=]*\(/ && !/^(typedef|struct|enum|union|static const|const)[^(]*=/ {
    cand = FNR; name = $0; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n]
  }
  cand && /;[ ]*$/ && !/\{[ ]*$/ { cand = 0 }
  cand && /\{[ ]*$/ { start = cand; fname = name; cand = 0; next }
  /^\}/ && start { len = FNR - start + 1; if (len > N) printf "%5d %s:%d %s\n", len, FILENAME, start, fname; start = 0 }
' "$@" | sort -rn
