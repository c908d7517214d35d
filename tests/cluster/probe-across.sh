#!/usr/bin/env bash
# probe-across.sh CASE STAGE_DIR FAULT_LIB
#
# The tester's spread (scaleguard-probe --nodes 1,2,4; issue 48, item 4) on
# the fixture's cluster (SLURM_CONF, SCALEGUARD_CLUSTER_*), MPI_Allgather at
# P = 4 under the fault preload (FAULT_LIB: past n = 1000 an MPI error):
#   same      the fault on every host: one node finds the bound 992 (grid 32);
#             over 2 and over 4 nodes two jobs each (n = 992 passes, 1024
#             fails), each job's ranks on that many hosts; "as on 1 node":
#             the INI has the one-node entry only, the report's spread table
#             says same.
#   differs   --nodes 1,2, the fault on the cluster's second host only (a bug
#             of one node's path, SCALEGUARD_FAULT_HOST): one node (the first
#             host) passes up to the largest size; over 2 nodes that size
#             fails, a search of its own finds 992 there: an entry with
#             nodes = 2, the report says differs; the journal replayed runs
#             nothing and writes the same INI. P = 2 too, on one node only
#             (--spread-procs 4): no search of P = 2 over 2 nodes.
#   campaign  `differs` over 2 and 4 nodes at P = 2 and 4 as a campaign
#             (--launcher slurm --max-jobs 3): the spread searches wait for
#             their one-node search; entries with nodes = 2 (P = 2 and 4) and
#             nodes = 4; replayed one job at a time: the same. Slurm places
#             each job on any free nodes, so the fault is a bug of the path
#             between nodes (SCALEGUARD_FAULT_ACROSS) and a job's hosts are
#             any N of the cluster's.
set -euo pipefail

case=$1 stage=$2 fault=$3
probe=$stage/bin/scaleguard-probe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: "${SCALEGUARD_CLUSTER_HOSTS:?the hosts of jobs/local-slurm.sh start --nodes N}"
IFS=, read -ra hosts <<<"$SCALEGUARD_CLUSTER_HOSTS"

result=0
fail() {
  echo "FAIL: $*"
  result=1
}

procs=4 spreads=1,2,4 more=()
case $case in
  same) ;;
  differs) procs=2,4 spreads=1,2 more=(--bench-env "SCALEGUARD_FAULT_HOST=${hosts[1]}" --spread-procs 4) ;;
  campaign) procs=2,4 more=(--bench-env SCALEGUARD_FAULT_ACROSS=1 --launcher slurm) ;;
  *) echo "probe-across.sh: unknown case $case" >&2; exit 2 ;;
