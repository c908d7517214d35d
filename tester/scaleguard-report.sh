#!/usr/bin/env bash
# scaleguard-report: a Markdown report with PNG plots (gnuplot) of a bounds
# INI, of the tester's search that produced it (the probe's state folder) and
# of the protection overhead benchmark (scripts/bench-protect.sh's TSV).
#
#   report.md                 the INI's routines as a table; per routine of the
#                             state folder a summary row and its plot; per
#                             benchmark case a summary table and its plots
#   probe-ROUTINE.png         every size of every job (message bytes s*n, log2)
#                             against the job's place in the search: pass
#                             green, failures in red hues by outcome kind, the
#                             INI's bound as a vertical blue line; below it the
#                             refinement (n' to 2n') on a linear axis
#   overhead-MPI-pP-CASE.png  protected / bare time against message bytes, one
#                             line per routine (the paper's figures 5-10)
#
# Colours (tests look for them): pass #00a000, crash #e00000, hang #ff7f00,
# mpi-error #c00070, wrong-data #800000, oom #a05a2c, bound #0050c8.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scaleguard-report [--output DIR] [--benchmark FILE]... BOUNDS.ini [STATE_DIR]
       scaleguard-report --help | --version

Writes DIR/report.md (DIR defaults to ./scaleguard-report) with PNG plots
next to it, embedded by relative paths:

  - the routines of the bounds file BOUNDS.ini (class, trigger, bound,
    type_size, procs, safe_count, delta, failure, workaround, and the bound
    as bytes of one message s*n at the measured s and P) and its [platform];
  - with STATE_DIR (scaleguard-probe's --state folder, holding jobs.tsv):
    per routine probed, every job's sizes as pass (green) or failure (red
    hues, by outcome kind) points, message bytes s*n on a log2 axis against
    the job's place in the search (and the job seconds so far), with the
    INI's bound as a vertical line, and below it the refinement between the
    doubling's last pass n' and its failure 2n' on a linear axis
    (probe-ROUTINE.png);
  - with --benchmark FILE (the TSV that scripts/bench-protect.sh writes next
    to its Markdown; may be given more than once): per MPI, process count
    and case (no trigger, each workaround forced), the protected / bare time
    ratio against message bytes, one line per routine
    (overhead-MPI-pP-CASE.png), and a summary table.

  --output DIR      where report.md and the PNGs go (created if missing)
  --benchmark FILE  a bench-protect TSV: mpi, procs, routine, case, bytes,
                    bare_seconds, protected_seconds, ratio

Plots need gnuplot (Debian: gnuplot-nox). Exit status: 0 written, 1 an
invalid bounds file, gnuplot missing or a plot failed, 2 usage error.
EOF
}

die_usage() {
  echo "scaleguard-report: $1 (see --help)" >&2
  exit 2
}

die() {
  echo "scaleguard-report: $1" >&2
  exit 1
}

here=$(dirname "$(readlink -f "$0")")
output=scaleguard-report benchmarks=() positional=()
while (($#)); do
  case $1 in
    --help | -h) usage; exit 0 ;;
    --version) echo "scaleguard-report @PROJECT_VERSION@"; exit 0 ;;
    --output | --benchmark)
      (($# >= 2)) || die_usage "$1 needs a value"
      if [[ $1 == --output ]]; then output=$2; else benchmarks+=("$2"); fi
      shift 2 ;;
    --output=*) output=${1#*=}; shift ;;
    --benchmark=*) benchmarks+=("${1#*=}"); shift ;;
    --) shift; positional+=("$@"); break ;;
    -?*) die_usage "unknown option '$1'" ;;
    *) positional+=("$1"); shift ;;
  esac
done

