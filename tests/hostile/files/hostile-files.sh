#!/bin/bash
# hostile-files.sh CASE LAUNCH...
# Files the layer and the tools create in a shared or user-given place
# (files/safe_file.h), against what another user planted there: run as
# root, the planting as nobody (runuser). LAUNCH... starts an MPI job of
# this tree (the launcher and -n P); the programs and the layer come from
# the environment: SG_LIB (libscaleguard.so), SG_TRACED (tests/trace's
# traced), SG_HANG (tests/watchdog's hang), SG_INI (scaleguard-ini),
# SG_VIEWER (scaleguard-trace). Exit 0: passed, 1: failed, 77: skipped (not
# root, or no runuser). Cases:
#   trace_link_sticky     a shared 1777 directory holds nobody's link
#                         rank-0.sgtrace -> a root-owned 0600 file
#   trace_world_writable  the same in a 0777 directory
#   watchdog_planted      nobody made the job's state directory (its name is
#                         predictable: slurm-<job>.<step>) with rank-0.new and
#                         rank-0 -> the victim
#   viewer_link           scaleguard-trace --out into a 1777 directory where
#                         PREFIX.md is nobody's link -> the victim
#   ini_link_own          scaleguard-ini replace on root's link to an INI
#   ini_link_planted      scaleguard-ini replace on nobody's link -> root's INI
#   trace_buffer          SCALEGUARD_TRACE_BUFFER=1000G: no memory, said so
#   watchdog_report_kept  SCALEGUARD_WATCHDOG_ACTION=report: the states the
#                         report names are there after MPI_Finalize
set -u
kase=$1
shift
needs_nobody() {
  if [[ $(id -u) != 0 ]] || ! command -v runuser >/dev/null || ! id nobody >/dev/null 2>&1; then
    echo "hostile-files.sh: $kase needs root, runuser and the user nobody: skipped"
    exit 77
  fi
}
as_nobody() { runuser -u nobody -- "$@"; }
nobody=$(id -u nobody 2>/dev/null)

work=$(mktemp -d "${TMPDIR:-/tmp}/sg-hostile-files.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
chmod 0755 "$work"
victim=$work/victim
printf 'root-owned secret, not to be overwritten\n' >"$victim"
chmod 0600 "$victim"
cp -p "$victim" "$work/victim.orig"
output=$work/output
failed=0

fail() {
  echo "hostile-files.sh: $kase: $*"
  failed=1
}
victim_intact() {
  cmp -s "$victim" "$work/victim.orig" || fail "the victim $victim was written"
}
# says PATTERN [COUNT]: the output matches the extended regex PATTERN on
# exactly COUNT lines (default 1).
says() {
  local count
  count=$(grep -cE -- "$1" "$output")
  [[ $count == "${2:-1}" ]] || fail "the output matches '$1' on $count lines, not ${2:-1}"
}
# job LAUNCH_ENV...: traced (two rounds) under the layer, output kept.
traced_job() {
  "$@" >"$output" 2>&1
  local status=$?
  [[ $status == 0 ]] || fail "the job's exit status is $status"
  says '^traced: rank 1 MPI_Allreduce [0-9]+$'
}
finish() {
  cat "$output" 2>/dev/null
  [[ $failed == 0 ]] && echo "hostile-files.sh: $kase: passed"
  exit "$failed"
}

case $kase in
trace_link_sticky | trace_world_writable)
  needs_nobody
  shared=$work/shared
  mkdir "$shared"
  if [[ $kase == trace_link_sticky ]]; then chmod 1777 "$shared"; else chmod 0777 "$shared"; fi
  as_nobody ln -s "$victim" "$shared/rank-0.sgtrace"
  traced_job "$@" env LD_PRELOAD="$SG_LIB" SCALEGUARD_TRACE="$shared" "$SG_TRACED" 2
  if [[ $kase == trace_link_sticky ]]; then
    says "^scaleguard: trace: rank 0: $shared/rank-0.sgtrace is a symbolic link \(made by user\
 $nobody\): not followed, not replaced; no rank is traced$"
  else
    says "^scaleguard: trace: rank 0: $shared is writable by every user and not sticky\
 \(mode 0777\): not used; no rank is traced$"
  fi
  says 'scaleguard: trace:' # once, not once per rank
  [[ $(readlink "$shared/rank-0.sgtrace") == "$victim" ]] || fail "the planted link was changed"
  [[ -z $(find "$shared" -name 'rank-[1-9]*') ]] || fail "another rank's trace file was left"
  victim_intact
  ;;
