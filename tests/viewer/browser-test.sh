#!/bin/bash
# browser-test.sh SCALEGUARD_TRACE CASE DIR SCREENSHOT [SYNTHETIC_TRACE RANKS ROUNDS]
# The trace page (scaleguard-trace DIR's trace.html) in a real browser:
# Debian's headless Chromium, driven by chromedriver over WebDriver (curl).
# DIR is a real trace (tests/trace's runs); with SYNTHETIC_TRACE (the
# generator, tests/viewer/synthetic-trace.c) the case makes DIR of RANKS
# ranks and ROUNDS rounds first. What the page shows, against what the
# rank files' text forms (scaleguard-trace --text) say:
#   graph     the edges drawn (#drawn-edges) are the DOT's, one per pair of
#             ranks, with no label drawn; pointing at an edge shows its label
#             (the DOT's tooltip), hidden before; the rank filter (clicked)
#             keeps the edges touching rank 1; the routine filter and a row's
#             click show an MPI_Allreduce's details (did=); a filter in the
#             address (#rank=2&routine=MPI_Bcast) keeps the Bcast edges
#             touching rank 2; a screenshot (a PNG to SCREENSHOT);
#   timeline  a lane per rank; as many message lines as sends (each send
#             matched to its receive); the first MPI_Gatherv of rank 0, in a
#             window around it (#routine=MPI_Gatherv&from=..&to=..), is a box
#             of the legend's MPI_Gatherv colour, the workarounds in the window
#             are marked, and a click on the box shows its details; the wheel
#             zooms in (a shorter window), a drag pans it;
#   matrix    each cell pointed at says the messages and bytes the rank
#             files' sends give for its ranks (every cell up to 4 cells a
#             side, else rows 0, 1 and the last, their columns 0, 1, 2 and
#             the last), and is white where they are 0;
#   scale     the page of a large job: its load and first draw time
#             (printed; bound 30 s), lanes grouped (at most 64), calls binned,
#             the last lane drawn, the matrix's cells grouped.
# Exit 77 (skipped) only when Chromium or chromedriver is not installed.
set -u
tool=$1 kase=$2 dir=$3 screenshot=$4
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "browser-test.sh: no chromium or chromedriver (Debian: chromium chromium-driver)"
    exit 77
