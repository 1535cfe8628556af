"""README's first command: `make lab` prepares a workspace and serves JupyterLab on notebook 1."""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

from grading.reference import ROOT

pytestmark = pytest.mark.nbgrader


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=5) as reply:
        return reply.status, reply.read().decode("utf-8", "replace")


def test_make_lab_serves_the_workspace(tmp_path):
    """make lab (from the repository root, as README says) builds the workspace and answers on /lab."""
    port, token, workspace = free_port(), "labtest", tmp_path / "ws"
    flags = f"--no-browser --ServerApp.port={port} --IdentityProvider.token={token} --ServerApp.ip=127.0.0.1"
    lab = subprocess.Popen(["make", "lab", f"WORKSPACE={workspace}", f"LAB_FLAGS={flags}"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline, status = time.monotonic() + 120, None
        while time.monotonic() < deadline and lab.poll() is None:
            try:
                status = get(f"http://127.0.0.1:{port}/api/status?token={token}")
                break
            except OSError:
                time.sleep(0.5)
        assert status is not None, f"make lab never served (exit {lab.poll()}):\n{lab.stdout.read()[-3000:]}"
        assert json.loads(status[1])["started"]
        code, page = get(f"http://127.0.0.1:{port}/lab/tree/01-softmax.ipynb?token={token}")
        assert code == 200 and "JupyterLab" in page
        code, listing = get(f"http://127.0.0.1:{port}/api/contents?token={token}")
        names = {item["name"] for item in json.loads(listing)["content"]}
        assert {"01-softmax.ipynb", "08-notes.ipynb", "model.py", "checkpoints"} <= names
    finally:
        if lab.poll() is None:
            os.killpg(lab.pid, signal.SIGTERM)
            lab.wait(timeout=30)
