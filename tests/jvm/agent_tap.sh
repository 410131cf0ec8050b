# agent_tap.sh - sourced by JVM test scripts (tests/jvm/test_native_*.sh) whose agent prints
# "<PREFIX> ok - ...", "<PREFIX> not ok - ..." and "<PREFIX> # ..." lines. Needs the
# script's tap() and $BUILD.

# jvm_exit_tap RC WORK LOG DONE_LINE: one TAP line for the JVM run: exit status 0, no
# hs_err log in WORK, and the workload's last line DONE_LINE in LOG.
jvm_exit_tap() {
  local rc=$1 work=$2 log=$3 done_line=$4 crash
  crash=$(ls "$work"/hs_err_*.log 2>/dev/null | wc -l)
  if [ "$rc" = 0 ] && [ "$crash" = 0 ] && grep -q "^$done_line" "$log"; then
    tap "ok" "JVM ran the workload with the agent and exited cleanly"
  else
    tap "not ok" "JVM exit status $rc, $crash crash logs (log: ${log#$BUILD/})"; tail -5 "$log" | sed 's/^/# /'
  fi
}

# agent_checks_tap PREFIX LOG MIN: the agent's checks as TAP lines, its "#" lines as they
# are, and one more TAP line saying whether it reported at least MIN checks.
agent_checks_tap() {
  local prefix=$1 log=$2 min=$3 checks=0 line
  while IFS= read -r line; do
    case "$line" in
      "$prefix ok - "*) tap "ok" "${line#"$prefix" ok - }"; checks=$((checks + 1)) ;;
      "$prefix not ok - "*) tap "not ok" "${line#"$prefix" not ok - }"; checks=$((checks + 1)) ;;
      "$prefix # "*) echo "${line#"$prefix" }" ;;
    esac
  done < <(grep "^$prefix " "$log")
  [ "$checks" -ge "$min" ] && tap "ok" "the agent reported its checks" ||
    tap "not ok" "the agent reported its checks ($checks of $min)"
}
