#!/usr/bin/env bash
# The trace page at scale (issue 50, item 2): synthetic traces
# (tests/viewer/synthetic-trace.c, the recorder's binary format) of 16, 256
# and 1,024 ranks; per size the trace's bytes, scaleguard-trace's time, the
# page's bytes, and the page in Debian's headless Chromium, driven by
# chromedriver (each load a new browser): its load and first draw (the
# body's data-first-draw-ms: from the navigation to the timeline and the
# matrix drawn), then a click on "whole run" and the timeline's redraw
# (#timeline's data-draw-ms: what a zoom or pan step costs at the widest
# view), median of 3 loads.
set -euo pipefail
case ${1:-} in
  -h | --help)
    cat <<'USAGE'
usage: scripts/bench-trace-page.sh [OUTPUT.md]
Measures the trace page of synthetic traces of 16, 256 and 1,024 ranks
(SCALEGUARD_BENCH_ROUNDS rounds each, default 50) with build/mpich's tools
(SCALEGUARD_BUILD to choose another tree) and writes OUTPUT.md (default
results/trace-page-scale.md).
USAGE
    exit 0 ;;
esac
cd "$(dirname "$0")/.."
tree=${SCALEGUARD_BUILD:-build/mpich}
rounds=${SCALEGUARD_BENCH_ROUNDS:-50}
out=${1:-results/trace-page-scale.md}
if [[ ! -x $tree/tests/viewer/synthetic-trace || ! -x $tree/viewer/scaleguard-trace ]]; then
  echo "bench-trace-page: build $tree first (scripts/build.sh)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -n | sed -n 2p; }
# shellcheck source=tests/viewer/webdriver.sh
. tests/viewer/webdriver.sh
driver=''
trap 'kill "$driver" 2>/dev/null; rm -rf "$work"' EXIT
start_webdriver
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
rows=""
# the floor: a page that only says when its script ran
mkdir "$work/empty"
echo '<!DOCTYPE html><html><body><script>document.body.dataset.firstDrawMs = performance.now().toFixed(0);</script></body></html>' >"$work/empty/trace.html"
for procs in empty 16 256 1024; do
  dir=$work/p$procs
  if [[ $procs == empty ]]; then
    dir=$work/empty calls=- trace_bytes=- tool=- page_bytes=$(stat -c %s "$dir/trace.html")
  else
    "$tree/tests/viewer/synthetic-trace" "$dir" "$procs" "$rounds" >/dev/null
    trace_bytes=$(cat "$dir"/rank-*.sgtrace | wc -c)
    began=$(date +%s.%N)
    summary=$("$tree/viewer/scaleguard-trace" "$dir")
    tool=$(seconds "$began" "$(date +%s.%N)")
    calls=$(sed -n 's/.* ranks, \([0-9]*\) calls,.*/\1/p' <<<"$summary")
    page_bytes=$(stat -c %s "$dir/trace.html")
  fi
  for _ in 1 2 3; do
    began=$(date +%s.%N)
    session=$(new_session)
    [[ -n $session ]] || { echo "bench-trace-page: chromedriver opened no session" >&2; exit 1; }
    call POST "/session/$session/url" "{\"url\":\"file://$dir/trace.html\"}" >/dev/null
    first=$(run 'return document.body.dataset.firstDrawMs')
    draw=-
    if [[ $procs != empty ]]; then
      run "document.getElementById('timeline').dataset.drawMs = ''; document.getElementById('timeline-reset').click(); return 1" >/dev/null
      for _ in $(seq 600); do
        draw=$(run "return document.getElementById('timeline').dataset.drawMs")
        [[ -n $draw ]] && break
        sleep 0.1
      done
    fi
    call DELETE "/session/$session" >/dev/null
    wall=$(seconds "$began" "$(date +%s.%N)")
    [[ -n $first && -n $draw ]] || { echo "bench-trace-page: the page of $procs ranks drew nothing" >&2; exit 1; }
    echo "$first $draw $wall"
  done >"$work/loads"
  first=$(cut -d' ' -f1 "$work/loads" | median)
  draw=$(cut -d' ' -f2 "$work/loads" | median)
  wall=$(cut -d' ' -f3 "$work/loads" | median)
  ratio=$(awk -v p="$page_bytes" -v t="$trace_bytes" 'BEGIN { if (t > 0) printf "%.2f", p / t; else printf "-" }')
  rows+="| $procs | $calls | $trace_bytes | $tool | $page_bytes | $ratio | $first | $draw | $wall |"$'\n'
  echo "bench-trace-page: $procs ranks: trace $trace_bytes B, page $page_bytes B, first draw $first ms, redraw $draw ms"
done
{
  cat <<EOF
# The trace page at scale (issue 50, item 2)

Synthetic traces (\`tests/viewer/synthetic-trace.c\`: the recorder's binary format, which
\`scaleguard-trace\` reads unchanged) of $rounds rounds per rank: a ring exchange of
MPI_Irecv, MPI_Isend (8 KiB and 4 KiB) and MPI_Waitall, an MPI_Allreduce, and every tenth
round an MPI_Bcast and an MPI_Gatherv that W1-B ran in two sub-calls. Measured on
$(date -u +%Y-%m-%d) on this machine (2 cores, shared: load $(cut -d' ' -f1 /proc/loadavg)
at the end), Chromium $(chromium --version 2>/dev/null | sed -n 's/^Chromium \([^ ]*\).*/\1/p'),
a window of 1400 x 1000:

\`\`\`sh
cmake -S . -B build/mpich -DMPI_C_COMPILER=mpicc.mpich && cmake --build build/mpich -j1
SCALEGUARD_BENCH_ROUNDS=$rounds scripts/bench-trace-page.sh $out
\`\`\`

- **tool**: \`scaleguard-trace DIR\` (read, summary, DOT, page), wall seconds.
- **first draw**: the page's own clock (\`performance.now()\`) from its navigation to the
  end of its script: the HTML and the data parsed, the timeline and the matrix drawn
  (\`data-first-draw-ms\` on the body), median of 3 loads, each in a new headless
  Chromium driven by chromedriver. It includes the browser's first text drawn on a
  canvas (its fonts loaded: over a second here under load).
- **redraw**: then a click on *whole run*: one draw of the whole timeline, every call
  in view (\`#timeline\`'s \`data-draw-ms\`): what a step of zoom or pan costs at its
  widest; narrower views cost less.
- **empty**: a page of one line of script, the floor of the browser's own load here.
- **browser**: the wall time of a session, the browser started, the page loaded and
  redrawn, the browser ended.

| ranks | calls | trace (B) | tool (s) | page (B) | page / trace | first draw (ms) | redraw (ms) | browser (s) |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$rows
At 1,024 ranks the timeline has 64 lanes of 16 ranks, each pixel column of a lane the
routine of most time in it (as dark as the ranks were busy in MPI), the matrix 128
cells a side of 8 ranks; there is no message graph past 32 ranks. The page holds every
call (some 60 bytes of JSON each, against some 100 bytes of the binary trace).
EOF
} >"$out"
echo "bench-trace-page: $out"
