#!/bin/sh
# same-twice.sh SCALEGUARD_INI SHIPPED_INI RULE COMMAND...
# COMMAND (scaleguard-cvars in a one-rank job) prints the same fingerprint
# twice: the library's line, the rule RULE (an extended regex), a digest,
# and as many variables as the shipped INI's [cvars] holds (scaleguard-ini
# check counts them).
ini_tool=$1 shipped=$2 rule=$3
shift 3
first=$("$@") || { echo "same-twice.sh: $* failed" >&2; exit 1; }
second=$("$@") || { echo "same-twice.sh: $* failed the second time" >&2; exit 1; }
[ "$first" = "$second" ] || { echo "same-twice.sh: two runs differ" >&2; exit 1; }
echo "$first" | head -n 1 | grep -Eq '^mpi_library=.' ||
    { echo "same-twice.sh: the library line is '$(echo "$first" | head -n 1)'" >&2; exit 1; }
echo "$first" | sed -n 2p | grep -Eq "^cvars_rule=$rule\$" ||
    { echo "same-twice.sh: the rule line is '$(echo "$first" | sed -n 2p)'" >&2; exit 1; }
echo "$first" | sed -n 3p | grep -Eq '^cvars_digest=[0-9a-f]{16}$' ||
    { echo "same-twice.sh: no digest line" >&2; exit 1; }
read=$(($(echo "$first" | wc -l) - 3))
shipped_count=$("$ini_tool" check "$shipped" | sed -n 's/.*, \([0-9]*\) control variables$/\1/p')
if [ "$read" -le 0 ] || [ "$read" != "$shipped_count" ]; then
    echo "same-twice.sh: $read variables read, the shipped INI holds '$shipped_count'" >&2
    exit 1
fi
echo "same-twice.sh: $read control variables, the same twice and as many as in $shipped"
