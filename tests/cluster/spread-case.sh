#!/usr/bin/env bash
# spread-case.sh CASE STAGE_DIR LAYER FAULT SPREAD_COMMS
#
# The spread rule (README, "The bounds INI") on the multi-node cluster
# (jobs/local-slurm.sh start --nodes 4; SLURM_CONF, SCALEGUARD_CLUSTER_SSH
# and SCALEGUARD_CLUSTER_HOSTS name it). Under the fault preload FAULT
# (tests/fault) MPI_Allgather and MPI_Allgatherv (W1-B's sub-calls) crash
# past n = 1000 elements on any spread. The INI holds two entries of
# MPI_Allgather with that bound: one measured on 1 node that names W1-B, one
# measured on 2 nodes that names W2, so the workaround in the layer's
# (LAYER's) info line tells which entry judged the call; scaleguard-bench and
# SPREAD_COMMS check every byte.
#   unprotected_2_nodes     the fault alone, 4 ranks on 2 nodes: the crash
#                           (the control: the fault holds across nodes)
#   local_1_node            launch-local, 4 ranks on this machine: the 1-node entry
#   local_1_node_nearest    entries measured on 2 nodes (W2) and 4 (W1-B), 4 ranks on
#                           this machine: the nearest (2) applies, said once
#   local_2_nodes           launch-local --nodes 2 (2 ranks a node): the 2-node entry
#   slurm_2_nodes           launch-slurm --nodes 2 (srun): the 2-node entry
#   local_4_nodes           launch-local --nodes 4: none measured on 4 nodes, the
#                           nearest (2) applies, said once
#   one_node_entry_2_nodes  only the 1-node entry, 4 ranks on 2 nodes: it applies,
#                           said once
#   tie_2_nodes             entries measured on 1 node (bound 2000, W1-B) and 3 (bound
#                           1000, W2), 4 ranks on 2 nodes: both as near, both judge:
#                           the first triggers (W1-B), in chunks under the smaller
#                           bound (under the 1-node entry alone W1-B's chunks of 2000
#                           would crash; under the 3-node one W2 would run)
#   comms_1_node            SPREAD_COMMS, 4 ranks on this machine: every communicator
#                           (all on 1 node) takes the 1-node entry, none is "not known"
#   comms_2_nodes           SPREAD_COMMS, 4 ranks on 2 nodes: MPI_COMM_WORLD and the
#                           pairs across the nodes take the 2-node entry, each
#                           node's ranks (a communicator on 1 node) the 1-node one
set -euo pipefail

case=$1 stage=$2 layer=$3 fault=$4 spread_comms=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launchers=$stage/libexec/scaleguard
: "${SCALEGUARD_CLUSTER_HOSTS:?the hosts of jobs/local-slurm.sh start --nodes N}"

result=0
fail() {
  echo "FAIL: $*"
  result=1
}

# entry SECTION BOUND NODES WORKAROUND: an entry of MPI_Allgather (NODES -:
# no nodes key, measured on one node as the shipped entries).
entry() {
  printf '[%s]\nclass = G\ntrigger = n\nbound = %s\n' "$1" "$2"
  [[ $3 == - ]] || echo "nodes = $3"
  printf 'workaround = %s\n\n' "$4"
}
{ entry MPI_Allgather 1000 - W1-B; entry 'MPI_Allgather#2' 1000 2 W2; } >"$work/both.ini"
entry MPI_Allgather 1000 - W1-B >"$work/one-node.ini"
{ entry MPI_Allgather 1000 4 W1-B; entry 'MPI_Allgather#2' 1000 2 W2; } >"$work/far.ini"
{ entry MPI_Allgather 2000 - W1-B; entry 'MPI_Allgather#2' 1000 3 W2; } >"$work/tie.ini"

# job LAUNCHER NODES INI|- PROGRAM ARGS...: 4 ranks on NODES hosts, under the
# fault preload and, with an INI, the layer at SCALEGUARD_LOG=info; the
# output in $work/job.log, the launcher's status line in $status.
job() {
  local launcher=$1 nodes=$2 ini=$3
  shift 3
  local preload=() env=("SCALEGUARD_FAULT_ROUTINES=MPI_Allgather,MPI_Allgatherv"
    SCALEGUARD_FAULT_TRIGGER=n SCALEGUARD_FAULT_BOUND=1000)
  if [[ $ini != - ]]; then
    preload=(--preload "$layer")
    env+=("SCALEGUARD_CONFIG=$work/$ini" SCALEGUARD_LOG=info)
  fi
  local setting options=()
  for setting in "${env[@]}"; do options+=(--env "$setting"); done
  status=$("$launchers/launch-$launcher" --procs 4 --nodes "$nodes" --time-limit 60 \
    --memory-limit $((4 << 30)) --log "$work/job.log" "${preload[@]}" --preload "$fault" \
    "${options[@]}" -- "$@")
  echo "launch-$launcher --nodes $nodes ($ini): $status"
  cat "$work/job.log"
}

# lines REGEX: how many lines of the job's output match.
lines() { grep -Ec -- "$1" "$work/job.log" || true; }

# expect_comms COMM...: SPREAD_COMMS's job completed and each COMM (its
# line's words, e.g. "node of 2 ranks on 1 host") got every byte.
expect_comms() {
  [[ $status == "status=completed exit=0 "* ]] || fail "the job did not complete"
  local comm
  for comm in "$@"; do
    (($(lines "^spread_comms: $comm: every byte right") >= 1)) || fail "$comm: no bytes checked"
  done
}

