#!/usr/bin/env bash
# campaign-case.sh CASE STAGE_DIR FAULT_LIB [PREFIX PORT]
#
# scaleguard-probe as a campaign on the multi-node cluster (issue 48, item 3),
# under the fault preload (FAULT_LIB: tests/fault's libsgfault.so).
#   node_lost PREFIX PORT  a cluster of its own (4 nodes, under PREFIX, ports
#                PORT and up, a node down 10 s after it stops answering): the
#                probe's first job (21 sizes, 0.2 s more per call: about 5 s)
#                loses its node (every process in the node's namespaces is
#                killed: slurmd, slurmstepd, the job). The job must run again
#                on another node, the journal hold only that run, the lost
#                run's log be kept, and the verdict be the truth (no failure up
#                to the largest size: the lost run taken for a crash would
#                write one). Then the bound: the same probe afresh, each run of
#                its first job losing its node the same way: lost three times,
#                a launch error (exit 1), nothing journaled.
#   campaign     on the cluster of the fixture (SLURM_CONF): MPI_Allgather
#                failing past n = 1000 (an MPI error), P = 4 and 2: two
#                searches, P = 2's verification at (s, 4) answered by P = 4's
#                search (its jobs: 15 in all, small, for CI's time). One job at
#                a time (serial), then --max-jobs 2 (campaign): at most 2 of its
#                jobs pending or running at any sample of squeue, both searches
#                at once, the same jobs (journal keys, none twice) and the same
#                INI as serial; the campaign's journal replayed with
#                --max-jobs 1 gives its INI byte for byte and runs nothing; the
#                campaign killed (SIGKILL) after 5 jobs and started again: no
#                job redone or lost, the same INI.
set -euo pipefail

case=$1 stage=$2 fault=$3
probe=$stage/bin/scaleguard-probe
work=$(mktemp -d)
# shellcheck disable=SC2317 # the EXIT trap's
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

result=0
fail() {
  echo "FAIL: $*"
  result=1
}

# finished STATE_DIR: the jobs its journal holds
finished() {
  if [[ -f $1/jobs.tsv ]]; then awk '/\tend$/ { n++ } END { print n + 0 }' "$1/jobs.tsv"; else echo 0; fi
}

# job_keys STATE_DIR: the keys of its finished jobs, sorted (duplicates kept)
job_keys() {
  awk -F '\t' '$NF == "end" { print $1 }' "$1/jobs.tsv" | sort
}

# world_hosts LOG: the host names of the job's world line (none when the
# probe has just moved LOG aside: a lost run's)
world_hosts() {
  { sed -n 's/.*scaleguard-bench: world procs=[0-9]* hosts=[0-9]* host_names=\([^ ]*\).*/\1/p' \
    "$1" 2>/dev/null || true; } | head -n 1
}

