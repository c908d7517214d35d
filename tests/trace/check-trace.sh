#!/bin/bash
# check-trace.sh TOOL DIR OUTPUT PROCS [--did ROUTINE WHAT] [--killed RANK]
# Compares the trace files of a run of traced.c (DIR/rank-N.sgtrace, read
# in their text form: TOOL --text, TOOL being scaleguard-trace) with what
# the program says it called (its OUTPUT: "traced: rank R MPI_Xxx N"), and
# checks what the files must hold (trace/FORMAT.md):
#  - each rank's file: the version line, its header (job, rank, size), the
#    same job on every rank, an `end` line whose count is its `call` lines;
#  - per rank and routine, as many `call` lines as the program made calls;
#  - every collective call (communicator id, n) made by every member of its
#    communicator, in the same routine; MPI_COMM_WORLD's duplicate has an id
#    of its own, whose parent is MPI_COMM_WORLD's;
#  - the ring's MPI_Send names the next rank (peer=), 16 bytes; every
#    MPI_Irecv (from MPI_ANY_SOURCE) has its `done` line naming its call
#    (the index, also after an MPI_Test that completed nothing and left no
#    line) and the rank that sent it (source=), 8 bytes;
#  - --did ROUTINE WHAT: rank 0's ROUTINE calls say did=WHAT, with subs=S
#    and S `sub` lines after each;
#  - --killed RANK: that rank never reached MPI_Finalize: its file has no
#    `end` line (the others are whole); it is not compared;
#  - --pvars some|none: the MPI's performance variables (MPI_T) in the
#    trace: some `pvar I` lines (Open MPI's ob1 queue lengths: at rank 1,
#    whose first receive's message waits through a barrier, unexpected), each
#    after a call I of its file; or none (MPICH exports none);
#  - --signed: the collective checks ran: every protected call (did=) has
#    its type signature hash (sig=), the same for MPI_INT on every rank.
set -u
tool=$1 dir=$2 output=$3 procs=$4
shift 4
did_routine="" did_what="" killed=-1 signed=0 pvars=""
while [ $# -gt 0 ]; do
    case $1 in
    --did) did_routine=$2 did_what=$3; shift 3 ;;
    --killed) killed=$2; shift 2 ;;
    --signed) signed=1; shift ;;
    --pvars) pvars=$2; shift 2 ;;
    *) echo "check-trace.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
fail=0
problem() {
    echo "check-trace.sh: $*" >&2
    fail=1
}

