# test_folded.sh BUILD_DIR - .collapsed is FlameGraph's folded format (frames root first,
# ';'-separated, no spaces, one count) with async-profiler's frame-type suffixes, and the
# .txt hot list merges the frame types of one method into one line with a breakdown.
source "$(dirname "$0")/lib.sh" "$1"
echo "1..6"
compile || { echo "Bail out! javac failed"; exit 1; }
F=$WORK/p.collapsed T=$WORK/p.txt
run_agent "event=cpu,interval=1ms,file=$F,file=$T" DemoApp 1.5 >/dev/null
check "JVM exits 0" [ $? = 0 ]
check "every line is 'frame;frame;... count' (no space in a frame, count > 0)" \
  bash -c "[ -s '$F' ] && ! grep -vqE '^[^ ;]+(;[^ ;]+)* [1-9][0-9]*$' '$F'"
check "Java frames carry _[0] / _[1] / _[j] / _[i] suffixes; DemoApp.hashLoop_[j] is there" \
  bash -c "grep -q 'DemoApp.hashLoop_\[j\]' '$F' && grep -q '_\[0\]' '$F' && ! grep -qE 'DemoApp\.[a-zA-Z]+(;| )' '$F'"
check "identical stacks are one line (no duplicate paths)" \
  bash -c "[ \$(awk '{print \$1}' '$F' | sort | uniq -d | wc -l) = 0 ]"
sed -n '/^hottest frames/,$p' "$T" | head -8 | diag
check "the hot list names each method once" \
  bash -c "[ \$(sed -n '/^hottest frames/,\$p' '$T' | tail -n +2 | awk '{print \$3}' | sort | uniq -d | wc -l) = 0 ]"
check "DemoApp.hashLoop's line gives its frame types (e.g. '(620 C2, 7 C1, 2 interpreted)')" \
  grep -Eq '^ +[0-9]+ +[0-9.]+%  DemoApp\.hashLoop( \([0-9]+ (C2|C1|interpreted|inlined)(, [0-9]+ [A-Za-z0-9]+)*\))?$' "$T"