fi
fail() {
    echo "browser-test.sh: $kase: $*" >&2
    exit 1
}
work=$(mktemp -d)
driver=""
cleanup() {
    [ -n "$driver" ] && kill "$driver" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
if [ $# -eq 7 ]; then
    dir=$work/synthetic
    "$5" "$dir" "$6" "$7" >/dev/null || fail "$5 $dir $6 $7 failed"
fi
"$tool" --output "$work/trace" "$dir" >/dev/null || fail "scaleguard-trace $dir failed"
page="file://$work/trace.html"
procs=$(find "$dir" -maxdepth 1 -name 'rank-*.sgtrace' | wc -l)
text_forms() { # text_forms RANK...: their text forms into $work/lines, each line "RANK LINE..."
    for r in "$@"; do
        "$tool" --text "$dir/rank-$r.sgtrace" | sed "s/^/$r /" || fail "--text rank-$r failed"
    done >"$work/lines"
}

# shellcheck source=tests/viewer/webdriver.sh
. "$(dirname "$0")/webdriver.sh"
start_webdriver
element() { # element CSS: its WebDriver id
    call POST "/session/$session/element" "{\"using\":\"css selector\",\"value\":\"$1\"}" |
        grep -o '"element-6066-11e4-a52e-4f735466cecf": *"[^"]*"' | sed 's/.*: *"\(.*\)"/\1/'
}
text_of() { call GET "/session/$session/element/$(element "$1")/text" | value_of; }
click() {
    local id
    id=$(element "$1")
    [ -n "$id" ] || fail "no element $1 on the page"
    call POST "/session/$session/element/$id/click" '{}' >/dev/null
}
open() { call POST "/session/$session/url" "{\"url\":\"$1\"}" >/dev/null; }
pointer() { # pointer X Y [down]: the mouse to the page's point X,Y (and a click there)
    local press=""
    [ "${3:-}" = down ] && press=',{"type":"pointerDown","button":0},{"type":"pointerUp","button":0}'
    call POST "/session/$session/actions" "{\"actions\":[{\"type\":\"pointer\",\"id\":\"mouse\",\"parameters\":{\"pointerType\":\"mouse\"},\"actions\":[{\"type\":\"pointerMove\",\"duration\":0,\"origin\":\"viewport\",\"x\":$1,\"y\":$2}$press]}]}" >/dev/null
}
dataset() { run "return document.getElementById('$1').dataset.$2"; }
# page coordinates of a canvas's point: canvas X Y
canvas_point() { run "const c = document.getElementById('$1'), r = c.getBoundingClientRect(); return Math.round(r.left + c.clientLeft + $2) + ' ' + Math.round(r.top + c.clientTop + $3)"; }
pixel() { # pixel CANVAS X Y: its colour as #rrggbb
    run "const d = document.getElementById('$1').getContext('2d').getImageData($2, $3, 1, 1).data; return '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('')"
}

session=$(new_session)
[ -n "$session" ] || fail "chromedriver opened no session: $(cat "$work/driver.log")"
sending='^MPI_(Send|Ssend|Rsend|Bsend|Isend|Issend|Irsend|Ibsend|Sendrecv|Sendrecv_replace)$'

case $kase in
graph | timeline) text_forms $(seq 0 $((procs - 1))) ;;
esac
# the page's times are seconds since the first call of any rank
first=$([ -f "$work/lines" ] && awk '$2 == "call" { t = substr($6, 3); if (first == "" || t < first) first = t } END { print first }' "$work/lines")

case $kase in
graph)
    open "$page"
    all=$(grep -c ' -> ' "$work/trace.dot")
    drawn=$(text_of '#drawn-edges')
    [ "$drawn" = "$all" ] || fail "the page draws $drawn edges, the DOT has $all"
    pairs=$(grep -o '^  r[0-9]* -> r[0-9]* ' "$work/trace.dot" | sort -u | wc -l)
    [ "$pairs" = "$all" ] || fail "the DOT has $all edges for $pairs pairs of ranks"
    labels=$(run "return document.querySelectorAll('#graph g.edge text').length")
    [ "$labels" = 0 ] || fail "$labels edge labels drawn (they are for the hover)"
    [ "$(run "return getComputedStyle(document.getElementById('edge-label')).display === 'none'")" = true ] ||
        fail "an edge label shows before any hover"
    # the edge between ranks 0 and 1 (a side of the circle, crossed by no other)
    id=$(sed -n 's/^  r0 -> r1 \[id="\(e[0-9]*\)".*/\1/p' "$work/trace.dot")
    [ -n "$id" ] || fail "no edge between ranks 0 and 1 in the DOT"
    tooltip=$(sed -n "s/^  r0 -> r1 \\[id=\"$id\".* tooltip=\"\\([^\"]*\\)\".*/\\1/p" "$work/trace.dot")
    read -r x y < <(run "const p = document.querySelector('#$id path'); p.scrollIntoView({block: 'center'}); const m = p.getPointAtLength(p.getTotalLength() / 2).matrixTransform(p.getScreenCTM()); return Math.round(m.x) + ' ' + Math.round(m.y)")
    pointer "$x" "$y"
    for _ in $(seq 50); do # the browser delivers a move at its next frame
        shown=$(run "const l = document.getElementById('edge-label'); return getComputedStyle(l).display === 'none' ? 'hidden' : l.textContent.split(String.fromCharCode(10)).join('|')")
        [ "$shown" != hidden ] && break
        sleep 0.05
    done
    [ "$shown" = "${tooltip//\\n/|}" ] || fail "pointing at $id ($x,$y) shows '$shown', its tooltip is '$tooltip'"

    click '#rank'
    click "#rank option[value='1']"
    touching=$(grep -cE '^  r1 -> |-> r1 ' "$work/trace.dot")
    drawn_rank=$(text_of '#drawn-edges')
    [ "$drawn_rank" = "$touching" ] || fail "rank 1 chosen: $drawn_rank edges drawn, $touching touch it in the DOT"
    [ "$drawn_rank" -lt "$all" ] || fail "the rank filter hid no edge"
    click '#routine'
    click "#routine option[value='MPI_Allreduce']"
    click '#rows tr'
    details=$(call GET "/session/$session/element/$(element '#details')/text" | value_of)
    [[ $details == "rank 1, call "*": MPI_Allreduce"* && $details == *did=* ]] ||
        fail "the first row's details: '$details'"
    call GET "/session/$session/screenshot" | value_of | base64 -d >"$screenshot"
    [ "$(head -c 8 "$screenshot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "the screenshot $screenshot is not a PNG"

    open "$page#rank=2&routine=MPI_Bcast"
    bcast=$(grep -E '^  r2 -> |-> r2 ' "$work/trace.dot" | grep -c 'tooltip="[^"]*Bcast')
    drawn_bcast=$(text_of '#drawn-edges')
    [ "$drawn_bcast" = "$bcast" ] || fail "#rank=2&routine=MPI_Bcast: $drawn_bcast edges drawn, $bcast in the DOT"
    echo "browser-test.sh: graph: $all edges drawn, one per pair; $id's label on hover:" \
        "'${shown:0:50}...'; rank 1 chosen: $drawn_rank; #rank=2&routine=MPI_Bcast: $drawn_bcast"
    ;;
timeline)
    open "$page"
    lanes=$(dataset timeline lanes)
    [ "$lanes" = "$procs" ] || fail "$lanes lanes for $procs ranks"
    [ "$(dataset timeline ranksPerLane)" = 1 ] || fail "lanes of $(dataset timeline ranksPerLane) ranks at $procs ranks"
    sends=$(awk -v s="$sending" '$2 == "call" && $4 ~ s { for (i = 5; i <= NF; i++) if ($i ~ /^peer=[0-9]/) n++ } END { print n + 0 }' "$work/lines")
    messages=$(dataset timeline messages)
    [ "$messages" = "$sends" ] || fail "$messages message lines drawn, the ranks sent $sends messages (each received)"
    # rank 0's first MPI_Gatherv: index, start and duration (s), what the layer did
    read -r index t d did < <(awk '$1 == 0 && $2 == "call" && $4 == "MPI_Gatherv" { did = "-"
        for (i = 5; i <= NF; i++) if ($i ~ /^did=/) did = substr($i, 5)
        print $3, substr($6, 3), substr($7, 3), did; exit }' "$work/lines")
    [ -n "${index:-}" ] || fail "rank 0 called no MPI_Gatherv"
    read -r from to < <(awk -v t="$t" -v d="$d" -v f="$first" 'BEGIN { printf "%.9f %.9f\n", t - f - d, t - f + 2 * d }')
    worked=$(awk -v f="$first" -v from="$from" -v to="$to" '$2 == "call" && $4 == "MPI_Gatherv" {
        s = substr($6, 3) - f; e = s + substr($7, 3)
        for (i = 5; i <= NF; i++) if ($i ~ /^did=/ && $i != "did=plain" && e >= from && s <= to) n++ }
        END { print n + 0 }' "$work/lines")
    open "$page#routine=MPI_Gatherv&from=$from&to=$to"
    read -r t0 t1 left axis height < <(run "const d = document.getElementById('timeline').dataset; return [d.t0, d.t1, d.left, d.axis, d.laneHeight].join(' ')")
    width=$(run "return document.getElementById('timeline-canvas').width")
    x=$(awk -v t="$t" -v d="$d" -v f="$first" -v t0="$t0" -v t1="$t1" -v l="$left" -v w="$width" \
        'BEGIN { printf "%d\n", l + (t - f + d / 2 - t0) * (w - l) / (t1 - t0) }')
    y=$((axis + height - 3))
    colour=$(pixel timeline-canvas "$x" "$y")
    legend=$(run "return document.querySelector('#legend [data-routine=MPI_Gatherv]').dataset.colour")
    [ "$colour" = "$legend" ] || fail "rank 0's MPI_Gatherv $index at ($x,$y) of the timeline is $colour, the legend's MPI_Gatherv $legend"
    marks=$(dataset timeline marks)
    [ "$marks" = "$worked" ] || fail "$marks workarounds marked, $worked MPI_Gatherv calls with did= other than plain in the window"
    read -r px py < <(canvas_point timeline-canvas "$x" "$y")
    pointer "$px" "$py" down
    details=$(call GET "/session/$session/element/$(element '#details')/text" | value_of)
    [[ $details == "rank 0, call $index: MPI_Gatherv"* ]] || fail "a click on it shows '$details'"
    [ "$did" = - ] || [[ $details == *"did=$did"* ]] || fail "its details lack did=$did: '$details'"
    # the wheel zooms in around the pointer, a drag pans
    call POST "/session/$session/actions" "{\"actions\":[{\"type\":\"wheel\",\"id\":\"wheel\",\"actions\":[{\"type\":\"scroll\",\"x\":$px,\"y\":$py,\"deltaX\":0,\"deltaY\":-100,\"origin\":\"viewport\"}]}]}" >/dev/null
    sleep 0.2
    read -r z0 z1 < <(run "const d = document.getElementById('timeline').dataset; return d.t0 + ' ' + d.t1")
    awk -v a="$t0" -v b="$t1" -v c="$z0" -v e="$z1" 'BEGIN { exit !(e - c < 0.9 * (b - a) && c > a) }' ||
        fail "the wheel did not zoom in: $t0-$t1 became $z0-$z1"
    call POST "/session/$session/actions" "{\"actions\":[{\"type\":\"pointer\",\"id\":\"mouse\",\"parameters\":{\"pointerType\":\"mouse\"},\"actions\":[{\"type\":\"pointerMove\",\"duration\":0,\"origin\":\"viewport\",\"x\":$px,\"y\":$py},{\"type\":\"pointerDown\",\"button\":0},{\"type\":\"pointerMove\",\"duration\":100,\"origin\":\"viewport\",\"x\":$((px - 200)),\"y\":$py},{\"type\":\"pointerUp\",\"button\":0}]}]}" >/dev/null
    sleep 0.2
    read -r p0 p1 < <(run "const d = document.getElementById('timeline').dataset; return d.t0 + ' ' + d.t1")
    awk -v a="$z0" -v b="$z1" -v c="$p0" -v e="$p1" 'BEGIN { exit !(c > a && (e - c) - (b - a) < 1e-9 * (b - a) + 1e-12) }' ||
        fail "a drag to the left did not pan later: $z0-$z1 became $p0-$p1"
    echo "browser-test.sh: timeline: $lanes lanes, $messages message lines; in $t0-$t1 s rank 0's MPI_Gatherv" \
        "$index a box of $colour, $marks marked, its details on a click; zoomed to $z0-$z1, panned to $p0-$p1"
    ;;
