#!/bin/sh
# agree-case.sh MESSAGE DECISION COMMAND [ARG...]
# Run COMMAND (an MPI job under libscaleguard.so, SCALEGUARD_LOG=info); pass
# when it exits 0 (ctest's timeout catches a hang) and its standard error
#  - has exactly one line of the layer's report that the ranks loaded
#    different bounds, matching the extended regex MESSAGE, or none when
#    MESSAGE is "-";
#  - matches the extended regex DECISION (what the layer did to the call),
#    or, written "!REGEX", does not match REGEX.
message=$1 decision=$2
shift 2
errors=$(mktemp) || exit 1
trap 'rm -f "$errors"' EXIT
"$@" 2>"$errors"
status=$?
cat "$errors" >&2
fail() {
    echo "agree-case.sh: $*" >&2
    exit 1
}
[ "$status" -eq 0 ] || fail "exit status $status, expected 0"
reports=$(grep -c 'scaleguard: the ranks loaded different bounds' "$errors")
if [ "$message" = - ]; then
    [ "$reports" -eq 0 ] || fail "$reports reports of different bounds, expected none"
else
    [ "$reports" -eq 1 ] || fail "$reports reports of different bounds, expected one"
    grep 'scaleguard: the ranks loaded different bounds' "$errors" | grep -Eq -- "$message" ||
        fail "the report does not match: $message"
fi
case $decision in
!*) ! grep -Eq -- "${decision#!}" "$errors" || fail "standard error matches ${decision#!}" ;;
*) grep -Eq -- "$decision" "$errors" || fail "standard error does not match $decision" ;;
esac
exit 0
