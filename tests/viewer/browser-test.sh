#!/bin/bash
# browser-test.sh SCALEGUARD_TRACE DIR SCREENSHOT
# The trace page (scaleguard-trace DIR's trace.html) in a real browser:
# Debian's headless Chromium, driven by chromedriver over WebDriver (curl).
# It loads the page and reads the edges drawn (#drawn-edges: the DOT's
# edges); picks rank 1 in the rank filter by clicking it, and reads the
# edges touching rank 1 in the DOT; picks MPI_Allreduce in the routine
# filter, clicks the first call row and reads its details (the routine and
# the layer's decision, did=); takes a screenshot (a PNG to SCREENSHOT);
# then loads the page with a filter in its address (#rank=2&routine=MPI_Bcast)
# and reads the Bcast edges touching rank 2. Exit 77 (skipped) only when
# Chromium or chromedriver is not installed.
set -u
tool=$1 dir=$2 screenshot=$3
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "browser-test.sh: no chromium or chromedriver (Debian: chromium chromium-driver)"
    exit 77
fi
fail() {
    echo "browser-test.sh: $*" >&2
    exit 1
}
work=$(mktemp -d)
driver=""
cleanup() {
    [ -n "$driver" ] && kill "$driver" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
"$tool" --output "$work/trace" "$dir" >/dev/null || fail "scaleguard-trace $dir failed"
page="file://$work/trace.html"

port=$((20000 + RANDOM % 20000))
chromedriver --port="$port" >"$work/driver.log" 2>&1 &
driver=$!
base=http://127.0.0.1:$port
for _ in $(seq 100); do
    curl -s "$base/status" | grep -q '"ready": *true' && break
    sleep 0.1
done
call() { # call METHOD PATH [JSON]: the response
    if [ $# -eq 3 ]; then
        curl -s -X "$1" -H 'Content-Type: application/json' -d "$3" "$base$2"
    else
        curl -s -X "$1" "$base$2"
    fi
}
value_of() { sed -n 's/.*"value": *"\([^"]*\)".*/\1/p'; }
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

session=$(call POST /session '{"capabilities":{"alwaysMatch":{"goog:chromeOptions":{"binary":"/usr/bin/chromium","args":["--headless=new","--no-sandbox","--disable-gpu","--window-size=1400,1000"]}}}}' |
    grep -o '"sessionId": *"[^"]*"' | sed 's/.*: *"\(.*\)"/\1/')
[ -n "$session" ] || fail "chromedriver opened no session: $(cat "$work/driver.log")"

open "$page"
all=$(grep -c ' -> ' "$work/trace.dot")
drawn=$(text_of '#drawn-edges')
[ "$drawn" = "$all" ] || fail "the page draws $drawn edges, the DOT has $all"

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
bcast=$(grep -E '^  r2 -> |-> r2 ' "$work/trace.dot" | grep -c 'label="Bcast')
drawn_bcast=$(text_of '#drawn-edges')
[ "$drawn_bcast" = "$bcast" ] || fail "#rank=2&routine=MPI_Bcast: $drawn_bcast edges drawn, $bcast in the DOT"

call DELETE "/session/$session" >/dev/null
echo "browser-test.sh: $all edges drawn; rank 1 chosen: $drawn_rank; MPI_Allreduce's first call:" \
    "$(printf '%s' "$details" | head -c 60)...; #rank=2&routine=MPI_Bcast: $drawn_bcast;" \
    "screenshot $(stat -c %s "$screenshot") bytes"
