#!/bin/sh
# Submit an experiment to Slurm: a job array with one task per shard (each
# writes its own SQLite file), then a merge job that runs when every task has
# ended and combines the shards into one results file.
#
#   scripts/slurm/submit.sh EXPERIMENT.json NSHARDS [memplan bench options...]
#
# Environment:
#   SHARDS_DIR   where the shard files go (default results/shards/NAME)
#   MERGED       the merged results file (default results/NAME.sqlite)
#   SBATCH_ARGS  extra sbatch options for the array (partition, --time, --mem,
#                --cpus-per-task: each task runs --jobs $SLURM_CPUS_PER_TASK)
# Prints the array job id and the merge job id.  Resubmitting the same
# experiment resumes: every shard skips the cells its file already holds.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 EXPERIMENT.json NSHARDS [bench options]" >&2; exit 2; }
exp=$1
n=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
case $exp in /*) ;; *) exp=$(cd "$(dirname "$exp")" && pwd)/$(basename "$exp") ;; esac
name=$(basename "$exp" .json)
shards=${SHARDS_DIR:-$root/results/shards/$name}
merged=${MERGED:-$root/results/$name.sqlite}
mkdir -p "$shards"
# fail early (bad experiment, unknown solver) instead of in every task
"$root/bin/memplan" bench "$exp" --list "$@" > /dev/null
# shellcheck disable=SC2086
array=$(sbatch --parsable --array="0-$((n - 1))" --job-name="memplan-$name" --chdir="$root" \
  --output="$shards/slurm-%A_%a.log" ${SBATCH_ARGS:-} \
  "$root/scripts/slurm/shard.sbatch" "$exp" "$n" "$shards" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" --job-name="memplan-$name-merge" \
  --chdir="$root" --output="$shards/merge-%j.log" \
  "$root/scripts/slurm/merge.sbatch" "$merged" "$shards" "$n")
merge=${merge%%;*}
echo "$array $merge"
