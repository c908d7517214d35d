#!/usr/bin/env bash
# w4-case.sh STAGE_BIN LAYER VARIABLE=VALUE [NAME=VALUE...] -- PROBE_ARGUMENTS...
#
# W4 from the tester to the layer. The probe (PROBE_ARGUMENTS: one routine at
# P = 2 under the fault preload, which spares the calls made while the MPI's
# VARIABLE holds VALUE) must write avoid_with = VARIABLE=VALUE (the only
# algorithm that passes), checked past the first failing size by doubling
# (avoid_checked at least twice safe_count + delta), with avoid_seconds and
# the layer's own workaround timed (workaround_seconds, --layer LAYER). Then
# the bench under LAYER with that INI, at safe_count + delta: W4 where the
# INI says it was faster (auto), else W1-B, every byte checked; the
# NAME=VALUE after it go into that job's environment (where the MPI reads
# the variable only at startup, what the layer tells to set).
set -euo pipefail
bin=$1 layer=$2 setting=$3
shift 3
layer_env=()
while (($#)) && [[ $1 != -- ]]; do
  layer_env+=(--env "$1")
  shift
done
shift
"$(dirname "$0")/probe-case.sh" "$bin" w4 - "avoid_with=$setting" -- --layer "$layer" "$@"
# the one routine probed: its section, the only one
section=$("$bin/scaleguard-ini" dump w4.ini | grep '^MPI_')
collective=${section%%$'\t'*}
value() { tr '\t' '\n' <<<"$section" | sed -n "s/^$1=//p"; }
safe=$(value safe_count) delta=$(value delta) checked=$(value avoid_checked)
avoid=$(value avoid_seconds) others=$(value workaround_seconds)
echo "w4-case.sh: safe_count=$safe delta=$delta avoid_checked=$checked" \
  "avoid_seconds=$avoid workaround_seconds=$others"
if ((checked < 2 * (safe + delta))) || [[ -z $avoid || -z $others ]]; then
  echo "w4-case.sh: FAIL: the algorithm was not checked past its first size, or not timed" >&2
  exit 1
fi
grep -q "W4 trial $setting .* at n=$((safe + delta)): pass" w4.out ||
  { echo "w4-case.sh: FAIL: no passing trial of $setting in w4.out" >&2; exit 1; }
expected=W1-B
awk -v a="$avoid" -v b="$others" 'BEGIN { exit !(a < b) }' && expected="W4 \\($setting\\)"
job=(--preload "$layer" "${layer_env[@]}")
for ((i = 1; i < $#; i++)); do
  j=$((i + 1))
  case ${!i} in
    --bench-preload) job+=(--preload "${!j}") ;;
    --bench-env) job+=(--env "${!j}") ;;
  esac
done
"$bin/../libexec/scaleguard/launch-local" --procs 2 --time-limit 60 --log w4-layer.log "${job[@]}" \
  --env SCALEGUARD_CONFIG=w4.ini --env SCALEGUARD_LOG=info -- \
  "$bin/scaleguard-bench" -c "$collective" -n $((safe + delta)) -s 1 >/dev/null
cat w4-layer.log
grep -Eq "^scaleguard: $collective: class G, n=$((safe + delta)) s=1 P=2: $expected$" w4-layer.log ||
  { echo "w4-case.sh: FAIL: the layer did not run $expected" >&2; exit 1; }
grep -q "result=pass" w4-layer.log || { echo "w4-case.sh: FAIL: wrong bytes" >&2; exit 1; }
