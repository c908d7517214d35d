# shellcheck shell=bash
# What chain-case.sh and shipped-case.sh share, sourced: the checks of a
# protected run's log, and the end of a case. They set `result`.

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
