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
    """make lab (from the repository root, as README says)
    builds the workspace and answers on /lab.
    """
    port, token, workspace = free_port(), "labtest", tmp_path / "ws"
    flags = (
        f"--no-browser --ServerApp.port={port} --IdentityProvider.token={token}"
        " --ServerApp.ip=127.0.0.1"
    )
    lab = subprocess.Popen(
        ["make", "lab", f"WORKSPACE={workspace}", f"LAB_FLAGS={flags}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        deadline, status = time.monotonic() + 120, None
        while time.monotonic() < deadline and lab.poll() is None:
            try:
                status = get(f"http://127.0.0.1:{port}/api/status?token={token}")
                break
            except OSError:
                time.sleep(0.5)
        assert status is not None, (
            f"make lab never served (exit {lab.poll()}):\n{lab.stdout.read()[-3000:]}"
        )
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


def test_a_notebook_runs_headless_from_the_workspace(tmp_path):
    """README's headless command executes a solved notebook in the workspace
    and saves the checkpoint output.
    """
    import nbformat

    from grading import course

    workspace = course.workspace(str(tmp_path / "ws"))
    path = os.path.join(workspace, "01-softmax.ipynb")
    nbformat.write(course.fill(nbformat.read(path, 4), course.solution_cells()), path)
    done = subprocess.run(
        [
            os.path.join(ROOT, ".venv", "bin", "jupyter"),
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--inplace",
            "01-softmax.ipynb",
        ],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outputs = json.dumps([c.get("outputs", []) for c in nbformat.read(path, 4).cells])
    assert "softmax: all 8 checks hold" in outputs
    assert "def softmax" in open(os.path.join(workspace, "model.py")).read()
