#!/usr/bin/env bash
# Install what ScaleGuard needs from Debian's packages; a no-op when all of it
# is present. Needs root (or sudo) only when something is missing.
set -euo pipefail
usage() {
  cat <<'EOF'
usage: scripts/install-deps.sh
       scripts/install-deps.sh --help
Installs the Debian packages ScaleGuard needs (both MPIs, the build, Fortran,
clang, shellcheck, Slurm and munge, iproute2, Lmod, gnuplot, OTF2) with apt-get; as root, or
through sudo without a password. Does nothing when all are present.
EOF
}
case $# in
  0) ;;
  *) case $1 in -h | --help) usage; exit 0 ;; *) usage >&2; exit 2 ;; esac ;;
esac

packages=(
  mpich libmpich-dev openmpi-bin libopenmpi-dev # both MPIs, side by side
  libinih-dev pkg-config cmake make gcc         # the build
  gfortran                                      # tests/fortran: Fortran callers
  clang libclang-rt-14-dev                      # libFuzzer, sanitizers
  shellcheck                                    # the scripts' lint
  slurm-wlm munge                               # jobs/local-slurm.sh: a local Slurm
  iproute2 util-linux                           # its nodes' namespaces (ip, nsenter, unshare)
  libpmix-dev                                   # srun --mpi=pmix dlopens libpmix.so
  lmod                                          # the modulefile's test
  gnuplot-nox                                   # scaleguard-report's plots
  graphviz                                      # scaleguard-trace's message graph (dot)
  libotf2-trace-dev otf2-tools                  # scaleguard-trace --otf2, its test's otf2-print
  chromium chromium-driver curl                 # the trace page's test in a real browser
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: missing: ${missing[*]}"
if ((EUID != 0)); then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo)
  else
    echo "install-deps: not root. Run as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
else
  as_root=()
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
