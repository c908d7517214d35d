#!/bin/bash
# trace-bytes.sh TOOL DIR LAUNCH...
# Runs rooted_bytes (LAUNCH..., at P = 3, with SCALEGUARD_TRACE=DIR) and
# asserts the bytes each collective's trace record says rank 0 (not the
# root) and rank 1 (the root) sent and received (TOOL: scaleguard-trace):
# 32 bytes a block, 3 blocks where the root sends or receives one per rank.
set -u
tool=$1 dir=$2
shift 2
rm -rf "$dir"
if ! "$@"; then
    echo "trace-bytes.sh: the job failed" >&2
    exit 1
fi
fail=0
# expect RANK CALL ROUTINE BYTES
expect() {
    local text
    if ! text=$("$tool" --text "$dir/rank-$1.sgtrace"); then
        echo "trace-bytes.sh: $tool --text $dir/rank-$1.sgtrace failed" >&2
        exit 1
    fi
    if ! grep -Eq "^call $2 $3 .* $4 " <<<"$text"; then
        echo "trace-bytes.sh: rank $1, call $2 ($3) does not say $4:" >&2
        grep -E "^call $2 " <<<"$text" >&2
        fail=1
    fi
}
expect 0 1 MPI_Bcast "sent=0 received=32"
expect 1 1 MPI_Bcast "sent=32 received=0"
expect 0 2 MPI_Reduce "sent=32 received=0"
expect 1 2 MPI_Reduce "sent=32 received=32"
expect 1 3 MPI_Reduce "sent=32 received=32" # in place: its input is in the result
expect 0 4 MPI_Scatter "sent=0 received=32"
expect 1 4 MPI_Scatter "sent=96 received=32"
expect 1 5 MPI_Scatter "sent=96 received=0" # in place: its block stays
expect 0 6 MPI_Gather "sent=32 received=0"
expect 1 6 MPI_Gather "sent=32 received=96"
expect 1 7 MPI_Gather "sent=0 received=96" # in place: its block is there
expect 0 8 MPI_Ibcast "sent=0 received=32"
expect 1 8 MPI_Ibcast "sent=32 received=0"
expect 0 10 MPI_Allreduce "sent=32 received=32"
[ "$fail" -eq 0 ] && echo "trace-bytes.sh: every record as expected"
exit "$fail"
