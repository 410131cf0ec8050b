#!/usr/bin/env python3
"""sched_watch.py PID [PERIOD_MS] - watches the scheduling of every thread of a process.

Every PERIOD_MS (default 10) it reads each thread's policy, real-time priority and nice
value (/proc/PID/task/TID/stat) and its CPU affinity (.../status, Cpus_allowed_list), until
the process ends. It prints one summary line and a line per change:

  SCHED # samples=N threads=M changed=K realtime_seen=R
  SCHED change tid=T comm=C policy 0->1 ...
  SCHED realtime tid=T comm=C policy=1 prio=1 (first seen at sample S)

"changed" counts threads whose policy, priority, nice value or affinity differed between
two of their samples; "realtime_seen" threads seen under SCHED_FIFO or SCHED_RR at least
once. A thread already raised at its first sample is caught by the second count.
"""
import os
import sys
import time

POLICIES = {0: "OTHER", 1: "FIFO", 2: "RR", 3: "BATCH", 5: "IDLE", 6: "DEADLINE"}


def read_thread(pid, tid):
    """(comm, policy, rt_priority, nice, affinity) of one thread, None if it has ended."""
    base = f"/proc/{pid}/task/{tid}"
    try:
        with open(f"{base}/stat") as f:
            stat = f.read()
        with open(f"{base}/status") as f:
            status = f.read()
    except OSError:
        return None
    comm = stat[stat.index("(") + 1:stat.rindex(")")]
    # Fields after the command name start at field 3 (state); see proc(5).
    rest = stat[stat.rindex(")") + 2:].split()
    nice, rt_prio, policy = int(rest[19 - 3]), int(rest[40 - 3]), int(rest[41 - 3])
    affinity = ""
    for line in status.splitlines():
        if line.startswith("Cpus_allowed_list:"):
            affinity = line.split(":", 1)[1].strip()
    return comm, policy, rt_prio, nice, affinity


def main():
    pid = int(sys.argv[1])
    period = (int(sys.argv[2]) if len(sys.argv) > 2 else 10) / 1000.0
    first = {}
    changed = {}
    realtime = {}
    samples = 0
    while os.path.exists(f"/proc/{pid}/task"):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            break
        samples += 1
        for tid in tids:
            now = read_thread(pid, tid)
            if now is None:
                continue
            comm, policy, prio, nice, aff = now
            if policy in (1, 2) and tid not in realtime:
                realtime[tid] = (comm, policy, prio, samples)
            was = first.setdefault(tid, now)
            if was[1:] != now[1:] and tid not in changed:
                changed[tid] = (comm, was, now)
        time.sleep(period)
    print(f"SCHED # samples={samples} threads={len(first)} changed={len(changed)} "
          f"realtime_seen={len(realtime)}")
    for tid, (comm, was, now) in sorted(changed.items()):
        print(f"SCHED change tid={tid} comm={comm} policy {POLICIES.get(was[1], was[1])}->"
              f"{POLICIES.get(now[1], now[1])} prio {was[2]}->{now[2]} nice {was[3]}->{now[3]} "
              f"cpus {was[4]}->{now[4]}")
    for tid, (comm, policy, prio, at) in sorted(realtime.items()):
        print(f"SCHED realtime tid={tid} comm={comm} policy={POLICIES.get(policy, policy)} "
              f"prio={prio} (first seen at sample {at})")


if __name__ == "__main__":
    main()
