#!/bin/bash
# otf2-test.sh SCALEGUARD_TRACE CASE DIR
# scaleguard-trace --otf2 on a real trace directory (tests/trace's runs),
# read back with otf2-print (Debian's otf2-tools), and on copies broken on
# purpose:
#   whole    DIR: otf2-print reads the archive (-Werror) with a location per
#            rank, and its events say what the text form of each rank's file
#            says: the calls (enter and leave per routine, at the times of
#            the text form to the nanosecond: the trace's clock), the messages sent
#            (receiver, communicator, tag, bytes) and received (sender,
#            communicator, tag), each send matched by a receive, the
#            collectives (begin, and end with operation, communicator, root,
#            bytes), and what the layer did (did=, subs=, the `sub` lines)
#            and the checks' signatures (sig=) as attributes;
#   forms    DIR (tests/trace's trace_forms) as whole, bar its lack of
#            messages, and the forms' regions and operations: MPI_Igather's
#            role COLL_ALL2ONE and GATHER, MPI_Ibarrier's BARRIER and
#            BARRIER, MPI_Neighbor_alltoallw's COLL_OTHER; with a 4th
#            argument mpi4 (the MPI has MPI 4's forms), MPI_Scatter_c's
#            COLL_ONE2ALL and SCATTER, and MPI_Reduce_init and
#            MPI_Barrier_init FUNCTIONs without collective events (no data
#            moves at an _init);
#   broken   a copy of DIR with a record of no type of the format in rank 1's
#            file: exit 1, the file and line named, and no archive, nor any
#            part of one, written;
#   full     a write that fails (files limited to 1 KiB: ulimit -f, SIGXFSZ
#            ignored, so a write past it fails as on a full disk): exit 1,
#            libotf2's error told, and no archive, nor any part of one;
#   exists   ARCHIVE already there (a directory of the user's, a link to one):
#            exit 1, "exists", what was there untouched, no other output.
set -u
tool=$1 kase=$2 dir=$3 forms=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "otf2-test.sh: $kase: $*" >&2
    exit 1
}
command -v otf2-print >/dev/null || fail "no otf2-print (Debian: otf2-tools; scripts/install-deps.sh)"
run() { # run ARGS...: sets status, and err (standard error)
    "$tool" "$@" >"$work/out" 2>"$work/err"
    status=$?
    err=$(cat "$work/err")
}
procs=$(find "$dir" -maxdepth 1 -name 'rank-*.sgtrace' | wc -l)

