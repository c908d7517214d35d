#!/usr/bin/env bash
# chain-case.sh STAGE_DIR fail|pass PROCS [LAYER_LIB INI] -- BENCH_ARGUMENTS...
#
# The real failing call, as an application makes it: scaleguard-bench
# (every byte it receives checked) on PROCS ranks through the local launcher
# (STAGE_DIR/libexec/scaleguard/launch-local, STAGE_DIR/bin/scaleguard-bench).
#   fail  without ScaleGuard: the job must end by a crash, an MPI error or
#         wrong data (not pass, not run out of memory, not time out);
#   pass  with LD_PRELOAD=LAYER_LIB and SCALEGUARD_CONFIG=INI: the job must
#         pass, and the layer must have loaded INI and say which class it
#         found and which workaround it took.
# Exit 0 when that holds. The job's log is chain-<pid>.log, kept on failure.
set -euo pipefail

stage=$1 expect=$2 procs=$3
shift 3
launch=("$stage/libexec/scaleguard/launch-local" --procs "$procs" --time-limit 900)
if [[ $expect == pass ]]; then
  lib=$1 ini=$2
  shift 2
  [[ -f $ini ]] || { echo "FAIL: no bounds file $ini (did the probe case run?)"; exit 1; }
  launch+=(--preload "$lib" --env "SCALEGUARD_CONFIG=$ini" --env SCALEGUARD_LOG=info)
fi
[[ $1 == -- ]] || { echo "usage: see the head of $0" >&2; exit 2; }
shift
log=$PWD/chain-$$.log
line=$("${launch[@]}" --log "$log" -- "$stage/bin/scaleguard-bench" "$@")
read -r status code seconds <<<"$line"
status=${status#status=} code=${code#exit=} seconds=${seconds#seconds=}
echo "scaleguard-bench $*: P=$procs, $status (exit $code) in $seconds s"
grep -E '^scaleguard(-bench)?: |rank .*(returned|element|wrong)' "$log" | head -20 || true

result=0
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
case $expect in
  fail)
    case $status:$code in
      signal:* | failed:3 | failed:4) ;;
      failed:5 | oom:*) bad "the run ran out of memory, which proves nothing" ;;
      failed:*) ;; # an abort inside the MPI
      completed:*) bad "the call passed without ScaleGuard" ;;
      *) bad "the run ended as $status" ;;
    esac ;;
  pass) protected_passed "$status" "$ini" "$log" ;;
  *) echo "usage: fail or pass, not '$expect'" >&2; exit 2 ;;
esac
finish "$log"
