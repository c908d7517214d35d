#!/usr/bin/env bash
# shipped-case.sh STAGE_DIR LAYER_LIB INI SECTION fail|pass
#
# One entry of a shipped bounds INI (configs/debian12-*.ini) protects: the
# application call just past its bound, scaleguard-bench (every byte it
# receives checked) at the entry's P, type size and form, n = safe_count +
# delta in the layer's n (for Reduce_scatter(_block) the sum of the counts,
# so the bench's count is that over P).
#   fail  without ScaleGuard: the job must fail the way the entry's `failure`
#         says: crash (a signal, or an abort inside the MPI), mpi-error (the
#         bench's exit 4), wrong-data (exit 3), hang (the time limit), oom,
#         or slow (more than 10x the time per byte of n/16, run first).
#   pass  with LD_PRELOAD=LAYER_LIB and SCALEGUARD_CONFIG=INI: the job must
#         pass with every byte checked, the layer must have loaded INI and
#         name the workaround it took; a slow entry's call must no longer be
#         slow.
# The entry is read with `scaleguard-ini dump`. Exit 0 when all holds; the
# job's log is shipped-<pid>.log, kept on failure.
set -euo pipefail

stage=$1 lib=$2 ini=$3 section=$4 expect=$5
readonly SLOW_FACTOR=10 SLOW_REFERENCE=16
[[ -f $ini ]] || { echo "FAIL: no bounds file $ini"; exit 1; }
entry=$("$stage/bin/scaleguard-ini" dump "$ini" | awk -v s="$section" '$1 == s')
[[ -n $entry ]] || { echo "FAIL: $ini has no entry $section"; exit 1; }
declare -A key=()
read -ra words <<<"$entry"
for word in "${words[@]:1}"; do key[${word%%=*}]=${word#*=}; done
routine=${section%%#*} procs=${key[procs]} size=${key[type_size]}
((procs > 0 && size > 0 && key[delta] > 0)) ||
  { echo "FAIL: $section has no procs, type_size or delta to place the call"; exit 1; }
n=$((key[safe_count] + key[delta]))
count=$n # the layer's n: of a packed vector (Reduce_scatter), P blocks of the bench's -n
[[ $("$stage/bin/scaleguard-ini" routines | awk -v r="$routine" '$1 == r { print $4 }') != \
  send=packed ]] || count=$((n / procs))
# A rank whose call returned an MPI error ends the job after 60 s, as in the
# probe's jobs (--error-grace): its peers may wait in the collective for it
# (MPICH's in-place MPI_Gather_init_c at P = 4: one rank's "Out of memory").
bench=(-c "$routine" -s "$size" --error-grace 60)
[[ ${key[inplace]} != yes ]] || bench+=(--inplace)
if [[ ${key[failure]} == slow ]]; then
  bench+=(-n "$((count / SLOW_REFERENCE)),$count")
else
  bench+=(-n "$count")
fi

# A hang is the time limit: 60 s, six times what the same call takes
# protected here (MPICH's Iscatter#3: 10 s, with the buffers' set-up).
limit=900
[[ ${key[failure]} != hang || $expect != fail ]] || limit=60
launch=("$stage/libexec/scaleguard/launch-local" --procs "$procs" --time-limit "$limit")
if [[ $expect == pass ]]; then
  launch+=(--preload "$lib" --env "SCALEGUARD_CONFIG=$ini" --env SCALEGUARD_LOG=info)
fi
# MPICH with more ranks than cores: its pipelined Allgatherv waits a
# scheduler tick per 32 KiB piece (a protected call of 1 Gi elements per
# block at P = 3 ran past 15 minutes). Unpipelined, in both runs, as
# scripts/bench-protect.sh does.
SCALEGUARD_MPI_FLAVOR=
# shellcheck source=/dev/null
source "$stage/share/scaleguard/mpi.env"
if [[ $SCALEGUARD_MPI_FLAVOR == mpich ]] && ((procs > $(nproc))); then
  launch+=(--env MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE=1073741824)
fi
log=$PWD/shipped-$$.log
line=$("${launch[@]}" --log "$log" -- "$stage/bin/scaleguard-bench" "${bench[@]}")
read -r status code seconds <<<"$line"
status=${status#status=} code=${code#exit=} seconds=${seconds#seconds=}
echo "$section (${key[class]}, failure ${key[failure]}): scaleguard-bench ${bench[*]} at" \
  "P=$procs: $status (exit $code) in $seconds s"
grep -E '^scaleguard(-bench)?: |rank .*(returned|element|wrong)' "$log" | head -20 || true

# cliff: whether the second size's time per byte is SLOW_FACTOR times the first's.
cliff() {
  sed -n 's/^.*scaleguard-bench: routine=.* count=\([0-9]*\) .*result=pass seconds=\([0-9.]*\).*/\1 \2/p' \
    "$log" | awk -v f=$SLOW_FACTOR 'NR == 1 { n1 = $1; t1 = $2 } NR == 2 { n2 = $1; t2 = $2 }
      END { exit !(NR == 2 && t2 / n2 > f * t1 / n1) }'
}

result=0
# shellcheck source=tests/tester/case-common.sh
source "$(dirname "$0")/case-common.sh"
case $expect:${key[failure]} in
  fail:crash)
    case $status:$code in
      signal:*) ;;
      failed:3 | failed:4 | failed:5) bad "ended with exit $code, not a crash" ;;
      failed:*) ;; # an abort inside the MPI
      *) bad "ended as $status, not a crash" ;;
    esac ;;
  # (the bench's exit 4; MPICH's error text may say "Out of memory", which
  # the launcher reads as oom)
  fail:mpi-error)
    [[ $status:$code == failed:4 || $status:$code == oom:4 ]] ||
      bad "ended as $status $code, not an MPI error" ;;
  # (or the job crashed after a rank said it received wrong data: MPICH's
  # in-place MPI_Ireduce_scatter_block_c at P = 2 aborts or faults after it,
  # in two runs of three here)
  fail:wrong-data)
    [[ $status:$code == failed:3 ]] ||
      grep -q "^scaleguard-bench: rank [0-9]*: $routine count=$count delivered [0-9]* wrong elements" \
        "$log" || bad "ended as $status $code, not wrong data" ;;
  fail:hang) [[ $status == timeout ]] || bad "ended as $status, not by the time limit" ;;
  fail:oom) [[ $status == oom || $status:$code == failed:5 ]] || bad "ended as $status, not oom" ;;
  fail:slow)
    [[ $status == completed ]] || bad "ended as $status"
    cliff || bad "no cliff: not more than ${SLOW_FACTOR}x the time per byte of n/$SLOW_REFERENCE" ;;
  fail:*) bad "the entry's failure '${key[failure]}' says nothing to check" ;;
  pass:*)
    protected_passed "$status" "$ini" "$log"
    if ((result == 0)) && [[ ${key[failure]} == slow ]] && cliff; then
      bad "protected, the call is still more than ${SLOW_FACTOR}x slower per byte"
    fi ;;
  *) echo "usage: fail or pass, not '$expect'" >&2; exit 2 ;;
esac
finish "$log"
