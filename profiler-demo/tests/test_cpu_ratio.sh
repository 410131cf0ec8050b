# test_cpu_ratio.sh BUILD_DIR - CPU sampling: threeParts does about 3x the work of onePart;
# the ratio of their samples must match the ratio of the CPU time each call got (the
# workload measures it around each call) within 10%. Also checks the sample count against the
# CPU time the kernel counted (perf cpu-clock at 1 ms) and the CPU-timer fallback. And the
# summary the terminal shows (stderr, without the option verbose): each event's hottest
# methods, Ratio's first; the events without samples named on one line.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..7"
compile || { echo "Bail out! javac failed"; exit 1; }
OUTF=$WORK/cpu.collapsed
run_agent "event=cpu,interval=1ms,file=$OUTF" Ratio 3 >/dev/null
check "JVM with event=cpu exits 0" [ $? = 0 ]
three=$(samples_with "$OUTF" 'Ratio\.threeParts')
one=$(samples_with "$OUTF" 'Ratio\.onePart')
ratio=$(awk -v a="$three" -v b="$one" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "inf" }')
# The oracle is the CPU each part got, not 3: C2 compiles the loop into each caller on its
# own, and one CI run measured 2.69 where the two compiled bodies ran at different speeds.
# Each call spans many 1 ms periods (Ratio.java says why): when onePart lasted about one
# period, 1 run in 10-15 beside busy loops was 10-20% off, in either direction, with any JIT
# setting. Not a walk or delivery fault: a perfect sampler run over the calls' own recorded
# CPU intervals gave the same counts (within 1-4 samples) at some phase, and 8-19% off
# ratios at others.
read -r three_ms one_ms < <(sed -n 's/^ratio_parts_cpu_ms //p' "$WORK/stderr")
calls=$(sed -n 's/^ratio_parts_calls //p' "$WORK/stderr")
want=$(awk -v a="${three_ms:-0}" -v b="${one_ms:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "inf" }')
figure "cpu: threeParts $three samples, onePart $one samples, ratio $ratio; their CPU ${three_ms:-?} ms and ${one_ms:-?} ms over ${calls:-?} calls each, ratio $want"
# ASGST_TEST_QEMU=1 (arm64 under qemu-user, tests/aarch64/run_suite.sh): about one SIGPROF in
# five arrives there, so the ratio rests on ~700 samples instead of ~3,000, and qemu
# delivers signals only between the blocks of code it translated, which shifts where they
# land (3.08 to 3.68 seen against 3): within 30%.
tol=10
[ "${ASGST_TEST_QEMU:-0}" = 1 ] && tol=30
check "threeParts:onePart samples match their CPU time's ratio within $tol%" \
  awk -v r="$ratio" -v w="$want" -v t="$tol" 'BEGIN { exit !(r != "inf" && w != "inf" && w > 1.5 && r >= w * (1 - t / 100) && r <= w * (1 + t / 100)) }'
# The terminal's summary: "cpu: N samples, one per 1 ms of CPU (the kernel counted S s of
# CPU ...)", then the hottest methods, "  hottest methods (...):" and a line each.
line=$(grep -m1 '^cpu: ' "$WORK/stderr")
samples=$(echo "$line" | sed -n 's/^cpu: \([0-9]*\) samples.*/\1/p')
expected=$(echo "$line" | sed -n 's/.*the kernel counted \([0-9.]*\) s of CPU.*/\1/p' | awk '{ printf "%d", $1 * 1000 }')
# Samples the option overhead left out on purpose ("; N left out to keep sampling under
# 10% ..."): the timer delivered them, the profiler chose not to keep them. A loaded
# machine makes each sample dearer (cold caches), so the cap leaves more out: 55 of 1,943
# on JDK 8 with a busy loop and another busy JVM beside the run, which put the kept ones
# 5.2% under the kernel's count.
capped=$(echo "$line" | sed -n 's/.*; \([0-9]*\) left out to keep sampling under.*/\1/p')
figure "cpu: $samples samples (and ${capped:-0} left out by the overhead cap), kernel-counted CPU time gives $expected"
first=$(sed -n '/^cpu: /,/^[^ ]/{/^  hottest methods/{n;p;q}}' "$WORK/stderr" | awk '{print $3}')
sed -n '/^cpu: /,/^[^ ]/p' "$WORK/stderr" | head -5 | diag
check "the summary on stderr lists cpu's hottest methods, Ratio's loop (or threeParts, into which it may be inlined) first" \
  bash -c "[ '$first' = Ratio.loop ] || [ '$first' = Ratio.threeParts ]"
# SIGPROF is pending at most once per thread: a sample that comes while the previous one is
# still pending (a long kernel path, a busy machine) is lost and counted in the summary.
# Under qemu-user (ASGST_TEST_QEMU=1) there is no perf cpu-clock to count against.
if [ "${ASGST_TEST_QEMU:-0}" = 1 ]; then
  skip "one sample per 1 ms of CPU" "qemu-user has no perf events to count the CPU time with"
else
  # The floor is on the CPU the run got, not on a share of its 3 s: beside two busy loops
  # the JVM got 937 ms and its samples matched them (934), but a floor of 1,000 failed it.
  check "one sample per 1 ms of CPU (within 5%, those the overhead cap left out counted)" \
    awk -v s="$((${samples:-0} + ${capped:-0}))" -v e="${expected:-0}" 'BEGIN { exit !(e > 400 && s >= e * 0.95 && s <= e * 1.02) }'
fi
# Two tracepoints Ratio never calls (no samples) beside the timer, for the summary's line
# of events without samples; qemu-user has no tracepoints.
idle=",event=syscalls:sys_enter_inotify_init1,event=syscalls:sys_enter_fanotify_init"
[ "${ASGST_TEST_QEMU:-0}" = 1 ] && idle=
run_agent "event=cputimer,interval=10ms$idle,file=$WORK/timer.collapsed" Ratio 1 >/dev/null
check "JVM with the CPU-timer fallback exits 0" [ $? = 0 ]
n=$(samples_total "$WORK/timer.collapsed")
cpu=$(sed -n 's/^ratio_cpu_ms //p' "$WORK/stderr")
figure "cputimer at 10 ms: $n samples for ${cpu:-?} ms of the main thread's CPU"
# The timer counts CPU time, which a busy machine gives out slowly: compare with what the
# thread got (the kernel checks CPU timers at its 4 ms tick). Under qemu-user
# (ASGST_TEST_QEMU=1) some CPU-timer signals are lost (64-73% arrived there): >= 50%.
pct=70
[ "${ASGST_TEST_QEMU:-0}" = 1 ] && pct=50
check "the CPU timer delivers a sample per 10 ms of CPU (>= $pct%, and >= 20)" \
  [ "$n" -ge 20 -a "$((n * 10 * 100))" -ge "$((${cpu:-0} * pct))" ]
if [ -n "$idle" ]; then
  grep -E '^(no samples|  syscalls)' "$WORK/stderr" | diag
  check "the events without samples are one line of the summary, not a line each" \
    bash -c "grep -qx 'no samples (2 events): syscalls:sys_enter_inotify_init1, syscalls:sys_enter_fanotify_init' '$WORK/stderr' && [ \$(grep -c 'sys_enter_inotify_init1' '$WORK/stderr') = 1 ]"
else
  skip "the events without samples are one line of the summary" "qemu-user has no tracepoints to leave without samples"
fi
