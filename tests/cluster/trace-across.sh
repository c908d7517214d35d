#!/usr/bin/env bash
# trace-across.sh TOOL PREFIX NAME RANK_HOSTS "CHECK OPTIONS" LAUNCH...
# A traced job (tests/trace's traced.c, LAUNCH... with SCALEGUARD_TRACE=
# PREFIX/tmp/NAME) whose ranks sit on different hosts of the cluster under
# PREFIX: each node sees its own PREFIX/tmp, so every rank writes its file on
# its own node, as a job tracing to node-local disk does. The files are then
# gathered from the nodes (PREFIX/tmp/NODE/NAME, as this machine sees them)
# into one directory, and
#  - each rank's file is on the node of its rank (RANK_HOSTS: the host of
#    rank 0, 1, ..., comma-separated) and no other, and its header names
#    that host;
#  - tests/trace/check-trace.sh compares the files with what the program
#    says it called (every collective made alike by every member, the
#    ring's peers, ...; with its CHECK OPTIONS);
#  - scaleguard-trace merges them: tests/viewer/viewer-test.sh's whole case
#    (summary, graph and JSON agree with the files), and the summary's
#    per-rank table names each rank's host.
# TOOL: scaleguard-trace.
set -u
tool=$1 prefix=$2 name=$3
IFS=, read -ra rank_hosts <<<"$4"
read -ra check_options <<<"$5"
shift 5
here=$(dirname "$0")
procs=${#rank_hosts[@]}
mapfile -t nodes < <(printf '%s\n' "${rank_hosts[@]}" | sort -u)
work=$(mktemp -d)
clean() {
    rm -rf "$work"
    for node in "${nodes[@]}"; do rm -rf "${prefix:?}/tmp/$node/$name"; done
}
trap clean EXIT
fail() {
    echo "trace-across.sh: $*" >&2
    exit 1
}
for node in "${nodes[@]}"; do rm -rf "${prefix:?}/tmp/$node/$name"; done

"$@" >"$work/out"
status=$?
cat "$work/out"
[ "$status" -eq 0 ] || fail "the job's exit status is $status, expected 0"

mkdir "$work/trace"
for node in "${nodes[@]}"; do
    expected=$(for ((r = 0; r < procs; r++)); do
        [ "${rank_hosts[r]}" = "$node" ] && echo "rank-$r.sgtrace"
    done | sort)
    found=$(find "$prefix/tmp/$node/$name" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort)
    [ "$found" = "$expected" ] ||
        fail "node $node holds '$(tr '\n' ' ' <<<"$found")', expected its ranks' files" \
            "'$(tr '\n' ' ' <<<"$expected")'"
done
for ((r = 0; r < procs; r++)); do
    file=$prefix/tmp/${rank_hosts[r]}/$name/rank-$r.sgtrace
    cp "$file" "$work/trace/" || fail "cannot gather $file"
    header=$("$tool" --text "$file" | sed -n 2p)
    [[ $header == *" rank $r size $procs host ${rank_hosts[r]} pid "* ]] ||
        fail "rank $r's header '$header' does not name its host ${rank_hosts[r]}"
done
echo "trace-across.sh: $procs files gathered from ${#nodes[@]} nodes: ${nodes[*]}"

bash "$here/../trace/check-trace.sh" "$tool" "$work/trace" "$work/out" "$procs" \
    "${check_options[@]}" ||
    fail "check-trace.sh: the gathered files do not agree with the program"
bash "$here/../viewer/viewer-test.sh" "$tool" whole "$work/trace" ||
    fail "viewer-test.sh: the merged output does not agree with the files"
"$tool" --output "$work/merged" "$work/trace" >/dev/null || fail "$tool failed"
for ((r = 0; r < procs; r++)); do
    grep -q "^| $r | ${rank_hosts[r]} | " "$work/merged.md" ||
        fail "the summary's per-rank table does not name rank $r's host ${rank_hosts[r]}"
done
echo "trace-across.sh: merged; the summary names each rank's host"
