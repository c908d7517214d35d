#!/bin/bash
# count-calls.sh TOOL DIR PROCS ROUTINE=EVEN/ODD...
# Each rank's trace file in DIR (DIR/rank-N.sgtrace, read in its text form:
# TOOL --text, TOOL being scaleguard-trace) is whole (its `end` line counts
# its `call` lines) and holds, per ROUTINE, EVEN `call` lines on an even
# rank and ODD on an odd one: what a program whose ranks alternate roles
# (tests/fortran/hang.F90's exchange) called.
set -u
tool=$1 dir=$2 procs=$3
shift 3
fail=0
for ((r = 0; r < procs; r++)); do
    file=$dir/rank-$r.txt
    if ! "$tool" --text "$dir/rank-$r.sgtrace" >"$file"; then
        echo "count-calls.sh: $tool --text $dir/rank-$r.sgtrace failed" >&2
        fail=1
        continue
    fi
    calls=$(grep -c '^call ' "$file")
    end_form="^end $calls [0-9]+\\.[0-9]{9}\$"
    if ! [[ $(tail -n 1 "$file") =~ $end_form ]]; then
        echo "count-calls.sh: $file does not end with 'end $calls ...'" >&2
        fail=1
    fi
    for spec in "$@"; do
        routine=${spec%%=*} counts=${spec#*=}
        expected=${counts%/*}
        [ $((r % 2)) -eq 1 ] && expected=${counts#*/}
        traced=$(grep -c "^call [0-9]* $routine " "$file")
        if [ "$traced" -ne "$expected" ]; then
            echo "count-calls.sh: rank $r: $traced $routine calls traced, $expected made" >&2
            fail=1
        fi
    done
done
[ "$fail" -eq 0 ] && echo "count-calls.sh: $dir: every rank's calls traced"
exit "$fail"