case $case in
  node_lost)
    prefix=$4 port=$5
    local_slurm=$stage/share/scaleguard/jobs/local-slurm.sh
    export SCALEGUARD_SLURM_PORT=$port SCALEGUARD_SLURM_NODE_TIMEOUT=10
    killed=() dead=""
    # The dead nodes' step sockets and cgroups stay as a dead node's would:
    # removed here, so that stop need not wait for them.
    # shellcheck disable=SC2317 # the EXIT trap's
    cleanup() {
      local node
      for node in "${killed[@]}"; do
        rm -f "$prefix/spool/$node/${node}"_*
        find /sys/fs/cgroup/*/"slurm_$node" -depth -type d -exec rmdir {} + 2>/dev/null || true
      done
      "$local_slurm" stop --prefix "$prefix" || true
      rm -rf "$work"
    }
    # kill_node NODE: the node dies: every process in its namespaces (its
    # slurmd, the jobs' slurmstepd and ranks) killed; Slurm finds it silent
    kill_node() {
      local victims
      mapfile -t victims < <(ip netns pids "$1")
      ((${#victims[@]})) || fail "no process runs on $1"
      kill -KILL "${victims[@]}" 2>/dev/null || true
      killed+=("$1")
    }
    environment=$("$local_slurm" start --nodes 4 --prefix "$prefix")
    eval "$environment"
    # start_probe NAME: the probe into NAME.ini and NAME.state, in the background
    start_probe() {
      "$probe" --collective MPI_Allgather --procs 2 --type-size 1 --max-count 1048576 \
        --time-limit 60 --no-w4 --launcher slurm --memory-limit 1G \
        --output "$work/$1.ini" --state "$work/$1.state" --bench-preload "$fault" \
        --bench-env SCALEGUARD_FAULT_ROUTINES=MPI_Allgather --bench-env SCALEGUARD_FAULT_TRIGGER=n \
        --bench-env SCALEGUARD_FAULT_BOUND=0 --bench-env SCALEGUARD_FAULT_KIND=slow \
        >"$work/$1.out" 2>&1 &
    }
    start_probe out
    pid=$!
    # Once the first job's ranks run (their world line), their node dies.
    for ((tick = 0; tick < 1200; tick++)); do
      for log in "$work"/out.state/logs/job-*.log; do
        [[ -e $log ]] && dead=$(world_hosts "$log")
      done
      if [[ -n $dead ]] || ! kill -0 "$pid" 2>/dev/null; then break; fi
      sleep 0.1
    done
    if [[ -z $dead ]]; then
      cat "$work/out.out"
      fail "the first job never reported its world"
      exit 1
    fi
    echo "the first job runs on $dead: the node dies (every process in its namespaces killed)"
    kill_node "$dead"
    status=0
    wait "$pid" || status=$?
    cat "$work/out.out"
    ((status == 0)) || fail "the probe exited $status"
    grep -q 'lost to the cluster' "$work/out.out" || fail "the probe did not say the job was lost"
    node_state=$(scontrol -o show node "$dead" | sed -n 's/.* State=\([^ ]*\).*/\1/p')
    echo "Slurm: $dead is $node_state"
    [[ $node_state == DOWN* ]] || fail "Slurm does not have $dead down"
    mapfile -t lost_logs < <(compgen -G "$work/out.state/logs/job-*-lost-1.log" || true)
    if ((${#lost_logs[@]} != 1)); then
      fail "expected one lost run's log, found ${#lost_logs[@]}"
    else
      [[ $(world_hosts "${lost_logs[0]}") == "$dead" ]] ||
        fail "the lost run's log does not name $dead"
      rerun=${lost_logs[0]%-lost-1.log}.log
      rerun_host=$(world_hosts "$rerun")
      echo "the job ran again on $rerun_host"
      [[ -n $rerun_host && $rerun_host != "$dead" ]] ||
        fail "the job did not run again on another node ($rerun_host)"
    fi
    echo "journal:"
    cat "$work/out.state/jobs.tsv"
    (($(finished "$work/out.state") == 1)) || fail "the journal holds $(finished "$work/out.state") jobs, not 1"
    awk -F '\t' '$NF == "end" && $2 != "status=completed" { exit 1 }' "$work/out.state/jobs.tsv" ||
      fail "the journal holds a job that did not complete"
    grep -q 'no failure up to n=1048576' "$work/out.out" ||
      fail "the search did not end without a failure"
    if grep -q '^\[MPI_Allgather' "$work/out.ini"; then
      fail "the INI has an entry for MPI_Allgather: $(cat "$work/out.ini")"
    fi
    grep -qx 'launcher = slurm' "$work/out.ini" || fail "the INI's [platform] does not name slurm"

    echo "the bound: each run of the job loses its node"
    start_probe bound
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
      for log in "$work"/bound.state/logs/job-*.log; do
        [[ -e $log && $log != *-lost-*.log ]] || continue
        host=$(world_hosts "$log")
        [[ -n $host && " ${killed[*]} " != *" $host "* ]] || continue
        echo "the job runs on $host: the node dies"
        kill_node "$host"
      done
      sleep 0.1
    done
    status=0
    wait "$pid" || status=$?
    cat "$work/bound.out"
    ((status == 1)) || fail "the probe exited $status, not 1 (a launch error)"
    grep -q 'launch error: the cluster lost the job 3 times' "$work/bound.out" ||
      fail "no launch error for a job lost 3 times"
    ((${#killed[@]} == 4)) || fail "${#killed[@]} nodes died, not 4 (1, then 3)"
    (($(finished "$work/bound.state") == 0)) || fail "the journal recorded a job"
    ;;
  campaign)
    probe_args=(--collective MPI_Allgather --procs "4,2" --type-size 1
      --start-count 256 --max-count 4096 --factor 4 --time-limit 30 --no-w4 --launcher slurm
      --memory-limit 2G --bench-preload "$fault"
      --bench-env SCALEGUARD_FAULT_ROUTINES=MPI_Allgather --bench-env SCALEGUARD_FAULT_TRIGGER=n
      --bench-env SCALEGUARD_FAULT_BOUND=1000 --bench-env SCALEGUARD_FAULT_KIND=mpi-error)
    # run NAME K [STATE]: the probe with --max-jobs K into NAME.ini, NAME.out and
    # the state folder STATE (default NAME.state); fails as the probe does
    run() {
      local status=0
      "$probe" "${probe_args[@]}" --max-jobs "$2" --output "$work/$1.ini" \
        --state "$work/${3:-$1}.state" >"$work/$1.out" 2>&1 || status=$?
      tail -n 3 "$work/$1.out"
      ((status == 0)) || { cat "$work/$1.out"; echo "$1: the probe exited $status"; }
      return "$status"
    }
    # same_ini A B: the INIs are the same but for the time of the measurement
    same_ini() {
      diff <(grep -v '^measured = ' "$work/$1.ini") <(grep -v '^measured = ' "$work/$2.ini") ||
        fail "$1.ini and $2.ini differ"
    }
    run serial 1 || fail "one job at a time failed"
    grep -c '^class = G' "$work/serial.ini" | grep -qx 2 ||
      fail "one job at a time did not find the 2 entries: $(cat "$work/serial.ini")"
    grep -q 'implied by' "$work/serial.out" || fail "no verification point was implied"

    # The campaign, its jobs in flight sampled meanwhile.
    run campaign 2 &
    runner=$!
    most=0
    while kill -0 "$runner" 2>/dev/null; do
      now=$(squeue -h -n sg-MPI_Allgather -t PENDING,RUNNING -o %i 2>/dev/null | wc -l)
      ((now <= most)) || most=$now
      sleep 0.2
    done
    wait "$runner" || fail "the campaign failed"
    echo "campaign: at most $most jobs pending or running at once"
    ((most <= 2)) || fail "more than 2 jobs in flight ($most)"
    ((most >= 2)) || fail "never 2 jobs in flight at once"
    # two searches at once: P=2's first job started (the journal's started=,
    # when it was submitted) before P=4's last one. (Not the console's order,
    # which is that of the jobs' ends: Slurm once held P=2's first job
    # pending until P=4's first three had ended, both submitted at once.)
    started_of() {
      awk -F '\t' -v procs="procs=$1 " 'index($1, procs) {
          for (i = 2; i <= NF; i++) if ($i ~ /^started=/) print substr($i, 9) }' \
        "$work/campaign.state/jobs.tsv" | sort -n
    }
    first_p2=$(started_of 2 | head -n 1)
    last_p4=$(started_of 4 | tail -n 1)
    ((${first_p2:-0} > 0 && ${first_p2:-0} < ${last_p4:-0})) ||
      fail "the searches did not run at once (P=2's first job started at ${first_p2:-?}, P=4's last at ${last_p4:-?})"
    [[ -z $(job_keys "$work/campaign.state" | uniq -d) ]] || fail "the campaign ran a job twice"
    diff <(job_keys "$work/serial.state") <(job_keys "$work/campaign.state") ||
      fail "the campaign's jobs are not those of one job at a time"
    same_ini serial campaign
    grep -q 'driver=' "$work/campaign.state/jobs.tsv" || fail "no job has its driver time"

    # Its journal, one job at a time: nothing to run, the same file.
    run replay 1 campaign || fail "the replay failed"
    grep -q '^probe: 0 jobs run' "$work/replay.out" || fail "the replay ran jobs"
    cmp "$work/campaign.ini" "$work/replay.ini" ||
      fail "the replay's INI differs from the campaign's: $(diff "$work/campaign.ini" "$work/replay.ini")"

    # Killed after 5 jobs, then started again.
    "$probe" "${probe_args[@]}" --max-jobs 2 --output "$work/resumed.ini" \
      --state "$work/resumed.state" >"$work/resumed-1.out" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && (($(finished "$work/resumed.state") < 5)); do
      sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null || fail "the campaign ended before it could be killed"
    wait "$pid" 2>/dev/null || true
    # Its searches journal nothing once the driver is gone: let their jobs in
    # flight end, then count what the restart finds.
    sleep 5
    before=$(finished "$work/resumed.state")
    run resumed 2 resumed || fail "the restart failed"
    reused=$(sed -n 's/^probe: .* jobs run, \([0-9]*\) reused.*/\1/p' "$work/resumed.out")
    echo "killed after $before jobs; the restart reused $reused"
    ((reused == before)) || fail "the restart reused $reused of the $before jobs journaled"
    [[ -z $(job_keys "$work/resumed.state" | uniq -d) ]] || fail "a job was run twice"
    diff <(job_keys "$work/campaign.state") <(job_keys "$work/resumed.state") ||
      fail "the resumed campaign's jobs are not the campaign's"
    same_ini campaign resumed
    ;;
  *) echo "campaign-case.sh: unknown case $case" >&2; exit 2 ;;
esac
((result)) || echo PASS
exit "$result"
