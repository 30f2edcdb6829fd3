#!/usr/bin/python3
"""cpu_timeline.py [--every S] CMD... - run CMD and print, every S seconds
(default 0.25), how many cores its threads used since the last line (its
user + system ticks from /proc/PID/stat) and how many threads it had;
then its wall seconds.  Behind README's "both cores are busy from about 1 s
to the end" of the default solve at 10^6 nodes: a process that keeps both
cores busy is only shortened by using less CPU."""
import os
import subprocess
import sys
import time


def task_ticks(pid):
    """The process's user + system clock ticks (its threads', ended ones
    included: /proc/PID/stat sums the thread group), and its threads now."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12]), len(os.listdir("/proc/%d/task" % pid))


def main(argv):
    every = 0.25
    if len(argv) > 2 and argv[0] == "--every":
        every, argv = float(argv[1]), argv[2:]
    if not argv:
        sys.exit(__doc__)
    hz = os.sysconf("SC_CLK_TCK")
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = last_t = time.monotonic()
    last_ticks = 0
    while p.poll() is None:
        time.sleep(every)
        try:
            ticks, threads = task_ticks(p.pid)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue  # it ended meanwhile
        now = time.monotonic()
        print("%6.2f s  cores %.2f  threads %d" % (now - t0, (ticks - last_ticks) / hz / (now - last_t), threads))
        last_ticks, last_t = ticks, now
    print("wall %.2f s, exit %d" % (time.monotonic() - t0, p.returncode))
    return p.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
