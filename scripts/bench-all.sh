#!/usr/bin/env bash
# Every benchmark in one command, and the results page that shows them:
#   1. the protection overhead (scripts/bench-protect.sh: libscaleguard.so
#      against the bare call, no trigger and each workaround forced, both
#      MPIs) into results/protect-overhead-pP.md and .tsv (P = 2:
#      results/protect-overhead.md);
#   2. the tester's bisection against the paper's linear scan
#      (scripts/bench-tester.sh) into results/tester-refine.md, keeping the
#      probes' INIs and journals in results/tester-refine/;
#   3. scaleguard-report on both: the plots into results/plots/ (the old PNGs
#      there are removed), and results/README.md with the machine, the date,
#      the list of the other pages in results/, the tables and the plots.
# New workaround cases of bench-protect (its `forced` list) appear in the
# page and get plots of their own without a change here.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF'
Usage: scripts/bench-all.sh [--procs P] [--report-only]

Runs scripts/bench-protect.sh and scripts/bench-tester.sh, then
scaleguard-report on their results, and rewrites results/README.md and
results/plots/*.png.

  --procs P       ranks of the overhead benchmark (default
                  $SCALEGUARD_BENCH_PROCS, else 2; more than the cores is
                  oversubscribed and slow)
  --report-only   run no benchmark: redo the plots and the page from the
                  results already in results/

Build trees: build/mpich and build/openmpi (scripts/build.sh), or
SCALEGUARD_BUILD=DIR (DIR/mpich, DIR/openmpi), or SCALEGUARD_BUILD_MPICH and
SCALEGUARD_BUILD_OPENMPI. Needs gnuplot (gnuplot-nox). About 20 to 40 minutes on
2 cores at P = 4.
EOF
}

procs=${SCALEGUARD_BENCH_PROCS:-2} report_only=0
while (($#)); do
  case $1 in
    --help | -h) usage; exit 0 ;;
    --procs)
      (($# >= 2)) || { echo "bench-all: --procs needs a value (see --help)" >&2; exit 2; }
      procs=$2; shift 2 ;;
    --report-only) report_only=1; shift ;;
    *) echo "bench-all: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $procs =~ ^[1-9][0-9]*$ ]] || { echo "bench-all: --procs must be a positive integer" >&2; exit 2; }

mpich_tree=${SCALEGUARD_BUILD_MPICH:-${SCALEGUARD_BUILD:-build}/mpich}
openmpi_tree=${SCALEGUARD_BUILD_OPENMPI:-${SCALEGUARD_BUILD:-build}/openmpi}
export SCALEGUARD_BUILD_MPICH=$mpich_tree SCALEGUARD_BUILD_OPENMPI=$openmpi_tree

# scaleguard-report: the build tree's, else the source's with the tree's tools.
report_tool=$mpich_tree/stage/bin/scaleguard-report
if [[ ! -x $report_tool ]]; then
  report_tool=$PWD/tester/scaleguard-report.sh
  PATH=$(readlink -f "$mpich_tree")/stage/bin:$PATH
fi

bench_name=bench-all
# shellcheck source=scripts/bench-common.sh
source scripts/bench-common.sh
overhead=$(bench_default_report protect-overhead "$procs")
overhead=${overhead%.md}
refine_data=results/tester-refine
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$SECONDS

if ((!report_only)); then
  echo "=== bench-all: protection overhead, P = $procs"
  SCALEGUARD_BENCH_PROCS=$procs scripts/bench-protect.sh "$overhead.md"
  echo "=== bench-all: tester, bisection against the linear scan"
  SCALEGUARD_BENCH_STATE=$work/tester scripts/bench-tester.sh results/tester-refine.md
  # The INIs and journals (not the job logs) stay with the results.
  rm -rf "$refine_data"
  mkdir -p "$refine_data"
  for refine in bisect linear; do
    cp "$work/tester/$refine.ini" "$refine_data/$refine.ini"
    mkdir -p "$refine_data/$refine.state"
    cp "$work/tester/$refine.state/jobs.tsv" "$refine_data/$refine.state/jobs.tsv"
  done
fi
for file in "$overhead.md" "$overhead.tsv" results/tester-refine.md \
  "$refine_data"/{bisect,linear}.ini "$refine_data"/{bisect,linear}.state/jobs.tsv; do
  [[ -f $file ]] || { echo "bench-all: $file is missing: run without --report-only" >&2; exit 1; }
done
minutes=$(((SECONDS - started + 30) / 60))

echo "=== bench-all: report"
"$report_tool" --output "$work/bisect" --benchmark "$overhead.tsv" \
  "$refine_data/bisect.ini" "$refine_data/bisect.state"
"$report_tool" --output "$work/linear" "$refine_data/linear.ini" "$refine_data/linear.state"
mkdir -p results/plots
rm -f results/plots/*.png
cp "$work"/bisect/overhead-*.png results/plots/
for refine in bisect linear; do
  for png in "$work/$refine"/probe-*.png; do
    cp "$png" "results/plots/tester-$refine-${png##*/probe-}"
  done
