#!/bin/bash
# run-traced.sh TOOL DIR PROCS STATUS "CHECK OPTIONS" LAUNCH...
# Runs a traced job (LAUNCH..., its SCALEGUARD_TRACE=DIR) with its output in
# DIR.out, asserts its exit status (0, or "nonzero" for a job whose rank is
# killed), then check-trace.sh TOOL DIR DIR.out PROCS OPTIONS (TOOL:
# scaleguard-trace).
set -u
tool=$1 dir=$2 procs=$3 expected=$4 options=$5
shift 5
rm -rf "$dir" "$dir.out"
"$@" >"$dir.out"
status=$?
if { [ "$expected" = 0 ] && [ "$status" -ne 0 ]; } ||
    { [ "$expected" = nonzero ] && [ "$status" -eq 0 ]; }; then
    echo "run-traced.sh: the job's exit status is $status, expected $expected" >&2
    cat "$dir.out" >&2
    exit 1
fi
# shellcheck disable=SC2086 # the options are words
exec bash "$(dirname "$0")/check-trace.sh" "$tool" "$dir" "$dir.out" "$procs" $options
