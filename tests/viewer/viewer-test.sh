#!/bin/bash
# viewer-test.sh SCALEGUARD_TRACE CASE DIR [OTHER_DIR]
# scaleguard-trace on a real trace directory (tests/trace's runs), and on
# copies of one broken on purpose; asserts what it writes and says:
#   whole      DIR: the summary's calls per routine are the files' `call`
#              lines, the DOT's edges the count it prints, the JSON's calls
#              all of them, every protected call's decision in the summary;
#   killed     DIR (a rank killed): a warning naming the rank's file, exit
#              0 and the outputs; with --strict, exit 1;
#   missing    a copy of DIR without rank 1's file: exit 1, "rank 1's file
#              is missing";
#   mixed      a copy of DIR with rank 0's file of OTHER_DIR: exit 1, "a
#              mixed directory";
#   bad-line   a copy of DIR with a record of no type of the format before
#              rank 1's first: exit 1, the file and line named (of its
#              text form: the header is 4 lines);
#   version    a copy of DIR whose rank 0 says version 1: exit 1, line 1;
#   forms      DIR (tests/trace's trace_forms): the graph draws each rooted
#              form's blocks towards or from its root: MPI_Igather's to
#              root 1 and, where OTHER_DIR is mpi4 (the MPI has MPI 4's
#              forms), MPI_Reduce_init's to root 1 and MPI_Scatter_c's from
#              root 2.
set -u
tool=$1 kase=$2 dir=$3 other=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "viewer-test.sh: $kase: $*" >&2
    exit 1
}
run() { # run ARGS...: sets status, and err (standard error)
    "$tool" "$@" >"$work/out" 2>"$work/err"
    status=$?
    err=$(cat "$work/err")
}
lines() { # the text form of DIR's rank files
    for file in "$dir"/rank-*.sgtrace; do "$tool" --text "$file" || fail "--text $file failed"; done
}
broken() { # a copy of DIR to break
    cp -r "$dir" "$work/trace"
    rm -f "$work/trace"/trace.*
}
expect_error() { # expect_error REGEX
    run "$work/trace"
    [ "$status" -eq 1 ] || fail "exit $status, expected 1 ($err)"
    [[ $err =~ $1 ]] || fail "said '$err', expected /$1/"
    echo "viewer-test.sh: $kase: exit 1: $err"
}
case $kase in
whole)
    run --json --output "$work/t" "$dir"
    [ "$status" -eq 0 ] || fail "exit $status: $err"
    [ -z "$err" ] || fail "said '$err' of a whole trace"
    while read -r calls routine; do
        grep -q "^| $routine | $calls | " "$work/t.md" ||
            fail "the summary does not say $calls calls of $routine"
    done < <(lines | awk '$1 == "call" { print $3 }' | sort | uniq -c)
    while read -r count routine did; do
        grep -Eq "^\\| $routine \\| .*[|,] $did $count( \\||,)" "$work/t.md" ||
            fail "the summary does not say '$did $count' of $routine"
    done < <(lines | awk '$1 == "call" { for (i = 4; i <= NF; i++)
                 if ($i ~ /^did=/) print $3, substr($i, 5) }' | sort | uniq -c)
    edges=$(grep -c ' -> ' "$work/t.dot")
    [[ $(cat "$work/out") == *" $edges edges: "* ]] || fail "printed '$(cat "$work/out")', the DOT has $edges edges"
    [ "$edges" -gt 0 ] || fail "no edge"
    all=$(lines | grep -c '^call ')
    json=$(grep -o '"rank":[0-9]*,"index"' "$work/t.json" | wc -l)
    [ "$json" -eq "$all" ] || fail "the JSON has $json calls, the files $all"
    if ! grep -q '<svg' "$work/t.html" || ! grep -q 'id="drawn-edges"' "$work/t.html"; then
        fail "the page has no graph or no edge count"
    fi
    echo "viewer-test.sh: whole: $all calls, $edges edges, summary and JSON agree"
    ;;
forms)
    run --json --output "$work/t" "$dir"
    [ "$status" -eq 0 ] || fail "exit $status: $err"
    parts="MPI_Igather:0>1,2>1"
    [ "$other" != mpi4 ] || parts+=" MPI_Reduce_init:0>1,2>1 MPI_Scatter_c:2>0,2>1"
    for routine_parts in $parts; do
        routine=${routine_parts%%:*}
        IFS=, read -ra pairs <<<"${routine_parts#*:}"
        for pair in "${pairs[@]}"; do
            grep -Eq "\{\"from\":${pair%>*},\"to\":${pair#*>},\"comm\":\"[0-9a-f]+\",\"routine\":\"$routine\"" "$work/t.json" ||
                fail "the graph has no part ${pair%>*} -> ${pair#*>} of $routine: $(grep -o "\"from\":[0-9]*,\"to\":[0-9]*,\"comm\":\"[0-9a-f]*\",\"routine\":\"$routine\"" "$work/t.json" | tr '\n' ' ')"
        done
    done
    echo "viewer-test.sh: forms: the graph's parts go to and from the roots ($parts)"
    ;;
killed)
    run --output "$work/t" "$dir"
    [ "$status" -eq 0 ] || fail "exit $status: $err"
    [[ $err =~ rank-0\.sgtrace:\ warning:\ [0-9]+\ calls\ read\;\ its\ last\ records\ were\ lost ]] ||
        fail "said '$err'"
    grep -q "Rank 0's trace is cut" "$work/t.md" || fail "the summary does not say rank 0's trace is cut"
    run --strict --out "$work/t" "$dir"
    if [ "$status" -ne 1 ] || [[ $err != *"rank-0.sgtrace: error: "* ]]; then
        fail "--strict: exit $status, '$err'"
    fi
    echo "viewer-test.sh: killed: a warning, exit 0; with --strict exit 1"
    ;;
missing)
    broken
    rm "$work/trace/rank-1.sgtrace"
    expect_error "rank 1's file is missing \\(rank-0 to rank-[0-9]+ expected\\)"
    ;;
mixed)
    broken
    cp "$other/rank-0.sgtrace" "$work/trace/rank-0.sgtrace"
    expect_error "a mixed directory: .*rank-1\\.sgtrace is of job [^ ]+ \\([0-9]+ ranks\\), .*rank-0\\.sgtrace of job"
    ;;
bad-line)
    broken
    file=$work/trace/rank-1.sgtrace
    header=$(grep -abo -m 1 '^records .*' "$file") # OFFSET:LINE, the header's last line
    line=${header#*:}
    records=$((${header%%:*} + ${#line} + 1))
    { head -c "$records" "$file"; printf '\177\0\0\0\0\0\0\0'; tail -c +$((records + 1)) "$file"; } >"$work/bad"
    mv "$work/bad" "$file"
    expect_error "rank-1\\.sgtrace:5: not a record of the trace format \\(record type 127 at byte $records\\)"
    ;;
version)
    broken
    { echo 'scaleguard-trace 1'; tail -n +2 "$work/trace/rank-0.sgtrace"; } >"$work/old"
    mv "$work/old" "$work/trace/rank-0.sgtrace"
    expect_error "rank-0\\.sgtrace:1: not a trace of version 2"
    ;;
*) fail "unknown case" ;;
esac
