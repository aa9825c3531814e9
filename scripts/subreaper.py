"""Run a command as the subreaper of its process tree (Linux's PR_SET_CHILD_SUBREAPER).

A process whose parent ends first is handed to the nearest subreaper instead of PID 1: this
one, which reaps it when it ends. Its CPU then counts in this process's children (``time``,
``getrusage``). Without it, Chromium's processes (the browser tests' renderers, GPU and utility
processes, orphaned when Playwright closes the browser) went to PID 1, which on the CI machines
never reaps them: ``scripts/test``'s "pytest took ... of CPU" left out most of the browser's CPU
(the whole game by clicks: 16.5 s by ``/usr/bin/time``, 45-59 s read from /proc).

Exits with the command's status. Orphans still running when the command ends are not waited for.
Usage: python scripts/subreaper.py COMMAND [ARGS...]
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.platform == "linux":  # elsewhere the command runs as it is (nothing is reaped)
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    child = subprocess.Popen(argv)
    # Ctrl+C reaches the command from the terminal (its process group): not sent again from here.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
    code = 1
    while True:
        try:
            pid, status = os.wait()  # the command, or an orphan of its tree
        except ChildProcessError:
            break
        if pid == child.pid:
            code = os.waitstatus_to_exitcode(status)
            child.returncode = code
            break
    while True:  # orphans that ended with the command
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