# What the text form says, one line per fact, the rank first:
#   call R ROUTINE, time R ROUTINE START_NS DURATION_NS,
#   send R TO COMM TAG BYTES, recv R FROM COMM TAG,
#   coll R OPERATION COMM ROOT SENT RECEIVED, did R WHAT SUBS,
#   subcalls R ROUTINE,..., sig R HASH
text_facts() {
    for ((rank = 0; rank < procs; rank++)); do
        "$tool" --text "$dir/rank-$rank.sgtrace" || fail "--text rank-$rank.sgtrace failed"
    done | awk '
    $1 == "job" { rank = $4 }
    $1 == "call" {
        delete f
        for (i = 4; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
        routine = $3
        print "call", rank, routine
        start = f["t"]; sub(/\./, "", start)
        duration = f["d"]; sub(/\./, "", duration)
        print "time", rank, routine, start, duration + 0
        if (routine ~ /^MPI_(Send|Ssend|Rsend|Bsend|Isend|Issend|Irsend|Ibsend|Sendrecv|Sendrecv_replace)$/ && ("peer" in f))
            print "send", rank, f["peer"], f["comm"], f["tag"], f["bytes"]
        if (routine == "MPI_Recv" && ("peer" in f))
            print "recv", rank, f["peer"], f["comm"], f["tag"]
        if ("source" in f)
            print "recv", rank, f["source"], f["comm"], f["source_tag"]
        if (routine == "MPI_Irecv" && ("req" in f))
            irecv[rank, f["req"]] = f["comm"]
        # a collective has its begin and end, with the operation of its
        # blocking int form, but a neighbourhood one (OTF2 has no
        # operation for it: its region alone) and a persistent _init
        # (which moves no data)
        if (("n" in f) && routine !~ /^MPI_I?[Nn]eighbor_/ && routine !~ /_init(_c)?$/) {
            operation = substr(routine, 5)
            sub(/_c$/, "", operation)
            if (operation ~ /^I[a-z]/)
                operation = substr(operation, 2)
            operation = toupper(operation)
            print "coll", rank, operation, f["comm"], ("root" in f) ? f["root"] : "NONE",
                  ("sent" in f) ? f["sent"] : 0, ("received" in f) ? f["received"] : 0
        }
        if ("did" in f)
            print "did", rank, f["did"], ("subs" in f) ? f["subs"] : "-"
        if ("sig" in f)
            print "sig", rank, f["sig"]
    }
    $1 == "sub" {
        key = rank " " $2
        if (key in subs) subs[key] = subs[key] "," $4
        else subs[key] = $4
    }
    $1 == "done" && (rank, $2) in irecv {
        delete f
        for (i = 4; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
        if ("source" in f)
            print "recv", rank, f["source"], irecv[rank, $2], f["tag"]
    }
    END { for (key in subs) { split(key, k, " "); print "subcalls", k[1], subs[key] } }' | sort
}

# The same facts from otf2-print's events; the archive's own checks (every
# ENTER left, every collective begun and ended, every send received) apart.
archive_facts() {
    awk -v checks="$work/checks" '
    function location(text) { # "... (\"rank 3\" <3>)": 3
        sub(/^[^(]*\("rank /, "", text); sub(/".*/, "", text); return text
    }
    function comm(text) { # "comm 28b196a081bff727 (4 ranks)": its id
        sub(/^.*"comm /, "", text); sub(/ .*/, "", text); return text
    }
    function field(name,    text) { # the text after "Name: " up to its comma
        text = $0; sub("^.*" name ": ", "", text); sub(/, [A-Z][a-z]+: .*$/, "", text)
        return text
    }
    function number(name,    text) { text = field(name); sub(/[^0-9].*$/, "", text); return text }
    $1 == "ENTER" || $1 == "LEAVE" {
        routine = $0; sub(/^.*Region: "/, "", routine); sub(/".*/, "", routine)
        if ($1 == "ENTER") {
            print "call", $2, routine
            entered[$2, routine]++
            enter[$2] = $3
        } else {
            left[$2, routine]++
            last_leave = $2
            # ns since the epoch (19 digits): the duration from the last 15, exact in awk
            duration = substr($3, length($3) - 14) - substr(enter[$2], length(enter[$2]) - 14)
            print "time", $2, routine, enter[$2], duration < 0 ? duration + 1e15 : duration
        }
    }
    $1 == "MPI_SEND" || $1 == "MPI_ISEND" {
        to = location(field("Receiver"))
        print "send", $2, to, comm(field("Communicator")), number("Tag"), number("Length")
        sent[$2, to, comm(field("Communicator")), number("Tag")]++
    }
    $1 == "MPI_RECV" || $1 == "MPI_IRECV" {
        from = location(field("Sender"))
        print "recv", $2, from, comm(field("Communicator")), number("Tag")
        received[from, $2, comm(field("Communicator")), number("Tag")]++
    }
    $1 == "MPI_COLLECTIVE_BEGIN" { begun[$2]++ }
    $1 == "MPI_COLLECTIVE_END" {
        ended[$2]++
        root = field("Root"); root = root == "NONE" ? "NONE" : location(root)
        print "coll", $2, field("Operation"), comm(field("Communicator")), root,
              number("Sent"), number("Received")
    }
    $1 == "ADDITIONAL" && /"scaleguard:did"/ {
        what = $0; sub(/^.*"scaleguard:did" <[0-9]+>; STRING; "/, "", what); sub(/".*/, "", what)
        subs = "-"
        if (/"scaleguard:subs"/) { subs = $0; sub(/^.*"scaleguard:subs" <[0-9]+>; UINT64; /, "", subs); sub(/\).*/, "", subs) }
        print "did", last_leave, what, subs
    }
    $1 == "ADDITIONAL" && /"scaleguard:sub_calls"/ {
        calls = $0; sub(/^.*"scaleguard:sub_calls" <[0-9]+>; STRING; "/, "", calls); sub(/".*/, "", calls)
        print "subcalls", last_leave, calls
    }
    $1 == "ADDITIONAL" && /"scaleguard:sig"/ {
        sig = $0; sub(/^.*"scaleguard:sig" <[0-9]+>; STRING; "/, "", sig); sub(/".*/, "", sig)
        print "sig", last_leave, sig
    }
    END {
        for (k in entered) if (entered[k] != left[k]) print "entered and left differ:", k > checks
        for (k in left) if (!(k in entered)) print "left, never entered:", k > checks
        for (k in begun) if (begun[k] != ended[k]) print "collectives begun and ended differ on", k > checks
        for (k in ended) if (!(k in begun)) print "collectives ended, never begun on", k > checks
        for (k in sent) if (sent[k] != received[k]) print "sends not matched by receives:", k > checks
        for (k in received) if (!(k in sent)) print "receives without their send:", k > checks
    }' "$work/events" | sort
}

# The archive of DIR against its text form (the whole case's checks).
compare() {
    run --otf2 "$work/archive" --output "$work/t" "$dir"
    [ "$status" -eq 0 ] || fail "exit $status: $err"
    anchor=$work/archive/traces.otf2
    [ -f "$anchor" ] || fail "no anchor file $anchor"
    # once (a run of otf2-print costs seconds here): definitions and events
    otf2-print -Werror -A "$anchor" >"$work/events" 2>"$work/print-err" ||
        fail "otf2-print -Werror -A failed: $(tail -3 "$work/print-err")"
    [ ! -s "$work/print-err" ] || fail "otf2-print said: $(head -3 "$work/print-err")"
    locations=$(grep -c '^LOCATION  ' "$work/events")
    [ "$locations" -eq "$procs" ] || fail "$locations locations, the trace has $procs ranks"
    grep -q "^CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000," "$work/events" || fail "no clock of 1 GHz"
    text_facts >"$work/text"
    archive_facts >"$work/otf2"
    [ ! -s "$work/checks" ] || fail "the archive: $(cat "$work/checks")"
    diff "$work/text" "$work/otf2" >"$work/diff" || fail "the archive's events differ from the text form (< text, > archive): $(head -20 "$work/diff")"
}

# role ROUTINE: its region's role in the archive
role() {
    sed -n "s/^REGION .*Name: \"$1\" .*Role: \([A-Z0-9_]*\),.*/\1/p" "$work/events"
}
# ends OPERATION: the archive's collective ends of that operation
ends() {
    grep -c "^MPI_COLLECTIVE_END .*Operation: $1," "$work/events"
}
expect_role() {
    [ "$(role "$1")" = "$2" ] || fail "$1's region has the role '$(role "$1")', expected $2"
}

case $kase in
whole)
    compare
    for fact in call send recv coll; do
        [ "$(grep -c "^$fact " "$work/text")" -gt 0 ] || fail "no '$fact' in the trace: nothing compared"
    done
    collectives=$(grep -c '^MPI_COLLECTIVE_END ' "$work/events")
    echo "otf2-test.sh: whole: $locations locations, $(grep -c '^call ' "$work/text") calls," \
        "$(grep -c '^send ' "$work/text") sends and $(grep -c '^recv ' "$work/text") receives matched," \
        "$collectives collectives, $(grep -c '^did ' "$work/text") decisions," \
        "$(grep -c '^subcalls ' "$work/text") with sub-calls: the archive and the text form agree"
    ;;
forms)
    compare
    expect_role MPI_Igather COLL_ALL2ONE
    expect_role MPI_Ibarrier BARRIER
    expect_role MPI_Neighbor_alltoallw COLL_OTHER
    operations="GATHER BARRIER"
    if [ "$forms" = mpi4 ]; then
        expect_role MPI_Scatter_c COLL_ONE2ALL
        expect_role MPI_Reduce_init FUNCTION
        expect_role MPI_Barrier_init FUNCTION
        operations+=" SCATTER"
        [ "$(ends REDUCE)" -eq 0 ] || fail "$(ends REDUCE) REDUCE ends: an _init moves no data"
    fi
    for operation in $operations; do
        [ "$(ends "$operation")" -eq "$procs" ] || fail "$(ends "$operation") $operation ends, expected one a rank"
    done
    echo "otf2-test.sh: forms: the regions' roles and the operations of" \
        "$(grep -c '^coll ' "$work/text") collectives as their routines' forms say${forms:+ ($forms)}"
    ;;
broken)
    cp -r "$dir" "$work/trace"
    rm -f "$work/trace"/trace.*
    file=$work/trace/rank-1.sgtrace
    header=$(grep -abo -m 1 '^records .*' "$file") # OFFSET:LINE, the header's last line
    line=${header#*:}
    records=$((${header%%:*} + ${#line} + 1))
    { head -c "$records" "$file"; printf '\177\0\0\0\0\0\0\0'; tail -c +$((records + 1)) "$file"; } >"$work/bad"
    mv "$work/bad" "$file"
    mkdir "$work/out-dir"
    run --otf2 "$work/out-dir/archive" --output "$work/out-dir/t" "$work/trace"
    [ "$status" -eq 1 ] || fail "exit $status, expected 1 ($err)"
    [[ $err =~ rank-1\.sgtrace:5:\ not\ a\ record\ of\ the\ trace\ format ]] || fail "said '$err'"
    [ -z "$(ls -A "$work/out-dir")" ] || fail "left behind: $(ls -A "$work/out-dir")"
    echo "otf2-test.sh: broken: exit 1: $err; nothing written"
    ;;
full)
    mkdir "$work/out-dir"
    # its messages through a pipe, which the limit does not touch
    err=$(
        trap '' XFSZ
        ulimit -f 1
        "$tool" --otf2 "$work/out-dir/archive" --output "$work/out-dir/t" "$dir" 2>&1 >/dev/null
        echo "status=$?"
    )
    status=${err##*status=} err=${err%$'\n'status=*}
    [ "$status" -eq 1 ] || fail "exit $status, expected 1 ($err)"
    [[ $err == *"scaleguard-trace: the OTF2 archive: "* ]] || fail "said '$err'"
    [ -z "$(ls -A "$work/out-dir")" ] || fail "left behind: $(ls -A "$work/out-dir")"
    echo "otf2-test.sh: full: exit 1: ${err##*$'\n'}; nothing written"
    ;;
exists)
    mkdir "$work/mine" "$work/elsewhere"
    echo keep >"$work/mine/traces.otf2"
    echo keep >"$work/elsewhere/traces.otf2"
    ln -s "$work/elsewhere" "$work/link"
    for target in mine link; do
        run --otf2 "$work/$target" --output "$work/t" "$dir"
        [ "$status" -eq 1 ] || fail "$target: exit $status, expected 1 ($err)"
        [[ $err == *"$work/$target exists: the OTF2 archive goes to a new directory"* ]] || fail "$target: said '$err'"
    done
    for place in mine elsewhere; do
        if [ "$(ls -A "$work/$place")" != traces.otf2 ] || [ "$(cat "$work/$place/traces.otf2")" != keep ]; then
            fail "$place changed: $(ls -A "$work/$place")"
        fi
    done
    [ -L "$work/link" ] || fail "the link is gone"
    [ ! -e "$work/t.md" ] || fail "the other outputs written all the same"
    [ -z "$(find "$work" -maxdepth 1 -name '.*partial')" ] || fail "a partial archive left behind"
    echo "otf2-test.sh: exists: exit 1 for a directory and a link, both untouched"
    ;;
*) fail "unknown case" ;;
esac
