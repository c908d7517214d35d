# shellcheck shell=bash disable=SC2034,SC2154 # driver and base are set for the sourcing script; work and session are its
# Sourced by the page's browser tests (browser-test.sh) and its benchmark
# (scripts/bench-trace-page.sh): a chromedriver of their own and the few
# WebDriver requests they make of Debian's headless Chromium. Needs `work`
# (a private folder the caller removes: the driver's log goes there, and
# the browser's profile and temporary folders, which it would otherwise
# leave in /tmp, 6 MiB a session).
#   start_webdriver      chromedriver on a free port: sets driver (its pid)
#                        and base (its address); returns once it is ready
#   call METHOD PATH [JSON]  a request: the response
#   new_session          a headless Chromium: prints its session id
#   value_of             a response's string value
#   run JS               in the page of $session: what the function body JS
#                        (no double quotes) returns, as a string

start_webdriver() {
    local port=$((20000 + RANDOM % 20000))
    mkdir -p "$work/tmp"
    TMPDIR=$work/tmp chromedriver --port="$port" >"$work/driver.log" 2>&1 &
    driver=$!
    base=http://127.0.0.1:$port
    for _ in $(seq 100); do
        curl -s "$base/status" | grep -q '"ready": *true' && break
        sleep 0.1
    done
}
call() {
    if [ $# -eq 3 ]; then
        curl -s -X "$1" -H 'Content-Type: application/json' -d "$3" "$base$2"
    else
        curl -s -X "$1" "$base$2"
    fi
}
new_session() {
    call POST /session '{"capabilities":{"alwaysMatch":{"goog:chromeOptions":{"binary":"/usr/bin/chromium","args":["--headless=new","--no-sandbox","--disable-gpu","--window-size=1400,1000"]}}}}' |
        grep -o '"sessionId": *"[^"]*"' | sed 's/.*: *"\(.*\)"/\1/'
}
value_of() { sed -n 's/.*"value": *"\([^"]*\)".*/\1/p'; }
run() {
    call POST "/session/$session/execute/sync" "{\"script\":\"return String((function(){$1})())\",\"args\":[]}" | value_of
}
