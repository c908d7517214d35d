#!/bin/sh
# once.sh COUNT COMMAND [ARG...]
# Run COMMAND, an MPI job under libscaleguard.so with SCALEGUARD_LOG=info.
# Pass when it exits 0 and the layer's MPI_Finalize summary (rank 0) lists
# COUNT routines, each called exactly once: every call the program made
# reached the layer, and none twice. Its standard error is passed on.
count=$1
shift
errors=$(mktemp) || exit 1
trap 'rm -f "$errors"' EXIT
"$@" 2>"$errors"
status=$?
cat "$errors" >&2
if [ "$status" -ne 0 ]; then
    echo "once.sh: exit status $status, expected 0" >&2
    exit 1
fi
if ! grep -q '^scaleguard: summary (rank 0): routine calls' "$errors"; then
    echo "once.sh: no summary from the layer's MPI_Finalize" >&2
    exit 1
fi
routines=$(grep -cE '^scaleguard:   MPI_[A-Za-z_]+ +[0-9]+ ' "$errors")
once=$(grep -cE '^scaleguard:   MPI_[A-Za-z_]+ +1 ' "$errors")
if [ "$routines" -ne "$count" ] || [ "$once" -ne "$count" ]; then
    echo "once.sh: the summary lists $routines routines, $once of them called once;" \
         "expected $count, each once" >&2
    exit 1
fi
exit 0
