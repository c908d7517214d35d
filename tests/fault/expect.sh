#!/bin/sh
# expect.sh STATUS PATTERN [--also PATTERN]... [--not PATTERN]... COMMAND [ARG...]
# Run COMMAND; pass when its exit status is STATUS (a number, or "nonzero")
# and its standard error matches the extended regex PATTERN ("-" = no check)
# and every --also PATTERN too, and no --not PATTERN.
expected=$1
pattern=$2
shift 2
also=
not=
while [ "$1" = --also ] || [ "$1" = --not ]; do
    if [ "$1" = --also ]; then
        also="$also$2
"
    else
        not="$not$2
"
    fi
    shift 2
done
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
printf '%s\n%s' "$pattern" "$also" | while IFS= read -r each; do
    [ -z "$each" ] || [ "$each" = - ] && continue
    if ! grep -Eq -- "$each" "$errors"; then
        echo "expect.sh: standard error does not match: $each" >&2
        exit 1
    fi
done || exit 1
printf '%s' "$not" | while IFS= read -r each; do
    if grep -Eq -- "$each" "$errors"; then
        echo "expect.sh: standard error matches what it must not: $each" >&2
        exit 1
    fi
done || exit 1
exit 0
