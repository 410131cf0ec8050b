# test_browser.sh BUILD_DIR - the flame graph page in a real browser (Debian's chromium,
# headless, no network): at 800x600 and 1400x900 the first viewport shows the graph, the
# frame colours match the legend, labels keep the method name, search, tooltip, zoom and
# the view switch work (flamegraph_browser.js, run inside the page). Screenshots of both
# sizes land in BUILD_DIR/screenshots/.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..5"
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
  for i in 1 2 3 4 5; do ok "browser check # SKIP chromium not installed; run: sudo apt-get install -y chromium"; done
  exit 0
fi
compile || { echo "Bail out! javac failed"; exit 1; }
HTML=$WORK/profile.html
run_agent "event=cpu,interval=1ms,file=$HTML" DemoApp 1 >/dev/null
check "JVM with file=.html exits 0" [ $? = 0 ]
SHOTS=$BUILD/screenshots; mkdir -p "$SHOTS"
# chrome SIZE ARGS...: headless, no network, no GPU, a throwaway profile; output on stdout.
chrome() {
  local size=$1; shift
  timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --user-data-dir="$WORK/chrome" --proxy-server=127.0.0.1:9 \
    --hide-scrollbars --window-size="$size" --virtual-time-budget=1000 "$@" 2>>"$WORK/chrome.err"
}
for size in 800,600 1400,900; do
  # The page with the checks appended (the page itself stays free of test code).
  { sed 's|</body></html>||' "$HTML"; echo "<script>var SELFTEST_SEARCH='hashLoop';"
    cat "$TESTS/flamegraph_browser.js"; echo "</script></body></html>"; } >"$WORK/check.html"
  chrome "$size" --dump-dom "file://$WORK/check.html" >"$WORK/dom.txt"
  sed -n '/<pre id="selftest">/,/<\/pre>/p' "$WORK/dom.txt" | sed 's/<[^>]*>//g' | diag
  check "in chromium at ${size/,/x}: graph in the first viewport, colours = legend, search, tooltip, zoom, switch" \
    grep -q 'SELFTEST ok' "$WORK/dom.txt"
  shot=$SHOTS/flamegraph-${size/,/x}.png
  rm -f "$shot"
  (cd "$WORK" && chrome "$size" --screenshot="$shot" "file://$HTML" >/dev/null)
  check "screenshot at ${size/,/x}: $shot" [ -s "$shot" ]
done
