#!/usr/bin/env bash
# tools-cli.sh VERSION TOOL_PATH... [--help-only HELPER_PATH...]: the command
# lines of the tools (issue 47, item 19). Every tool: `--version` prints
# "NAME VERSION" (the project's version) and exits 0; every tool and helper
# (the launchers, local-slurm.sh): `--help` exits 0 and lists its exit
# statuses, 2 a usage error among them; `--bogus` is a usage error, exit 2. Then the
# particulars: scaleguard-probe says "unknown option --bogus" (once it said
# "--bogus needs a value") and takes --memory-limit with K, M, G;
# scaleguard-trace takes --output as the others do.
set -uo pipefail

version=$1
shift
result=0
fail() {
  echo "FAIL: $*"
  result=1
}
declare -A path=()
versioned=1
for tool in "$@"; do
  [[ $tool != --help-only ]] || { versioned=0; continue; }
  name=${tool##*/}
  path[$name]=$tool
  if ((versioned)); then
    out=$("$tool" --version 2>&1)
    status=$?
    [[ $status == 0 && $out == "$name $version" ]] ||
      fail "$name --version: exit $status, '$out', expected '$name $version'"
  fi
  out=$("$tool" --help 2>/dev/null)
  status=$?
  ((status == 0)) || fail "$name --help: exit $status"
  exits=$(tr '\n' ' ' <<<"$out" | grep -o 'Exit status:.*' | tr -s ' ')
  [[ $exits =~ 0\ .*,\ 2\ usage\ error ]] ||
    fail "$name --help does not list its exit statuses (2 usage error among them): '$exits'"
  "$tool" --bogus >/dev/null 2>&1
  status=$?
  ((status == 2)) || fail "$name --bogus: exit $status, expected 2"
  echo "$name: $( ((versioned)) && echo "--version, ")--help's exit statuses, --bogus checked"
done

# expect NAME STATUS PATTERN ARGS...: NAME ARGS exits STATUS, its standard
# error matching the extended regex PATTERN.
expect() {
  local name=$1 expected=$2 pattern=$3 err status
  shift 3
  err=$("${path[$name]}" "$@" 2>&1 >/dev/null)
  status=$?
  if ((status != expected)) || ! grep -Eq -- "$pattern" <<<"$err"; then
    fail "$name $*: exit $status, '$err'; expected $expected and /$pattern/"
  fi
}
probe=(--collective MPI_Bcast --procs 2 --type-size 1 --output /nonexistent/x.ini)
expect scaleguard-probe 2 '^scaleguard-probe: unknown option --bogus \(see --help\)$' --bogus
expect scaleguard-probe 2 '^scaleguard-probe: unknown option --bogus ' "${probe[@]}" --bogus 1
# 3G passes its check: the next one, --layer's, is what stops it
for limit in 3G 512M 4096K 3221225472; do
  expect scaleguard-probe 2 '^scaleguard-probe: --layer /nonexistent: no such file' \
    "${probe[@]}" --memory-limit "$limit" --layer /nonexistent
done
for limit in 3X 3g 0G G -1; do
  expect scaleguard-probe 2 '^scaleguard-probe: --memory-limit must be a positive number of bytes' \
    "${probe[@]}" --memory-limit "$limit"
done
expect scaleguard-probe 2 '^scaleguard-probe: --procs needs a value' --procs

empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
# --output (and --out, as before) taken: reading the empty folder is what fails
expect scaleguard-trace 1 "^scaleguard-trace: .*$empty" --output "$empty/t" "$empty"
expect scaleguard-trace 1 "^scaleguard-trace: .*$empty" --out "$empty/t" "$empty"
expect scaleguard-trace 2 '^scaleguard-trace: --output needs a value' "$empty" --output
expect scaleguard-trace 2 '^scaleguard-trace: unknown option --bogus' --bogus "$empty"
((result)) || echo PASS
exit "$result"
