#!/usr/bin/env bash
# check-section.sh STAGE_BIN INI ROUTINE N_TRUE [KEY=VALUE...] [true_bound=B:K]
#
# Checks the [ROUTINE] entry the probe wrote into INI, as the layer reads it
# (STAGE_BIN/scaleguard-ini dump): every KEY=VALUE is there;
# the safe count is within one step of the true bound N_TRUE (in the layer's
# n), safe_count <= N_TRUE < safe_count + delta (N_TRUE `-`: not checked);
# and with true_bound=B:K the bound is within one step of the true trigger
# value B, bound <= B < bound + K * delta (K: what one step of n adds to the
# trigger value, s*P for snP, 1 for n). Exit 0 when all holds.
set -euo pipefail

bin=$1 ini=$2 routine=$3 n_true=$4
shift 4
# KEY=VALUE lines of the entry [ROUTINE].
section=$("$bin/scaleguard-ini" dump "$ini" |
  awk -F '\t' -v s="$routine" '$1 == s { for (i = 2; i <= NF; i++) print $i; exit }')
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
