#!/bin/sh
# ini_keys.sh SCALEGUARD_INI: `scaleguard-ini replace` takes the keys the
# tester writes for an in-place, slow entry, and refuses a bad one with its
# line, leaving the file as it was; `dump` prints each entry on one line.
set -eu
tool=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
file=$dir/bounds.ini

fail() {
    echo "ini_keys.sh: $*" >&2
    exit 1
}

"$tool" replace "$file" MPI_Allgather --entry class=G trigger=snP bound=4000 inplace=yes \
    failure=slow safe_seconds=0.0123 fail_seconds=0.5
expected='[MPI_Allgather]
class = G
trigger = snP
bound = 4000
inplace = yes
failure = slow
safe_seconds = 0.0123
fail_seconds = 0.5'
[ "$(cat "$file")" = "$expected" ] || fail "unexpected file: $(cat "$file")"
"$tool" check "$file" >/dev/null || fail "check refused the written file"
cp "$file" "$dir/before.ini"

# MPI_Bcast has no in-place form: its inplace line would be line 14
if "$tool" replace "$file" MPI_Bcast --entry class=G trigger=n bound=5 inplace=yes \
    2>"$dir/error"; then
    fail "inplace = yes accepted on MPI_Bcast"
fi
grep -q "bounds.ini:14: MPI_Bcast has no in-place form" "$dir/error" ||
    fail "unexpected error: $(cat "$dir/error")"
if "$tool" replace "$file" MPI_Allgather --entry class=G trigger=snP bound=4000 \
    safe_seconds=1e3 2>"$dir/error"; then
    fail "safe_seconds = 1e3 accepted"
fi
grep -q "bounds.ini:5: bad seconds for safe_seconds: '1e3'" "$dir/error" ||
    fail "unexpected error: $(cat "$dir/error")"
cmp -s "$file" "$dir/before.ini" || fail "a refused replace changed the file"

# dump: one line per entry, every key with the value the layer reads.
"$tool" replace "$file" MPI_Gatherv --entry class=D procs=4 failure=crash --entry class=X \
    bound=99 type_size=2 procs=3 nodes=2
tab=$(printf '\t')
expected=$(printf '%s\n' \
    'MPI_Allgather class=G trigger=snP bound=4000 type_size=0 procs=0 safe_count=0 delta=0 failure=slow workaround=auto inplace=yes nodes=1 safe_seconds=0.0123 fail_seconds=0.5' \
    'MPI_Gatherv class=D trigger=- bound=0 type_size=0 procs=4 safe_count=0 delta=0 failure=crash workaround=auto inplace=no nodes=1' \
    'MPI_Gatherv#2 class=X trigger=n bound=99 type_size=2 procs=3 safe_count=0 delta=0 failure=unknown workaround=auto inplace=no nodes=2' |
    tr ' ' "$tab")
[ "$("$tool" dump "$file")" = "$expected" ] || fail "unexpected dump: $("$tool" dump "$file")"
# check reports the spreads the entries were measured on
"$tool" check "$file" >"$dir/check" || fail "check refused a file with nodes"
grep -qx "$file: 3 entries for 2 routines, measured on 1 and 2 nodes" "$dir/check" ||
    fail "unexpected check summary: $(cat "$dir/check")"
# a spread of more nodes than ranks is refused at its line, the file left as it was
cp "$file" "$dir/before.ini"
if "$tool" replace "$file" MPI_Bcast --entry class=G trigger=n bound=5 procs=2 nodes=3 \
    2>"$dir/error"; then
    fail "nodes = 3 accepted with procs = 2"
fi
grep -q "bounds.ini:[0-9]*: nodes 3 exceeds procs 2" "$dir/error" ||
    fail "unexpected error: $(cat "$dir/error")"
cmp -s "$file" "$dir/before.ini" || fail "a refused replace changed the file"
# MPI_Get_library_version's tab (MPICH: "MPICH Version:<TAB>4.0.2") is a space in the dump
"$tool" replace "$file" platform --entry "mpi_library=MPICH Version:${tab}4.0.2" launcher=local
[ "$("$tool" dump "$file" | head -n 1)" = "platform${tab}mpi_library=MPICH Version: 4.0.2${tab}launcher=local" ] ||
    fail "unexpected platform line: $("$tool" dump "$file" | head -n 1)"
echo 'oops' >>"$file"
if "$tool" dump "$file" >/dev/null 2>"$dir/error"; then fail "dump read a malformed file"; fi
grep -q "bounds.ini:" "$dir/error" || fail "dump's error names no line: $(cat "$dir/error")"
echo "ini_keys.sh: passed"