((${#positional[@]} >= 1)) || die_usage "no bounds file given"
((${#positional[@]} <= 2)) || die_usage "too many arguments: BOUNDS.ini [STATE_DIR]"
[[ -n $output ]] || die_usage "--output needs a folder"
ini=${positional[0]}
state=${positional[1]:-}
[[ -e $ini ]] || die_usage "bounds file '$ini' does not exist"
[[ -f $ini && -r $ini ]] || die_usage "bounds file '$ini' is not a readable file"
if [[ -n $state ]]; then
  [[ -d $state ]] || die_usage "state folder '$state' does not exist"
  [[ -f $state/jobs.tsv && -r $state/jobs.tsv ]] ||
    die_usage "'$state' is not a scaleguard-probe state folder (no jobs.tsv)"
fi
readonly bench_header=$'mpi\tprocs\troutine\tcase\tbytes\tbare_seconds\tprotected_seconds\tratio'
for file in "${benchmarks[@]}"; do
  [[ -f $file && -r $file ]] || die_usage "benchmark file '$file' does not exist"
  [[ $(head -n 1 "$file") == "$bench_header" ]] ||
    die_usage "'$file' is not a bench-protect TSV (its first line is not the header)"
done

# The INI must load as the layer would load it: the tool next to this script
# (the install and the build tree's stage), else the one on PATH.
ini_tool=$here/scaleguard-ini
[[ -x $ini_tool ]] || ini_tool=$(command -v scaleguard-ini || true)
[[ -n $ini_tool ]] || die "scaleguard-ini is needed to read '$ini' (installed next to this script)"
if ! check=$("$ini_tool" check "$ini" 2>&1); then
  echo "$check" >&2
  die "'$ini' is not a valid bounds file"
fi

terminal=
if [[ -n $state ]] || ((${#benchmarks[@]})); then
  command -v gnuplot >/dev/null || die "gnuplot is needed for the plots (Debian: gnuplot-nox)"
  for candidate in pngcairo png; do
    if gnuplot -e "set terminal $candidate" >/dev/null 2>&1; then
      terminal=$candidate
      break
    fi
  done
  [[ -n $terminal ]] || die "this gnuplot has neither the pngcairo nor the png terminal"
fi

mkdir -p "$output" || die "cannot create '$output'"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

readonly INT_MAX=2147483647
readonly colour_pass='#00a000' colour_bound='#0050c8'
declare -A colour_fail=([crash]='#e00000' [hang]='#ff7f00' [mpi-error]='#c00070'
  [wrong-data]='#800000' [oom]='#a05a2c')
readonly outcomes=(pass crash hang mpi-error wrong-data oom)

# Bytes in binary units: 1536 -> "1.5 KiB".
human() {
  awk -v b="$1" 'BEGIN {
    split("B KiB MiB GiB TiB", unit, " "); i = 1
    while (b >= 1024 && i < 5) { b /= 1024; i++ }
    if (i == 1) printf "%d B", b
    else if (b == int(b)) printf "%d %s", b, unit[i]
    else printf "%.3g %s", b, unit[i]
  }'
}

# Markdown table cell: no pipes, no tabs.
cell() {
  local text=${1//$'\t'/ }
  text=${text//|/\\|}
  echo "${text:-—}"
}

# Text for a gnuplot string, either quote: no quotes, no backslashes.
gp_text() { tr -d "'\"\\\\" <<<"$1"; }

# A safe file name part: MPI_Scatter#2 -> MPI_Scatter_2.
slug() { tr -c 'A-Za-z0-9_.-' '_' <<<"$1" | sed 's/_*$//'; }

# gnuplot's x tics for a log2 byte axis from 2^lo to 2^hi: at most ~10.
byte_tics() {
  awk -v lo="$1" -v hi="$2" 'BEGIN {
    step = int((hi - lo) / 10) + 1
    split("B KiB MiB GiB TiB PiB", unit, " ")
    out = ""
    for (e = (lo < 0 ? 0 : lo); e <= hi; e++) {
      if (e % step) continue
      label = sprintf("%d %s", 2 ^ (e % 10), unit[int(e / 10) + 1])
      out = out (out == "" ? "" : ", ") sprintf("\"%s\" %.0f", label, 2 ^ e)
    }
    print "(" out ")"
  }'
}

# gnuplot's x tics for a linear byte axis from LO to HI: steps of a power of
# 2 bytes, 4 to 8 of them, labelled in binary units.
linear_tics() {
  awk -v lo="$1" -v hi="$2" '
    function human(b,   i) {
      split("B KiB MiB GiB TiB", unit, " "); i = 1
      while (b >= 1024 && i < 5) { b /= 1024; i++ }
      return (i == 1 ? sprintf("%d B", b) : b == int(b) ? sprintf("%d %s", b, unit[i]) \
        : sprintf("%.4g %s", b, unit[i]))
    }
    BEGIN {
      step = 1
      while ((hi - lo) / step > 8) step *= 2
      out = ""
      for (x = step * int(lo / step + 1); x <= hi; x += step)
        out = out (out == "" ? "" : ", ") sprintf("\"%s\" %.0f", human(x), x)
      print "(" out ")"
    }'
}

# ---- the bounds file ---------------------------------------------------------

# One line per section, in file order: SECTION<TAB>key=value<TAB>..., as the
# layer reads it (scaleguard-ini dump).
"$ini_tool" dump "$ini" >"$work/ini.tsv"

declare -A entry=() # "SECTION key" -> value
sections=()
while IFS=$'\t' read -r -a fields; do
  sections+=("${fields[0]}")
  for pair in "${fields[@]:1}"; do
    # dump fills in what the file leaves out: the report shows what it says
    case $pair in
      trigger=- | type_size=0 | procs=0 | safe_count=0 | delta=0 | failure=unknown) continue ;;
    esac
    entry["${fields[0]} ${pair%%=*}"]=${pair#*=}
  done
done <"$work/ini.tsv"

readonly known_keys=(class trigger bound type_size procs safe_count delta failure workaround)
is_known() {
  local key
  for key in "${known_keys[@]}"; do [[ $1 == "$key" ]] && return 0; done
  return 1
}

# bound_bytes SECTION S P: the bound as bytes of one message (s*n) at (S, P),
# empty when the entry has none.
bound_bytes() {
  local section=$1 s=$2 p=$3
  local class=${entry["$section class"]:-} trigger=${entry["$section trigger"]:-n}
  local bound=${entry["$section bound"]:-}
  if [[ $class == D ]]; then
    ((p > 1)) || return 0
    echo $((s * (INT_MAX / (p - 1))))
    return 0
  fi
  [[ -n $bound ]] || return 0
  case $trigger in
    snP) echo $((bound / p)) ;;
    nP) echo $((s * (bound / p))) ;;
    sn) echo "$bound" ;;
    *) echo $((s * bound)) ;;
  esac
}

routine_sections=()
for section in "${sections[@]}"; do
  [[ ${section,,} == platform ]] || routine_sections+=("$section")
done

# ---- the probe's journal ------------------------------------------------------

# points.tsv: ROUTINE JOB P S COUNT OUTCOME BYTES, JOB numbered per routine in
# the order the jobs ran; jobs.tsv: ROUTINE JOB P S SECONDS. Lines without
# their final `end` were cut by a kill and do not count, as for the probe.
probed=()
if [[ -n $state ]]; then
  awk -F '\t' -v points="$work/points.tsv" -v jobs="$work/jobs.tsv" '
    $NF != "end" || NF < 6 { next }
    {
      routine = p = s = ""
      n = split($1, words, " ")
      for (i = 1; i <= n; i++) {
        if (words[i] ~ /^routine=/) routine = substr(words[i], 9)
        else if (words[i] ~ /^procs=/) p = substr(words[i], 7)
        else if (words[i] ~ /^type_size=/) s = substr(words[i], 11)
        else if (words[i] == "inplace=1") inplace = 1
      }
      if (routine == "" || p == "" || s == "") next
      # The in-place form is a search (and a plot) of its own.
      if (inplace) routine = routine " in place"
      inplace = 0
      job = ++jobs_of[routine]
      seconds = $4
      sub(/^seconds=/, "", seconds)
      # A retried job also spent its first limit.
      for (i = 6; i < NF; i++)
        if ($i ~ /^retried=/) seconds += substr($i, 9)
      printf "%s\t%d\t%s\t%s\t%s\n", routine, job, p, s, seconds + 0 > jobs
      n = split($5, results, ",")
      for (i = 1; i <= n; i++) {
        split(results[i], pair, "=")
        if (pair[2] == "not-run") continue
        printf "%s\t%d\t%s\t%s\t%s\t%s\t%.0f\n", routine, job, p, s, pair[1], pair[2],
          s * pair[1] > points
      }
    }' "$state/jobs.tsv"
  touch "$work/points.tsv" "$work/jobs.tsv"
  mapfile -t probed < <(awk -F '\t' '!seen[$1]++ { print $1 }' "$work/jobs.tsv")
fi

# plot_routine ROUTINE PNG: the search plot; prints the summary row's cells.
plot_routine() {
  local routine=$1 png=$2
  local data
  data=$work/plot-$(slug "$routine")
  awk -F '\t' -v r="$routine" '$1 == r' "$work/points.tsv" >"$data.points"
  awk -F '\t' -v r="$routine" '$1 == r' "$work/jobs.tsv" >"$data.jobs"

  # The (s, P) of the search: the INI entry's, else the routine's first job.
  local first_p first_s main_p main_s
  read -r _ _ first_p first_s _ <"$data.jobs"
  main_p=${entry["$routine procs"]:-$first_p}
  main_s=${entry["$routine type_size"]:-$first_s}

  # Point type by where a job ran: the search, the two verifications, other.
  awk -F '\t' -v OFS='\t' -v p="$main_p" -v s="$main_s" '{
    if ($3 == p && $4 == s) pt = 7
    else if ($3 == 2 * p && $4 == s) pt = 9
    else if ($3 == p && $4 == 2 * s) pt = 5
    else pt = 13
    print $7, $2, $6, pt
  }' "$data.points" >"$data.dat"

  local jobs lo hi
  jobs=$(wc -l <"$data.jobs")
  read -r lo hi < <(awk -F '\t' 'NR == 1 { lo = hi = $1 }
    { if ($1 < lo) lo = $1; if ($1 > hi) hi = $1 }
    END { printf "%.0f %.0f\n", lo, hi }' "$data.dat") # (mawk prints 2^31 as 2.14748e+09)

  # The bound of each entry of the routine, as bytes of one message.
  local bounds=() labels=() section value
  for section in "${routine_sections[@]}"; do
    [[ ${section%%#*} == "$routine" ]] || continue
    value=$(bound_bytes "$section" "$main_s" "$main_p")
    [[ -n $value ]] || continue
    bounds+=("$value")
    local label="[$section] class ${entry["$section class"]:-?}"
    if [[ ${entry["$section class"]:-} == D ]]; then
      label+=": (P-1)·n passes INT_MAX at s·n > $(human "$value")"
    else
      label+=" ${entry["$section trigger"]:-n} bound ${entry["$section bound"]}"
      label+=": s·n ≤ $(human "$value") at s=$main_s, P=$main_p"
    fi
    labels+=("$label")
    if ((value > hi)); then hi=$value; fi
    if ((value < lo)); then lo=$value; fi
  done
  ((lo >= 1)) || lo=1
  local elo ehi
  elo=$(awk -v v="$lo" 'BEGIN { e = 0; while (2 ^ (e + 1) <= v) e++; print e - 1 }')
  ehi=$(awk -v v="$hi" 'BEGIN { e = 0; while (2 ^ e < v) e++; print e + 1 }')

  # Right axis: job seconds so far, at up to ~12 jobs.
  local y2tics
  y2tics=$(awk -F '\t' -v jobs="$jobs" '
    BEGIN { step = int((jobs - 1) / 12) + 1 }
    { total += $5; if ($2 % step == 0 || $2 == jobs || $2 == 1)
        out = out (out == "" ? "" : ", ") sprintf("\"%.3g s\" %d", total, $2) }
    END { print "(" out ")" }' "$data.jobs")

  # The refinement, zoomed in: from n' to 2n', the failure that ended the
  # doubling (the largest of the search at (s, P): the refinement stays
  # below it), on a linear axis. None without a failure.
  local zlo='' zhi=''
  read -r zlo zhi < <(awk -F '\t' '$4 == 7 && $3 != "pass" && (hi == "" || $1 > hi) { hi = $1 }
    END { if (hi != "") { pad = hi / 2 * 0.04; printf "%.0f %.0f\n", hi / 2 - pad, hi + pad } }' \
    "$data.dat") || true

  # Points (no title) and the legend's samples (NaN, titled).
  local points=() legend=() outcome colour
  for outcome in "${outcomes[@]}"; do
    grep -q $'\t'"$outcome"$'\t' "$data.dat" || continue
    colour=${colour_fail[$outcome]:-$colour_pass}
    points+=("'$data.dat' using 1:(strcol(3) eq '$outcome' ? \$2 : NaN):4 with points pt variable ps 1.4 lc rgb '$colour' notitle")
    legend+=("NaN with points pt 7 ps 1.4 lc rgb '$colour' title '$outcome'")
  done
  # Anything else the journal holds: in black.
  if awk -F '\t' '$3 !~ /^(pass|crash|hang|mpi-error|wrong-data|oom)$/ { found = 1 }
      END { exit !found }' "$data.dat"; then
    points+=("'$data.dat' using 1:(strcol(3) eq 'pass' || strcol(3) eq 'crash' || strcol(3) eq 'hang' || strcol(3) eq 'mpi-error' || strcol(3) eq 'wrong-data' || strcol(3) eq 'oom' ? NaN : \$2):4 with points pt variable ps 1.4 lc rgb 'black' notitle")
    legend+=("NaN with points pt 7 ps 1.4 lc rgb 'black' title 'other outcome'")
  fi
  local pt title i
  for pt in 7 9 5 13; do
    awk -F '\t' -v pt="$pt" '$4 == pt { found = 1 } END { exit !found }' "$data.dat" || continue
    case $pt in
      7) title="search at s=$main_s, P=$main_p" ;;
      9) title="verification at P=$((2 * main_p))" ;;
      5) title="verification at s=$((2 * main_s))" ;;
      *) title="other s, P" ;;
    esac
    legend+=("NaN with points pt $pt ps 1.4 lc rgb '#404040' title '$title'")
  done
  for i in "${!labels[@]}"; do
    legend+=("NaN with lines lw 2 lc rgb '$colour_bound' title '${labels[i]//\'/}'")
  done
  plot_line() {
    local joined
    joined=$(printf '%s, \\\n  ' "$@")
    echo "plot ${joined%, \\*}"
  }

  # Panels of (130 + 22 jobs) pixels, the legend below the last.
  local panel=$((130 + 22 * jobs)) key=$((50 + 17 * ${#legend[@]}))
  ((panel <= 700)) || panel=700
  local panels=1
  [[ -z $zhi ]] || panels=2
  local height=$((panels * panel + key + 30))
  {
    echo "set terminal $terminal size 1000,$height noenhanced font 'DejaVu Sans,10'"
    echo "set encoding utf8"
    echo "set output '$data.png'"
    local against=", against the bound of ${ini##*/}"
    ((${#bounds[@]})) || against="; no bound in ${ini##*/}"
    echo "set multiplot title \"$(gp_text "$routine: every size of every job in ${state%/}")$(gp_text "$against")\""
    echo "set lmargin at screen 0.08"
    echo "set rmargin at screen 0.89"
    echo "set ylabel 'job, in the order run'"
    echo "set y2label 'job seconds so far'"
    echo "set yrange [0.5:$jobs.5]"
    echo "set link y2"
    if ((jobs <= 30)); then echo "set ytics 1"; fi
    echo "set y2tics $y2tics"
    echo "set ytics nomirror"
    echo "set grid xtics ytics lc rgb '#dddddd'"
    for i in "${!bounds[@]}"; do
      echo "set arrow $((i + 1)) from first ${bounds[i]}, graph 0 to first ${bounds[i]}, graph 1 nohead lc rgb '$colour_bound' lw 2 front"
    done
    # The whole search, log2.
    echo "set size 1, $(awk -v a="$panel" -v h="$height" 'BEGIN { printf "%.4f", a / h }')"
    echo "set origin 0, $(awk -v a="$panel" -v k="$key" -v h="$height" -v n="$panels" \
      'BEGIN { printf "%.4f", ((n - 1) * a + k) / h }')"
    echo "set logscale x 2"
    echo "set xrange [$(awk -v e="$elo" 'BEGIN { printf "%g", 2 ^ e }'):$(awk -v e="$ehi" 'BEGIN { printf "%.0f", 2 ^ e }')]"
    echo "set xtics $(byte_tics "$elo" "$ehi")"
    echo "set xlabel 'message bytes s·n (log2)'"
    if [[ -n $zhi ]]; then
      echo "unset key"
      plot_line "${points[@]}"
      # The refinement, linear.
      echo "set size 1, $(awk -v a="$panel" -v k="$key" -v h="$height" 'BEGIN { printf "%.4f", (a + k) / h }')"
      echo "set origin 0, 0"
      echo "unset logscale x"
      echo "set xrange [$zlo:$zhi]"
      echo "set xtics $(linear_tics "$zlo" "$zhi")"
      echo "set xlabel \"the refinement: message bytes s·n from n' to 2n' (linear)\""
    else
      echo "set size 1, $(awk -v a="$panel" -v k="$key" -v h="$height" 'BEGIN { printf "%.4f", (a + k) / h }')"
      echo "set origin 0, 0"
    fi
    echo "set key outside below center vertical maxrows ${#legend[@]} height 1"
    plot_line "${points[@]}" "${legend[@]}"
    echo "unset multiplot"
  } >"$data.gp"
  gnuplot "$data.gp" 2>"$data.err" || { cat "$data.err" >&2; die "gnuplot failed on $routine"; }
  [[ -s $data.png ]] || die "gnuplot wrote no plot of $routine"
  mv "$data.png" "$png"

  # Summary cells: jobs, sizes, passed, failed (kinds), largest pass and
  # smallest failure of the search itself, job seconds.
  awk -F '\t' -v OFS=' | ' -v s="$main_s" -v p="$main_p" '
    function human(b,   i) {
      split("B KiB MiB GiB TiB", unit, " "); i = 1
      while (b >= 1024 && i < 5) { b /= 1024; i++ }
      return (i == 1 ? sprintf("%d B", b) : b == int(b) ? sprintf("%d %s", b, unit[i]) \
        : sprintf("%.3g %s", b, unit[i]))
    }
    FILENAME ~ /jobs$/ { seconds += $5; next }
    {
      sizes++
      if ($6 == "pass") passed++
      else { failed++; kinds[$6]++ }
      if ($3 == p && $4 == s) {
        if ($6 == "pass" && $7 > best) best = $7
        if ($6 != "pass" && (worst == "" || $7 < worst)) { worst = $7; kind = $6 }
      }
    }
    END {
      k = ""
      for (x in kinds) k = k (k == "" ? "" : ", ") kinds[x] " " x
      print sizes + 0, passed + 0, failed + 0 (k == "" ? "" : " (" k ")"),
        (best == "" ? "—" : human(best)), (worst == "" ? "—" : human(worst) " (" kind ")"),
        sprintf("%.1f", seconds)
    }' "$data.jobs" "$data.points" >"$data.row"
  echo "$jobs | $(cat "$data.row")"
}

# spread_table: the searches at N > 1 nodes (the probe's --nodes; column 9 of
# searches.tsv, none in journals of before) next to the one-node search of
# the same routine, form and P, each as its last run ended; nothing when the
# probe ran on one node only.
spread_table() {
  awk -F '\t' '$9 > 1 { found = 1 } END { exit !found }' "$state/searches.tsv" || return 0
  echo
  echo "## The spread"
  echo
  echo "Each search the probe made with its P ranks spread over N nodes (\`--nodes\`), next to"
  echo "the one-node search of the same routine, form and P. *same*: the sizes either side of"
  echo "the one-node bound (or its largest passing size) gave the one-node verdict across"
  echo "nodes, so the bound holds there on the same grid and the INI has no entry of its own"
  echo "for it (the one-node entry applies across nodes); *differs*: a search of its own, its"
  echo "entry written with \`nodes = N\` (or, where it found no failure, the one-node entry"
  echo "kept: the safe side)."
  echo
  echo "| routine | form | P | nodes | across nodes | on 1 node | |"
  echo "|---|---|---:|---:|---|---|---|"
  awk -F '\t' '
    { nodes = ($9 == "" ? 1 : $9)
      search = $1 SUBSEP $3 SUBSEP $2 SUBSEP nodes
      if (!(search in last)) order[++n] = search
      last[search] = $8 }
    END {
      for (i = 1; i <= n; i++) {
        split(order[i], k, SUBSEP)
        if (k[4] == 1) continue
        one = k[1] SUBSEP k[2] SUBSEP k[3] SUBSEP 1
        verdict = last[order[i]] ~ /as on 1 node/ ? "same" : \
          (last[order[i]] ~ /differs from 1 node/ ? "**differs**" : "")
        text = last[order[i]]
        sub(/;? ?(, as on 1 node.*|differs from 1 node.*)$/, "", text)
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", k[1], k[2] == 1 ? "in place" : "plain",
          k[3], k[4], text, (one in last) ? last[one] : "not measured", verdict
      }
    }' "$state/searches.tsv"
}

# ---- the benchmark ------------------------------------------------------------

case_title() {
  case $1 in
    none) echo "no trigger, no configuration (Class D checks only)" ;;
    shipped) echo "no trigger, the platform's shipped configs/debian12-*.ini" ;;
    cfg) echo "no trigger, a bound configured for every routine" ;;
    floor) echo "floor: a preload that only forwards each call to PMPI (no layer)" ;;
    *) echo "$1 forced" ;;
  esac
}

# Distinct colours for the routine pairs (blocking solid, I-form dashed).
readonly line_colours=('#1f77b4' '#ff7f0e' '#2ca02c' '#d62728' '#9467bd' '#8c564b' '#e377c2'
  '#7f7f7f' '#bcbd22' '#17becf' '#000000' '#6b6ecf' '#b5651d')

# plot_overhead MPI PROCS CASE PNG: one line per routine.
plot_overhead() {
  local mpi=$1 procs=$2 kase=$3 png=$4
  local data
  data=$work/overhead-$(slug "$mpi-$procs-$kase")
  awk -F '\t' -v OFS='\t' -v m="$mpi" -v p="$procs" -v c="$kase" \
    '$1 == m && $2 == p && $4 == c { print $3, $5, $8 }' "$work/bench.tsv" |
    sort -t $'\t' -k2,2n -s >"$data.all"
  # In the file's order, each I-form after its blocking routine.
  local routines=() routine
  mapfile -t routines < <(awk -F '\t' -v OFS='\t' '!seen[$1]++ {
      base = tolower($1); i = sub(/^mpi_i/, "mpi_", base)
      if (!(base in order)) order[base] = ++bases
      print order[base], i, $1 }' "$data.all" | sort -t $'\t' -k1,1n -k2,2n | cut -f3)
  local lo hi ylo yhi
  read -r lo hi ylo yhi < <(awk -F '\t' 'NR == 1 { lo = hi = $2; ylo = yhi = $3 }
    { if ($2 < lo) lo = $2; if ($2 > hi) hi = $2; if ($3 > 0 && $3 < ylo) ylo = $3; if ($3 > yhi) yhi = $3 }
    END { print lo, hi, ylo, yhi }' "$data.all")
  local elo ehi
  elo=$(awk -v v="$lo" 'BEGIN { e = 0; while (2 ^ (e + 1) <= v) e++; print (e > 0 ? e - 1 : 0) }')
  ehi=$(awk -v v="$hi" 'BEGIN { e = 0; while (2 ^ e < v) e++; print e + 1 }')
  read -r ylo yhi < <(awk -v a="$ylo" -v b="$yhi" 'BEGIN {
    if (a > 0.5) a = 0.5; if (b < 2) b = 2
    printf "%g %g\n", 2 ^ int(log(a) / log(2) - 1), 2 ^ int(log(b) / log(2) + 1) }')
  declare -A colour_of=()
  local next=0 clauses=() base dash
  for routine in "${routines[@]}"; do
    base=${routine/#MPI_I/MPI_}
    base=${base,,}
    if [[ -z ${colour_of[$base]:-} ]]; then
      colour_of[$base]=${line_colours[next % ${#line_colours[@]}]}
      next=$((next + 1))
    fi
    [[ ${routine/#MPI_I/} == "$routine" ]] && dash=1 || dash=2
    awk -F '\t' -v r="$routine" -v OFS='\t' '$1 == r { print $2, $3 }' "$data.all" \
      >"$data.$(slug "$routine")"
    clauses+=("'$data.$(slug "$routine")' using 1:2 with linespoints lw 2 dt $dash pt 7 ps 0.8 lc rgb '${colour_of[$base]}' title '$(gp_text "$routine")'")
  done
  {
    echo "set terminal $terminal size 1100,700 noenhanced font 'DejaVu Sans,10'"
    echo "set encoding utf8"
    echo "set output '$data.png'"
    echo "set title '$(gp_text "$mpi, P = $procs: $(case_title "$kase")") — protected / bare time'"
    echo "set logscale x 2"
    echo "set logscale y 2"
    echo "set xrange [$(awk -v e="$elo" 'BEGIN { printf "%g", 2 ^ e }'):$(awk -v e="$ehi" 'BEGIN { printf "%.0f", 2 ^ e }')]"
    echo "set xtics $(byte_tics "$elo" "$ehi")"
    echo "set yrange [$ylo:$yhi]"
    echo "set xlabel 'message bytes per rank and peer (log2)'"
    echo "set ylabel 'protected / bare time (log2; 1 = no cost)'"
    echo "set grid xtics ytics lc rgb '#dddddd'"
    echo "set key outside right top vertical spacing 1.0"
    echo "set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#000000' lw 1 dt 3 back"
    local joined
    joined=$(printf '%s, \\\n  ' "${clauses[@]}")
    echo "plot ${joined%, \\*}"
  } >"$data.gp"
  gnuplot "$data.gp" 2>"$data.err" || { cat "$data.err" >&2; die "gnuplot failed on $mpi $kase"; }
  [[ -s $data.png ]] || die "gnuplot wrote no plot of $mpi $kase"
  mv "$data.png" "$png"
}

# ---- report.md ------------------------------------------------------------------

report=$output/report.md
{
  echo "# ScaleGuard report: $(basename "$ini")"
  echo
  sources="\`$ini\`"
  [[ -z $state ]] || sources+=", the search in \`$state\`"
  for file in "${benchmarks[@]}"; do sources+=", the benchmark \`$file\`"; done
  echo "Written $(date -u +%Y-%m-%dT%H:%M:%SZ) by \`scaleguard-report\` from $sources."

  if [[ -n ${entry[platform mpi_library]:-}${entry[platform hostname]:-} ]]; then
    echo
    echo "## Platform"
    echo
    echo "| key | value |"
    echo "|---|---|"
    for key in mpi_library hostname measured launcher; do
      [[ -z ${entry["platform $key"]:-} ]] || echo "| $key | $(cell "${entry["platform $key"]}") |"
    done
  fi

  echo
  echo "## Bounds"
  echo
  if ((${#routine_sections[@]} == 0)); then
    echo "The file has no routine section: no bound is known."
  else
    echo "One row per section of the file (a routine's further entries are [MPI_Name#2], ...)."
    echo "*s·n at the bound*: the bound as bytes of one message at the entry's type_size and"
    echo "procs (Class D: where the last int displacement (P-1)·n passes INT_MAX)."
    echo
    echo "| routine | class | trigger | bound | type_size | procs | safe_count | delta | failure | workaround | s·n at the bound | other keys |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---|---|---:|---|"
    for section in "${routine_sections[@]}"; do
      row="| $(cell "$section") |"
      for key in "${known_keys[@]}"; do row+=" $(cell "${entry["$section $key"]:-}") |"; done
      at=$(bound_bytes "$section" "${entry["$section type_size"]:-1}" "${entry["$section procs"]:-1}")
      if [[ -n $at && ( -n ${entry["$section procs"]:-} ||
        ! ${entry["$section trigger"]:-n} =~ P ) ]]; then
        row+=" $(human "$at") |"
      else
        row+=" — |"
      fi
      other=
      while IFS= read -r pair; do
        [[ $pair == "$section"$'\t'* ]] || continue
        IFS=$'\t' read -r -a fields <<<"$pair"
        for kv in "${fields[@]:1}"; do
          is_known "${kv%%=*}" || other+="${other:+, }$kv"
        done
        break
      done <"$work/ini.tsv"
      echo "$row $(cell "$other") |"
    done
  fi

  if [[ -n $state ]]; then
    echo
    echo "## The search"
    echo
    if ((${#probed[@]} == 0)); then
      echo "\`$state/jobs.tsv\` holds no finished job."
    else
      echo "Every job the probe finished (\`$state/jobs.tsv\`, $(wc -l <"$work/jobs.tsv") jobs)."
      echo "In the plots each row is one job and each point one size it ran: green passed,"
      echo "red hues failed (crash red, hang orange, mpi-error crimson, wrong-data maroon,"
      echo "oom brown); circles are the search at the measured (s, P), triangles the"
      echo "verification at 2P, squares at 2s. The blue line is the INI's bound as s·n."
      echo "The lower panel, where the search failed, is the refinement on a linear axis:"
      echo "from n', the doubling's last pass, to 2n', its first failure."
      echo "Largest pass and smallest failure are those of the search at the measured (s, P)."
      echo
      echo "| routine | jobs | sizes | passed | failed | largest pass | smallest failure | job seconds | plot |"
      echo "|---|---:|---:|---:|---|---:|---:|---:|---|"
      for routine in "${probed[@]}"; do
        png=probe-$(slug "$routine").png
        row=$(plot_routine "$routine" "$output/$png")
        echo "| $routine | $row | [$png]($png) |"
      done
      for routine in "${probed[@]}"; do
        png=probe-$(slug "$routine").png
        echo
        echo "### $routine"
        echo
        has_entry=0
        for section in "${routine_sections[@]}"; do
          if [[ ${section%%#*} == "${routine% in place}" ]]; then has_entry=1; fi
        done
        if ((!has_entry)); then
          echo "No section in $(basename "$ini"): no bound to draw."
          echo
        fi
        echo "![$routine: sizes tested by the search, pass and failure, against the bound]($png)"
      done
    fi
    for section in "${routine_sections[@]}"; do
      routine=${section%%#*}
      found=0
      for probed_routine in "${probed[@]}"; do
        if [[ ${probed_routine% in place} == "$routine" ]]; then found=1; fi
      done
      if ((!found)); then
        echo
        echo "[$section]: no job of $routine in \`$state\`."
      fi
    done
  fi

  if [[ -n $state && -s $state/searches.tsv ]]; then
    echo
    echo "## Where the time went"
    echo
    echo "Per routine and form, from \`$state/searches.tsv\` (one line per search each time the"
    echo "probe ran it). *jobs* and *job seconds* are each search's, as its last run counted"
    echo "them (jobs taken from the journal included; a job that reached its time limit and ran"
    echo "again counts that limit too); *run* the jobs started and *wall* the driver's time,"
    echo "summed over every run of the search (a search cut short by a kill is missing there,"
    echo "its jobs are not); all P together."
    echo
    echo "| routine | form | P | jobs | run | job seconds | wall seconds | outcome at each P |"
    echo "|---|---|---|---:|---:|---:|---:|---|"
    awk -F '\t' '
      { search = $1 SUBSEP $3 SUBSEP $2 SUBSEP ($9 == "" ? 1 : $9)
        if (!(search in last)) order[++n] = search
        last[search] = $0
        run[search] += $5; wall[search] += $7 }
      END {
        for (i = 1; i <= n; i++) {
          split(last[order[i]], f, "\t")
          key = f[1] SUBSEP f[3]
          if (!(key in seen)) { seen[key] = 1; routines[++m] = key }
          at = f[2] (f[9] > 1 ? " over " f[9] " nodes" : "")
          ps[key] = ps[key] (ps[key] == "" ? "" : ", ") at
          jobs[key] += f[4]; js[key] += f[6]
          runs[key] += run[order[i]]; walls[key] += wall[order[i]]
          outcome[key] = outcome[key] (outcome[key] == "" ? "" : "; ") "P=" at ": " f[8]
          tj += f[4]; tjs += f[6]; tr += run[order[i]]; tw += wall[order[i]]
        }
        for (i = 1; i <= m; i++) {
          split(routines[i], k, SUBSEP)
          printf "| %s | %s | %s | %d | %d | %.1f | %.1f | %s |\n", k[1],
            k[2] == 1 ? "in place" : "plain", ps[routines[i]], jobs[routines[i]],
            runs[routines[i]], js[routines[i]], walls[routines[i]], outcome[routines[i]]
        }
        printf "| **all** | | | %d | %d | %.1f | %.1f | |\n", tj, tr, tjs, tw
      }' "$state/searches.tsv"
    spread_table
  fi

  if ((${#benchmarks[@]})); then
    # All files together, header lines dropped, in file order.
    for file in "${benchmarks[@]}"; do tail -n +2 "$file"; done >"$work/bench.tsv"
    echo
    echo "## Protection overhead"
    echo
    echo "libscaleguard.so against the bare call (PMPI) in one run (\`sg_overhead\`): the"
    echo "ratio of the protected call's best time to the bare call's, per routine, over"
    echo "the message bytes per rank and peer. Per size: the smallest, median and largest"
    echo "ratio over the routines, and the routine with the largest."
    while IFS=$'\t' read -r mpi procs kase; do
      png=overhead-$(slug "$mpi-p$procs-$kase").png
      plot_overhead "$mpi" "$procs" "$kase" "$output/$png"
      echo
      echo "### $mpi, P = $procs: $(case_title "$kase")"
      echo
      echo "| bytes | routines | min | median | max | largest at |"
      echo "|---:|---:|---:|---:|---:|---|"
      awk -F '\t' -v m="$mpi" -v p="$procs" -v c="$kase" -v OFS='\t' \
        '$1 == m && $2 == p && $4 == c { print $5, $8, $3 }' "$work/bench.tsv" |
        sort -t $'\t' -k1,1n -k2,2g | awk -F '\t' '
          function flush(   mid, median) {
            if (!n) return
            mid = int((n + 1) / 2)
            median = (n % 2) ? r[mid] : (r[mid] + r[mid + 1]) / 2
            printf "| %s | %d | %.3f | %.3f | %.3f | %s |\n", bytes, n, r[1], median, r[n], who
          }
          $1 != bytes { flush(); bytes = $1; n = 0 }
          { r[++n] = $2; who = $3 }
          END { flush() }'
      echo
      echo "![$mpi P=$procs $kase: protected / bare time over message bytes, per routine]($png)"
    done < <(awk -F '\t' -v OFS='\t' '!seen[$1 FS $2 FS $4]++ { print $1, $2, $4 }' "$work/bench.tsv")
  fi
} >"$report.new"
mv "$report.new" "$report"
echo "scaleguard-report: wrote $report"