watchdog_planted)
  needs_nobody
  base=$work/states
  mkdir "$base"
  chmod 1777 "$base"
  as_nobody mkdir -m 0777 "$base/slurm-4242.0"
  as_nobody ln -s "$victim" "$base/slurm-4242.0/rank-0.new"
  as_nobody ln -s "$victim" "$base/slurm-4242.0/rank-0"
  traced_job "$@" env LD_PRELOAD="$SG_LIB" SCALEGUARD_WATCHDOG=30 SCALEGUARD_WATCHDOG_DIR="$base" \
    SLURM_JOB_ID=4242 SLURM_STEP_ID=0 "$SG_TRACED" 2
  says "^scaleguard: watchdog: rank 0: $base/slurm-4242.0 is owned by user $nobody, not by\
 this user \(0\) or root: not used; no rank is watched$"
  says 'scaleguard: watchdog:'
  victim_intact
  ;;
viewer_link)
  needs_nobody
  traced_job "$@" env LD_PRELOAD="$SG_LIB" SCALEGUARD_TRACE="$work/trace" "$SG_TRACED" 2
  shared=$work/shared
  mkdir "$shared"
  chmod 1777 "$shared"
  as_nobody ln -s "$victim" "$shared/out.md"
  "$SG_VIEWER" --out "$shared/out" "$work/trace" >"$output" 2>&1
  status=$?
  [[ $status == 1 ]] || fail "scaleguard-trace's exit status is $status, not 1"
  says "^scaleguard-trace: cannot write $shared/out.md: is a symbolic link \(made by user\
 $nobody\): not followed, not replaced$"
  victim_intact
  ;;
ini_link_own | ini_link_planted)
  ini=$work/site.ini
  printf '; the site'"'"'s bounds\n[MPI_Bcast]\nclass = G\ntrigger = n\nbound = 1000\n' >"$ini"
  if [[ $kase == ini_link_own ]]; then
    link=$work/bounds.ini
    ln -s site.ini "$link"
  else
    needs_nobody
    chmod 0600 "$ini"
    mkdir -m 1777 "$work/shared"
    link=$work/shared/bounds.ini
    as_nobody ln -s "$ini" "$link"
  fi
  cp -p "$ini" "$work/site.orig"
  "$SG_INI" replace "$link" MPI_Scatter --entry class=G trigger=n bound=2000 >"$output" 2>&1
  status=$?
  [[ -L $link ]] || fail "$link is no longer a symbolic link"
  if [[ $kase == ini_link_own ]]; then
    [[ $status == 0 ]] || fail "scaleguard-ini's exit status is $status, not 0"
    grep -q '^\[MPI_Scatter\]$' "$ini" || fail "the link's target $ini has no [MPI_Scatter]"
    grep -q '^\[MPI_Bcast\]$' "$ini" || fail "the link's target $ini lost its [MPI_Bcast]"
    [[ $(readlink "$link") == site.ini ]] || fail "the link points elsewhere"
  else
    [[ $status == 1 ]] || fail "scaleguard-ini's exit status is $status, not 1"
    says "$link: cannot write: is a symbolic link made by user $nobody, not by this user\
 \(0\) or root: not followed"
    cmp -s "$ini" "$work/site.orig" || fail "the link's target $ini was written"
    [[ $(readlink "$link") == "$ini" ]] || fail "the planted link was changed"
  fi
  ;;
trace_buffer)
  traced_job "$@" env LD_PRELOAD="$SG_LIB" SCALEGUARD_TRACE="$work/trace" \
    SCALEGUARD_TRACE_BUFFER=1000G "$SG_TRACED" 2
  says '^scaleguard: trace: rank 0: no memory for a buffer of 1073741824000 bytes'\
' \(SCALEGUARD_TRACE_BUFFER\); no rank is traced$'
  says 'scaleguard: trace:'
  [[ ! -e $work/trace ]] || fail "the trace directory was left"
  ;;
watchdog_report_kept)
  base=$work/states
  # Open MPI's launcher may hang in its teardown after a report (tests/watchdog)
  timeout -k 5 60 "$@" env LD_PRELOAD="$SG_LIB" SCALEGUARD_CHECK=none SCALEGUARD_WATCHDOG=2 \
    SCALEGUARD_WATCHDOG_ACTION=report SCALEGUARD_WATCHDOG_DIR="$base" \
    "$SG_HANG" send_cycle >"$output" 2>&1
  says '^hang: send_cycle done$'
  says '^scaleguard: watchdog: cause: potential deadlock'
  says "^scaleguard: watchdog: the states it read are kept in $base/[^/]+/hang-1$"
  kept=$(sed -n 's/^scaleguard: watchdog: the states it read are kept in //p' "$output")
  if [[ ! -f $kept ]]; then
    fail "$kept is gone after MPI_Finalize"
  else
    for rank in 0 1; do
      grep -qx "rank $rank" "$kept" || fail "$kept has no state of rank $rank"
    done
    grep -q 'cause: potential deadlock' "$kept" || fail "$kept has not the report"
    [[ $(stat -c %a "$kept") == 600 ]] || fail "$kept is not private (0600)"
    [[ -z $(find "$base" -name 'rank-*') ]] || fail "a rank's state file was left"
  fi
  ;;
*)
  echo "hostile-files.sh: no case $kase"
  exit 2
  ;;
esac
finish
