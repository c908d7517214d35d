#!/usr/bin/env bash
# retried-case.sh JOURNAL LIMIT
#
# Every job of the probe's JOURNAL that counted as a hang reached its time
# limit twice: the journal line says it ran again after reaching LIMIT
# seconds (retried=LIMIT or a larger limit of a later job); and there is one.
set -euo pipefail
awk -F '\t' -v first="$2" '
  $NF == "end" && $5 ~ /=hang(,|$)/ {
    hangs++
    retried = 0
    for (i = 1; i <= NF; i++)
      if ($i ~ /^retried=[0-9]+$/ && substr($i, 9) + 0 >= first + 0) retried = 1
    if (!retried) { print "FAIL: a hang not retried: " $1; bad++ }
  }
  END {
    if (hangs == 0) { print "FAIL: no hang in the journal"; exit 1 }
    if (bad) exit 1
    print "PASS: " hangs " hangs, each after a second run with a longer limit"
  }' "$1"
