#!/usr/bin/env bash
# memory-case.sh STAGE_BIN
#
# The memory prediction learns from the jobs it ran: MPI_Reduce at P = 2
# from n = 2^28 to 2^29 under a 3 GiB limit. Before any measurement a
# reduction is predicted at 9/4 of its dense buffers plus the runtime (2^29:
# 3.5 GiB, over the limit); the job at 2^28 measures the real peak (about
# 1 to 1.3 GiB) and its ratio, with the 1/8 margin, predicts about 2.5 GiB
# for 2^29, which fits and runs. Without the measurement the doubling would
# stop at 2^28.
set -euo pipefail

bin=$1
rm -rf memory.ini memory.state
"$bin/scaleguard-probe" --collective MPI_Reduce --procs 2 --type-size 1 --output memory.ini \
  --state memory.state --start-count 268435456 --max-count 536870912 \
  --memory-limit 3221225472 --time-limit 120 >memory.out

status=0
fail() { echo "FAIL: $*"; status=1; }
journal=memory.state/jobs.tsv
grep -q $'counts=268435456 .*\tpeaks=268435456:[1-9][0-9]*\t' "$journal" ||
  fail "the job at 2^28 recorded no peak memory"
grep -q $'counts=536870912 .*\t536870912=pass\t' "$journal" ||
  fail "2^29 was not run (or did not pass): the measured prediction was not used"
grep -q '^probe: MPI_Reduce P=2 plain: no failure up to n=536870912 (stopped by --max-count' \
  memory.out || fail "the search did not end at --max-count"
((status == 0)) && echo "PASS: 2^29 ran on the measured prediction"
exit "$status"
