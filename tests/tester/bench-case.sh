#!/usr/bin/env bash
# bench-case.sh STAGE_DIR
#
# scaleguard-bench's memory fields, through the local launcher as the probe
# runs it (STAGE_DIR/libexec/scaleguard/launch-local, STAGE_DIR/bin/...):
# each result line has `peak_rss=SUM peak_rss_max=MAX` right after
# `seconds=`, the ranks' peak resident set sizes in bytes, summed and the
# largest, then `fastest=` (before ` cpu_wait=W sparse=1`): the fastest call, which is
# the mean (`seconds`) where there is one call per size. Dense data touch every byte of the buffers,
# so SUM and MAX are at least the buffers `--predict-memory` gives for the
# call (total, largest rank); MAX <= SUM <= P * MAX; and with ascending sizes
# in one job a line's peaks are never below the line before. Exit 0 when
# that holds. The jobs' logs are bench-*.log here.
set -euo pipefail

stage=$1
bench=$stage/bin/scaleguard-bench
status=0
fail() { echo "FAIL: $*"; status=1; }

# case NAME PROCS BENCH_ARGUMENTS...: run the job; check every result line
# (the counts are -n's, dense unless --sparse, predicted from the same args).
case_() {
  local name=$1 procs=$2
  shift 2
  local log=$PWD/bench-$name.log
  local line
  line=$("$stage/libexec/scaleguard/launch-local" --procs "$procs" --time-limit 120 \
    --log "$log" -- "$bench" "$@")
  echo "$name: $line"
  [[ $line == "status=completed exit=0 "* ]] || { fail "$name: the job did not pass"; return; }
  local args=() counts='' sparse=0
  while (($#)); do
    case $1 in
      -n) counts=$2; shift 2 ;;
      --sparse) sparse=1; args+=("$1"); shift ;;
      *) args+=("$1"); shift ;;
    esac
  done
  local pattern='^scaleguard-bench: routine=[^ ]+ count=([0-9]+) .* iters=([0-9]+) result=pass seconds=([0-9]+\.[0-9]+) peak_rss=([0-9]+) peak_rss_max=([0-9]+) fastest=([0-9]+\.[0-9]+)( cpu_wait=[0-9]+\.[0-9]{2})?( sparse=1)?$'
  local count iters mean sum max fastest marked previous_sum=0 previous_max=0 seen=0
  local predicted total most
  while IFS= read -r result; do
    echo "  $result"
    if [[ ! $result =~ $pattern ]]; then
      fail "$name: not seconds= peak_rss=SUM peak_rss_max=MAX fastest= (then sparse=1 or nothing)"
      continue
    fi
    count=${BASH_REMATCH[1]} iters=${BASH_REMATCH[2]} mean=${BASH_REMATCH[3]}
    sum=${BASH_REMATCH[4]} max=${BASH_REMATCH[5]} fastest=${BASH_REMATCH[6]}
    seen=$((seen + 1))
    [[ -n ${BASH_REMATCH[8]} ]] && marked=1 || marked=0
    [[ $fastest != 0.000000 ]] || fail "$name n=$count: fastest=0"
    ((iters > 1)) || [[ $fastest == "$mean" ]] ||
      fail "$name n=$count: one call, but fastest=$fastest is not seconds=$mean"
    ((marked == sparse)) || fail "$name n=$count: sparse=1 is $marked, --sparse is $sparse"
    ((max > 0 && max <= sum && sum <= procs * max)) ||
      fail "$name n=$count: not 0 < MAX <= SUM <= P*MAX (SUM $sum, MAX $max, P $procs)"
    ((sum >= previous_sum && max >= previous_max)) ||
      fail "$name n=$count: peaks below the smaller size's ($sum < $previous_sum or $max < $previous_max)"
    previous_sum=$sum previous_max=$max
    ((sparse)) && continue
    predicted=$("$bench" --predict-memory "${args[@]}" -n "$count" --procs "$procs")
    total=${predicted#bytes_total=} total=${total%% *} most=${predicted##*bytes_max_rank=}
    ((sum >= total && max >= most)) ||
      fail "$name n=$count: peaks below the buffers ($predicted; peak_rss=$sum peak_rss_max=$max)"
  done < <(grep '^scaleguard-bench: routine=' "$log")
  ((seen == $(tr ',' '\n' <<<"$counts" | wc -l))) || fail "$name: $seen result lines for -n $counts"
}

# Two sizes, 80 MiB of buffers on every rank at the larger.
case_ allgather 4 -c MPI_Allgather -s 4 -n 65536,4194304
# The root holds most: 80 MiB, the others 16 MiB. Three calls each.
case_ gather_root 4 -c MPI_Gather --root 1 -s 2 -n 8388608 -i 3
# A reduction in place, and sparse data (no prediction: pages untouched).
case_ allreduce_inplace 2 -c MPI_Allreduce --inplace -s 8 -n 4194304
case_ reduce_scatter_sparse 2 -c MPI_Reduce_scatter --sparse -n 1000,16777216

((status == 0)) && echo "PASS: every result line has its peaks, at least the buffers, and its fastest call"
exit "$status"
