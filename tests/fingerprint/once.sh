#!/bin/sh
# once.sh TEXT COMMAND...: runs COMMAND, its output on standard error, and
# fails unless TEXT is in exactly one line of it (one message per job).
text=$1
shift
output=$(mktemp) || exit 1
trap 'rm -f "$output"' EXIT
"$@" >"$output" 2>&1
status=$?
cat "$output" >&2
lines=$(grep -cF -- "$text" "$output")
[ "$lines" -eq 1 ] || { echo "once.sh: '$text' in $lines lines, not 1" >&2; exit 1; }
exit "$status"