matrix)
    open "$page"
    read -r cells per size < <(run "const m = document.getElementById('matrix'); m.scrollIntoView({block: 'center'}); return [m.dataset.cells, m.dataset.ranksPerCell, m.dataset.cellSize].join(' ')")
    read -r left top < <(canvas_point matrix 0 0)
    rows="0 1 $((cells - 1))" columns="0 1 2 $((cells - 1))"
    [ "$cells" -le 4 ] && rows=$(seq 0 $((cells - 1))) columns=$rows
    # the rows' ranks' sends: messages and bytes per (sender's cell, destination's cell)
    senders=$(for row in $rows; do seq $((row * per)) $((row * per + per - 1)); done)
    # shellcheck disable=SC2086 # the ranks are words
    text_forms $senders
    declare -A traffic
    while read -r from to n b; do traffic[$from,$to]="$n $b"; done < <(awk -v s="$sending" -v per="$per" '
        $2 == "call" && $4 ~ s { peer = -1; bytes = 0
            for (i = 5; i <= NF; i++) { if ($i ~ /^peer=/) peer = substr($i, 6); if ($i ~ /^bytes=/) bytes = substr($i, 7) }
            if (peer >= 0) { k = int($1 / per) " " int(peer / per); n[k]++; b[k] += bytes } }
        END { for (k in n) print k, n[k], b[k] }' "$work/lines")
    names() { if [ "$per" = 1 ]; then echo "$1"; else echo "$(($1 * per))-$(($1 * per + per - 1))"; fi; }
    checked=0 busy=0
    for from in $rows; do
        for to in $columns; do
            read -r n b <<<"${traffic[$from,$to]:-0 0}"
            x=$((to * size + size / 2)) y=$((from * size + size / 2))
            pointer $((left + x)) $((top + y))
            expected="ranks $(names "$from") -> $(names "$to"): $n messages, $b B"
            for _ in $(seq 50); do # the browser delivers a move at its next frame
                said=$(run "const d = document.getElementById('matrix').getContext('2d').getImageData($x, $y, 1, 1).data; return (d[0] === 255 && d[1] === 255 && d[2] === 255 ? 'white' : 'coloured') + ' ' + document.getElementById('matrix-cell').textContent")
                [[ ${said#* } == "${expected%%:*}:"* ]] && break
                sleep 0.05
            done
            [ "${said#* }" = "$expected" ] || fail "cell ($from, $to) says '${said#* }', the rank files '$expected'"
            if [ "$n" = 0 ] && [ "${said%% *}" != white ]; then fail "cell ($from, $to) of no traffic is coloured"; fi
            if [ "$n" != 0 ] && [ "${said%% *}" = white ]; then fail "cell ($from, $to) of $n messages is white"; fi
            checked=$((checked + 1)) busy=$((busy + (n > 0)))
        done
    done
    echo "browser-test.sh: matrix: $cells cells a side of $per ranks; $checked cells pointed at" \
        "($busy with traffic) say the rank files' messages and bytes, coloured where not 0"
    ;;
scale)
    open "$page"
    ms=$(run "return document.body.dataset.firstDrawMs")
    [[ -n $ms && $ms -lt 30000 ]] || fail "no first draw within 30 s (firstDrawMs '$ms')"
    read -r lanes per bins boxes axis height < <(run "const d = document.getElementById('timeline').dataset; return [d.lanes, d.ranksPerLane, d.bins, d.boxes, d.axis, d.laneHeight].join(' ')")
    [[ $lanes -le 64 && $((lanes * per)) -ge $procs && $per -gt 1 ]] ||
        fail "$lanes lanes of $per ranks for $procs ranks: not grouped"
    [[ $bins -gt 0 && $boxes == 0 ]] || fail "grouped lanes: $bins pixel columns binned, $boxes boxes"
    last=$(run "const c = document.getElementById('timeline-canvas'), d = c.getContext('2d').getImageData(80, $((axis + (lanes - 1) * height + height / 2)), c.width - 80, 1).data; let n = 0; for (let k = 0; k < d.length; k += 4) if (d[k + 3] && !(d[k] > 230 && d[k + 1] > 230 && d[k + 2] > 230)) n++; return n")
    [ "$last" -gt 0 ] || fail "nothing drawn in the last lane"
    read -r cells per_cell < <(run "const d = document.getElementById('matrix').dataset; return d.cells + ' ' + d.ranksPerCell")
    [[ $((cells * per_cell)) -ge $procs && $cells -le 128 ]] || fail "the matrix: $cells cells of $per_cell ranks"
    echo "browser-test.sh: scale: $procs ranks, $(stat -c %s "$work/trace.html") bytes of page;" \
        "load and first draw ${ms} ms; $lanes lanes of $per ranks, $bins columns binned, $last pixels" \
        "in the last lane; the matrix $cells cells of $per_cell ranks"
    ;;
*) fail "unknown case" ;;
esac
call DELETE "/session/$session" >/dev/null
