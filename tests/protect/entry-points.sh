#!/usr/bin/env bash
# entry-points.sh README LAYER SCALEGUARD_INI
#
# README's table of every MPI-4 collective entry point ("Every collective
# entry point") against the MPI this tree is built with (the libmpi LAYER
# links) and the layer: a family per row, a form per column (MPI_X, MPI_IX,
# MPI_X_init, MPI_X_c, MPI_IX_c, MPI_X_init_c), each cell `protected` (the
# layer defines it and `scaleguard-ini routines` lists it), `observed` (the
# layer defines it; no routine of the bounds), `not intercepted` (the layer
# does not define it) or `—` (MPI 4 has no such function). A cell of a
# function this MPI does not export says nothing here (the layer must not
# define it either). Every collective this MPI exports must have its row.
set -euo pipefail
readme=$1 layer=$2 ini=$3
status=0
fail() { echo "entry-points.sh: FAIL: $*"; status=1; }

libmpi=$(ldd "$layer" | awk '$1 ~ /^libmpi(ch)?\.so/ { print $3; exit }')
[[ -n $libmpi ]] || { echo "entry-points.sh: $layer links no libmpi" >&2; exit 2; }
exported() { nm -D --defined-only "$1" | awk '{ print $3 }' | grep -E '^MPI_' | sort -u; }
declare -A in_mpi=() in_layer=() routine=()
while read -r name; do in_mpi[$name]=1; done < <(exported "$libmpi")
while read -r name; do in_layer[$name]=1; done < <(exported "$layer")
while read -r name _; do routine[$name]=1; done < <("$ini" routines)

forms=('%s' 'I%s' '%s_init' '%s_c' 'I%s_c' '%s_init_c')
declare -A row=()
rows=0 cells=0
while IFS= read -r line; do
  IFS='|' read -r -a field <<<"$line"
  family=${field[1]//[ \`]/}
  row[$family]=1 rows=$((rows + 1))
  for k in "${!forms[@]}"; do
    state=${field[$((k + 2))]}
    state=${state# } state=${state% }
    base=$family
    [[ ${forms[$k]} != I* ]] || base=${family,}
    # shellcheck disable=SC2059 # the forms are the format
    name=MPI_$(printf "${forms[$k]}" "$base")
    if [[ -z ${in_mpi[$name]:-} ]]; then
      [[ -z ${in_layer[$name]:-} ]] || fail "the layer defines $name, which this MPI has not"
      continue
    fi
    cells=$((cells + 1))
    case $state in
      protected)
        [[ -n ${in_layer[$name]:-} ]] || fail "$name: README says protected, the layer does not define it"
        [[ -n ${routine[$name]:-} ]] || fail "$name: README says protected, no routine of the bounds" ;;
      observed)
        [[ -n ${in_layer[$name]:-} ]] || fail "$name: README says observed, the layer does not define it"
        [[ -z ${routine[$name]:-} ]] || fail "$name: README says observed, but it is a routine of the bounds" ;;
      'not intercepted')
        [[ -z ${in_layer[$name]:-} ]] || fail "$name: README says not intercepted, the layer defines it" ;;
      —) fail "$name: README says MPI 4 has no such function; this MPI exports it" ;;
      *) fail "$name: README's cell '$state' is none of protected, observed, not intercepted, —" ;;
    esac
  done
done < <(awk '/^### Every collective entry point/ { on = 1; next } on && /^### / { exit }
              on && /^\| `[A-Z]/' "$readme")
((rows > 0)) || { echo "entry-points.sh: no table under '### Every collective entry point' in $readme" >&2; exit 2; }

# every collective of this MPI has its row
families='Barrier|Bcast|Gatherv?|Scatterv?|Allgatherv?|Alltoall[vw]?|Reduce|Allreduce|Reduce_scatter(_block)?|Scan|Exscan|Neighbor_(allgatherv?|alltoall[vw]?)'
while read -r name; do
  family=${name#MPI_}
  family=${family%_c} family=${family%_init}
  if [[ ! $family =~ ^($families)$ ]]; then
    family=${family#I} family=${family^}
  fi
  [[ -n ${row[$family]:-} ]] || fail "$name: no row $family in README's table"
done < <(printf '%s\n' "${!in_mpi[@]}" | grep -E "^MPI_I?($families|${families,,})(_init)?(_c)?$" | sort)
((status == 0)) && echo "entry-points.sh: README's $rows rows agree with $libmpi ($cells entry points) and the layer"
exit "$status"