# expect_bench NODES WORKAROUND OTHER: the bench ran on NODES hosts, every
# byte arrived, and the layer's line for the call names WORKAROUND, never
# OTHER.
expect_bench() {
  local nodes=$1 workaround=$2 other=$3
  [[ $status == "status=completed exit=0 "* ]] || fail "the job did not complete"
  (($(lines "^# scaleguard-bench: world procs=4 hosts=$nodes ") == 1)) ||
    fail "the job's ranks were not on $nodes hosts"
  (($(lines "scaleguard-bench: routine=MPI_Allgather count=3000 .*result=pass") == 1)) ||
    fail "no passing MPI_Allgather of 3000 elements"
  (($(lines "^scaleguard: MPI_Allgather: class G, n=3000 s=1 P=4: $workaround\$") >= 1)) ||
    fail "the layer did not say it ran $workaround"
  (($(lines "^scaleguard: MPI_Allgather: class G, n=3000 s=1 P=4: $other\$") == 0)) ||
    fail "the layer ran $other, the other spread's entry's workaround"
}

# expect_said COUNT [REGEX]: the layer said COUNT times that it applies a
# bound measured on another spread (the line REGEX, where given).
expect_said() {
  local said
  said=$(lines '^scaleguard: MPI_Allgather: applying the bound of ')
  ((said == $1)) || fail "the layer said $said times that it applies another spread's bound, expected $1"
  if (($# > 1)); then
    (($(lines "$2") == 1)) || fail "no line '$2'"
  fi
}

bench=("$stage/bin/scaleguard-bench" -c MPI_Allgather -n 3000)
case $case in
  unprotected_2_nodes)
    job local 2 - "${bench[@]}"
    [[ $status == "status=completed "* ]] && fail "the job completed without the layer"
    (($(lines "^sgfault: MPI_Allgather n=3000 s=1 P=4 exceeds n bound 1000: crash") >= 1)) ||
      fail "no crash of the fault preload"
    ;;
  local_1_node)
    job local 1 both.ini "${bench[@]}"
    expect_bench 1 W1-B W2
    expect_said 0
    ;;
  local_1_node_nearest)
    job local 1 far.ini "${bench[@]}"
    expect_bench 1 W2 W1-B
    expect_said 1 "applying the bound of \[MPI_Allgather#2\] \(.*/far.ini:8\), measured on 2 nodes, to a communicator of 4 ranks on 1 node, a spread"
    ;;
  local_2_nodes | slurm_2_nodes)
    job "${case%%_*}" 2 both.ini "${bench[@]}"
    expect_bench 2 W2 W1-B
    expect_said 0
    ;;
  local_4_nodes)
    job local 4 both.ini "${bench[@]}"
    expect_bench 4 W2 W1-B
    expect_said 1 "applying the bound of \[MPI_Allgather#2\] \(.*/both.ini:7\), measured on 2 nodes, to a communicator of 4 ranks on 4 nodes, a spread no entry of the routine was measured at: the nearest spread's entries apply"
    ;;
  one_node_entry_2_nodes)
    job local 2 one-node.ini "${bench[@]}"
    expect_bench 2 W1-B W2
    expect_said 1 "applying the bound of \[MPI_Allgather\] \(.*/one-node.ini:1\), measured on 1 node, to a communicator of 4 ranks on 2 nodes"
    ;;
  tie_2_nodes)
    job local 2 tie.ini "${bench[@]}"
    expect_bench 2 W1-B W2
    expect_said 1 "applying the bound of \[MPI_Allgather\] \(.*/tie.ini:1\), measured on 1 node, to a communicator of 4 ranks on 2 nodes"
    ;;
  comms_1_node)
    job local 1 both.ini "$spread_comms"
    expect_comms "MPI_COMM_WORLD of 4 ranks on 1 host" "node of 4 ranks on 1 host" \
      "pair across nodes of 2 ranks on 1 host"
    (($(lines '^scaleguard: MPI_Allgather: class G, n=3000 s=1 P=2: W1-B$') >= 1)) ||
      fail "the pairs' calls did not take the 1-node entry (W1-B)"
    (($(lines '^scaleguard: MPI_Allgather: class G, n=3000 s=1 P=[24]: W2$') == 0)) ||
      fail "a call on one node took the 2-node entry (W2)"
    (($(lines 'nodes are not known') == 0)) ||
      fail "a communicator of this world was said to be of another"
    ;;
  comms_2_nodes)
    job local 2 both.ini "$spread_comms"
    expect_comms "MPI_COMM_WORLD of 4 ranks on 2 hosts" "node of 2 ranks on 1 host" \
      "pair across nodes of 2 ranks on 2 hosts"
    (($(lines '^scaleguard: MPI_Allgather: class G, n=3000 s=1 P=4: W2$') >= 1)) ||
      fail "MPI_COMM_WORLD's calls did not take the 2-node entry (W2)"
    (($(lines '^scaleguard: MPI_Allgather: class G, n=3000 s=1 P=2: W1-B$') >= 1)) ||
      fail "the nodes' calls did not take the 1-node entry (W1-B)"
    (($(lines '^scaleguard: MPI_Allgather: class G, n=3000 s=1 P=2: W2$') >= 1)) ||
      fail "the calls across the nodes did not take the 2-node entry (W2)"
    (($(lines '^scaleguard: MPI_Allgather: class G, n=3000 s=1 P=4: W1-B$') == 0)) ||
      fail "MPI_COMM_WORLD's calls took the 1-node entry"
    expect_said 0
    ;;
  *) echo "spread-case.sh: unknown case $case" >&2; exit 2 ;;
esac
((result)) || echo PASS
exit "$result"
