#!/usr/bin/env bash
# forms-case.sh STAGE_BIN -- PROBE_ARGUMENTS...
#
# scaleguard-probe over two process counts and both forms of MPI_Allgather,
# whose fault (PROBE_ARGUMENTS) fails every call past n = 1000 at every P:
# the INI must hold one entry per P and form, largest P first, the in-place
# ones marked `inplace = yes`, and the smaller P's verification at 2P must
# be answered by the larger P's search instead of jobs of its own. (P = 1
# and 2: the fault fails at any P, and a larger P on 2 cores only waits.)
set -euo pipefail

bin=$1
shift 2
rm -rf forms.ini forms.state
"$bin/scaleguard-probe" --output forms.ini --state forms.state "$@" >forms.out
"$bin/scaleguard-ini" check forms.ini

status=0
fail() { echo "FAIL: $*"; status=1; }
# procs and inplace of each [MPI_Allgather...] section, in file order.
layout=$(awk '
  /^\[MPI_Allgather(#[0-9]+)?\]$/ { if (name != "") print name, procs, inplace
                                    name = $0; procs = "-"; inplace = "no"; next }
  /^\[/ { if (name != "") print name, procs, inplace; name = "" }
  name != "" && $1 == "procs" { procs = $3 }
  name != "" && $1 == "inplace" { inplace = $3 }
  END { if (name != "") print name, procs, inplace }' forms.ini)
expected="[MPI_Allgather] 2 no
[MPI_Allgather#2] 1 no
[MPI_Allgather#3] 2 yes
[MPI_Allgather#4] 1 yes"
[[ $layout == "$expected" ]] || fail "sections (name procs inplace):"$'\n'"$layout"
# n = 1000 lies in the last step of the grid Delta = 512/16 from 512.
(($(grep -c '^bound = 992$' forms.ini) == 4)) || fail "not every entry has bound = 992"
# P = 1's verification at (s, 2P) = (1, 2): every letter from P = 2's jobs.
grep -q '^probe: MPI_Allgather P=2 s=1 n=[0-9]*: [pf], implied by n=' forms.out ||
  fail "no verification point at P = 2 was implied by the P = 2 search"
# The in-place jobs ran the bench with --inplace (the key says so).
grep -q 'inplace=1 counts=' forms.state/jobs.tsv || fail "no in-place job in the journal"
((status == 0)) && echo "PASS: four entries, P = 2 and 1, both forms; P = 2 points implied"
exit "$status"
