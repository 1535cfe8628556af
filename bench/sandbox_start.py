"""What starting one sandbox costs, in the mode this user gets (root, mapped or own).

    .venv/bin/python -m bench.sandbox_start [--starts N]      # from the repository root

As the course user (mapped mode), run it with Debian's python3, which that account can run:
    setpriv --reuid=attention-grader --regid=attention-grader --clear-groups -- \\
        env -i PYTHONPATH=$PWD PATH=/usr/bin:/bin /usr/bin/python3 -m bench.sandbox_start
"""

import argparse
import subprocess
import sys
import time

from grading.machine import sandbox


def main(argv):
    """Start `python -I -S -c pass` in a sandbox N times; print the mode and ms per start."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.sandbox_start",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--starts", type=int, default=20, help="sandboxes to start")
    args = parser.parse_args(argv)
    argv = sandbox.wrap([sys.executable, "-I", "-S", "-c", "pass"])
    subprocess.run(argv, check=True)  # warm the page cache first
    start = time.perf_counter()
    for _ in range(args.starts):
        subprocess.run(argv, check=True)
    per_start = (time.perf_counter() - start) / args.starts * 1000
    print(f"{sandbox.uid_mode()}: {per_start:.1f} ms per sandboxed start ({args.starts} starts)")


if __name__ == "__main__":
    main(sys.argv[1:])
