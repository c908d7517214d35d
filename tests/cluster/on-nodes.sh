#!/bin/sh
# on-nodes.sh FILE DEST NODE[,NODE...] COMMAND [ARG...]
# Puts FILE on the named nodes of the cluster only, as PREFIX/tmp/NAME
# (DEST): each node sees its own PREFIX/tmp (this machine sees node N's as
# PREFIX/tmp/N), so DEST exists on those nodes and on no other, as a file
# copied to some nodes' local disk. Then runs COMMAND, removes the copies
# and exits with COMMAND's status.
file=$1 dest=$2 nodes=$3
shift 3
tmp=$(dirname "$dest") name=$(basename "$dest")
copies=
for node in $(printf '%s\n' "$nodes" | tr , ' '); do
    [ -d "$tmp/$node" ] || { echo "on-nodes.sh: no node $node in $tmp" >&2; exit 2; }
    cp "$file" "$tmp/$node/$name" || exit 2
    copies="$copies $tmp/$node/$name"
done
"$@"
status=$?
# shellcheck disable=SC2086 # the copies' paths are words
rm -f $copies
exit "$status"
