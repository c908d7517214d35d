#!/bin/bash
# Differential test of libscaleguard.so: runs sg_diffcoll (seeded random
# collectives, a digest of every byte every rank was given) unprotected, then
# protected (LD_PRELOAD=LIB, SCALEGUARD_CONFIG=INI on every rank), and
# compares the per-rank digest files line by line. Without --preload it runs
# the program twice unprotected: a check that the program is deterministic.
# With --no-left-alone the protected run must not have left any call as it
# is (the layer's warnings and its MPI_Finalize summary say so), except for
# the reasons --allow-left-alone names, and each --expect-log ERE must match
# a line of its output. With --triggers-over N the layer must have met its
# bound on exactly the calls whose n exceeds N (the program counts them on
# rank 0, independently of the layer), and run a workaround (or left alone,
# as allowed above) on each of them.
#
# Exit status: 0 identical; 1 the digests differ, a run's self-check failed
# or the log check did; 2 usage error; 3 a run failed otherwise (crash, MPI
# error, time limit, missing output, preload not in effect).
set -euo pipefail

prog=${0##*/}

usage() {
    cat <<EOF
Usage: $prog --launcher "CMD..." --env-flag -x|-genv --procs P --program PATH
       --seed S --calls N [--preload LIB --config INI] --workdir DIR
       [--reference-dir DIR] [--timeout SEC] [--no-left-alone]
       [--allow-left-alone ERE]... [--expect-log ERE]... [--triggers-over N]
       [-- PROGRAM-OPTIONS...]

  --launcher "CMD..."  the MPI launcher with its flags, split at blanks, e.g.
                       "mpiexec.openmpi --allow-run-as-root --oversubscribe"
  --env-flag -x|-genv  how the launcher passes environment to the ranks:
                       -x NAME=VALUE (Open MPI) or -genv NAME VALUE (MPICH)
  --procs P            ranks (the launcher's -n)
  --program PATH       the sg_diffcoll executable
  --seed S, --calls N  passed to the program
  --preload LIB        the protected run preloads LIB ...
  --config INI         ... with SCALEGUARD_CONFIG=INI (both or neither)
  --workdir DIR        digests (NAME.rank<r>) and logs (NAME.log) go here
  --reference-dir DIR  with --preload: keep the unprotected run in DIR, one
                       folder per launcher, ranks, program (checksum), seed,
                       calls and options, and reuse it when they are the same
                       (tests that share a seed run the reference once, in
                       whatever order they come)
  --timeout SEC        time limit of each run (default 600)
  --no-left-alone      with --preload: fail if the layer left any call as it
                       is (a workaround must have handled every trigger)
  --allow-left-alone ERE  with --no-left-alone: a warning line matching ERE
                       (grep -E) does not count, nor do the summary lines
                       of the routines such lines name; may be given again
  --expect-log ERE     with --preload: a line of the protected run's output
                       must match ERE (grep -E); may be given again
  --triggers-over N    with --preload and an INI whose every bound is n > N:
                       the layer's summary (rank 0, SCALEGUARD_LOG=info) must
                       count as class G triggers exactly the calls the program
                       counts with n > N (--count-over N), per routine, and as
                       handled (a workaround or left alone) at least as many
  -- OPTIONS...        more options for the program, e.g. -- --max-count 200

Exit status: 0 identical, 1 different, self-check or log check failed, 2 usage error,
3 a run failed (crash, MPI error, time limit, preload not in effect).
EOF
}

die_usage() {
    echo "$prog: $*" >&2
    usage >&2
    exit 2
}

launcher="" env_flag="" procs="" program="" seed="" calls=""
preload="" config="" workdir="" refdir="" timeout_s=600 no_left_alone=0 over=""
extra=() expect_log=() allow_left_alone=()
while (($# > 0)); do
    case $1 in
        -h | --help)
            usage
            exit 0
            ;;
        --)
            shift
            extra=("$@")
            break
            ;;
        --no-left-alone)
            no_left_alone=1
            shift
            ;;
        --launcher | --env-flag | --procs | --program | --seed | --calls | --preload | \
            --config | --workdir | --reference-dir | --timeout | --expect-log | \
            --allow-left-alone | --triggers-over)
            (($# >= 2)) || die_usage "$1 needs a value"
            case $1 in
                --launcher) launcher=$2 ;;
                --env-flag) env_flag=$2 ;;
                --procs) procs=$2 ;;
                --program) program=$2 ;;
                --seed) seed=$2 ;;
                --calls) calls=$2 ;;
                --preload) preload=$2 ;;
                --config) config=$2 ;;
                --workdir) workdir=$2 ;;
                --reference-dir) refdir=$2 ;;
                --timeout) timeout_s=$2 ;;
                --expect-log) expect_log+=("$2") ;;
                --allow-left-alone) allow_left_alone+=("$2") ;;
                --triggers-over) over=$2 ;;
            esac
            shift 2
            ;;
        *) die_usage "unknown argument '$1'" ;;
    esac
