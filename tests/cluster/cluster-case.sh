#!/usr/bin/env bash
# cluster-case.sh CASE STAGE_DIR [INSTALL_PREFIX]
#
# One job on the multi-node cluster (jobs/local-slurm.sh start --nodes 4;
# SLURM_CONF, SCALEGUARD_CLUSTER_SSH and SCALEGUARD_CLUSTER_HOSTS name it),
# checked by what its ranks report: the bench's world line (procs, distinct
# hosts and their names) and its result.
#   slurm_N_nodes    launch-slurm --procs 4 --nodes N (srun across N hosts)
#   mpiexec_N_nodes  launch-local --procs 4 --nodes N (this MPI's own launcher
#                    with the first N hosts, through node-ssh)
#   user_srun        the README's `srun $SCALEGUARD_SRUN_FLAGS -N 3 -n 3 ./app`
#                    with the installed module's environment (INSTALL_PREFIX)
#   mpiexec_oom_killer  launch-local --procs 2 --nodes 2 in a memory cgroup
#                    of its own (cgroup v1) too small for the call: the
#                    kernel's OOM killer ends a rank on another host, which
#                    mpiexec reports without a signal; the launcher must say
#                    oom, never a failure of the MPI
#   probe_spread     scaleguard-probe with a launch-local that spreads its
#                    ranks over 2 hosts: a launch error (exit 1, nothing in the
#                    journal), since every probe job asks for one node
set -euo pipefail

case=$1 stage=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench=$stage/bin/scaleguard-bench
launchers=$stage/libexec/scaleguard
: "${SCALEGUARD_CLUSTER_HOSTS:?the hosts of jobs/local-slurm.sh start --nodes N}"
IFS=, read -ra hosts <<<"$SCALEGUARD_CLUSTER_HOSTS"

result=0
fail() {
  echo "FAIL: $*"
  result=1
}

# expect_world LOG PROCS NODES: the job's one world line says PROCS ranks on
# NODES hosts, the first NODES of the cluster's, and the call passed.
expect_world() {
  local log=$1 procs=$2 nodes=$3 expected
  expected="# scaleguard-bench: world procs=$procs hosts=$nodes host_names="
  expected+=$(IFS=,; echo "${hosts[*]:0:nodes}")
  local worlds
  worlds=$(grep -a 'scaleguard-bench: world ' "$log" || true)
  echo "world: $worlds"
  [[ $worlds == "$expected" ]] || fail "expected the one line '$expected'"
  grep -aq "scaleguard-bench: routine=MPI_Allreduce count=.* procs=$procs .*result=pass" "$log" ||
    fail "no passing MPI_Allreduce of $procs ranks in $log"
}

call=(-c MPI_Allreduce -n 100000)
case $case in
  slurm_*_nodes | mpiexec_*_nodes)
    launcher=${case%%_*} nodes=${case#*_}
    nodes=${nodes%_nodes}
    [[ $launcher == mpiexec ]] && launcher=local
    status=$("$launchers/launch-$launcher" --procs 4 --nodes "$nodes" --time-limit 60 \
      --memory-limit $((4 << 30)) --log "$work/job.log" -- "$bench" "${call[@]}")
    echo "launch-$launcher: $status"
    [[ $status == "status=completed exit=0 "* ]] || fail "the job did not complete"
    expect_world "$work/job.log" 4 "$nodes"
    ;;
  mpiexec_oom_killer)
    memcg=/sys/fs/cgroup/memory
    [[ -w $memcg ]] || { echo "SKIP: no writable cgroup v1 memory controller at $memcg"; exit 77; }
    group=$memcg/scaleguard-oom-$$
    mkdir "$group"
    trap 'for _ in 1 2 3 4 5; do rmdir "$group" 2>/dev/null && break; sleep 1; done; rm -rf "$work"' EXIT
    # 2 ranks of 2 x 512 MiB buffers each, in 768 MiB
    echo $((768 << 20)) >"$group/memory.limit_in_bytes"
    status=$(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' - "$group" \
      "$launchers/launch-local" --procs 2 --nodes 2 --time-limit 60 --log "$work/job.log" \
      -- "$bench" -c MPI_Allreduce -n $((512 << 20)) -s 1)
    echo "launch-local: $status"
    grep -a 'EXIT CODE\|EXIT STRING\|signal\|Killed' "$work/job.log" | head -5 || true
    echo "memory cgroup: $(tr '\n' ' ' <"$group/memory.oom_control")"
    grep -q '^oom_kill [1-9]' "$group/memory.oom_control" ||
      fail "the kernel's OOM killer did not act in the group"
    [[ $status == "status=oom "* ]] || fail "expected status=oom"
    ;;
  user_srun)
    # shellcheck source=tests/install/load-module.sh
    source "$(dirname "$0")/../install/load-module.sh" "$3"
    read -ra flags <<<"$SCALEGUARD_SRUN_FLAGS"
    echo "running: srun $SCALEGUARD_SRUN_FLAGS -N 3 -n 3 $bench ${call[*]}"
    status=0
    timeout 60 srun "${flags[@]}" -N 3 -n 3 "$bench" "${call[@]}" >"$work/job.log" 2>&1 ||
      status=$?
    cat "$work/job.log"
    ((status == 0)) || fail "srun exited $status"
    expect_world "$work/job.log" 3 3
    ;;
  probe_spread)
    # The probe finds its launchers beside itself: a copy of bin/ whose
    # launch-local is the real one with --nodes 2 added.
    mkdir -p "$work/bin" "$work/libexec/scaleguard"
    cp "$stage/bin/scaleguard-probe" "$work/bin/"
    for tool in scaleguard-bench scaleguard-ini scaleguard-cvars; do
      ln -s "$stage/bin/$tool" "$work/bin/$tool"
    done
    for launcher in "$launchers"/*; do ln -s "$launcher" "$work/libexec/scaleguard/"; done
    rm "$work/libexec/scaleguard/launch-local"
    # (--nodes 2 just before --, so that it wins over the probe's --nodes 1)
    cat >"$work/libexec/scaleguard/launch-local" <<STAND_IN
#!/usr/bin/env bash
options=()
while [[ \$1 != -- ]]; do options+=("\$1"); shift; done
exec "$launchers/launch-local" "\${options[@]}" --nodes 2 "\$@"
STAND_IN
    chmod +x "$work/libexec/scaleguard/launch-local"
    status=0
    "$work/bin/scaleguard-probe" --collective MPI_Allreduce --procs 4 --type-size 1 \
      --max-count 1024 --time-limit 30 --no-w4 --output "$work/out.ini" \
      --state "$work/state" >"$work/probe.out" 2>&1 || status=$?
    cat "$work/probe.out"
    ((status == 1)) || fail "the probe exited $status, expected 1 (a launch error)"
    grep -q "launch error: asked for 4 ranks on 1 node(s), they ran on 2: host_names=${hosts[0]},${hosts[1]}" \
      "$work/probe.out" || fail "no launch error naming the 2 hosts"
    if grep -q $'\tend$' "$work/state/jobs.tsv" 2>/dev/null; then
      fail "the journal recorded a job: $(cat "$work/state/jobs.tsv")"
    fi
    [[ ! -e $work/out.ini ]] || fail "the probe wrote $work/out.ini"
    ;;
  *) echo "cluster-case.sh: unknown case $case" >&2; exit 2 ;;
esac
((result)) || echo PASS
exit "$result"
