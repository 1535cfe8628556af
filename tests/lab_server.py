"""`make lab` as README runs it, on a free port with a known token, for the tests that need it."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from grading.paths import ROOT


def free_port():
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    """(HTTP status, body text) of a GET."""
    with urllib.request.urlopen(url, timeout=5) as reply:
        return reply.status, reply.read().decode("utf-8", "replace")


@contextlib.contextmanager
def serving(folder, timeout=30):
    """Yields the base URL of `python -m http.server` on folder (a static site, as README serves
    it), on a free port, once it answers; stops it afterwards."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "-d", folder],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                get(base + "/index.html")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextlib.contextmanager
def running_lab(workspace, token, timeout=180, edition=None, part=None, expose_app=False):
    """Yields (base URL, /api/status body) once `make lab` answers; stops the server afterwards.

    Fails with the server's last output when it exits or does not answer within `timeout` s.
    expose_app: the page sets window.jupyterapp (JupyterLab's expose_app_in_browser), through
    which a browser test reads what the app holds (tests/notebook_page.py).
    """
    port = free_port()
    flags = (
        f"--no-browser --ServerApp.port={port} --IdentityProvider.token={token}"
        " --ServerApp.ip=127.0.0.1"
    ) + (" --LabApp.expose_app_in_browser=True" if expose_app else "")
    log = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a chatty server never blocks
    lab = subprocess.Popen(
        ["make", "lab", f"WORKSPACE={workspace}", f"LAB_FLAGS={flags}"]
        + ([f"EDITION={edition}"] if edition else [])
        + ([f"PART={part}"] if part else []),
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        deadline, status = time.monotonic() + timeout, None
        while status is None and time.monotonic() < deadline and lab.poll() is None:
            try:
                status = get(f"http://127.0.0.1:{port}/api/status?token={token}")
            except OSError:
                time.sleep(0.5)
        if status is None:
            log.seek(0)
            raise AssertionError(
                f"make lab never served (exit {lab.poll()}):\n{log.read()[-3000:]}"
            )
        yield f"http://127.0.0.1:{port}", status[1]
    finally:
        if lab.poll() is None:
            os.killpg(lab.pid, signal.SIGTERM)
            lab.wait(timeout=30)
        log.close()
