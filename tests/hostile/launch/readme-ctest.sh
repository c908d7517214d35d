#!/usr/bin/env bash
# readme-ctest.sh README BUILD_DIR: the README's build command runs ctest
# without the tests labelled large, long, shipped and soak (issue 47, item 21: a
# plain `ctest` ran them, about 40 minutes and 20 GB): the command's -LE
# leaves none of them in this build tree, and the README says how to run them.
set -euo pipefail

readme=$1 build=$2
command=$(grep -m 1 -E '^cmake --build build/mpich && ctest ' "$readme" || true)
echo "README: $command"
exclude=$(sed -nE "s/.* -LE '([^']+)'.*/\1/p" <<<"$command")
[[ -n $exclude ]] || { echo "FAIL: the README's ctest has no -LE"; exit 1; }
left=$(ctest --test-dir "$build" -N -LE "$exclude" -L 'large|long|shipped|soak' |
  sed -n 's/^Total Tests: //p')
[[ $left == 0 ]] || { echo "FAIL: -LE '$exclude' leaves $left large/long/shipped/soak tests"; exit 1; }
grep -qF "ctest --test-dir build/mpich -L 'large|long|shipped|soak' -j1" "$readme" ||
  { echo "FAIL: the README does not say how to run them"; exit 1; }
echo PASS
