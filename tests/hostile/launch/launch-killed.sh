#!/usr/bin/env bash
# launch-killed.sh LAUNCH_LOCAL: a job whose mpiexec is killed (SIGKILL, as the
# kernel's OOM killer does) under launch-local (issue 47, item 19): the
# launcher reports it plainly, status=failed exit=137 and "the job ended
# with status 137: 128 + 9, SIGKILL", never bash's own notice naming the
# launcher's source ("line 72: Killed ( if [[ -n $address_space ]]...").
set -euo pipefail

launcher=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The rank kills the mpiexec above it (MPICH: above hydra_pmi_proxy).
# shellcheck disable=SC2016 # expanded by the rank's sh
killer='p=$$
while [ "$p" -gt 1 ]; do
  case $(ps -o comm= -p "$p") in mpiexec* | orterun) kill -KILL "$p"; break ;; esac
  p=$(ps -o ppid= -p "$p" | tr -d " ")
done
sleep 3'
status=0
out=$("$launcher" --procs 1 --time-limit 30 --log "$work/log" -- sh -c "$killer" \
  2>"$work/err") || status=$?
cat "$work/err"
echo "$out"
result=0
[[ $status == 0 && $out =~ ^status=failed\ exit=137\ seconds=[0-9.]+$ ]] ||
  { echo "FAIL: exit $status, '$out', expected status=failed exit=137"; result=1; }
plain="launch-local: the job ended with status 137: 128 + 9, SIGKILL"
plain+=" (mpiexec killed, or a rank's status passed on)"
if ! grep -qxF "$plain" "$work/err"; then
  echo "FAIL: the launcher did not report the signal plainly"
  result=1
fi
if grep -Eq 'Killed|line [0-9]+:|address_space' "$work/err"; then
  echo "FAIL: bash's own notice of the killed job, naming the launcher's source"
  result=1
fi
((result)) || echo PASS
exit "$result"
