#!/usr/bin/env bash
# check-section.sh INI ROUTINE N_TRUE [KEY=VALUE...] [true_bound=B:K]
#
# Checks the [ROUTINE] section the probe wrote into INI (after
# `scaleguard-ini check`, which the caller runs): every KEY=VALUE is there;
# the safe count is within one step of the true bound N_TRUE (in the layer's
# n), safe_count <= N_TRUE < safe_count + delta (N_TRUE `-`: not checked);
# and with true_bound=B:K the bound is within one step of the true trigger
# value B, bound <= B < bound + K * delta (K: what one step of n adds to the
# trigger value, s*P for snP, 1 for n). Exit 0 when all holds.
set -euo pipefail

ini=$1 routine=$2 n_true=$3
shift 3
# KEY=VALUE lines of [ROUTINE], as the INI writer lays them out.
section=$(awk -v header="[$routine]" '
  $0 == header { inside = 1; next }
  /^\[/ { inside = 0 }
  inside && / = / { sub(/ = /, "="); print }' "$ini")
value() { sed -n "s/^$1=//p" <<<"$section"; }
status=0
safe=$(value safe_count) delta=$(value delta) bound=$(value bound)
for pair in "$@"; do
  if [[ $pair == true_bound=*:* ]]; then
    pair=${pair#true_bound=}
    b_true=${pair%:*} step=${pair#*:}
    if [[ -z $bound || -z $delta ]] || ((bound > b_true || b_true >= bound + step * delta)); then
      echo "FAIL: bound=$bound delta=$delta (x$step) does not bracket the true bound $b_true"
      status=1
    fi
  elif ! grep -qxF -- "$pair" <<<"$section"; then
    echo "FAIL: [$routine] lacks $pair"
    status=1
  fi
done
if [[ $n_true != - ]]; then
  if [[ -z $safe || -z $delta ]] || ((safe > n_true || n_true >= safe + delta)); then
    echo "FAIL: safe_count=$safe delta=$delta does not bracket the true bound $n_true"
    status=1
  fi
fi
((status == 0)) && echo "PASS: [$routine] $(tr '\n' ' ' <<<"$section")"
exit "$status"