job=""
for ((r = 0; r < procs; r++)); do
    [ -f "$dir/rank-$r.sgtrace" ] || { problem "no $dir/rank-$r.sgtrace"; continue; }
    file=$dir/rank-$r.txt
    "$tool" --text "$dir/rank-$r.sgtrace" >"$file" || problem "$tool --text $dir/rank-$r.sgtrace failed"
    [ "$(head -n 1 "$file")" = "scaleguard-trace 2" ] || problem "$file: not a version 2 trace"
    header=$(sed -n 2p "$file")
    header_form="^job ([^ ]+) rank $r size $procs host [^ ]+ pid [0-9]+\$"
    [[ $header =~ $header_form ]] || problem "$file: header '$header'"
    this_job=${BASH_REMATCH[1]:-}
    [ -z "$job" ] && job=$this_job
    [ "$this_job" = "$job" ] || problem "$file: job $this_job, rank 0's is $job"
    grep -q '^mpi .' "$file" || problem "$file: no mpi line"
    last=$(tail -n 1 "$file")
    if [ "$r" -eq "$killed" ]; then
        [[ $last != end\ * ]] || problem "$file: an end line, though the rank was killed"
        continue
    fi
    calls=$(grep -c '^call ' "$file")
    end_form="^end $calls [0-9]+\\.[0-9]{9}\$"
    [[ $last =~ $end_form ]] || problem "$file: last line '$last', $calls calls"
    while read -r _ _ _ routine count; do
        traced=$(grep -c "^call [0-9]* $routine " "$file")
        [ "$traced" -eq "$count" ] || problem "rank $r: $count calls of $routine, $traced traced"
    done < <(grep "^traced: rank $r " "$output")
    grep -q "^traced: rank $r " "$output" || problem "rank $r: no tally in $output"
    next=$(((r + 1) % procs))
    bad=$(grep '^call [0-9]* MPI_Send ' "$file" | grep -cv " peer=$next tag=[0-9]* count=4 bytes=16")
    [ "$bad" -eq 0 ] || problem "rank $r: $bad MPI_Send lines without peer=$next, 16 bytes"
    irecvs=$(grep '^call [0-9]* MPI_Irecv ' "$file" | grep -c ' peer=-1 tag=[0-9]* count=1 bytes=8 .*req=')
    [ "$irecvs" -eq "$(grep -c '^call [0-9]* MPI_Irecv ' "$file")" ] ||
        problem "rank $r: MPI_Irecv lines without peer=-1 (any source), 8 bytes and a request"
    received=0
    while read -r index request; do
        grep -Eq "^done $request $index t=[0-9.]+ source=$next tag=[0-9]+ bytes=8$" "$file" &&
            received=$((received + 1))
    done < <(grep '^call [0-9]* MPI_Irecv ' "$file" | sed 's/^call \([0-9]*\) .* req=\([0-9]*\).*/\1 \2/')
    [ "$received" -eq "$irecvs" ] ||
        problem "rank $r: $received of $irecvs MPI_Irecv requests have their done line from rank $next"
    if [ -n "$pvars" ]; then
        lines=$(grep -c '^pvar ' "$file")
        placed=$(awk '/^call / { called[$2] = 1 } /^pvar / && called[$2] && NF > 2 { n++ }
                      END { print n + 0 }' "$file")
        if [ "$pvars" = none ] && [ "$lines" -ne 0 ]; then
            problem "rank $r: $lines pvar lines, the MPI exports none"
        elif [ "$pvars" = some ] && [ "$placed" -ne "$lines" ]; then
            problem "rank $r: $lines pvar lines, $placed after a call of theirs"
        fi
        if [ "$pvars" = some ] && [ "$r" -eq 1 ] &&
            ! grep -q '^pvar [0-9]* .*pml_ob1_unexpected_msgq_length=1' "$file"; then
            problem "rank 1: no pvar line with pml_ob1_unexpected_msgq_length=1"
        fi
    fi
    if [ "$signed" -eq 1 ]; then
        protected=$(grep -c '^call .* did=' "$file")
        signed_calls=$(grep -c '^call .* sig=[0-9a-f]\{16\} did=' "$file")
        if [ "$protected" -eq 0 ] || [ "$signed_calls" -ne "$protected" ]; then
            problem "rank $r: $signed_calls of $protected protected calls have sig="
        fi
        grep '^call [0-9]* MPI_Allreduce .* sig=' "$file" | sed 's/.* sig=\([0-9a-f]*\).*/\1/' |
            sort -u >>"$dir.signatures"
    fi
    if [ -n "$did_routine" ] && [ "$r" -eq 0 ]; then
        lines=$(grep -c "^call [0-9]* $did_routine " "$file")
        good=$(grep "^call [0-9]* $did_routine " "$file" | grep -c " did=$did_what subs=[0-9]*")
        if [ "$lines" -eq 0 ] || [ "$good" -ne "$lines" ]; then
            problem "rank 0: $good of $lines $did_routine calls say did=$did_what with subs="
        fi
        # each such call's subs= is the number of its sub lines
        while read -r index subs; do
            counted=$(grep -c "^sub $index [0-9]* MPI_[A-Za-z_]* t=" "$file")
            [ "$counted" -eq "$subs" ] || problem "rank 0: call $index has subs=$subs, $counted sub lines"
        done < <(grep "^call [0-9]* $did_routine .* subs=" "$file" | sed 's/^call \([0-9]*\) .* subs=\([0-9]*\).*/\1 \2/')
    fi
done

# the collectives, across ranks: communicator, number, routine, members
world=$(grep -h '^comm ' "$dir"/rank-0.txt | awk -v p="$procs" '$4 == p && $6 == (p > 1 ? "0-" p - 1 : "0") && !/parent=/ { print $2; exit }')
duplicate=$(grep -h '^comm ' "$dir"/rank-0.txt | awk -v w="$world" '$0 ~ ("parent=" w) { print $2; exit }')
[ -n "$world" ] || problem "rank 0: no comm line for MPI_COMM_WORLD"
if [ -z "$duplicate" ] || [ "$duplicate" = "$world" ]; then
    problem "rank 0: no comm line for MPI_COMM_WORLD's duplicate (parent=$world)"
fi
mismatch=$(for ((r = 0; r < procs; r++)); do
    [ "$r" -eq "$killed" ] && continue
    grep -h '^call [0-9]* MPI_[A-Za-z_]* comm=[0-9a-f]* t=[0-9.]* d=[0-9.]* n=' "$dir/rank-$r.txt" |
        awk '{ split($4, c, "="); split($7, n, "="); print c[2], n[2], $3 }'
done | sort | uniq -c | awk -v p="$procs" -v k="$killed" '$1 != p - (k >= 0) { print }' | head -n 5)
[ -z "$mismatch" ] || problem "collective calls not made alike by every rank (count comm n routine): $mismatch"
on_duplicate=$(grep -c "^call [0-9]* MPI_Allreduce comm=$duplicate " "$dir/rank-$(((killed + 1) % procs)).txt")
[ "$on_duplicate" -gt 0 ] || problem "no MPI_Allreduce traced on the duplicate $duplicate"

if [ "$signed" -eq 1 ] && [ "$(sort -u "$dir.signatures" | wc -l)" -ne 1 ]; then
    problem "the ranks' MPI_Allreduce of MPI_INT have different sig=: $(sort -u "$dir.signatures" | tr '\n' ' ')"
fi
rm -f "$dir.signatures"
[ "$fail" -eq 0 ] && echo "check-trace.sh: $dir agrees with the program ($procs ranks)"
exit "$fail"
