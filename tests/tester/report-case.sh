#!/usr/bin/env bash
# report-case.sh STAGE_BIN INI STATE ROUTINE
#
# Runs STAGE_BIN/scaleguard-report on a probe's INI and state folder and on a
# small made-up benchmark TSV, into ./report-case, then checks:
#   - exit 0, and report.md has ROUTINE's row with the INI's class, trigger
#     and bound;
#   - every PNG report.md embeds exists, starts with the PNG signature, has
#     an IHDR of a sane size, and is not blank: decoded by gnuplot itself,
#     the search plot has enough pixels of the pass colour, of the INI's
#     failure colour and of the bound line, the benchmark plots of their line
#     colours, and each has many distinct colours. The same check must
#     reject a plot with axes and no data, or it proves nothing.
set -euo pipefail

bin=$1 ini=$2 state=$3 routine=$4
out=report-case
rm -rf "$out" "$out.tsv"

# Two routines, two cases, three sizes: what bench-protect writes.
{
  printf 'mpi\tprocs\troutine\tcase\tbytes\tbare_seconds\tprotected_seconds\tratio\n'
  for kase in none W1-B; do
    for r in MPI_Gather MPI_Igather; do
      for bytes in 1048576 8388608 67108864; do
        awk -v OFS='\t' -v c="$kase" -v r="$r" -v b="$bytes" 'BEGIN {
          bare = b / 1e9; ratio = (c == "none" ? 1.01 : 1 + b / 67108864) + (r ~ /_I/ ? 0.2 : 0)
          print "mpich", 4, r, c, b, sprintf("%.8f", bare), sprintf("%.8f", bare * ratio),
            sprintf("%.3f", ratio) }'
      done
    done
  done
} >"$out.tsv"

"$bin/scaleguard-report" --output "$out" --benchmark "$out.tsv" "$ini" "$state"

status=0
fail() { echo "FAIL: $*"; status=1; }

# The routine's row against the INI (its first entry, as the layer reads it).
value() {
  "$bin/scaleguard-ini" dump "$ini" | awk -F '\t' -v s="$routine" -v key="$1=" '
    $1 == s { for (i = 2; i <= NF; i++) if (index($i, key) == 1) print substr($i, length(key) + 1)
              exit }'
}
class=$(value class) trigger=$(value trigger) bound=$(value bound) failure=$(value failure)
[[ -n $class && -n $bound ]] || fail "$ini has no class or bound for $routine"
row="| $routine | $class | ${trigger:-—} | $bound |"
grep -qF -- "$row" "$out/report.md" || fail "report.md lacks the row '$row ...'"

# png_size FILE: "WIDTH HEIGHT" from the IHDR, or nothing when not a PNG.
png_size() {
  local bytes
  read -ra bytes < <(od -An -v -tu1 -N24 "$1" | tr -s ' \n' '  ')
  local signature="${bytes[*]:0:8}" chunk="${bytes[*]:12:4}"
  [[ $signature == "137 80 78 71 13 10 26 10" && $chunk == "73 72 68 82" ]] || return 0
  echo $(((bytes[16] << 24) | (bytes[17] << 16) | (bytes[18] << 8) | bytes[19])) \
    $(((bytes[20] << 24) | (bytes[21] << 16) | (bytes[22] << 8) | bytes[23]))
}

# colours FILE COLOUR...: the number of distinct colours, then the pixels of
# each COLOUR (#rrggbb), from gnuplot's own decoding of the PNG.
colours() {
  local png=$1
  shift
  gnuplot -e "set table '$png.table'; plot '$png' binary filetype=png with rgbimage" 2>/dev/null
  awk -v wanted="$*" '
    $1 ~ /^[0-9]/ && NF >= 5 { seen[sprintf("#%02x%02x%02x", $3, $4, $5)]++ }
    END {
      distinct = 0
      for (c in seen) distinct++
      n = split(wanted, w, " ")
      line = distinct
      for (i = 1; i <= n; i++) line = line " " (seen[w[i]] + 0)
      print line
    }' "$png.table"
  rm -f "$png.table"
}

# check_png FILE MIN_PIXELS COLOUR...: sane, and not blank; 1 when not.
check_png() {
  local png=$1 least=$2
  shift 2
  local size counts
  [[ -f $png ]] || { echo "$png: missing"; return 1; }
  size=$(png_size "$png")
  [[ -n $size ]] || { echo "$png: not a PNG (signature or IHDR)"; return 1; }
  read -r width height <<<"$size"
  ((width >= 300 && width <= 4000 && height >= 200 && height <= 4000)) ||
    { echo "$png: IHDR says ${width}x$height"; return 1; }
  read -ra counts < <(colours "$png" "$@")
  ((counts[0] >= 30)) || { echo "$png: ${counts[0]} distinct colours: blank"; return 1; }
  local i=1 colour
  for colour in "$@"; do
    ((counts[i] >= least)) || { echo "$png: $colour on ${counts[i]} pixels (< $least)"; return 1; }
    i=$((i + 1))
  done
  echo "$png: ${width}x$height, ${counts[0]} colours, pixels of $*: ${counts[*]:1}"
}

declare -A failure_colour=([crash]='#e00000' [hang]='#ff7f00' [mpi-error]='#c00070'
  [wrong-data]='#800000' [oom]='#a05a2c')
pass='#00a000' bound_colour='#0050c8'

# Every PNG the report embeds.
mapfile -t embedded < <(sed -n 's/.*!\[[^]]*\](\([^)]*\.png\)).*/\1/p' "$out/report.md")
((${#embedded[@]} == 3)) ||
  fail "report.md embeds ${#embedded[@]} PNGs, not 3 (1 search, 2 benchmark cases): ${embedded[*]}"
search_png=probe-$routine.png
[[ " ${embedded[*]} " == *" $search_png "* ]] || fail "report.md does not embed $search_png"
for png in "${embedded[@]}"; do
  if [[ $png == "$search_png" ]]; then
    # Points are ~35 pixels each, a legend sample one of them: several
    # points of each kind and a bound line across the plot.
    check_png "$out/$png" 120 "$pass" "${failure_colour[$failure]:-#e00000}" "$bound_colour" ||
      fail "$png"
  else
    # The two routines' line colour (solid and dashed), across the plot.
    check_png "$out/$png" 400 '#1f77b4' || fail "$png"
  fi
done

# The check itself must see an empty plot as blank.
gnuplot -e "set terminal pngcairo size 1000,500; set output '$out/empty.png';
  set logscale x 2; set xrange [1:4096]; set yrange [0:8]; set key below;
  plot NaN with points pt 7 lc rgb '$pass' title 'pass', NaN with lines lc rgb '$bound_colour' title 'bound'"
if check_png "$out/empty.png" 120 "$pass" "$bound_colour" >/dev/null; then
  fail "the PNG check passes a plot without data"
fi

((status == 0)) && echo "PASS: report.md has [$routine] as in $ini and ${#embedded[@]} good PNGs"
exit "$status"