esac
across=${spreads#1,} across=${across//,/ } # the spreads past one node
args=(--collective MPI_Allgather --procs "$procs" --nodes "$spreads" --type-size 1 --start-count 64
  --max-count 4096 --time-limit 30 --no-w4 --output "$work/out.ini" --state "$work/state"
  --bench-preload "$fault" --bench-env SCALEGUARD_FAULT_ROUTINES=MPI_Allgather
  --bench-env SCALEGUARD_FAULT_TRIGGER=n --bench-env SCALEGUARD_FAULT_BOUND=1000
  --bench-env SCALEGUARD_FAULT_KIND=mpi-error "${more[@]}")

# probe [MORE...]: the probe with args, its output in $work/probe.out
probe() {
  local status=0
  "$probe" "${args[@]}" "$@" >"$work/probe.out" 2>&1 || status=$?
  cat "$work/probe.out"
  ((status == 0)) || fail "the probe ended with status $status"
}

# spread_jobs NODES: the journal's finished jobs at that spread
spread_jobs() {
  awk -F '\t' -v n="nodes=$1" '$NF == "end" && $1 ~ ("(^| )" n "( |$)")' "$work/state/jobs.tsv" |
    wc -l
}

# spread_hosts_ok NODES: every log of a job at that spread says its ranks ran
# on NODES hosts: the cluster's first NODES (the local launcher), or for a
# campaign (Slurm's choice) NODES distinct hosts of the cluster
spread_hosts_ok() {
  local expected logs=0 log line names
  expected="hosts=$1 host_names=$(IFS=,; echo "${hosts[*]:0:$1}")"
  for log in "$work"/state/logs/job-*.log; do
    # a job run again (its -lost-N.log) may have ended before its world line
    line=$(grep -m 1 -ao 'scaleguard-bench: world procs=[0-9]* hosts=[0-9]* host_names=[^ ]*' \
      "$log") || continue
    [[ $line == *"hosts=$1 "* ]] || continue
    logs=$((logs + 1))
    if [[ $case == campaign ]]; then
      names=$(tr , '\n' <<<"${line##*host_names=}" | sort -u)
      if (($(wc -l <<<"$names") != $1)) || grep -vqxF -f <(printf '%s\n' "${hosts[@]}") <<<"$names"
      then
        fail "$log: $line, expected $1 distinct hosts of ${hosts[*]}"
      fi
    else
      [[ $line == *"$expected" ]] || fail "$log: $line, expected $expected"
    fi
  done
  ((logs > 0)) || fail "no job log with its ranks on $1 hosts"
}

# search_outcome P NODES: the outcome column of that search's last line
search_outcome() {
  awk -F '\t' -v p="$1" -v n="$2" '$2 == p && $9 == n { o = $8 } END { print o }' \
    "$work/state/searches.tsv"
}

if [[ $case == campaign ]]; then
  probe --max-jobs 3
else
  probe
fi
ini_sections=$(grep -c '^\[MPI_Allgather' "$work/out.ini" || true)
case $case in
  same)
    ((ini_sections == 1)) || fail "$ini_sections MPI_Allgather sections, expected the one-node one"
    ! grep -q '^nodes' "$work/out.ini" || fail "an entry with nodes in the INI: $(grep '^nodes' "$work/out.ini")"
    grep -qx 'bound = 992' "$work/out.ini" || fail "the one-node bound is not 992"
    for nodes in 2 4; do
      jobs=$(spread_jobs "$nodes")
      ((jobs == 2)) || fail "$jobs jobs over $nodes nodes, expected 2 (n=992, n=1024)"
      [[ $(search_outcome 4 "$nodes") == *"bound=992 failure=mpi-error, as on 1 node" ]] ||
        fail "over $nodes nodes: '$(search_outcome 4 "$nodes")', expected as on 1 node"
      spread_hosts_ok "$nodes"
    done
    verdict=same ;;
  differs | campaign)
    for each in ${procs//,/ }; do
      [[ $(search_outcome "$each" 1) == "no failure up to n=4096"* ]] ||
        fail "P=$each on 1 node: '$(search_outcome "$each" 1)', expected no failure up to 4096"
    done
    for nodes in $across; do
      grep -qx "nodes = $nodes" "$work/out.ini" || fail "no entry with nodes = $nodes"
      [[ $(search_outcome 4 "$nodes") == *"bound=992 failure=mpi-error; differs from 1 node"* ]] ||
        fail "over $nodes nodes: '$(search_outcome 4 "$nodes")', expected differs"
      spread_hosts_ok "$nodes"
    done
    expected=1                                   # P = 4 over 2 nodes
    if [[ $case == differs ]]; then
      grep -q '^probe: MPI_Allgather: P=2 over 2 nodes: not in --spread-procs$' "$work/probe.out" ||
        fail "P = 2 over 2 nodes not said to be left out"
      [[ -z $(search_outcome 2 2) ]] || fail "a search of P = 2 over 2 nodes: $(search_outcome 2 2)"
    fi
    [[ $case == differs ]] || expected=3 # and over 4, and P = 2 over 2 (P = 2 cannot spread over 4)
    ((ini_sections == expected)) || fail "$ini_sections MPI_Allgather sections, expected $expected"
    ((ini_sections == $(grep -c '^bound = 992' "$work/out.ini"))) || fail "a bound other than 992"
    verdict='**differs**' ;;
esac
"$stage/bin/scaleguard-report" --output "$work/report" "$work/out.ini" "$work/state" >/dev/null
rows=$(grep -c "^| MPI_Allgather | plain | 4 | [24] | .* | ${verdict//\*/\\*} |$" "$work/report/report.md" ||
  true)
expected=$(wc -w <<<"$across")
((rows == expected)) || { fail "the report's spread table has $rows rows of $verdict at P=4," \
  "expected $expected"; sed -n '/## The spread/,$p' "$work/report/report.md"; }

# Replayed from the journal (one job at a time): nothing run, the same INI
# (`same` has no entry of a spread to write again).
[[ $case != same ]] || { ((result == 0)) && echo "PASS: probe across nodes, $case"; exit "$result"; }
cp "$work/out.ini" "$work/first.ini"
probe
grep -q '^probe: 0 jobs run' "$work/probe.out" || fail "the replay ran jobs"
cmp -s "$work/first.ini" "$work/out.ini" || { fail "the replay wrote another INI"; \
  diff "$work/first.ini" "$work/out.ini" || true; }
((result == 0)) && echo "PASS: probe across nodes, $case"
exit "$result"
