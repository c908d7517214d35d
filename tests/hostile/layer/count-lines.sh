#!/bin/bash
# count-lines.sh [--lines N ERE]... -- COMMAND [ARG...]
# Runs COMMAND; passes when it exits 0 and, of its standard output and
# error together, exactly N lines match each extended regex ERE.
set -u
counts=() patterns=()
while [ "$1" = --lines ]; do
    counts+=("$2")
    patterns+=("$3")
    shift 3
done
if [ "$1" != -- ]; then
    echo "usage: count-lines.sh [--lines N ERE]... -- COMMAND [ARG...]" >&2
    exit 2
fi
shift
output=$(mktemp) || exit 1
trap 'rm -f "$output"' EXIT
"$@" >"$output" 2>&1
status=$?
cat "$output" >&2
fail=0
if [ "$status" -ne 0 ]; then
    echo "count-lines.sh: exit status $status, expected 0" >&2
    fail=1
fi
for i in "${!patterns[@]}"; do
    found=$(grep -Ec -- "${patterns[$i]}" "$output")
    if [ "$found" -ne "${counts[$i]}" ]; then
        echo "count-lines.sh: $found lines match, expected ${counts[$i]}: ${patterns[$i]}" >&2
        fail=1
    fi
done
exit "$fail"
