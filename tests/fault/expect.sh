#!/bin/sh
# expect.sh STATUS PATTERN COMMAND [ARG...]
# Run COMMAND; pass when its exit status is STATUS (a number, or "nonzero")
# and its standard error matches the extended regex PATTERN ("-" = no check).
expected=$1
pattern=$2
shift 2
errors=$(mktemp) || exit 1
trap 'rm -f "$errors"' EXIT
"$@" 2>"$errors"
status=$?
cat "$errors" >&2
fail=0
case $expected in
nonzero) [ "$status" -ne 0 ] || fail=1 ;;
*) [ "$status" -eq "$expected" ] || fail=1 ;;
esac
if [ "$fail" -ne 0 ]; then
    echo "expect.sh: exit status $status, expected $expected" >&2
    exit 1
fi
if [ "$pattern" != - ] && ! grep -Eq -- "$pattern" "$errors"; then
    echo "expect.sh: standard error does not match: $pattern" >&2
    exit 1
fi
exit 0
