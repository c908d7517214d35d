#!/usr/bin/env bash
# probe-case.sh STAGE_BIN NAME N_TRUE [KEY=VALUE...] -- PROBE_ARGUMENTS...
#
# Runs STAGE_BIN/scaleguard-probe from scratch with PROBE_ARGUMENTS, writing
# NAME.ini and NAME.state in the current folder, then checks that the INI
# holds the MPI's control variables ([cvars], their digest matching) and the
# section of the probed collective: every KEY=VALUE is there, and the safe
# count is within one step of the true bound, safe_count <= N_TRUE <
# safe_count + delta, and that every job ran with libscaleguard-yield.so where
# the tree has it. N_TRUE `-` skips the count's check. Exit 0 when all holds.
set -euo pipefail

bin=$1 name=$2 n_true=$3
shift 3
expected=()
while (($#)) && [[ $1 != -- ]]; do
  expected+=("$1")
  shift
done
shift
collective=
for ((i = 1; i <= $#; i++)); do
  [[ ${!i} == --collective ]] && { j=$((i + 1)); collective=${!j}; }
done

rm -rf "$name.ini" "$name.state"
"$bin/scaleguard-probe" --output "$name.ini" --state "$name.state" "$@" | tee "$name.out"
# the MPI's fingerprint written too: [cvars], whose digest [platform] gives
summary=$("$bin/scaleguard-ini" check "$name.ini" 2>"$name.check")
cat "$name.check" >&2
echo "$summary"
if [[ ! $summary =~ ,\ [1-9][0-9]*\ control\ variables$ ]] || [[ -s $name.check ]]; then
  echo "probe-case.sh: $name.ini lacks the MPI's control variables, or their digest" >&2
  exit 1
fi
# every job's ranks had libscaleguard-yield.so where the tree has it, and the
# journal's key says so (a journal measured without it is not reused)
if [[ -f $bin/../libexec/scaleguard/libscaleguard-yield.so ]] &&
  grep -vE 'preload=[^=]*libscaleguard-yield\.so ' "$name.state/jobs.tsv" | grep -q .; then
  echo "probe-case.sh: a job of $name.state/jobs.tsv without libscaleguard-yield.so" >&2
  exit 1
fi

exec "$(dirname "$0")/check-section.sh" "$bin" "$name.ini" "$collective" "$n_true" "${expected[@]}"
