# test_all_threads.sh BUILD_DIR - cpu sampling covers every thread of the process
# (cputhreads=all, the default): on a workload that keeps the JIT compilers and the GC busy
# (JitGcBusy) and starts, half a second in, a native thread the JVM never hears of
# (tests/tools/native_spin.c), the compiler threads' samples come under a root frame
# naming their kind with their C frames named, the GC's too, the native thread is found
# by the scan and named with its C function; the samples stand for the process's CPU as
# the kernel counts it within 5%; the profiler's own threads' CPU is its own line; and
# cputhreads=java leaves every other thread out.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..9"
compile || { echo "Bail out! javac failed"; exit 1; }
SPIN=$BUILD/tests/tools/libnative_spin.so
OUT=$WORK/all.collapsed
SECS=${ALL_THREADS_SECONDS:-3}
jvm -Xmx64m -Dspin.lib="$SPIN" -agentpath:"$AGENT=event=cpu,interval=1ms,verbose,file=$OUT" \
  -cp "$CLASSES" JitGcBusy "$SECS" >/dev/null 2>"$WORK/stderr"
check "JVM with every thread sampled exits 0" [ $? = 0 ]
cp "$WORK/stderr" "$WORK/all.err"
roots() { cut -d';' -f1 "$1" | awk '/^\[/ {n[$1]++} END {for (r in n) printf "%s ", r}'; }
figure "roots: $(roots "$OUT")"

# Compiler threads: "[C1_CompilerThread*]" / "[C2_CompilerThread*]" (folded: the collapsed
# format writes spaces as underscores).
comp=$(samples_with "$OUT" '^\[C[12]_CompilerThread\*\];')
gc=$(samples_with "$OUT" '^\[(GC|G1|Parallel)[^;]*\];')
java=$(samples_with "$OUT" '^java\.lang\.Thread\.run|^JitGcBusy')
total=$(samples_total "$OUT")
figure "samples: total $total, compiler threads $comp, GC threads $gc, Java threads $java"
check "compiler threads sampled under a [C1/C2 CompilerThread*] root" [ "$comp" -gt 0 ]
check "GC threads sampled under a GC root" [ "$gc" -gt 0 ]

# C frames named: with a symbol table, the compiler's own functions (CompileBroker::...,
# C2Compiler::..., Compilation::...); JDK 8's libjvm.so has none (stripped, no debug file
# here), so its frames are "libjvm.so+0x...".
LIBJVM=$(find "$JAVA_HOME/" -name libjvm.so | head -1)
if readelf -S "$LIBJVM" 2>/dev/null | grep -q '\.symtab'; then
  named=$(samples_with "$OUT" '^\[C[12]_CompilerThread\*\];.*Compile')
  check "compiler threads' C frames named (a frame matching Compile: $named samples)" [ "$named" -gt 0 ]
else
  named=$(samples_with "$OUT" '^\[C[12]_CompilerThread\*\];.*libjvm\.so\+0x')
  check "compiler threads' C frames named by library and offset (libjvm.so has no symbol table: $named samples)" [ "$named" -gt 0 ]
fi

# The native thread, started after profiling began: found by the scan, under its folded
# name, its C function named.
spin=$(samples_with "$OUT" '^\[native-spin-\*\];.*spin_work')
figure "native thread started after the start: $spin samples in spin_work"
check "a native thread started after the start is sampled under [native-spin-*] in spin_work" \
  [ "$spin" -gt 0 ]

# The total: the summary's figure against the process's CPU (the kernel's utime+stime over
# the run), less the profiler's own threads (not sampled, reported on their own line).
line=$(grep -m1 ') stand for .* of CPU' "$WORK/all.err")
share=$(sed -n 's/.*, \([0-9.]*\)% of it without the profiler.s own threads.*/\1/p' <<<"$line")
figure "cpu:$(sed 's/^ *cpu *//' <<<"$line")"
own=$(grep -m1 "^profiler's own threads:" "$WORK/all.err")
figure "$own"
check "samples stand for the process's CPU less the profiler's own threads within 5% (${share:-?}%)" \
  awk -v s="${share:-0}" 'BEGIN { exit !(s >= 95 && s <= 105) }'
check "the profiler's own threads' CPU has its line" grep -qE "^profiler's own threads: [0-9]+ ms" "$WORK/all.err"

# cputhreads=java: Java threads only, said so.
OUTJ=$WORK/java.collapsed
jvm -Xmx64m -Dspin.lib="$SPIN" -agentpath:"$AGENT=event=cpu,interval=5ms,cputhreads=java,verbose,file=$OUTJ" \
  -cp "$CLASSES" JitGcBusy 1 >/dev/null 2>"$WORK/stderr"
check "JVM with cputhreads=java exits 0" [ $? = 0 ]
others=$(samples_with "$OUTJ" '^\[(C[12]_|GC|G1|VM|native-spin)')
jtotal=$(samples_total "$OUTJ")
figure "cputhreads=java: $jtotal samples, $others of other threads; roots: $(roots "$OUTJ")"
check "cputhreads=java samples no compiler, GC, VM or native thread, and says so" \
  bash -c "[ '$others' = 0 ] && [ '$jtotal' -gt 0 ] && grep -q 'Java threads only (cputhreads=java)' '$WORK/stderr'"
