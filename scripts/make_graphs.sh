#!/bin/sh
# make_graphs.sh - regenerate the benchmark suite (called by `make graphs`).
#   graphs/synthetic/*.json  memplan gen, fixed seeds (deterministic: the
#                            same binary and parameters rewrite the same bytes)
#   graphs/real/*.json       scripts/export_torchvision.py --all and --large
#                            (torch via Debian's python3-torch), when it is
#                            available
#   graphs/SUITE.tsv, graphs/README.md   scripts/make_manifest.sh
# Environment: MEMPLAN (default bin/memplan); SKIP_REAL=1 skips the torch
# export (the real graphs already in graphs/real/ are kept and listed).
set -eu
cd "$(dirname "$0")/.."
M=${MEMPLAN:-bin/memplan}
OUT=graphs/synthetic
[ -x "$M" ] || { echo "make_graphs: $M not built (run make)" >&2; exit 1; }
# Run a private copy: a rebuild of bin/memplan during the run cannot break it.
BIN=$(mktemp)
trap 'rm -f "$BIN"' EXIT
cp "$M" "$BIN" && chmod 700 "$BIN"
M=$BIN
mkdir -p "$OUT"
# Remove only the files this script writes, so a renamed set leaves no stale graph.
rm -f "$OUT"/*.json

gen() { # gen FILE_STEM FAMILY ARGS...
  stem=$1
  shift
  "$M" gen "$@" --name "$stem" --out "$OUT/$stem.json"
}

t0=$(date +%s)
# RandWire, the HMCOS/Serenity benchmark setting (WS n=32 k=4 p=0.75) and the
# paper's other two generators (ER p=0.2, BA m=5), several seeds.
for s in 1 2 3; do gen randwire_ws_n32_s$s randwire --model ws -n 32 -k 4 -p 0.75 --seed $s; done
for s in 1 2; do gen randwire_er_n32_s$s randwire --model er -n 32 -p 0.2 --seed $s; done
for s in 1 2; do gen randwire_ba_n32_s$s randwire --model ba -n 32 -m 5 --seed $s; done
# variants: in-place ReLUs and convolution workspaces; a bigger cell; batch 8
gen randwire_ws_n32_inplace_ws_s1 randwire --model ws -n 32 -k 4 -p 0.75 --inplace-relu --ws-prob 0.3 --seed 1
gen randwire_ws_n64_s1 randwire --model ws -n 64 -k 4 -p 0.75 --seed 1
gen randwire_ws_n32_b8_s1 randwire --model ws -n 32 -k 4 -p 0.75 --batch 8 --channels 154 --resolution 28 --seed 1
# NASNet/DARTS-style cells: one cell, stacked cells, a 7-block cell
for s in 1 2; do gen nas_c1_b5_s$s nas --cells 1 --blocks 5 --channels 64 --resolution 32 --seed $s; done
gen nas_c3_b5_s1 nas --cells 3 --blocks 5 --channels 64 --resolution 32 --seed 1
gen nas_c8_b5_s1 nas --cells 8 --blocks 5 --channels 64 --resolution 32 --inplace-relu --seed 1
gen nas_c1_b7_s1 nas --cells 1 --blocks 7 --channels 64 --resolution 32 --seed 1
# random layered DAGs (Moccasin-style sizes 100-1000)
for n in 100 300 1000; do gen layered_n${n}_s1 layered -n $n --fan-in 3 --span 3 --seed 1; done
gen layered_n300_ws_inplace_s2 layered -n 300 --fan-in 3 --span 3 --ws-prob 0.2 --inplace-prob 0.3 --seed 2
# in-trees (Liu's algorithm is optimal here), series-parallel graphs, chains
gen tree_n100_s1 tree -n 100 --fan-in 3 --seed 1
gen tree_n1000_s1 tree -n 1000 --fan-in 4 --seed 1
gen tree_n300_inputs_s2 tree -n 300 --fan-in 3 --input-prob 0.3 --inplace-prob 0.3 --seed 2
gen sp_n100_s1 sp -n 100 --seed 1
gen sp_n300_s1 sp -n 300 --seed 1
gen sp_n1000_ws_s2 sp -n 1000 --ws-prob 0.2 --inplace-prob 0.2 --seed 2
gen chain_n50_s1 chain -n 50 --seed 1
gen chain_n200_inplace_s1 chain -n 200 --inplace-prob 0.3 --ws-prob 0.2 --seed 1
# tiny graphs (<= 20 operators) for the exact solvers; seeds picked so that
# the given order is not already at the node lower bound
gen tiny_randwire_ws_n4_s1 randwire --model ws -n 4 -k 2 -p 0.75 --channels 16 --resolution 8 --seed 1
gen tiny_randwire_er_n4_s9 randwire --model er -n 4 -p 0.5 --channels 16 --resolution 8 --seed 9
gen tiny_nas_c1_b2_s28 nas --cells 1 --blocks 2 --channels 16 --resolution 8 --seed 28
gen tiny_layered_n16_s1 layered -n 16 --layers 4 --fan-in 3 --span 2 --seed 1
gen tiny_layered_n20_inplace_s1 layered -n 20 --layers 5 --fan-in 3 --span 2 --inplace-prob 0.4 --ws-prob 0.2 --seed 1
gen tiny_tree_n15_s2 tree -n 15 --fan-in 3 --seed 2
gen tiny_tree_n20_s3 tree -n 20 --fan-in 2 --seed 3
gen tiny_sp_n12_s1 sp -n 12 --seed 1
gen tiny_sp_n18_s2 sp -n 18 --par-prob 0.7 --seed 2
gen tiny_chain_n10_s1 chain -n 10 --seed 1
t1=$(date +%s)
echo "make_graphs: $(ls "$OUT"/*.json | wc -l) synthetic graphs in $((t1 - t0)) s"

# Real graphs: the torchvision exporter, when torch can be imported.
if [ "${SKIP_REAL:-0}" = 1 ]; then
  echo "make_graphs: SKIP_REAL=1: keeping graphs/real as it is"
elif [ ! -f scripts/export_torchvision.py ]; then
  echo "make_graphs: scripts/export_torchvision.py not found: no real graphs exported"
elif ! /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
  echo "make_graphs: /usr/bin/python3 cannot import torch/torchvision (apt-get install" \
       "python3-torch python3-torchvision, or sh scripts/deps-graphs.sh): no real graphs exported"
else
  mkdir -p graphs/real
  # torchvision models (inference b1/b32, training b32 plain/SGD/Adam) and
  # the large transformer training steps; the planner's ideal graphs
  # (--backend none, no eager holds: see graphs/README.md)
  nice /usr/bin/python3 scripts/export_torchvision.py --all graphs/real --large graphs/real ||
    status=$?
fi

MEMPLAN=$M sh scripts/make_manifest.sh
exit "${status:-0}"
