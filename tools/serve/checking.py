"""What the client checks in tools/serve share: one line per check, the first failure ends the run."""
import sys
import time

started = time.monotonic()


def check(condition, what, detail=""):
    """Prints `ok: WHAT (seconds since the start)`, or `FAILED: WHAT DETAIL` and exits 1."""
    if not condition:
        print(f"FAILED: {what} {detail}", flush=True)
        sys.exit(1)
    print(f"ok: {what} ({time.monotonic() - started:.2f} s)")
