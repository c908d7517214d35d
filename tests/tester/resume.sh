#!/usr/bin/env bash
# resume.sh STAGE_BIN KILL_AFTER -- PROBE_ARGUMENTS...
#
# Runs scaleguard-probe once without interruption, and once killed (SIGKILL)
# as soon as KILL_AFTER jobs are in its state folder, then started again with
# the same arguments. The two INIs must be the same (but for the time stamp),
# and the interrupted search must have finished exactly the jobs of the
# uninterrupted one: none redone, none lost.
set -euo pipefail

bin=$1 kill_after=$2
shift 3
probe=("$bin/scaleguard-probe" "$@")
finished() { # jobs in a state folder's journal, 0 before it exists
  if [[ -f $1/jobs.tsv ]]; then awk '/\tend$/ { n++ } END { print n + 0 }' "$1/jobs.tsv"; else echo 0; fi
}
rm -rf whole.ini whole.state resumed.ini resumed.state

"${probe[@]}" --output whole.ini --state whole.state >whole.out
whole_jobs=$(finished whole.state)

"${probe[@]}" --output resumed.ini --state resumed.state >resumed-1.out &
pid=$!
while kill -0 "$pid" 2>/dev/null &&
  (($(finished resumed.state) < kill_after)); do
  sleep 0.05
done
kill -KILL "$pid" 2>/dev/null || { echo "FAIL: the probe ended before it could be killed"; exit 1; }
wait "$pid" 2>/dev/null || true
before=$(finished resumed.state)
sleep 2 # let the killed driver's last job end: its result is lost, not half-kept

"${probe[@]}" --output resumed.ini --state resumed.state >resumed-2.out
cut_jobs=$(finished resumed.state)
reused=$(sed -n 's/^probe: .* jobs run, \([0-9]*\) reused.*/\1/p' resumed-2.out)

status=0
diff <(grep -v '^measured = ' whole.ini) <(grep -v '^measured = ' resumed.ini) ||
  { echo "FAIL: the INIs differ"; status=1; }
((cut_jobs == whole_jobs)) ||
  { echo "FAIL: $cut_jobs jobs finished after the restart, $whole_jobs without it"; status=1; }
((reused == before)) ||
  { echo "FAIL: the restart reused $reused jobs of the $before finished"; status=1; }
((status == 0)) && echo "PASS: killed after $before of $whole_jobs jobs; restart reused $reused"
exit "$status"
