# test_loop.sh BUILD_DIR - loop=2s over a ~13 s workload (LOOP_TEST_PERIOD=1 makes it
# loop=1s over ~7 s, as the quick tier runs it: docs/testing.md): at least 6 complete files of each
# format asked (.pb.gz, .collapsed, .txt, .jfr; named by the period's start), each readable
# alone; the samples across the files add up to the profiler's own total exactly (every
# sample in one file, none in two); no temporary file is left. asgst-attach starts a loop
# on a running JVM alike.
source "$(dirname "$0")/lib.sh" "$1"
source "$TESTS/pprof_lib.sh"
echo "1..11"
compile || { echo "Bail out! javac failed"; exit 1; }
FORMATS=(pb.gz collapsed txt jfr)
PERIOD=${LOOP_TEST_PERIOD:-2}
APP_SECS=$(((PERIOD * 13 + 1) / 2)) # six and a half periods: 6 whole files and a margin
D=$WORK/loop
mkdir -p "$D"
files=""
for f in "${FORMATS[@]}"; do files="$files,file=$D/prof.$f"; done
run_agent "event=cpu,interval=1ms,verbose,loop=${PERIOD}s$files" DemoApp "$APP_SECS" >/dev/null
check "JVM with loop=${PERIOD}s exits 0" [ $? = 0 ]
for f in "${FORMATS[@]}"; do
  n=$(ls "$D" | grep -cE "^prof-[0-9]{8}T[0-9]{6}Z\.$f\$")
  figure "loop=${PERIOD}s for ~$APP_SECS s: $n .$f files"
  check ">= 6 .$f files named prof-yyyymmddThhmmssZ.$f ($n)" [ "$n" -ge 6 ]
done
check "no temporary file left" bash -c "! ls -A '$D' | grep -q '\.tmp$'"

# Every file alone: pprof reads each; each .txt has its hot list; each .collapsed is folded.
own=$(sed -n 's/^  cpu  *samples \([0-9]*\).*/\1/p' "$WORK/stderr" | tail -1)
sum_pb=0 sum_txt=0 unread=0 bad=0
for p in "$D"/prof-*.pb.gz; do
  base=${p%.pb.gz}
  n=$(pprof_total "$p" samples)
  [ -n "$n" ] || { unread=$((unread + 1)); continue; }
  sum_pb=$((sum_pb + n))
  t=$(sed -n 's/^hottest frames (self samples of \([0-9]*\).*/\1/p' "$base.txt")
  sum_txt=$((sum_txt + ${t:-0}))
  # The .collapsed leaves out samples without frames; pprof has them as "[no frames]".
  nf=$(pprof -top -nodecount=1000 -nodefraction=0 -sample_index=samples "$p" | awk '/ \[no frames\]$/ {print $1}')
  c=$(samples_total "$base.collapsed")
  j=$("$JAVA_HOME/bin/jfr" summary "$base.jfr" 2>/dev/null | awk '$1 == "jdk.ExecutionSample" {print $2}')
  [ "$t" = "$n" ] && [ $((c + ${nf:-0})) = "$n" ] && [ "${j:-0}" = "$n" ] || bad=$((bad + 1))
  echo "$(basename "$base"): pprof $n, txt $t, collapsed $c + ${nf:-0} without frames, jfr ${j:-none}" | diag
done
check "go tool pprof reads every .pb.gz alone ($unread unread)" [ "$unread" = 0 ]
check "each period's .pb.gz, .txt, .collapsed and .jfr (jfr summary) count the same samples ($bad differ)" [ "$bad" = 0 ]
figure "samples: profiler $own, sum over the .pb.gz files $sum_pb, over the .txt $sum_txt"
check "the files' samples add up to the profiler's total ($own), exactly" \
  bash -c "[ -n '$own' ] && [ '$sum_pb' = '$own' ] && [ '$sum_txt' = '$own' ]"

# asgst-attach: a loop started on a running JVM, with a %n pattern.
"$JAVA" -cp "$CLASSES" LongRunner 30 >/dev/null 2>&1 &
JVM=$!
trap 'kill -9 $JVM 2>/dev/null; wait $JVM 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do grep -q libjvm.so "/proc/$JVM/maps" 2>/dev/null && break; sleep 0.1; done
sleep 0.5
A=$WORK/attach
mkdir -p "$A"
"$ATTACH" $JVM "start,event=cpu,interval=1ms,loop=1s,file=$A/p-%n.pb.gz" >"$WORK/a1" 2>&1
check "asgst-attach starts a loop=1s" [ $? = 0 ]
sleep 3.5
"$ATTACH" $JVM stop >"$WORK/a2" 2>&1
n=$(ls "$A" | grep -cE '^p-[0-9]+\.pb\.gz$')
figure "attach, loop=1s for 3.5 s: $n files"
check ">= 3 files p-0.pb.gz, p-1.pb.gz, ... and go tool pprof reads p-0 and p-2" \
  bash -c "[ $n -ge 3 ] && go tool pprof -top '$A/p-0.pb.gz' >/dev/null 2>&1 && go tool pprof -top '$A/p-2.pb.gz' >/dev/null 2>&1"
