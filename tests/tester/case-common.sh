# shellcheck shell=bash
# What the tester's cases share, sourced: the checks of a protected run's
# log and the end of a case (chain-case.sh, shipped-case.sh; they set
# `result`), and a probe replayed from a journal (wrap-*-case.sh).

bad() {
  echo "FAIL: $*"
  result=1
}

# protected_passed STATUS INI LOG: the protected job passed, every size's
# result line in LOG says pass, the layer loaded INI and named the workaround
# it took.
protected_passed() {
  local log=$3
  if [[ $1 != completed ]]; then
    bad "the protected call did not pass"
  elif ! grep -q 'result=pass' "$log" || grep 'result=' "$log" | grep -qv 'result=pass'; then
    bad "a size did not pass"
  elif ! grep -qF "entries from $2" "$log"; then
    bad "the layer did not load $2"
  elif ! grep -Eq '^scaleguard: .*: class [DGX], .*: W' "$log"; then
    bad "the layer did not report a workaround"
  fi
}

# finish LOG: PASS and the job's LOG removed, or where it is kept; exits.
finish() {
  if ((result == 0)); then
    echo "PASS"
    rm -f "$1"
  else
    echo "log: $1"
  fi
  exit "$result"
}

# journal_state NAME JOURNAL: NAME.state, a probe state holding a copy of
# JOURNAL and nothing else, NAME.ini and NAME.env gone.
journal_state() {
  rm -rf "$1.state" "$1.ini" "$1.env"
  mkdir -p "$1.state"
  cp "$2" "$1.state/jobs.tsv"
}

# replay BIN NAME JOURNAL PROBE_ARGS...: BIN/scaleguard-probe on a copy of
# JOURNAL (NAME.state) with an mpiexec that does not exist: every job the
# journal holds is reused, and the first it does not hold fails to launch
# (the probe stops there). Writes NAME.ini; its output also in NAME.out;
# returns the probe's status. --busy-wait: the committed journals' jobs ran
# without libscaleguard-yield.so.
replay() {
  local bin=$1 name=$2 journal=$3
  shift 3
  journal_state "$name" "$journal"
  sed "s|^SCALEGUARD_MPIEXEC=.*|SCALEGUARD_MPIEXEC=$PWD/no-such-mpiexec|" \
    "$bin/../share/scaleguard/mpi.env" >"$name.env"
  SCALEGUARD_MPI_ENV=$PWD/$name.env "$bin/scaleguard-probe" "$@" --busy-wait --output "$name.ini" \
    --state "$name.state" 2>&1 | tee "$name.out"
}
