# test_html.sh BUILD_DIR - the HTML flame graph is one self-contained file: no http(s)
# reference anywhere, and it holds the expected frame names.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..5"
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
