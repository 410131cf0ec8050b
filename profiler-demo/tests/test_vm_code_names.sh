# test_vm_code_names.sh BUILD_DIR - with cstack, C frames in VM code (stubs, adapters,
# runtime blobs: in no library, so without an ELF symbol) are named from their code blob,
# taken at sample time (ASGST_GetCodeBlobName): "[stub] <the VM's name for the blob>". The
# call stub, through which C code of the VM calls every thread's first Java frame, must
# show as its "StubRoutines" blob right under Java frames, and no frame right under a
# Java frame may be left as a bare address ([0x...]).
source "$(dirname "$0")/lib.sh" "$1"
echo "1..4"
compile || { echo "Bail out! javac failed"; exit 1; }
F=$WORK/p.collapsed
run_agent "event=cpu,interval=1ms,cstack,file=$F" DemoApp 1.5 >/dev/null
check "JVM exits 0" [ $? = 0 ]
# Frames are root first: a C frame's callee follows it. Java frames end in _[0], _[1],
# _[j] or _[i] (async-profiler's suffixes).
JAVA='[^;]*_\[[01ji]\]'
stub=$(samples_with "$F" "\[stub\]_StubRoutines[^;]*;$JAVA")
bare=$(samples_with "$F" "\[0x[0-9a-f]+\];$JAVA")
names=$(grep -o '\[stub\][^; ]*' "$F" | sort -u | head -12 | tr '\n' ' ')
figure "samples $(samples_total "$F"); with the call stub named under Java frames $stub;" \
  "with a bare address under Java frames $bare; blob names: $names"
check "the call stub shows as its StubRoutines blob right under Java frames ($stub samples)" \
  [ "$stub" -gt 0 ]
# A walk that lost its way below a Java frame (a sender's pc in no code: seen once in
# 13,000 samples) must end with an error, never show a bare address there.
grep -E "\[0x[0-9a-f]+\];$JAVA" "$F" | head -3 | diag
bad=$(samples_with "$F" "\[truncated:.ASGST_BAD_FRAME\]")
figure "walks ended by ASGST_BAD_FRAME: $bad of $(samples_total "$F")"
check "no C frame right under a Java frame is a bare address ($bare samples)" [ "$bare" = 0 ]
check "every [stub] frame has a name" bash -c "! grep -qE '\[stub\]_(\?|;| )' '$F'"
