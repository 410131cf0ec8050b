# test_kernel_frames.sh BUILD_DIR - kernel frames on top of the Java stack
# (sampling/kernel_chain.c, symbols/kallsyms.c): a cpu profile of a Java loop that writes
# and reads a file shows the kernel's read and write paths (ksys_write, vfs_write, ...
# named from /proc/kallsyms, marked _[k]) above its Java frames, in every output; a
# sample's kernel frames are all above its Java ones; kernel=off leaves them out and says
# so; context-switch samples carry the scheduler's path, a tracepoint's samples
# (sched:sched_process_fork) the kernel's thread creation above Thread.start. Root here:
# it must run, not skip.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..12"
compile || { echo "Bail out! javac failed"; exit 1; }
KPATH='(ksys_write|vfs_write|__x64_sys_write|ksys_read|vfs_read|__x64_sys_read|ksys_pwrite64|ksys_pread64)_\[k\]'

O=$WORK/k
run_agent "event=cpu,interval=1ms,verbose,file=$O.collapsed,file=$O.html,file=$O.pb.gz,file=$O.jfr" \
  PerfWork syscalls 1500
check "cpu with kernel frames: JVM exits 0" [ $? = 0 ]
line=$(grep '^kernel frames:' "$WORK/stderr")
echo "$line" | diag
total=$(samples_total "$O.collapsed")
kern=$(samples_with "$O.collapsed" '_\[k\]')
path=$(samples_with "$O.collapsed" "PerfWork\.writeFile.*;$KPATH")
figure "cpu 1ms, file writes and reads: $total samples, $kern with kernel frames ($((kern * 100 / (total > 0 ? total : 1)))%), $path in the read/write path under writeFile"
check "the summary counts samples with kernel frames" \
  bash -c "echo '$line' | grep -Eq '^kernel frames: [1-9][0-9]* of [0-9]+ cpu'"
check "at least 20% of samples carry kernel frames" [ $((kern * 100)) -ge $((total * 20)) ]
check "the kernel's read/write path lies above writeFile in at least 10% of samples" \
  [ $((path * 100)) -ge $((total * 10)) ]
# Root first: once a line has a kernel frame, every frame after it is a kernel frame.
bad=$(awk '{ n = split($1, f, ";"); k = 0; for (i = 1; i <= n; i++) {
         if (f[i] ~ /_\[k\]$/) k = 1; else if (k) { print; break } } }' "$O.collapsed" | wc -l)
check "kernel frames are only on top of the stack ($bad lines otherwise)" [ "$bad" = 0 ]
check "kernel frames in the HTML, pprof and JFR outputs" bash -c "
  grep -Eq '\"(ksys_write|vfs_write|ksys_read|vfs_read)_\[k\]\"' '$O.html' &&
  gzip -dc '$O.pb.gz' | strings | grep -q 'kernel.kallsyms' &&
  strings '$O.jfr' | grep -Eq '^(ksys_write|vfs_write|ksys_read|vfs_read)_\[k\]'"

run_agent "event=cpu,interval=1ms,kernel=off,verbose,file=$WORK/off.collapsed" PerfWork syscalls 500
check "kernel=off: JVM exits 0" [ $? = 0 ]
check "kernel=off: no kernel frames, one summary line says so" bash -c "
  ! grep -q '_\[k\]' '$WORK/off.collapsed' && [ -s '$WORK/off.collapsed' ] &&
  [ \$(grep -c '^kernel frames: none (off (kernel=off))' '$WORK/stderr') = 1 ]"

run_agent "event=context-switches,verbose,file=$WORK/cs.collapsed" PerfWork switches 500
check "context-switches with kernel frames: JVM exits 0" [ $? = 0 ]
total=$(samples_total "$WORK/cs.collapsed")
sched=$(samples_with "$WORK/cs.collapsed" 'PerfWork\.sleepOften.*;schedule_\[k\]')
figure "context-switches: $total samples, $sched with schedule_[k] above sleepOften"
check "context-switch samples: >= 80% show the scheduler above sleepOften" \
  [ "$total" -gt 0 -a $((sched * 100)) -ge $((total * 80)) ]

run_agent "event=sched:sched_process_fork,verbose,file=$WORK/fork.collapsed" PerfWork migrate 100
check "sched:sched_process_fork with kernel frames: JVM exits 0" [ $? = 0 ]
total=$(samples_with "$WORK/fork.collapsed" 'PerfWork\.migrate')
clone=$(samples_with "$WORK/fork.collapsed" 'PerfWork\.migrate.*Thread\.start.*;kernel_clone_\[k\]')
figure "sched_process_fork: $total samples under PerfWork.migrate, $clone with kernel_clone_[k] above Thread.start"
check "the three threads' starts show kernel_clone_[k] above Thread.start" [ "$total" = 3 -a "$clone" = 3 ]
