#!/usr/bin/env bash
# retried-case.sh JOURNAL LIMIT
#
# Every job of the probe's JOURNAL that counted as a hang reached its time
# limit twice: the journal line says it ran again after reaching LIMIT
# seconds (retried=LIMIT or a larger limit of a later job); and there is one.
# Except a W4 trial's job (its key holds the bench's extra arguments,
# " bench="): one that hangs is not run again.
set -euo pipefail
awk -F '\t' -v first="$2" '
  $NF == "end" && $5 ~ /=hang(,|$)/ {
    retried = 0
    for (i = 1; i <= NF; i++)
      if ($i ~ /^retried=[0-9]+$/ && substr($i, 9) + 0 >= first + 0) retried = 1
    if ($1 ~ / bench=/) {
      trials++
      if (retried) { print "FAIL: a W4 trial run again: " $1; bad++ }
      next
    }
    hangs++
    if (!retried) { print "FAIL: a hang not retried: " $1; bad++ }
  }
  END {
    if (hangs == 0) { print "FAIL: no hang in the journal"; exit 1 }
    if (bad) exit 1
    print "PASS: " hangs " hangs, each after a second run with a longer limit; " \
      trials + 0 " W4 trials that hung, each run once"
  }' "$1"
