"""Runs a command with a time bound and reports how it ended, for the tests
of failures that must end the whole job (never hang).

    bounded.py SECONDS -- COMMAND...

Prints the command's stdout and stderr, then "exit N" (its exit code) or
"TIMED OUT after SECONDS s" when it had to be killed; exits 0 in both cases
so that FileCheck decides."""
import os
import signal
import subprocess
import sys
import time

bound = float(sys.argv[1])
command = sys.argv[sys.argv.index("--") + 1:]
start = time.monotonic()
p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     stdin=subprocess.DEVNULL, start_new_session=True)
try:
    out, _ = p.communicate(timeout=bound)
    sys.stdout.write(out.decode(errors="replace"))
    print(f"exit {p.returncode}")
    print(f"within {bound:g} s (took {time.monotonic() - start:.1f} s)")
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGKILL)
    out, _ = p.communicate()
    sys.stdout.write(out.decode(errors="replace"))
    print(f"TIMED OUT after {bound:g} s")
