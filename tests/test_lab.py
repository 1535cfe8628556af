"""README's first command: `make lab` prepares a workspace and serves JupyterLab on notebook 1."""

import json
import os
import re
import subprocess
import urllib.error
import urllib.request

import pytest

from grading.paths import ROOT
from tests.fixtures.lab_server import get, running_lab

pytestmark = pytest.mark.nbgrader


def status_of(url):
    """The HTTP status of a GET, errors included."""
    try:
        return get(url)[0]
    except urllib.error.HTTPError as err:
        return err.code


def test_make_lab_serves_the_workspace(tmp_path):
    """make lab (from the repository root, as README says)
    builds the workspace and answers on /lab.
    """
    token = "labtest"
    with running_lab(tmp_path / "ws", token, timeout=120) as (url, status):
        assert json.loads(status)["started"]
        code, page = get(f"{url}/lab/tree/part-1-attention/01-softmax.ipynb?token={token}")
        assert code == 200 and "JupyterLab" in page
        assert listed(url, token, "") == {"part-1-attention"}  # part two's comes with PART=xslm
        names = listed(url, token, "part-1-attention")
        assert {"01-softmax.ipynb", "08-notes.ipynb", "model.py", "checkpoints"} <= names
        # no instructor tools (nbgrader) and no developer tools (jupytext) in the learner's Lab
        config = re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', page, re.S)
        disabled = json.loads(config.group(1))["disabledExtensions"]
        assert {"@jupyter/nbgrader", "jupyterlab-jupytext"} <= set(disabled)
        assert status_of(f"{url}/formgrader?token={token}") == 404
        as_notebook = f"{url}/api/contents/part-1-attention/model.py?type=notebook&token={token}"
        assert status_of(as_notebook) == 400  # jupytext's contents manager would open it (200)
        assert lab_locale(url, token) == "default"  # English, the learner's to change
        news = "@jupyterlab/apputils-extension:notification"  # no news question, no fetch
        assert lab_setting(url, token, news, "fetchNews") == "false"
        assert lab_setting(url, token, news, "checkForUpdates") is False
        saved = urllib.request.Request(
            f"{url}/lab/api/workspaces/default?token={token}", method="PUT",
            data=json.dumps({"data": {}, "metadata": {"id": "default"}}).encode(),
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        assert (
            urllib.request.urlopen(saved, timeout=10).status == 204
        )  # the layout, as the page saves it
    assert os.listdir(tmp_path / "ws" / ".lab" / "workspaces")  # kept in the learner's workspace
    assert lab_config_files() == tracked_lab_config_files()  # nothing written in the checkout


def lab_config_files():
    """The files under notebooks/lab-config/, relative to the checkout."""
    top = os.path.join(ROOT, "notebooks", "lab-config")
    return sorted(
        os.path.relpath(os.path.join(here, name), ROOT)
        for here, _, names in os.walk(top)
        for name in names
    )


def tracked_lab_config_files():
    """What git tracks under notebooks/lab-config/: the course's own configuration."""
    listed = subprocess.run(["git", "ls-files", "notebooks/lab-config"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout  # fmt: skip
    return sorted(listed.split())


def test_make_lab_edition_ko_serves_the_korean_edition(tmp_path):
    """make lab EDITION=ko: the same workspace layout, the notebooks in Korean, the checkpoints
    told to speak Korean."""
    token = "labtest"
    with running_lab(tmp_path / "ws", token, timeout=120, edition="ko") as (url, _):
        code, body = get(f"{url}/api/contents/part-1-attention/01-softmax.ipynb?token={token}")
        first = json.loads(body)["content"]["cells"][0]["source"]
        assert code == 200 and first.startswith("# 1단계")
        edition = "part-1-attention/checkpoints/locales/edition"
        code, body = get(f"{url}/api/contents/{edition}?token={token}")
        assert code == 200 and json.loads(body)["content"].strip() == "ko"
        assert lab_locale(url, token) == "ko_KR"  # JupyterLab's menus, from its language pack
        code, body = get(f"{url}/lab/api/translations/ko_KR?token={token}")
        menus = json.loads(body)["data"]["jupyterlab"]
        assert code == 200 and menus["Edit"] == ["편집"] and menus["Settings"] == ["설정"]


def listed(url, token, folder):
    """The names of a workspace folder's entries, as the Lab's contents API lists them."""
    code, listing = get(f"{url}/api/contents/{folder}?token={token}")
    assert code == 200
    return {item["name"] for item in json.loads(listing)["content"]}


def lab_locale(url, token):
    """The language JupyterLab's interface is set to."""
    return lab_setting(url, token, "@jupyterlab/translation-extension:plugin", "locale")


def lab_setting(url, token, plugin, key):
    """A JupyterLab setting as the Lab serves it: the learner's own, else the default the server
    gives it (where an override goes)."""
    code, body = get(f"{url}/lab/api/settings/{plugin}?token={token}")
    served = json.loads(body)
    assert code == 200
    return served["settings"].get(key, served["schema"]["properties"][key]["default"])


@pytest.mark.browser
@pytest.mark.parametrize(("edition", "menus"), [("ko", ["파일", "편집", "설정"]),
                                                ("ja", ["ファイル", "編集", "設定"])])  # fmt: skip
def test_the_lab_speaks_the_editions_language(tmp_path, edition, menus):
    """make lab EDITION=ko|ja: JupyterLab's own menu bar is in Korean or Japanese (its language
    pack, set by the edition), as the notebooks are. Screenshot: browser-lab-<edition>.png.
    Its own Playwright, so it lives here and not beside test_browser.py's module-wide page."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS

    token = "browsertest"
    with running_lab(tmp_path / "ws", token, edition=edition) as (base, _):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            tab = browser.new_page(viewport={"width": 1280, "height": 800})
            tab.goto(f"{base}/lab/tree/part-1-attention/01-softmax.ipynb?token={token}")
            tab.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
            labels = tab.locator(".lm-MenuBar-itemLabel").all_inner_texts()
            os.makedirs(ARTIFACTS, exist_ok=True)
            tab.screenshot(path=os.path.join(ARTIFACTS, f"browser-lab-{edition}.png"))
            browser.close()
    assert [m for m in menus if m in labels] == menus, labels


def test_make_lab_part_two_joins_the_same_workspace(tmp_path):
    """make lab, then make lab PART=xslm in the same workspace: part one's folder stays, part
    two's joins it with its five notebooks and engine.py, and notebook 1 of part two opens."""
    from grading.authoring import course

    course.workspace(str(tmp_path / "ws"))
    token = "labtest"
    with running_lab(tmp_path / "ws", token, timeout=120, part="xslm") as (url, _):
        code, page = get(f"{url}/lab/tree/part-2-gpt/01-engine.ipynb?token={token}")
        assert code == 200 and "JupyterLab" in page
        assert listed(url, token, "") == {"part-1-attention", "part-2-gpt"}
        assert {"01-softmax.ipynb", "model.py"} <= listed(url, token, "part-1-attention")
        names = listed(url, token, "part-2-gpt")
        assert {"01-engine.ipynb", "05-generate.ipynb", "engine.py"} <= names
        assert "gpt.py" not in names  # gpt.py comes with step 3's save
        corpus = "part-2-gpt/checkpoints/xslm/corpus.txt"
        code, body = get(f"{url}/api/contents/{corpus}?token={token}")
        assert code == 200


def test_a_notebook_runs_headless_from_the_workspace(tmp_path):
    """the headless command of the learners' page executes a solved notebook in the workspace
    and saves the checkpoint output.
    """
    import nbformat

    from grading.authoring import course

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
    cells = nbformat.read(path, 4).cells
    outputs = json.dumps([c.get("outputs", []) for c in cells])
    assert "softmax: all 8 checks hold" in outputs
    picture = next(c for c in cells if c.get("id") == "softmax-picture")
    assert "<svg" in json.dumps(picture.outputs)  # shown from inside its `with demo():`
    assert "def softmax" in open(os.path.join(workspace, "model.py")).read()


def test_make_lab_says_what_it_added_and_what_it_left_alone(tmp_path, capsys):
    """Part one, then part two, then part two again in one workspace: each message says what was
    added and that the learner's notebooks are untouched, in words that cannot read as loss."""
    from grading.authoring import course

    def said(**part):
        course.workspace(str(tmp_path / "ws"), **part)
        return capsys.readouterr().out.strip().splitlines()[-1]

    assert said().endswith(": added 8 part-one notebooks; checkpoints/ refreshed")
    notebook = tmp_path / "ws" / "part-1-attention" / "01-softmax.ipynb"
    notebook.write_text(notebook.read_text().replace("Softmax", "My softmax"))
    assert said(assignment="xslm").endswith(
        ": added 5 part-two notebooks; your 8 part-one notebooks are untouched; "
        "checkpoints/ refreshed"
    )
    assert said(assignment="xslm").endswith(
        ": your 8 part-one notebooks are untouched; your 5 part-two notebooks are untouched; "
        "checkpoints/ refreshed"
    )
    assert "My softmax" in notebook.read_text()  # and they are
    assert "kept" not in said() and "0 of" not in said()


def venv_command(program, *args, cwd):
    """One of the venv's commands, run as a learner would run it in their workspace."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # a learner's has none
    command = [os.path.join(ROOT, ".venv", "bin", program), *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def workspace_with_mistake(tmp_path, mistake):
    """A fresh workspace whose notebook 1 is solved with one catalogued mistake."""
    import nbformat

    from grading.authoring import course
    from grading.authoring.mistakes import BUGGY

    workspace = course.workspace(str(tmp_path / "ws"))
    path = os.path.join(workspace, "01-softmax.ipynb")
    book = course.fill(nbformat.read(path, 4), course.solution_cells(), dict([BUGGY[mistake]]))
    nbformat.write(book, path)
    return workspace


def saved_text(path):
    """Everything the cells of a saved notebook show, as one string."""
    import nbformat

    cells = nbformat.read(path, 4).cells
    return json.dumps([c.get("outputs", []) for c in cells], ensure_ascii=False)


def test_a_wrong_function_runs_headless_to_the_end_and_keeps_its_report(tmp_path):
    """The headless command on a notebook with a softmax that overflows: it exits 0, and the
    notebook keeps the demo cell's one line, the checkpoint's report naming the mistake, its one
    line, and the cells after it."""
    from checkpoints.attention.catalogue import BY_NAME

    workspace = workspace_with_mistake(tmp_path, "softmax.no_max_shift")
    readme = ["nbconvert", "--to", "notebook", "--execute", "--inplace", "01-softmax.ipynb"]
    done = venv_command("jupyter", *readme, cwd=workspace)
    assert done.returncode == 0, done.stderr[-2000:]
    shown = saved_text(os.path.join(workspace, "01-softmax.ipynb"))
    assert "✗ OverflowError: math range error (in softmax, line " in shown
    assert f"looks like: {BY_NAME['softmax.no_max_shift'].title}" in shown
    assert "✗ softmax: 3 of 8 checks fail. The notebook goes on" in shown
    assert "hidden check softmax" in shown  # the last cell ran too
    assert '"output_type": "error"' not in shown


def test_nbgrader_validate_still_sees_the_failing_checkpoint(tmp_path):
    """nbgrader validate (and the Validate button) looks for errors in graded cells: there the
    checkpoint still raises, so validation names the failing cell."""
    workspace = workspace_with_mistake(tmp_path, "softmax.no_max_shift")
    done = venv_command("nbgrader", "validate", "01-softmax.ipynb", cwd=workspace)
    assert "VALIDATION FAILED ON 1 CELL(S)!" in done.stdout, done.stdout + done.stderr[-2000:]
    assert 'check("softmax")' in done.stdout
    assert "CheckpointFailed: softmax: 3 of 8 checks fail" in done.stdout
