#!/usr/bin/env bash
# check-launch.sh LAUNCHER LOG STATUS EXIT RANKS LAUNCHER-ARGUMENTS...
#
# Runs `LAUNCHER --log LOG --env LAUNCH_CHECK_VALUE=<unique> LAUNCHER-ARGUMENTS`
# (the program being launch_check reading LAUNCH_CHECK_VALUE) and checks:
#   - it exits 0 and prints exactly `status=STATUS exit=EXIT seconds=S.mmm`
#     (EXIT an extended regex);
#   - RANKS > 0: every rank 0..RANKS-1 of a RANKS-rank world saw the value
#     and the preload;
#   - no process of the job is left: none has the unique value in its
#     environment (every rank does).
# STATUS `usage`: the launcher must refuse the arguments with exit 2 and
# print nothing on stdout.
set -euo pipefail

launcher=$1 log=$2 status=$3 exit_code=$4 ranks=$5
shift 5
value=check-$$-$RANDOM

fail() {
  echo "check-launch: $*" >&2
  if [[ -s $log ]]; then
    echo "--- $log" >&2
    grep -v '^launch-slurm: | ' "$log" >&2 || true
  fi
  exit 1
}

rc=0
output=$("$launcher" --log "$log" --env "LAUNCH_CHECK_VALUE=$value" "$@") || rc=$?
echo "$output"
if [[ $status == usage ]]; then
  ((rc == 2)) || fail "exit status $rc, expected 2 for bad arguments"
  [[ -z $output ]] || fail "printed on stdout despite bad arguments"
  exit 0
fi
((rc == 0)) || fail "launcher exit status $rc"
[[ $output =~ ^status=$status\ exit=($exit_code)\ seconds=[0-9]+\.[0-9]{3}$ ]] ||
  fail "expected status=$status exit=$exit_code, got '$output'"

for ((rank = 0; rank < ranks; rank++)); do
  grep -qxF "launch_check: rank $rank of $ranks: LAUNCH_CHECK_VALUE=$value preloaded=yes" "$log" ||
    fail "rank $rank of $ranks did not report the value and the preload"
done

survivors=()
for environ in /proc/[0-9]*/environ; do
  if grep -qzxF "LAUNCH_CHECK_VALUE=$value" "$environ" 2>/dev/null; then
    pid=${environ#/proc/}
    survivors+=("${pid%/environ}")
  fi
done
if ((${#survivors[@]})); then
  ps -o pid,ppid,stat,args -p "$(IFS=,; echo "${survivors[*]}")" >&2 || true
  fail "processes of the job survived the launcher: ${survivors[*]}"
fi
