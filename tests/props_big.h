/* props_big.h - the larger trials of the solver property tests: every
 * solver under test on generated graphs of 60-400 nodes (random graphs
 * with every feature, layered, series-parallel, RandWire and tree
 * families with in-place writes and workspaces) and every placer on
 * fixed-lifetime problems of 60-2000 items (equal sizes, alignments,
 * pinned items, empty lifetimes and sizes 0, many items live together),
 * with the checks of props_trial.h under a short time limit; and the
 * greedy placers that promise it (first fit, best fit, by size with either
 * fit) against the item-by-item definition of the packer on those inputs,
 * where the lifetime index, the birth-order sweep and the bucket sort of
 * the gap choice take their paths for many items. */
#ifndef MP_PROPS_BIG_H
#define MP_PROPS_BIG_H

#include "props_check.h"

/* How many larger graphs / fixed problems the trials use (fewer under
 * MP_QUICK). */
int props_big_graph_count(void);
int props_big_fixed_count(void);

/* Every selected solver on every larger graph; every selected placer on
 * every larger fixed problem; counted into st (indexed like mp_registry). */
void props_big_graph_trials(solver_stats *st);
void props_big_fixed_trials(solver_stats *st);

#endif