done

# Sections of a report.md: from the line `## TITLE` to the next `## `.
section() {
  awk -v title="## $2" '$0 == title { on = 1; next } on && /^## / { exit } on' "$1"
}

# The summary table of a search: the report's first table under "The search".
summary() {
  section "$work/$1/report.md" "The search" | awk '/^\| routine/ { f = 1 } f && /^$/ { exit } f'
}

# The machine.
mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mpich_version=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p' | head -1)
mpich_device=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p' | head -1)
openmpi_version=$(mpiexec.openmpi --version 2>/dev/null | sed -n 's/.*(Open[^)]*) //p' | head -1)
gnuplot_version=$(gnuplot --version 2>/dev/null || true)

{
  echo "# Benchmark results"
  echo
  echo "Written $(date -u +%Y-%m-%dT%H:%M:%SZ) by \`scripts/bench-all.sh\`" \
    "$( ((report_only)) && echo "(--report-only: the plots and this page, from the results below)" ||
      echo "(the benchmarks took about $minutes minutes)")."
  echo "Everything here is regenerated by that one command: the tables of"
  echo "\`scripts/bench-protect.sh\` and \`scripts/bench-tester.sh\`, the plots of"
  echo "\`scaleguard-report\` (\`plots/\`), and the data they come from (\`$(basename "$overhead").tsv\`,"
  echo "\`tester-refine/\`)."
  echo
  echo "## Machine"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| host | $(hostname -s) |"
  echo "| cores (nproc) | $(nproc) |"
  echo "| CPU | ${cpu:-unknown} |"
  echo "| memory | $mem |"
  echo "| Debian | $(cat /etc/debian_version 2>/dev/null || echo unknown) |"
  echo "| kernel | $(uname -r) |"
  echo "| MPICH | ${mpich_version:-unknown}${mpich_device:+ ($mpich_device)} |"
  echo "| Open MPI | ${openmpi_version:-unknown} |"
  echo "| gnuplot | ${gnuplot_version:-unknown} |"
  echo
  echo "## The other pages here"
  echo
  echo "Written by the commands each names: the other P, peak memory, repeated runs,"
  echo "and the measurements behind the ratios that stay over their targets."
  echo
  for page in results/*.md; do
    [[ $page != results/README.md && $page != "$overhead.md" && $page != results/tester-refine.md ]] ||
      continue
    echo "- [$(basename "$page")]($(basename "$page")): $(sed -n '1s/^# *//p' "$page")"
  done
  echo
  echo "## Protection overhead, P = $procs"
  echo
  # bench-protect's own lines on how it measured, without its title.
  awk 'NR > 2 && /^#/ { exit } NR > 2' "$overhead.md"
  echo "Below, per MPI and case, the spread of the ratio over the routines measured and"
  echo "the ratio of each routine against the message size (blocking routines solid,"
  echo "their I-forms dashed in the same colour); all ratios in the full tables at the end."
  echo
  section "$work/bisect/report.md" "Protection overhead" |
    awk 'f || /^### / { f = 1; print }' | sed 's#](overhead-#](plots/overhead-#'
  echo
  echo "## Tester: bisection against the paper's linear scan"
  echo
  awk 'NR > 2' results/tester-refine.md
  echo
  echo "Every job of the two searches (\`tester-refine/\`, one INI and one journal per"
  echo "refinement): each row one job, each point one size it ran, green passed, red"
  echo "failed; circles the search, triangles and squares the verification at 2P and"
  echo "2s; the blue line the bound the probe wrote. The lower panel is the"
  echo "refinement, from the doubling's last pass n' to its failure 2n', on a linear axis."
  for refine in bisect linear; do
    echo
    echo "### $refine"
    echo
    summary "$refine" | sed "s#\[probe-[^]]*\](probe-\([^)]*\))#[plot](plots/tester-$refine-\1)#"
  done
  echo
  echo "| bisect | linear |"
  echo "|---|---|"
  # In the order of the problems.
  summary bisect | awk -F ' *[|] *' 'NR > 2 { print $2 }' | while read -r routine; do
    name=$routine.png
    line="| ![$routine, bisect](plots/tester-bisect-$name) |"
    if [[ -f results/plots/tester-linear-$name ]]; then
      line+=" ![$routine, linear](plots/tester-linear-$name) |"
    else
      line+=" — |"
    fi
    echo "$line"
  done
  echo
  echo "## Full tables: protection overhead, P = $procs"
  echo
  awk 'NR > 2 && /^#/ { f = 1 } f' "$overhead.md"
} >"$work/README.md"
mv "$work/README.md" results/README.md
echo "bench-all: wrote results/README.md and $(find results/plots -name '*.png' | wc -l) plots" \
  "in results/plots/"
