# test_perf_events.sh BUILD_DIR - perf events by name (sampling/perf_names.c), attributed
# to Java frames as cpu samples are, the event named in every output:
#   page-faults: a method that allocates fresh memory (arrays in a young generation the
#     process never touched) holds most samples;
#   context-switches: a method that sleeps 1 ms at a time holds most samples, one each
#     10 switches (the default; each sample adds a switch of its own: perf_names.c);
#   cpu-migrations: the run works and the event is named (2 cores migrate few threads:
#     samples are not asserted);
#   cycles: no hardware counters here: one clear line, the run goes on with the other
#     event; alone it is an error naming it.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..14"
compile || { echo "Bail out! javac failed"; exit 1; }

# The event's own line of the summary: "  NAME   samples N (...", then "kernel counted K".
samples_of() { sed -n "s/^  $1 *samples \([0-9]*\) .*/\1/p" "$WORK/stderr" | head -1; }
kernel_of() { grep -A1 "^  $1 " "$WORK/stderr" | sed -n 's/.*kernel counted \([0-9]*\) events.*/\1/p'; }

# page-faults, every 100th: 300 MB of fresh arrays are some 75,000 faults.
O=$WORK/pf
run_agent "event=page-faults,interval=100,verbose,file=$O.collapsed,file=$O.html,file=$O.pb.gz,file=$O.jfr" \
  -XX:+UseSerialGC -Xms700m -Xmn500m PerfWork faults 300
check "page-faults: JVM exits 0" [ $? = 0 ]
total=$(samples_total "$O.collapsed")
fresh=$(samples_with "$O.collapsed" 'PerfWork\.allocateFresh')
figure "page-faults every 100: $total samples, $fresh in allocateFresh, kernel counted $(kernel_of page-faults) faults"
check "page-faults: at least 200 samples, >= 80% in allocateFresh" \
  [ "$total" -ge 200 -a $((fresh * 100)) -ge $((total * 80)) ]
check "page-faults: named in the summary and the HTML title" \
  bash -c "[ -n '$(samples_of page-faults)' ] && grep -q '<title>asgst-prof: page-faults' '$O.html'"
pp=$(gzip -dc "$O.pb.gz" 2>/dev/null | strings | grep -c '^page-faults')
check "page-faults: named in the pprof sample types" [ "$pp" -ge 1 ]
check "page-faults: named in the JFR's events (asgst.PerfEventSample)" \
  bash -c "strings '$O.jfr' | grep -q asgst.PerfEventSample && strings '$O.jfr' | grep -q '^page-faults'"
if "$JAVA_HOME/bin/jfr" --help >/dev/null 2>&1; then
  n=$("$JAVA_HOME/bin/jfr" print --events asgst.PerfEventSample "$O.jfr" 2>/dev/null | grep -c 'name = "page-faults"')
  figure "jfr print: $n asgst.PerfEventSample events named page-faults"
  # Within 5%: on JDK 8 the JVM's exit sometimes adds a few samples after the earlier
  # files were written.
  check "page-faults: the JDK's jfr reads one event per sample ($n for $total)" \
    [ $((n * 100)) -ge $((total * 95)) -a $((n * 100)) -le $((total * 105)) ]
else
  skip "page-faults: the JDK's jfr reads one event per sample" "JDK $(jdk_feature) has no jfr tool"
fi

# context-switches at the default (every 10th): ~1000 sleeps of 1 ms.
run_agent "event=context-switches,verbose,file=$WORK/cs.collapsed" PerfWork switches 1000
check "context-switches: JVM exits 0" [ $? = 0 ]
total=$(samples_total "$WORK/cs.collapsed")
sleepy=$(samples_with "$WORK/cs.collapsed" 'PerfWork\.sleepOften')
k=$(kernel_of context-switches)
figure "context-switches every 10: $total samples, $sleepy in sleepOften, kernel counted $k switches"
check "context-switches: at least 50 samples, >= 80% in sleepOften" \
  [ "$total" -ge 50 -a $((sleepy * 100)) -ge $((total * 80)) ]
# Each sample adds one switch: the kernel's count is about the program's ~1000 plus the
# samples; at interval 1 it would run away (tens of thousands).
check "context-switches: no runaway (kernel counted ${k:-?} <= 3000)" [ "${k:-99999}" -le 3000 ]

# cpu-migrations: named, the run works.
run_agent "event=cpu-migrations,verbose,file=$WORK/mig.html" PerfWork migrate 1000
check "cpu-migrations: JVM exits 0" [ $? = 0 ]
m=$(samples_of cpu-migrations)
figure "cpu-migrations: ${m:-?} samples, kernel counted $(kernel_of cpu-migrations)"
check "cpu-migrations: named in the summary and the HTML title" \
  bash -c "[ -n '$m' ] && grep -q '<title>asgst-prof: cpu-migrations' '$WORK/mig.html'"

# cycles: no PMU on these machines. With another event the run goes on; alone, an error.
if grep -q . /sys/bus/event_source/devices/cpu/events/cpu-cycles 2>/dev/null; then
  for i in 1 2 3; do skip "cycles not available" "this machine has a hardware PMU"; done
else
  run_agent "event=cycles,event=page-faults,verbose,file=$WORK/cy.collapsed" PerfWork faults 50
  rc=$?
  grep 'event=cycles' "$WORK/stderr" | diag
  check "cycles beside page-faults: JVM exits 0 (rc $rc)" [ $rc = 0 ]
  check "cycles: exactly one line says it is not available, the run goes on" \
    bash -c "[ \$(grep -c 'event=cycles: not available here.*profiling without it' '$WORK/stderr') = 1 ] && [ -n '$(samples_of page-faults)' ]"
  run_agent "event=cycles" PerfWork faults 10 >"$WORK/out"
  rc=$?
  check "cycles alone: the JVM does not start (rc $rc), the error names it" \
    bash -c "[ $rc != 0 ] && grep -q 'event=cycles: not available here' '$WORK/stderr'"
fi
