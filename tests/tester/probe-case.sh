#!/usr/bin/env bash
# probe-case.sh STAGE_BIN NAME N_TRUE [KEY=VALUE...] -- PROBE_ARGUMENTS...
#
# Runs STAGE_BIN/scaleguard-probe from scratch with PROBE_ARGUMENTS, writing
# NAME.ini and NAME.state in the current folder, then checks the section of
# the probed collective: every KEY=VALUE is there, and the safe count is
# within one step of the true bound, safe_count <= N_TRUE < safe_count + delta.
# N_TRUE `-` skips that check. Exit 0 when all holds.
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
"$bin/scaleguard-ini" check "$name.ini"

# KEY=VALUE lines of [collective], as the INI writer lays them out.
section=$(awk -v header="[$collective]" '
  $0 == header { inside = 1; next }
  /^\[/ { inside = 0 }
  inside && / = / { sub(/ = /, "="); print }' "$name.ini")
status=0
for pair in "${expected[@]}"; do
  grep -qxF -- "$pair" <<<"$section" || { echo "FAIL: [$collective] lacks $pair"; status=1; }
done
if [[ $n_true != - ]]; then
  safe=$(sed -n 's/^safe_count=//p' <<<"$section")
  delta=$(sed -n 's/^delta=//p' <<<"$section")
  if [[ -z $safe || -z $delta ]] || ((safe > n_true || n_true >= safe + delta)); then
    echo "FAIL: safe_count=$safe delta=$delta does not bracket the true bound $n_true"
    status=1
  fi
fi
((status == 0)) && echo "PASS: [$collective] $(tr '\n' ' ' <<<"$section")"
exit "$status"
