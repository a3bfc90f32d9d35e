#!/usr/bin/env python3
"""Runs a command N times; prints the median wall time (s) and the peak RSS (MB) of its runs.

Usage: measure.py N CMD [ARGS...]   ->   prints "median_seconds peak_mb"
A command that needs a fresh state each run reads VERITY_BENCH_RUN (0, 1, ...) from its env.
"""
import os
import resource
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1])
cmd = sys.argv[2:]
times = []
peak = 0
for i in range(runs):
    env = dict(os.environ, VERITY_BENCH_RUN=str(i))
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.execvpe(cmd[0], cmd, env)
    _, status, usage = os.wait4(pid, 0)
    times.append(time.perf_counter() - start)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"measure: {' '.join(cmd)} failed")
    peak = max(peak, usage.ru_maxrss / 1024)
print(f"{statistics.median(times):.3f} {peak:.1f}")
