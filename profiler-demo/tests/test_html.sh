# test_html.sh BUILD_DIR - the HTML flame graph is one self-contained file: no http(s)
# reference anywhere, and it holds the expected frame names.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..10"
compile || { echo "Bail out! javac failed"; exit 1; }
HTML=$WORK/profile.html
run_agent "event=cpu,interval=1ms,file=$HTML" DemoApp 1 >/dev/null
check "JVM with file=.html exits 0" [ $? = 0 ]
check "the HTML file exists and is not empty" [ -s "$HTML" ]
figure "flame graph size: $(stat -c %s "$HTML" 2>/dev/null) bytes"
check "no http:// or https:// reference in it" bash -c "! grep -qiE 'https?:' '$HTML'"
check "it is one page with its own script (canvas, search, zoom)" \
  bash -c "grep -q '<canvas' '$HTML' && grep -q 'RegExp' '$HTML' && grep -q 'reset zoom' '$HTML'"
check "it names the sample's hot methods (DemoApp.hashLoop, primeSieve, matrixMultiply)" \
  bash -c "grep -q 'DemoApp.hashLoop' '$HTML' && grep -q 'DemoApp.primeSieve' '$HTML' && grep -q 'DemoApp.matrixMultiply' '$HTML'"

# The page's script really runs (node with a stand-in DOM): tree, drawing, search, zoom.
if command -v node >/dev/null; then
  res=$(node "$TESTS/flamegraph_check.js" "$HTML" 'DemoApp\.hashLoop' 2>&1)
  check "the page's script builds, draws, searches and zooms (node)" [ $? = 0 ]
  echo "$res" | diag
else
  ok "the page's script runs # SKIP node not installed"
fi
# A large profile: many samples are aggregated into a tree, so the page stays small. Wall
# samples of every thread at 1 ms (with a 50% overhead budget, so that a busy machine does
# not stretch the tick much) give many samples without a short cpu interval, which the
# overload throttle would stretch on these machines.
BIG=$WORK/big.html
run_agent "event=wall,interval=1ms,overhead=50,verbose,file=$BIG" DemoApp 5 >/dev/null
n=$(grep -o 'samples [0-9]* (signals' "$WORK/stderr" | awk '{print $2}')
size=$(stat -c %s "$BIG" 2>/dev/null || echo 0)
figure "large flame graph: $n samples in $size bytes"
check "a profile of >= 15,000 samples gives a page under 2 MB" [ "${n:-0}" -ge 15000 -a "$size" -lt 2000000 ]
if command -v node >/dev/null; then
  res=$(node "$TESTS/flamegraph_check.js" "$BIG" 'primeSieve' 2>&1)
  check "the large page's script runs (node)" [ $? = 0 ]
  echo "$res" | diag
else
  ok "the large page's script runs # SKIP node not installed"
fi

# Two events: each is a root of its own and its own 100% (cpu time and wall ticks are not
# parts of one whole), in the page's shares.
TWO=$WORK/two.html
run_agent "event=cpu,interval=1ms,event=wall,interval=10ms,file=$TWO" DemoApp 1 >/dev/null
check "JVM with two events and file=.html exits 0" [ $? = 0 ]
if command -v node >/dev/null; then
  res=$(node "$TESTS/flamegraph_check.js" "$TWO" 'DemoApp' 2>&1)
  echo "$res" | diag
  check "each event's frame is 100% of itself in the page" \
    bash -c "echo '$res' | grep -q '\[cpu\] 100.00% of \[cpu\]' && echo '$res' | grep -q '\[wall\] 100.00% of \[wall\]'"
else
  ok "each event's frame is 100% of itself # SKIP node not installed"
fi
