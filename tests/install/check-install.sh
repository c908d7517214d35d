#!/usr/bin/env bash
# The install tree as an admin and a user meet it (tests/install, label
# `install`):
#
#   check-install.sh CASE PREFIX
#
#   install        cmake --install the build tree into PREFIX (emptied first)
#   layout         the files of `cmake --install`, the prefix in the generated ones
#   module         `module load scaleguard` (Lmod): the environment it sets, the
#                  site's bounds.ini, and `module unload`
#   pkgconfig      gatherv.c linked with `pkg-config --libs scaleguard`: the layer
#                  is active (its MPI_Finalize summary counts the MPI_Gatherv)
#   find_package   the same, built by find-package/ with find_package(ScaleGuard)
#   mpirun_flags   an unmodified gatherv under `mpirun $SCALEGUARD_MPIRUN_FLAGS`:
#                  active; without the flags: not
#   srun_flags     the same under `srun $SCALEGUARD_SRUN_FLAGS` (SLURM_CONF)
#   help           every installed program: --help exits 0, usage on stdout
#
# Environment (tests/install/CMakeLists.txt): SG_TEST_CMAKE, SG_TEST_BUILD_DIR,
# SG_TEST_SOURCE_DIR (this folder), SG_TEST_VERSION, SG_TEST_BINDIR,
# SG_TEST_LIBDIR, SG_TEST_LIBEXECDIR, SG_TEST_DATADIR (relative to PREFIX).
# Each case works in ./work-CASE.
set -euo pipefail

