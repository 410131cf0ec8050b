# shellcheck shell=bash
# budget.sh - sourced by the benchmark scripts: the verdict lines of the budgets
# (docs/budgets.md) and what they need to know about a JDK.
#   budget PASS WHAT [FIGURE] one line per budget and release: "ok - WHAT (FIGURE)" or
#                             "not ok - WHAT (FIGURE)"; on a JDK newer than the newest tested
#                             (BENCH_UNTESTED=1) the same words after "# ", marked
#                             "(untested JDK, not budgeted)", so that no tally counts them.
#   PASS is 1 or 0; FIGURE reads "<figure> vs <budget>", or "no figure: <why>" with PASS 0.
# The bench is not a test: a budget missed prints "not ok" and the scripts go on (exit 0).

# The newest feature version the library is tested on (impl/hotspot/model/vm_model.c, tested[];
# tests/run_all.sh has the same number). Newer JDKs run only with ASGST_TEST_UNTESTED_JDK=1.
NEWEST_TESTED=27

# jdk_major JAVA_HOME: the feature version (8 for 1.8.0_x), from the release file.
jdk_major() {
  "$(dirname "${BASH_SOURCE[0]}")/../jdks/feature.sh" "$1"
}

# jdk_untested JAVA_HOME: true for a JDK newer than NEWEST_TESTED.
jdk_untested() {
  local v
  v=$(jdk_major "$1")
  [ "${v:-0}" -gt "$NEWEST_TESTED" ] 2>/dev/null
}

# budget PASS WHAT [FIGURE]
budget() {
  local verdict="not ok" line
  [ "$1" = 1 ] && verdict=ok
  line="$verdict - $2${3:+ ($3)}"
  if [ "${BENCH_UNTESTED:-0}" = 1 ]; then echo "# $line (untested JDK, not budgeted)"; else echo "$line"; fi
}

# le A B: true if the number A <= B (awk: the figures are decimals).
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
# lt A B: true if A < B.
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# median N...: the median of the numbers given (the lower middle one of an even count), empty
# if none.
median() { printf '%s\n' "$@" | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
# field NAME LINE: the value of NAME=value in LINE, empty if absent.
field() { sed -n "s/.*[ :]$1=\\([^ ]*\\).*/\\1/p" <<<"$2" | head -1; }

# init_failure JAVA_HOME WALK_AGENT: empty if ASGST_Initialize succeeds in that JDK (a JVM
# with the walk test agent running -version), else the agent's reason.
init_failure() {
  local out
  out=$("$1/bin/java" "-agentpath:$2=label=probe" -version 2>&1)
  sed -n 's/^WALK not ok - ASGST_Initialize: //p' <<<"$out" | head -1
  grep -q 'java version\|openjdk version' <<<"$out" || echo "the JVM did not start: $(tail -1 <<<"$out")"
}
