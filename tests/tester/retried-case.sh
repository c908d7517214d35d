#!/usr/bin/env bash
# retried-case.sh JOURNAL LIMIT [as-sibling|quiet]
#
# Every job of the probe's JOURNAL that counted as a hang reached its time
# limit twice: the journal line says it ran again after reaching LIMIT
# seconds (retried=LIMIT or a larger limit of a later job); or once, where
# its sibling form's job of the same key counted as a hang (hang_as=SIBLING,
# no second run), or on a machine the launcher saw quiet (cpu_others=F, no
# second run); and there is one. Except a W4 trial's job (its key holds
# the bench's extra arguments, " bench="): one that hangs is not run again.
# With as-sibling, some hang is of the second kind, and so is every hang of
# a routine at a size where its sibling hung. With quiet, every hang is of
# the third kind.
set -euo pipefail
awk -F '\t' -v first="$2" -v as_sibling="${3:-}" '
  BEGIN { quiet_only = as_sibling == "quiet"; if (quiet_only) as_sibling = "" }
  # as sibling_form of the probe: MPI_Xyz_c, MPI_Xyz; MPI_Xyz_init, MPI_Ixyz
  function sibling_of(name) {
    if (name ~ /_c$/) return substr(name, 1, length(name) - 2)
    if (name !~ /_init$/) return ""
    name = substr(name, 5, length(name) - 9)
    return "MPI_I" tolower(substr(name, 1, 1)) substr(name, 2)
  }
  $NF != "end" || $5 !~ /=hang(,|$)/ { next }
  {
    hang[$1] = 1
    retried = 0; sibling = ""; quiet = ""
    for (i = 1; i <= NF; i++) {
      if ($i ~ /^retried=[0-9]+$/ && substr($i, 9) + 0 >= first + 0) retried = 1
      if ($i ~ /^hang_as=/) sibling = substr($i, 9)
      if ($i ~ /^cpu_others=[0-9.]+$/) quiet = substr($i, 12)
    }
    if ($1 ~ / bench=/) {
      trials++
      if (retried || sibling != "") { print "FAIL: a W4 trial run again or judged by a sibling: " $1; bad++ }
      next
    }
    hangs++
    if (quiet_only && (quiet == "" || retried || sibling != "")) {
      print "FAIL: a hang not judged once on a quiet machine: " $1; bad++
    } else if (quiet != "") {
      if (retried) { print "FAIL: run again though quiet: " $1; bad++ }
      n_quiet++
    } else if (sibling != "") {
      key = $1
      sub(/^routine=[^ ]* /, "routine=" sibling " ", key)
      as[$1] = key
    } else if (!retried) {
      print "FAIL: a hang not retried: " $1; bad++
    } else {
      retried_key[$1] = 1
    }
  }
  END {
    if (hangs == 0) { print "FAIL: no hang in the journal"; exit 1 }
    for (k in as) {
      if (!(as[k] in hang)) { print "FAIL: a hang judged by a sibling that did not hang there: " k; bad++ }
      n_as++
    }
    if (as_sibling != "") {
      if (n_as == 0) { print "FAIL: no hang judged by its sibling form"; bad++ }
      for (k in retried_key) {
        name = k; sub(/ .*/, "", name); sub(/^routine=/, "", name)
        if ((sibling = sibling_of(name)) == "") continue
        key = k; sub(/^routine=[^ ]* /, "routine=" sibling " ", key)
        if (key in hang) { print "FAIL: run again though its sibling hung there: " k; bad++ }
      }
    }
    if (bad) exit 1
    print "PASS: " hangs " hangs, " hangs - n_as - n_quiet " after a second run with a longer limit, " \
      n_as + 0 " where the sibling form hung (run once), " n_quiet + 0 " on a quiet machine (run" \
      " once); " trials + 0 " W4 trials that hung, each run once"
  }' "$1"
