# test_wall.sh BUILD_DIR - wall-clock sampling: a sleeping thread and a spinning thread
# both get their share of samples (one per interval each, whatever they do).
source "$(dirname "$0")/lib.sh" "$1"
echo "1..5"
compile || { echo "Bail out! javac failed"; exit 1; }
OUTF=$WORK/wall.collapsed
SECS=2
run_agent "event=wall,interval=10ms,threads,file=$OUTF" WallThreads $SECS
check "JVM with event=wall exits 0" [ $? = 0 ]
sleeper=$(samples_with "$OUTF" '^\[sleeper.tid=')
spinner=$(samples_with "$OUTF" '^\[spinner.tid=')
figure "wall at 10 ms over ${SECS}s: sleeper thread $sleeper samples, spinner thread $spinner (about 200 each expected)"
check "the sleeping thread gets its share (>= 60% of 200)" [ "$sleeper" -ge 120 ]
check "the spinning thread gets its share (>= 60% of 200)" [ "$spinner" -ge 120 ]
s=$(samples_with "$OUTF" 'WallThreads\.sleepALot')
check "sleeper samples are in WallThreads.sleepALot" [ "$s" -ge 120 ]
# The main thread (it waits for the two) by its Java name, also after main returned, when
# the launcher renames it DestroyJavaVM.
main=$(samples_with "$OUTF" '^\[main.tid=')
destroy=$(samples_with "$OUTF" '^\[DestroyJavaVM.tid=')
figure "main thread: $main samples as 'main', $destroy as 'DestroyJavaVM'"
check "the main thread is named main ($main samples), never DestroyJavaVM ($destroy)" [ "$main" -gt 0 -a "$destroy" = 0 ]
