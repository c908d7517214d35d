#!/bin/sh
# stdout-after.sh COMMAND [ARG...]: runs COMMAND with its standard output
# kept apart, then writes that output to standard error after COMMAND's own
# and exits with COMMAND's status. For a test that checks both streams as
# one: merged as they come, mpiexec forwards a remote rank's line in pieces,
# and a line of the other stream can land inside it
# (cluster_layer_gather_w1a).
out=$(mktemp) || exit 1
"$@" >"$out"
status=$?
cat "$out" >&2
rm -f "$out"
exit "$status"