(($# == 2)) || { echo "usage: check-install.sh CASE PREFIX" >&2; exit 2; }
case=$1
prefix=$2
: "${SG_TEST_CMAKE:?}" "${SG_TEST_BUILD_DIR:?}" "${SG_TEST_SOURCE_DIR:?}" "${SG_TEST_VERSION:?}"
: "${SG_TEST_BINDIR:?}" "${SG_TEST_LIBDIR:?}" "${SG_TEST_LIBEXECDIR:?}" "${SG_TEST_DATADIR:?}"
lib=$prefix/$SG_TEST_LIBDIR/libscaleguard.so
modulefiles=$prefix/$SG_TEST_DATADIR/modulefiles

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
ok() { echo "ok: $*"; }
# check DESCRIPTION COMMAND...: the command succeeds; refute: it fails
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
refute() {
  local what=$1
  shift
  if "$@"; then fail "$what"; else ok "$what"; fi
}
# same DESCRIPTION ACTUAL EXPECTED
same() {
  if [[ $2 == "$3" ]]; then ok "$1"; else fail "$1: '$2', not '$3'"; fi
}
# finish: exit 1 after any failure. In a ( subshell ) of a case that ends the
# part, and set -e then the script; the script's own last call says passed.
finish() {
  if ((failures)); then
    echo "check-install $case: $failures failure(s)" >&2
    exit 1
  fi
  if ((BASH_SUBSHELL == 0)); then
    echo "check-install $case: passed"
  fi
}

work=$PWD/work-$case
rm -rf "$work"
mkdir -p "$work"

if [[ $case != install ]]; then
  [[ -r $prefix/$SG_TEST_DATADIR/scaleguard/mpi.env ]] ||
    { echo "no install in $prefix (test install_tree)" >&2; exit 1; }
  # The tree's MPI: SCALEGUARD_MPI_FLAVOR, SCALEGUARD_MPICC, SCALEGUARD_MPIEXEC(_FLAGS).
  # shellcheck source=/dev/null
  source "$prefix/$SG_TEST_DATADIR/scaleguard/mpi.env"
  flavor=$SCALEGUARD_MPI_FLAVOR
  module_name=scaleguard/$SG_TEST_VERSION-$flavor
  read -ra mpiexec <<<"$SCALEGUARD_MPIEXEC $SCALEGUARD_MPIEXEC_FLAGS"
fi

# load_module [MODULEFILES]: Lmod's `module load scaleguard` in this shell,
# with MODULEFILES (default: the prefix's) as the only MODULEPATH.
load_module() {
  local init=/usr/share/lmod/lmod/init/bash
  [[ -r $init ]] || { echo "Lmod is not installed ($init): scripts/install-deps.sh" >&2; exit 1; }
  # Lmod's own shell code is not written for set -u.
  set +u
  # shellcheck source=/dev/null
  source "$init"
  # Only ours: no other scaleguard module from the caller's MODULEPATH.
  export MODULEPATH=
  module use "${1:-$modulefiles}"
  module load scaleguard
  local loaded
  loaded=$(module --terse list 2>&1 | grep '^scaleguard/' || true)
  set -u
  [[ $loaded == "$module_name" ]] ||
    { echo "module load scaleguard loaded '$loaded', not $module_name" >&2; exit 1; }
}

# layer_active LOG: rank 0's MPI_Finalize summary of the layer counts the one
# MPI_Gatherv (SCALEGUARD_LOG=info).
layer_active() {
  grep -q '^scaleguard: summary (rank 0):' "$1" &&
    grep -Eq '^scaleguard: +MPI_Gatherv +1 ' "$1"
}

# run_gatherv LOG COMMAND...: runs it, 60 s at most; passes when the job
# exits 0 and gatherv saw the right data.
run_gatherv() {
  local log=$1
  shift
  echo "running: $*"
  SCALEGUARD_LOG=info timeout 60 "$@" >"$log" 2>&1 || {
    echo "exit $?" >>"$log"
    cat "$log"
    return 1
  }
  cat "$log"
  grep -q '^gatherv: ok on 2 ranks' "$log"
}

# compile OUTPUT [FLAGS...]: gatherv.c with this tree's mpicc
compile() {
  local output=$1
  shift
  "$SCALEGUARD_MPICC" -o "$output" "$SG_TEST_SOURCE_DIR/gatherv.c" "$@"
}

case $case in
  install)
    rm -rf "$prefix"
    "$SG_TEST_CMAKE" --install "$SG_TEST_BUILD_DIR" --prefix "$prefix"
    check "installed into $prefix" test -f "$prefix/$SG_TEST_LIBDIR/libscaleguard.so"
    ;;

  layout)
    for file in "$SG_TEST_BINDIR"/scaleguard-{bench,ini,probe,cvars} \
      "$SG_TEST_LIBEXECDIR"/scaleguard/launch-{local,slurm} \
      "$SG_TEST_DATADIR/scaleguard/jobs/local-slurm.sh"; do
      check "$file is an executable" test -f "$prefix/$file" -a -x "$prefix/$file"
    done
    for file in "$SG_TEST_LIBDIR/libscaleguard.so" \
      "$SG_TEST_LIBDIR/pkgconfig/scaleguard.pc" \
      "$SG_TEST_LIBDIR"/cmake/ScaleGuard/ScaleGuard{Config,ConfigVersion,Targets}.cmake \
      "$SG_TEST_LIBEXECDIR/scaleguard/launch-common.sh" \
      "$SG_TEST_DATADIR"/scaleguard/{mpi.env,configs/example.ini} \
      "$SG_TEST_DATADIR"/scaleguard/jobs/{slurm-header.sh,slurm-body.sh,README.md} \
      "$SG_TEST_DATADIR/modulefiles/$module_name.lua"; do
      check "$file is there" test -f "$prefix/$file"
    done
    pc=$prefix/$SG_TEST_LIBDIR/pkgconfig/scaleguard.pc
    lua=$modulefiles/$module_name.lua
    refute "no @VARIABLE@ left in scaleguard.pc and the modulefile" \
      grep -n '@[A-Za-z_]*@' "$pc" "$lua"
    check "scaleguard.pc: prefix=$prefix" grep -qx "prefix=$prefix" "$pc"
    check "scaleguard.pc: mpi=$flavor" grep -qx "mpi=$flavor" "$pc"
    check "the modulefile names the prefix" grep -qF "local prefix = [==[$prefix]==]" "$lua"
    check "the modulefile knows its MPI" grep -qx "local flavor = \"$flavor\"" "$lua"
    refute "the modulefile never sets LD_PRELOAD in the shell" \
      grep -Eq '(setenv|pushenv|prepend_path|append_path)\("LD_PRELOAD"' "$lua"
    for ini in "$prefix/$SG_TEST_DATADIR"/scaleguard/configs/*.ini; do
      check "the installed scaleguard-ini checks ${ini##*/}" \
        "$prefix/$SG_TEST_BINDIR/scaleguard-ini" check "$ini"
    done
    ;;

  module)
    (
      load_module
      same "PATH starts with the prefix's bin" "${PATH%%:*}" "$prefix/$SG_TEST_BINDIR"
      same "PKG_CONFIG_PATH" "${PKG_CONFIG_PATH%%:*}" "$prefix/$SG_TEST_LIBDIR/pkgconfig"
      same "CMAKE_PREFIX_PATH" "${CMAKE_PREFIX_PATH%%:*}" "$prefix"
      same "LD_LIBRARY_PATH" "${LD_LIBRARY_PATH%%:*}" "$prefix/$SG_TEST_LIBDIR"
      same "SCALEGUARD_ROOT" "${SCALEGUARD_ROOT:-}" "$prefix"
      same "SCALEGUARD_PRELOAD" "${SCALEGUARD_PRELOAD:-}" "$lib"
      if [[ $flavor == openmpi ]]; then
        same "SCALEGUARD_MPIRUN_FLAGS" "${SCALEGUARD_MPIRUN_FLAGS:-}" "-x LD_PRELOAD=$lib"
      else
        same "SCALEGUARD_MPIRUN_FLAGS" "${SCALEGUARD_MPIRUN_FLAGS:-}" "-genv LD_PRELOAD $lib"
      fi
      if [[ $flavor == openmpi ]]; then
        same "SCALEGUARD_SRUN_FLAGS" "${SCALEGUARD_SRUN_FLAGS:-}" \
          "--mpi=pmix --export=ALL,LD_PRELOAD=$lib"
      else
        same "SCALEGUARD_SRUN_FLAGS" "${SCALEGUARD_SRUN_FLAGS:-}" \
          "--mpi=pmi2 --export=ALL,LD_PRELOAD=$lib"
      fi
      same "no LD_PRELOAD in the shell" "${LD_PRELOAD-unset}" unset
      same "no SCALEGUARD_CONFIG without a site bounds.ini" "${SCALEGUARD_CONFIG-unset}" unset
      same "scaleguard-ini from PATH" "$(command -v scaleguard-ini)" \
        "$prefix/$SG_TEST_BINDIR/scaleguard-ini"
      set +u
      help=$(module help scaleguard 2>&1)
      set -u
      # the MPI's own launcher: Debian's plain mpirun is Open MPI's
      check "module help: ${SCALEGUARD_MPIEXEC##*/} \$SCALEGUARD_MPIRUN_FLAGS" \
        grep -qF "${SCALEGUARD_MPIEXEC##*/} \$SCALEGUARD_MPIRUN_FLAGS -n 4 ./app" <<<"$help"
      refute "module help: no plain mpirun" grep -qF "mpirun \$SCALEGUARD_MPIRUN_FLAGS" <<<"$help"
      check "module help: srun \$SCALEGUARD_SRUN_FLAGS" \
        grep -qF "srun \$SCALEGUARD_SRUN_FLAGS -n 4 ./app" <<<"$help"
      set +u
      module unload scaleguard
      set -u
      # (Lmod also drops duplicate entries of PATH: compare the prefix's part.)
      refute "module unload takes the prefix off PATH" grep -qF ":$prefix/" <<<":$PATH:"
      same "module unload removes the rest" \
        "$(env | grep -E '^(SCALEGUARD_|LD_LIBRARY_PATH=|PKG_CONFIG_PATH=|CMAKE_PREFIX_PATH=)')" ""
      finish
    )

    # A site bounds.ini in the prefix becomes SCALEGUARD_CONFIG, and the
    # layer loads it through the flags (in an install of its own: the other
    # cases share the prefix).
    site=$work/prefix
    "$SG_TEST_CMAKE" --install "$SG_TEST_BUILD_DIR" --prefix "$site" >/dev/null
    bounds=$site/$SG_TEST_DATADIR/scaleguard/bounds.ini
    cp "$site/$SG_TEST_DATADIR/scaleguard/configs/example.ini" "$bounds"
    (
      load_module "$site/$SG_TEST_DATADIR/modulefiles"
      same "site bounds.ini: SCALEGUARD_CONFIG" "${SCALEGUARD_CONFIG:-}" "$bounds"
      if [[ $flavor == openmpi ]]; then
        check "Open MPI's flags pass SCALEGUARD_CONFIG on" \
          grep -q ' -x SCALEGUARD_CONFIG$' <<<"$SCALEGUARD_MPIRUN_FLAGS"
      fi
      compile "$work/gatherv"
      read -ra flags <<<"$SCALEGUARD_MPIRUN_FLAGS"
      if run_gatherv "$work/bounds.log" "${mpiexec[@]}" "${flags[@]}" -n 2 "$work/gatherv"; then
        check "the layer loaded the site's bounds.ini" \
          grep -Eq "^scaleguard: loaded [0-9]+ bound entries from $bounds\$" "$work/bounds.log"
        check "and was active" layer_active "$work/bounds.log"
      else
        fail "gatherv with the site's bounds.ini"
      fi
      finish
    )
    ;;

  pkgconfig)
    (
      load_module
      same "pkg-config --modversion" "$(pkg-config --modversion scaleguard)" "$SG_TEST_VERSION"
      same "pkg-config --variable=mpi" "$(pkg-config --variable=mpi scaleguard)" "$flavor"
      same "pkg-config --variable=preload" "$(pkg-config --variable=preload scaleguard)" "$lib"
      read -ra build_flags <<<"$(pkg-config --cflags --libs scaleguard)"
      same "pkg-config --cflags --libs" "${build_flags[*]}" "-L$prefix/$SG_TEST_LIBDIR -lscaleguard"
      compile "$work/gatherv" "${build_flags[@]}"
      check "linked with libscaleguard.so" \
        grep -q 'NEEDED.*\[libscaleguard\.so\]' <<<"$(readelf -d "$work/gatherv")"
      # The module's LD_LIBRARY_PATH finds it.
      if run_gatherv "$work/run.log" "${mpiexec[@]}" -n 2 "$work/gatherv"; then
        check "layer active in the pkg-config build" layer_active "$work/run.log"
      else
        fail "the pkg-config build did not run"
      fi
      finish
    )
    ;;

  find_package)
    (
      load_module
      "$SG_TEST_CMAKE" -S "$SG_TEST_SOURCE_DIR/find-package" -B "$work/build" \
        -DMPI_C_COMPILER="$SCALEGUARD_MPICC" | tee "$work/configure.log"
      check "find_package(ScaleGuard): SCALEGUARD_MPI_FLAVOR and the library" \
        grep -qx -- "-- ScaleGuard for $flavor: $lib" "$work/configure.log"
      "$SG_TEST_CMAKE" --build "$work/build"
      app=$work/build/gatherv-cmake
      check "linked with libscaleguard.so" \
        grep -q 'NEEDED.*\[libscaleguard\.so\]' <<<"$(readelf -d "$app")"
      if run_gatherv "$work/run.log" "${mpiexec[@]}" -n 2 "$app"; then
        check "layer active in the find_package build" layer_active "$work/run.log"
      else
        fail "the find_package build did not run"
      fi
      mkdir -p "$work/wrong-version"
      printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(v LANGUAGES NONE)' \
        'find_package(ScaleGuard 99 REQUIRED)' >"$work/wrong-version/CMakeLists.txt"
      refute "find_package(ScaleGuard 99) fails" \
        "$SG_TEST_CMAKE" -S "$work/wrong-version" -B "$work/wrong-version/build" -Wno-dev
      finish
    )
    ;;

  mpirun_flags)
    (
      load_module
      compile "$work/gatherv" # not linked with the layer
      refute "gatherv is not linked with the layer" \
        grep -q libscaleguard <<<"$(readelf -d "$work/gatherv")"
      read -ra flags <<<"$SCALEGUARD_MPIRUN_FLAGS"
      if run_gatherv "$work/with.log" "${mpiexec[@]}" "${flags[@]}" -n 2 "$work/gatherv"; then
        check "layer active with \$SCALEGUARD_MPIRUN_FLAGS" layer_active "$work/with.log"
      else
        fail "gatherv with \$SCALEGUARD_MPIRUN_FLAGS"
      fi
      if run_gatherv "$work/without.log" "${mpiexec[@]}" -n 2 "$work/gatherv"; then
        refute "no layer without the flags" grep -q '^scaleguard:' "$work/without.log"
      else
        fail "gatherv without the flags"
      fi
      finish
    )
    ;;

  srun_flags)
    : "${SLURM_CONF:?srun_flags needs the test cluster (SLURM_CONF)}"
    # The flags carry srun's --mpi; without them, the MPI's plugin by hand.
    case $flavor in
      mpich) plugin=pmi2 ;;
      *) plugin=pmix ;;
    esac
    (
      load_module
      compile "$work/gatherv"
      read -ra flags <<<"$SCALEGUARD_SRUN_FLAGS"
      if run_gatherv "$work/with.log" srun -n 2 "${flags[@]}" "$work/gatherv"; then
        check "layer active with \$SCALEGUARD_SRUN_FLAGS" layer_active "$work/with.log"
      else
        fail "gatherv with \$SCALEGUARD_SRUN_FLAGS"
      fi
      if run_gatherv "$work/without.log" srun --mpi="$plugin" -n 2 "$work/gatherv"; then
        refute "no layer without the flags" grep -q '^scaleguard:' "$work/without.log"
      else
        fail "gatherv under srun without the flags"
      fi
      finish
    )
    ;;

  help)
    # Every installed program: bin/, libexec/scaleguard/, the jobs' scripts.
    programs=()
    for file in "$prefix/$SG_TEST_BINDIR"/* "$prefix/$SG_TEST_LIBEXECDIR"/scaleguard/* \
      "$prefix/$SG_TEST_DATADIR"/scaleguard/jobs/*; do
      [[ -f $file && -x $file ]] && programs+=("$file")
    done
    if ((${#programs[@]} >= 6)); then
      ok "${#programs[@]} programs installed"
    else
      fail "only ${#programs[@]} programs installed: ${programs[*]}"
    fi
    for program in "${programs[@]}"; do
      name=${program#"$prefix"/}
      status=0
      timeout 30 "$program" --help </dev/null >"$work/out" 2>"$work/err" || status=$?
      if ((status != 0)); then
        fail "$name --help: exit $status: $(head -c 300 "$work/err")"
      elif [[ ! -s $work/out ]]; then
        fail "$name --help: nothing on stdout"
      elif ! grep -qi usage "$work/out"; then
        fail "$name --help: no usage on stdout: $(head -c 300 "$work/out")"
      else
        ok "$name --help"
      fi
    done
    ;;

  *)
    echo "check-install.sh: unknown case '$case'" >&2
    exit 2
    ;;
esac
finish