done

[[ -n $launcher ]] || die_usage "--launcher is required"
[[ $env_flag == -x || $env_flag == -genv ]] || die_usage "--env-flag must be -x or -genv"
[[ $procs =~ ^[1-9][0-9]*$ ]] || die_usage "--procs must be a positive number"
[[ $seed =~ ^[0-9]+$ ]] || die_usage "--seed must be a number"
[[ $calls =~ ^[0-9]+$ ]] || die_usage "--calls must be a number"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die_usage "--timeout must be a positive number"
[[ -n $workdir ]] || die_usage "--workdir is required"
[[ -x $program ]] || die_usage "--program '$program' is not an executable file"
[[ -z $refdir || -n $preload ]] || die_usage "--reference-dir needs --preload"
((!no_left_alone && ${#expect_log[@]} == 0)) && [[ -z $over ]] || [[ -n $preload ]] ||
    die_usage "--no-left-alone, --expect-log and --triggers-over need --preload"
[[ -z $over || $over =~ ^[0-9]+$ ]] || die_usage "--triggers-over must be a number"
((no_left_alone || ${#allow_left_alone[@]} == 0)) ||
    die_usage "--allow-left-alone needs --no-left-alone"
if [[ -n $preload || -n $config ]]; then
    [[ -n $preload && -n $config ]] || die_usage "--preload and --config go together"
    [[ -f $preload ]] || die_usage "--preload '$preload' does not exist"
    [[ -f $config ]] || die_usage "--config '$config' does not exist"
fi
# Absolute paths: the ranks need not start in this directory.
program=$(realpath "$program")
[[ -z $preload ]] || preload=$(realpath "$preload")
[[ -z $config ]] || config=$(realpath "$config")
# The reference run must be unprotected: the layer must not come in through
# the caller's environment (a local Open MPI launch hands it to the ranks).
if [[ ${LD_PRELOAD:-} == *scaleguard* ]]; then
    die_usage "LD_PRELOAD ($LD_PRELOAD) already holds the layer; the reference run would be protected"
fi
unset SCALEGUARD_CONFIG

read -r -a launch <<<"$launcher"
mkdir -p "$workdir"

# run DIR NAME [LAUNCHER-ENV-ARGS...]: one run of the program, its digests in
# DIR/NAME.rank<r>, its output in DIR/NAME.log (shown, at most the last 40
# lines). Checks that MPI_Bcast came from the preload when there is one, and
# from elsewhere when not.
run() {
    local dir=$1 name=$2
    shift 2
    local out=$dir/$name
    rm -f "$out".rank* "$out.log" "$out.err"
    local cmd=("${launch[@]}" -n "$procs" "$@" "$program" --seed "$seed" --calls "$calls"
        --output "$out" "${extra[@]}")
    (($# == 0)) || [[ -z $over ]] || cmd+=(--count-over "$over")
    echo "differential: $name run: ${cmd[*]}"
    local start=$SECONDS rc=0
    # (the two streams apart, then one after the other: merged as they come,
    # a line of one landed inside a line of the other)
    timeout --kill-after=10 "$timeout_s" "${cmd[@]}" >"$out.log" 2>"$out.err" || rc=$?
    cat "$out.err" >>"$out.log"
    rm -f "$out.err"
    tail -n 40 "$out.log" | sed 's/^/  | /'
    echo "differential: $name run: exit $rc after $((SECONDS - start)) s"
    if ((rc == 124 || rc == 137)); then
        echo "differential: FAILED: the $name run exceeded the time limit of $timeout_s s" >&2
        return 3
    elif ((rc == 1)); then
        # The program's own self-check failed: it finished, so compare anyway.
        echo "differential: FAILED: the $name run reported self-check mismatches" \
            "(MISMATCH lines in $out.log); comparing the digests anyway" >&2
        selfcheck_failed=1
    elif ((rc != 0)); then
        echo "differential: FAILED: the $name run exited with status $rc (see $out.log)" >&2
        return 3
    fi
    local from
    from=$(sed -n 's/^sg_diffcoll: .*; MPI_Bcast from \(.*\)$/\1/p' "$out.log" | head -n 1)
    if [[ -z $from ]]; then
        echo "differential: FAILED: no summary line from rank 0 in $out.log" >&2
        return 3
    fi
    if (($# > 0)) && [[ $from != "${preload##*/}" ]]; then
        echo "differential: FAILED: the $name run took MPI_Bcast from $from, not from the" \
            "preloaded ${preload##*/}: the preload is not in effect" >&2
        return 3
    elif (($# == 0)) && [[ $from == *scaleguard* ]]; then
        echo "differential: FAILED: the $name run took MPI_Bcast from $from" >&2
        return 3
    fi
}

# compare A B LABEL-A LABEL-B: rank files A.rank<r>, B.rank<r> line by line.
compare() {
    local a=$1 b=$2 la=$3 lb=$4 r status=0
    for ((r = 0; r < procs; r++)); do
        local fa=$a.rank$r fb=$b.rank$r
        for f in "$fa" "$fb"; do
            if [[ ! -f $f ]]; then
                echo "differential: FAILED: $f is missing" >&2
                return 3
            fi
            local lines
            lines=$(wc -l <"$f")
            if ((lines != calls)); then
                echo "differential: FAILED: $f has $lines lines, expected $calls" >&2
                return 3
            fi
        done
        cmp -s "$fa" "$fb" && continue
        status=1
        echo "differential: rank $r differs (call routine rank digest):"
        awk -v fa="$fa" -v fb="$fb" -v la="$la" -v lb="$lb" 'BEGIN {
            for (;;) {
                ra = (getline x < fa); rb = (getline y < fb)
                if (ra <= 0 && rb <= 0) break
                n++
                if (ra <= 0) x = "(missing)"
                if (rb <= 0) y = "(missing)"
                if (x != y && ++d <= 5)
                    printf "  line %d\n    %-12s %s\n    %-12s %s\n", n, la ":", x, lb ":", y
            }
            if (d > 5) printf "  ... %d differing lines in all\n", d
        }'
    done
    return $status
}

# check_log LOG: --no-left-alone and --expect-log on the protected run.
check_log() {
    local log=$1 ere status=0 left allowed routine
    if ((no_left_alone)); then
        left=$(grep -E '^scaleguard: .*left as (it is|they are)' "$log" || true)
        for ere in "${allow_left_alone[@]}"; do
            allowed=$(grep -E -- "$ere" <<<"$left" || true)
            left=$(grep -v -E -- "$ere" <<<"$left" || true)
            # the summaries of the routines left alone for an allowed reason
            while read -r routine; do
                left=$(grep -v -E -- "^scaleguard: summary \(rank 0\): $routine: " <<<"$left" || true)
            done < <(sed -n 's/^scaleguard: \(MPI_[A-Za-z_]*\): .*/\1/p' <<<"$allowed")
        done
        if [[ -n $left ]]; then
            printf '%s\n' "$left" >&2
            echo "differential: FAILED: the layer left calls as they are (lines above, from" \
                "$log); every trigger must be worked around here" >&2
            status=1
        fi
    fi
    for ere in "${expect_log[@]}"; do
        if ! grep -Eq -- "$ere" "$log"; then
            echo "differential: FAILED: no line of $log matches '$ere'" >&2
            status=1
        fi
    done
    [[ -z $over ]] || check_triggers "$log" || status=1
    return $status
}

# check_triggers LOG: --triggers-over. The program's line "sg_diffcoll: rank
# 0 calls with n > N: MPI_Bcast=K ..." against the layer's summary lines
# "scaleguard:   MPI_Bcast CALLS D/G/X PLAIN/W1-A/W1-B/W2/W3/W4/LEFT". A rank
# that follows another's decision (the root's plan of Gatherv/Scatterv, an
# Alltoallv row elsewhere) may handle more calls than it saw trigger.
check_triggers() {
    local log=$1 counts word routine expected status=0 seen=0
    counts=$(sed -n "s/^sg_diffcoll: rank 0 calls with n > $over: //p" "$log")
    if [[ -z $counts ]]; then
        echo "differential: FAILED: the program did not count its calls with n > $over" >&2
        return 1
    fi
    for word in $counts; do
        routine=${word%%=*} expected=${word#*=}
        local line d g x w1a w1b w2 w3 w4 left
        line=$(grep -E "^scaleguard:   $routine +[0-9]+ " "$log" || true)
        if [[ -z $line ]]; then
            ((expected == 0)) && continue
            echo "differential: FAILED: $expected calls of $routine had n > $over, but the" \
                "layer's summary has no line for it" >&2
            status=1
            continue
        fi
        IFS=' /' read -r _ _ _ d g x _ w1a w1b w2 w3 w4 left <<<"$line"
        seen=$((seen + 1))
        if ((g != expected)); then
            echo "differential: FAILED: $routine: the layer met its bound on $g calls," \
                "the program counts $expected with n > $over" >&2
            status=1
        elif ((w1a + w1b + w2 + w3 + w4 + left < d + g + x)); then
            echo "differential: FAILED: $routine: $((d + g + x)) calls triggered, only" \
                "$((w1a + w1b + w2 + w3 + w4 + left)) were handled" >&2
            status=1
        fi
    done
    ((seen > 0)) || { echo "differential: FAILED: no summary line from the layer" >&2; status=1; }
    return $status
}

selfcheck_failed=0 log_failed=0
if [[ -n $preload ]]; then
    mode="unprotected vs protected ($preload, $config)"
    if [[ $env_flag == -x ]]; then
        env_args=(-x "LD_PRELOAD=$preload" -x "SCALEGUARD_CONFIG=$config")
        [[ -z $over ]] || env_args+=(-x SCALEGUARD_LOG=info)
    else
        env_args=(-genv LD_PRELOAD "$preload" -genv SCALEGUARD_CONFIG "$config")
        [[ -z $over ]] || env_args+=(-genv SCALEGUARD_LOG info)
    fi
    if [[ -n $refdir ]]; then
        key="launcher=${launch[*]} procs=$procs seed=$seed calls=$calls"
        key+=" program=$(sha256sum <"$program" | cut -d' ' -f1) options=${extra[*]}"
        refdir+=/$(printf '%s' "$key" | sha256sum | cut -c1-16)
        mkdir -p "$refdir"
        if [[ -f $refdir/unprotected.key && $(<"$refdir/unprotected.key") == "$key" &&
            -f $refdir/unprotected.rank$((procs - 1)) ]]; then
            echo "differential: unprotected run: reusing $refdir/unprotected (same key)"
        else
            rm -f "$refdir/unprotected.key"
            run "$refdir" unprotected || exit $?
            ((selfcheck_failed)) || printf '%s\n' "$key" >"$refdir/unprotected.key"
        fi
        ref=$refdir/unprotected
        rm -f "$workdir"/unprotected.* # not this test's reference
    else
        run "$workdir" unprotected || exit $?
        ref=$workdir/unprotected
    fi
    run "$workdir" protected "${env_args[@]}" || exit $?
    check_log "$workdir/protected.log" || log_failed=1
    pair=("$ref" "$workdir/protected" unprotected protected)
else
    mode="unprotected twice (determinism)"
    run "$workdir" unprotected-1 || exit $?
    run "$workdir" unprotected-2 || exit $?
    pair=("$workdir/unprotected-1" "$workdir/unprotected-2" unprotected-1 unprotected-2)
fi

rc=0
compare "${pair[@]}" || rc=$?
if ((rc == 0 && selfcheck_failed)); then
    echo "differential: $mode: the digests are identical, but a self-check failed" >&2
    rc=1
elif ((rc == 0 && log_failed)); then
    echo "differential: $mode: the digests are identical, but the layer's log is not as" \
        "expected (see above)" >&2
    rc=1
elif ((rc == 0)); then
    echo "differential: $mode"
    echo "differential: $calls calls, $procs ranks, identical"
elif ((rc == 1)); then
    echo "differential: $mode: the digests DIFFER (files in $workdir)" >&2
fi
exit $rc
