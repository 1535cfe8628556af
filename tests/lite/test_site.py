"""The in-browser edition: `make site` builds a static site that runs the whole course in the
browser (JupyterLite, Pyodide), serves everything it runs, and ships no solution.

The browser tests serve the site with `python -m http.server`, as docs/browser.md says, and
drive Debian's chromium with Playwright; every request that would leave 127.0.0.1 is refused
and recorded.
"""

import asyncio
import glob
import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile

import nbformat
import pytest
import requests
from playwright.sync_api import expect

from checkpoints import compare, i18n
from checkpoints.attention.diagnose import FINGERPRINTS_FILE
from checkpoints.xslm.checks import ANSWERS_FILE
from grading.authoring import course, editions, masters
from grading.parts import PARTS
from grading.paths import ROOT
from lite import build
from tests.fixtures import notebook_page
from tests.fixtures.lab_server import serving
from tests.fixtures.leaks import INSTRUCTOR_MARKERS, leaked_lines, solution_lines
from tests.grading.nbgrader.test_collect import collect_and_grade, notebook_points
from tests.test_browser import CHECKS, CHROMIUM, CHROMIUM_FLAGS, EXERCISE, SOFTMAX, screenshot

pytestmark = pytest.mark.site
PART_NOTEBOOKS = {name: masters.notebooks(part.masters) for name, part in PARTS.items()}
PART_ONE, PART_TWO = (part.folder for part in PARTS.values())  # part-1-attention, part-2-gpt


def strict_json(text):
    """Parse JSON as a browser does: NaN and Infinity are errors."""

    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


# --- without building: the pieces the build is made of ---------------------------------------


def test_answer_tables_are_json_a_browser_reads():
    """fingerprints.json and answers.json parse strictly, and their nan/inf come back as floats."""
    for path in (FINGERPRINTS_FILE, ANSWERS_FILE):
        with open(path, encoding="utf-8") as f:
            strict_json(f.read())
    table = compare.load_table(FINGERPRINTS_FILE)
    flat = json.dumps(table)  # Python's own dump writes NaN back as NaN
    assert "NaN" in flat, "the softmax-without-shift fingerprints hold nan answers"


def test_nonfinite_numbers_survive_strict_json(tmp_path):
    """to_strict_json then load_table gives back nan, inf and -inf where they were."""
    table = {"a": [1.5, math.nan, [math.inf, -math.inf]], "b": {"raises": "ValueError"}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(compare.to_strict_json(table), allow_nan=False))
    back = compare.load_table(path)
    assert back["a"][0] == pytest.approx(1.5) and math.isnan(back["a"][1])
    assert back["a"][2][0] == math.inf and back["a"][2][1] == -math.inf
    assert back["b"] == {"raises": "ValueError"}


def load_standin(path):
    """Import one file of lite/standins as a module of its own (not the name the browser uses:
    no real micropip or piplite is shadowed, and none is needed)."""
    spec = importlib.util.spec_from_file_location(
        "standin_" + path.replace("/", "_").removesuffix(".py"),
        os.path.join(build.STANDINS, path),
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_micropip_standin_refuses_to_install_and_says_why():
    """The site's micropip installs nothing; it names the packages and says why."""
    micropip = load_standin("micropip/__init__.py")
    with pytest.raises(RuntimeError, match=r"^numpy cannot be installed here: .*no package inst"):
        asyncio.run(micropip.install("numpy"))
    with pytest.raises(RuntimeError, match=r"^numpy, scipy cannot be installed here"):
        asyncio.run(micropip.install(["numpy", "scipy"]))


def test_pip_magic_names_only_the_packages():
    """`%pip install -q numpy` asks for numpy alone; another pip command says there is no pip."""
    cli = load_standin("piplite/cli.py")
    code = asyncio.run(cli.get_transformed_code(["install", "-q", "numpy"]))
    assert code == "await __import__(\"piplite\").install(['numpy'])\n"
    code = asyncio.run(cli.get_transformed_code(["list"]))
    with pytest.raises(RuntimeError, match="this course site has no pip: list"):
        exec(code)


def a_wheel(folder, package, modules):
    """A wheel file in folder holding package/<name>.py for each {name: source}; (its file name,
    its bytes)."""
    path = os.path.join(folder, f"{package}-1.0-py3-none-any.whl")
    with zipfile.ZipFile(path, "w") as whl:
        for name, source in modules.items():
            whl.writestr(f"{package}/{name}.py", source)
    with open(path, "rb") as f:
        return os.path.basename(path), f.read()


def a_finder(later, waiting, fetch, tmp_path, monkeypatch):
    """(the site's piplite finder for waiting, first on sys.meta_path, and the folder it unpacks
    into, on sys.path), with none of the waiting packages imported yet."""
    target = tmp_path / "site-packages"
    monkeypatch.syspath_prepend(str(target))
    finder = later.OnFirstImport(waiting, "https://site/static/pyodide/", fetch, str(target))
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    for name in [n for n in sys.modules if n.split(".")[0] in waiting]:
        monkeypatch.delitem(sys.modules, name)
    return finder, target


def test_a_package_left_for_later_is_unpacked_at_its_first_import(tmp_path, monkeypatch):
    """The site's piplite finds a package the kernel did not unpack at start without fetching it
    (IPython only asks whether jedi is there); its first import fetches its wheel, checks the
    lock's digest and unpacks it, once, with its own path and files, and a package it imports at
    its own import; a package left out that nothing imported waits for its own first import; a
    wheel that is not the one the lock names is refused."""
    later = load_standin("piplite/later.py")
    served = {}
    for package, modules in {
        "laterpkg": {"__init__": "import laterdep\nFROM = __file__\n", "inner": "X = 1\n"},
        "laterdep": {"__init__": "Y = 2\n"},
        "unasked": {"__init__": "Z = 3\n"},
    }.items():
        name, data = a_wheel(tmp_path, package, modules)
        served[f"https://site/static/pyodide/{name}"] = data
        entry = {"file_name": name, "sha256": hashlib.sha256(data).hexdigest()}
        served[package] = entry
    fetched = []

    def fetch(url):
        fetched.append(url)
        return served[url]

    waiting = {name: served[name] for name in ("laterpkg", "laterdep", "unasked")}
    finder, target = a_finder(later, waiting, fetch, tmp_path, monkeypatch)
    assert importlib.util.find_spec("laterpkg") is not None and fetched == []

    import laterpkg.inner

    assert len(fetched) == 2 and laterpkg.inner.X == 1 and sys.modules["laterdep"].Y == 2
    assert laterpkg.FROM == str(target / "laterpkg" / "__init__.py")
    assert finder.find_spec("laterpkg") is None  # Python finds what was unpacked
    assert not (target / "unasked").exists() and finder.find_spec("unasked") is not None
    import unasked

    assert len(fetched) == 3 and unasked.Z == 3 and finder.waiting == {}

    wrong = {"laterpkg": {**served["laterpkg"], "sha256": "0" * 64}}
    forged = later.OnFirstImport(wrong, "https://site/static/pyodide/", fetch, str(tmp_path / "x"))
    with pytest.raises(ImportError, match="not the wheel the site's lock names"):
        forged.create_module(forged.find_spec("laterpkg"))


def test_a_wheel_left_for_later_unpacks_once_for_all_it_holds_and_again_after_a_failed_fetch(
    tmp_path, monkeypatch
):
    """A wheel that holds two packages is fetched once, at the first one's import, and neither
    waits any more; a fetch that fails (the site unreachable) raises ImportError and leaves the
    package waiting, so that its next import fetches it again."""
    later = load_standin("piplite/later.py")
    path = tmp_path / "twins-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr("twin_a/__init__.py", "A = 1\n")
        whl.writestr("twin_b/__init__.py", "B = 2\n")
    data = path.read_bytes()
    entry = {"file_name": path.name, "sha256": hashlib.sha256(data).hexdigest()}
    fetched, answers = [], [ImportError("the site answered 503"), data]  # the first one fails

    def fetch(url):
        fetched.append(url)
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    finder, _ = a_finder(later, {"twin_a": entry, "twin_b": entry}, fetch, tmp_path, monkeypatch)
    with pytest.raises(ImportError, match="503"):
        importlib.import_module("twin_a")
    assert set(finder.waiting) == {"twin_a", "twin_b"} and "twin_a" not in sys.modules

    assert importlib.import_module("twin_a").A == 1 and finder.waiting == {}
    assert importlib.import_module("twin_b").B == 2 and len(fetched) == 2


def test_standin_wheels_are_wheels_pyodide_can_check(tmp_path):
    """A stand-in's wheel lists every file in RECORD with its hash; its lock entry names it."""
    for name in ("micropip", "piplite"):
        path = build.standin_wheel(name, tmp_path)
        entry = build.wheel_entry(path)
        assert entry["name"] == name and entry["imports"] == [name]
        assert entry["sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest()
        with zipfile.ZipFile(path) as whl:
            record = whl.read(f"{name}-0+course.dist-info/RECORD").decode().splitlines()
            listed = {line.split(",")[0] for line in record}
            assert listed == set(whl.namelist())
            assert f"{name}/__init__.py" in listed
    assert build.standin_wheel("micropip", tmp_path) == path.replace("piplite", "micropip")


def test_kernel_wheels_need_nothing_the_site_lacks():
    """Every requirement of every wheel the kernel loads (on Pyodide's platform) is a wheel the
    site ships: the browser never looks for a package elsewhere."""
    from packaging.markers import default_environment
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    wheels = build.kernel_wheels()
    names = {build.wheel_entry(w)["name"] for w in wheels}
    env = dict(
        default_environment(),
        sys_platform="emscripten",
        platform_system="Emscripten",
        python_version=build.PYODIDE_PYTHON,
        python_full_version=build.PYODIDE_PYTHON + ".0",
    )
    for path in wheels:
        with zipfile.ZipFile(path) as whl:
            meta = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
            for line in whl.read(meta).decode().splitlines():
                if line.startswith("Requires-Dist:"):
                    req = Requirement(line.split(":", 1)[1].strip())
                    if req.marker is None or req.marker.evaluate(dict(env, extra="")):
                        assert canonicalize_name(req.name) in names, f"{path} needs {req}"
    assert {"ipython", "pyodide-kernel", "comm", "traitlets"} <= names


def test_kernel_wheels_are_the_versions_the_course_pins():
    """lite/requirements-pyodide.txt pins each package at requirements.txt's version."""
    from packaging.utils import canonicalize_name

    def pins(path):
        with open(path, encoding="utf-8") as f:
            lines = [ln.split()[0] for ln in f if "==" in ln and not ln.startswith("#")]
        return {canonicalize_name(ln.split("==")[0]): ln.split("==")[1] for ln in lines}

    course_pins = pins(os.path.join(ROOT, "requirements.txt"))
    for name, version in pins(build.REQUIREMENTS).items():
        assert course_pins.get(name) == version, name


def test_the_sites_jedi_leaves_out_only_the_stubs_of_other_packages(tmp_path):
    """The site's jedi is the pinned wheel less its third-party and Django stubs: every other file
    byte for byte (the standard library's stubs among them), RECORD naming exactly its files, and
    the lock's hash its own; every other kernel wheel is shipped as fetched."""

    def sha256_of(path):
        return hashlib.sha256(open(path, "rb").read()).hexdigest()

    pyodide_dir = tmp_path / "pyodide"
    build.install_kernel(str(pyodide_dir), str(tmp_path))
    lock = json.loads((pyodide_dir / "pyodide-lock.json").read_text())
    fetched = {os.path.basename(w): w for w in build.kernel_wheels()}
    shipped = [n for n in os.listdir(pyodide_dir) if n in fetched]
    assert len(shipped) == len(fetched)
    for name in shipped:
        site_file = pyodide_dir / name
        with zipfile.ZipFile(fetched[name]) as pinned, zipfile.ZipFile(site_file) as kept:
            entry = build.wheel_entry(str(site_file))
            assert lock["packages"][entry["name"]]["sha256"] == sha256_of(site_file)
            left_out = [n for n in pinned.namelist() if n not in kept.namelist()]
            if entry["name"] != "jedi":
                assert not left_out and sha256_of(site_file) == sha256_of(fetched[name])
                continue
            assert len(left_out) > 4000
            assert all(n.startswith(build.LEFT_OUT["jedi"]) for n in left_out)
            assert "jedi/third_party/typeshed/stdlib/builtins.pyi" in kept.namelist()
            record = next(n for n in kept.namelist() if n.endswith(".dist-info/RECORD"))
            for n in kept.namelist():
                if n != record:
                    assert kept.read(n) == pinned.read(n), n
            listed = {ln.split(",")[0] for ln in kept.read(record).decode().splitlines()}
            assert listed == set(kept.namelist())


COMPILED_HERE = """
import { loadPyodide } from "%(runtime)s";
import fs from "node:fs";
const lock = JSON.parse(fs.readFileSync("%(lock)s", "utf8"));
const pyodide = await loadPyodide({
  indexURL: "%(index)s", packages: Object.keys(lock.packages), messageCallback: () => {},
});
console.log(pyodide.runPython(`
import importlib._bootstrap_external as external, json, zipimport
compiled = []  # every module Python compiles from its source as it imports it
to_code = external.SourceLoader.source_to_code
def counted(self, data, path, *args, **kwargs):
    compiled.append(path)
    return to_code(self, data, path, *args, **kwargs)
external.SourceLoader.source_to_code = counted
compile_source = zipimport._compile_source
def counted_in_zip(path, source):
    compiled.append(path)
    return compile_source(path, source)
zipimport._compile_source = counted_in_zip
try:
    import pyodide_kernel, checkpoints.attention.steps
    answer = compiled
except BaseException:
    import traceback
    answer = traceback.format_exc()
json.dumps(answer)
`));
"""


def test_the_kernel_imports_its_modules_from_bytecode(tmp_path):
    """Python in Pyodide compiles none of the modules the kernel imports as it starts, standard
    library and packages alike, once compile_kernel has run; before, it compiled each of them."""
    pyodide_dir = str(tmp_path / "pyodide")
    learner = build.package_wheel(os.path.join(ROOT, "checkpoints"), str(tmp_path))
    build.install_kernel(pyodide_dir, str(tmp_path), learner)

    def compiled_from_source():
        script = tmp_path / "imports.mjs"
        script.write_text(
            COMPILED_HERE
            % {
                "runtime": os.path.join(pyodide_dir, "pyodide.mjs"),
                "lock": os.path.join(pyodide_dir, "pyodide-lock.json"),
                "index": pyodide_dir + "/",
            }
        )
        run = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        answer = json.loads(run.stdout.strip().splitlines()[-1])
        assert isinstance(answer, list), answer
        return answer

    before = compiled_from_source()
    assert any("site-packages/IPython/" in p for p in before)
    assert any(".zip/" in p for p in before)
    assert build.compile_kernel(pyodide_dir, str(tmp_path), ["checkpoints"]) > 200
    assert compiled_from_source() == []
    with zipfile.ZipFile(os.path.join(pyodide_dir, "python_stdlib.zip")) as stdlib:
        assert "ast.pyc" in stdlib.namelist() and "ast.py" in stdlib.namelist()
    lock = json.loads(open(os.path.join(pyodide_dir, "pyodide-lock.json")).read())
    for entry in lock["packages"].values():
        path = os.path.join(pyodide_dir, entry["file_name"])
        assert entry["sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest()
        with zipfile.ZipFile(path) as whl:
            record = next(n for n in whl.namelist() if n.endswith(".dist-info/RECORD"))
            listed = {ln.split(",")[0] for ln in whl.read(record).decode().splitlines()}
            assert listed == set(whl.namelist()), entry["name"]


def test_the_service_worker_keeps_every_file_a_page_asks_for(tmp_path):
    """offline() lists each file of the site, and each folder with an index.html, spelled as a
    page asks for them ('@' and '+' as they are, a space escaped), and leaves out what no page
    asks for; the worker's version changes with any file of the site."""
    made = ["index.html", "lab/index.html", "build/themes/@jupyterlab/light/index.css",
            "static/pyodide/checkpoints-0+course.1-py3-none-any.whl", "files/en/a b.ipynb",
            "service-worker.js", "package.json", "icon-120x120.png"]  # fmt: skip
    for path in made:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(path)

    def worker():
        text = (tmp_path / "service-worker.js").read_text()
        version = re.search(r'const VERSION = "(\w+)";', text).group(1)
        files = json.loads(re.search(r"const FILES = (\[.*\]);", text).group(1))
        return version, files

    assert build.offline(str(tmp_path)) == 9
    version, files = worker()
    assert sorted(files) == sorted([
        "./", "index.html", "lab/", "lab/index.html", "build/themes/@jupyterlab/light/index.css",
        "static/pyodide/checkpoints-0+course.1-py3-none-any.whl", "files/en/a%20b.ipynb",
        "icon-120x120.png", "manifest.webmanifest",
    ])  # fmt: skip
    manifest = json.loads((tmp_path / "manifest.webmanifest").read_text())
    assert manifest["start_url"] == "./index.html" and manifest["display"] == "standalone"
    build.offline(str(tmp_path))
    assert worker()[0] == version  # the same site, the same worker
    (tmp_path / "files" / "en" / "a b.ipynb").write_text("changed")
    build.offline(str(tmp_path))
    assert worker()[0] != version


def test_a_folder_that_is_no_site_is_never_replaced(tmp_path):
    """make site SITE=<a folder of someone's files> refuses before touching anything."""
    (tmp_path / "thesis.tex").write_text("months of work")
    with pytest.raises(SystemExit, match="no site built here"):
        build.build(str(tmp_path))
    assert (tmp_path / "thesis.tex").read_text() == "months of work"


def test_hand_in_zips_one_part_and_says_what_is_missing(tmp_path, monkeypatch):
    """hand_in() takes the part's notebooks (by their grade ids, whatever their names), the files
    its steps save into and its outputs; part two's notebooks and other files stay out."""
    import checkpoints
    from checkpoints import xslm

    for part, names in PART_NOTEBOOKS.items():
        for name in names:
            book = nbformat.read(os.path.join(PARTS[part].masters, name), 4)
            saved_as = "my copy.ipynb" if name == "03-causal-mask.ipynb" else name
            nbformat.write(book, tmp_path / saved_as)
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "model.py").write_text("import math\n")
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "02-scale.txt").write_text("d=4: 1.0\n")
    (tmp_path / "notes.txt").write_text("private")
    monkeypatch.chdir(tmp_path)
    i18n.use_edition("en")
    report = checkpoints.hand_in()
    with zipfile.ZipFile(tmp_path / "hand-in-attention.zip") as z:
        inside = set(z.namelist())
    expected = set(PART_NOTEBOOKS["attention"]) - {"03-causal-mask.ipynb"}
    assert inside == expected | {"my copy.ipynb", "model.py", "outputs/02-scale.txt"}
    assert report.missing == ["outputs/05-perm.txt", "outputs/08-notes.md"]
    assert "hand-in-attention.zip: 10 files" in repr(report)
    assert "outputs/05-perm.txt" in report._repr_html_()
    part_two = xslm.hand_in()
    with zipfile.ZipFile(tmp_path / "hand-in-xslm.zip") as z:
        assert set(z.namelist()) == set(PART_NOTEBOOKS["xslm"])
    assert part_two.missing[:2] == ["engine.py", "gpt.py"]
    i18n.use_edition("ko")
    try:
        assert "제출할 준비" in repr(checkpoints.hand_in())
    finally:
        i18n.use_edition("en")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    lonely = checkpoints.hand_in()
    assert not lonely.has_notebooks and "No notebook of this part" in repr(lonely)
    assert lonely.files == [] and "model.py" in lonely.missing


def grade_in_a_class_of_its_own(zip_path, student):
    """collect_and_grade in a new class folder every account may enter (the course user grades
    it), with part one released into it; removed afterwards."""
    where = tempfile.mkdtemp(prefix="attn-site-class-")
    try:
        os.chmod(where, 0o755)
        course.release(into=where)
        return collect_and_grade(zip_path, student, where)
    finally:
        shutil.rmtree(where, ignore_errors=True)


# --- the built site ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """`make site SITE=<tmp>`, as the browser page runs it."""
    out = tmp_path_factory.mktemp("site") / "site"
    done = subprocess.run(
        ["make", "site", f"SITE={out}"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(done.stdout.splitlines()[-1])
    return str(out)


@pytest.mark.nbgrader
def test_site_holds_every_edition_and_no_solution(site, tmp_path):
    """files/<edition>/ holds a folder per part: its notebooks and its empty model.py or
    engine.py; the kernel's checkpoints wheel holds the whole package, but for the file naming an
    edition; no file there (the checkpoints' hints included) has a solution line, a hidden test or
    the grader."""
    secrets = solution_lines()
    assert len(secrets) > 60
    for code in editions.languages():
        assert sorted(os.listdir(os.path.join(site, "files", code))) == [PART_ONE, PART_TWO]
        for folder, part, stub in ((PART_ONE, "attention", "model.py"),
                                   (PART_TWO, "xslm", "engine.py")):  # fmt: skip
            names = set(os.listdir(os.path.join(site, "files", code, folder)))
            assert set(PART_NOTEBOOKS[part]) | {stub} == names
    (wheel,) = glob.glob(os.path.join(site, "static", "pyodide", "checkpoints-*.whl"))
    unpacked = tmp_path / "wheel"
    zipfile.ZipFile(wheel).extractall(unpacked)
    shipped = {
        os.path.relpath(os.path.join(d, n), ROOT)
        for d, _, names in os.walk(os.path.join(ROOT, "checkpoints"))
        for n in names
        if "__pycache__" not in d
    } - {os.path.join("checkpoints", "locales", "edition")}
    in_wheel = {
        os.path.relpath(os.path.join(d, n), unpacked)
        for d, _, names in os.walk(unpacked / "checkpoints")
        for n in names
    }
    compiled = {p for p in in_wheel if f"__pycache__{os.sep}" in p}
    assert in_wheel - compiled == shipped
    modules = {p for p in shipped if p.endswith(".py") and not p.endswith("__main__.py")}
    assert (
        compiled
        == {  # the bytecode of each module (compile_kernel), the command's aside
            os.path.join(
                os.path.dirname(p), "__pycache__", os.path.basename(p)[:-3] + ".cpython-314.pyc"
            )
            for p in modules
        }
    )
    for folder, _, files in [*os.walk(os.path.join(site, "files")), *os.walk(unpacked)]:
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".pyc"):
                data = open(path, "rb").read()
                assert not [m for m in INSTRUCTOR_MARKERS if m.encode() in data], path
                continue
            text = open(path, encoding="utf-8").read()
            for marker in INSTRUCTOR_MARKERS:
                assert marker not in text, f"{marker!r} in {path}"
            if name.endswith(".json"):
                strict_json(text)  # the browser reads every one of them
    for folder in (os.path.join(site, "files"), unpacked):
        assert leaked_lines(folder, secrets) == {}  # hints and locales included


@pytest.mark.nbgrader
def test_site_serves_its_own_python(site):
    """The kernel's settings point inside the site: the runtime and every package it loads are
    there, each wheel with the hash its lock file states; PyPI is never consulted."""
    with open(os.path.join(site, "jupyter-lite.json"), encoding="utf-8") as f:
        config = json.load(f)["jupyter-config-data"]
    kernel = config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["pyodideUrl"].startswith("./") and kernel["disablePyPIFallback"] is True
    pyodide = os.path.join(site, os.path.dirname(kernel["pyodideUrl"]))
    for name in build.RUNTIME_FILES:
        assert os.path.getsize(os.path.join(pyodide, name)) > 1000
    with open(os.path.join(pyodide, "pyodide-lock.json"), encoding="utf-8") as f:
        lock = json.load(f)
    started = kernel["loadPyodideOptions"]["packages"]
    assert sorted(lock["packages"]) == sorted([*started, *build.LATER])  # LATER: at first import
    assert not set(build.LATER) & set(started)
    for code in editions.languages():  # each edition's lab starts the same packages
        app = os.path.join(site, build.app_of(code), "jupyter-lite.json")
        with open(app, encoding="utf-8") as f:
            settings = json.load(f)["jupyter-config-data"].get("litePluginSettings", {})
        own = settings.get(build.KERNEL_PLUGIN, {})
        assert own.get("loadPyodideOptions", {}).get("packages", started) == started, code
    for entry in lock["packages"].values():
        with open(os.path.join(pyodide, entry["file_name"]), "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == entry["sha256"], entry["name"]
    assert {"micropip", "piplite", "ipython", "pyodide-kernel"} <= set(lock["packages"])
    names = {e["name"] for e in config["federated_extensions"]}
    # the Pyodide kernel and the site's own (lite/early_kernel.js); no nbgrader tools in the site
    assert names == {"@jupyterlite/pyodide-kernel-extension", build.EARLY_KERNEL_NAME}


@pytest.mark.nbgrader
def test_landing_page_opens_each_edition(site):
    """index.html links each edition's first notebook of each part, titled in its language."""
    page = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    for code in editions.languages():
        app = "lab" if code == editions.ENGLISH else f"lab-{code}"  # in the edition's language
        for name in (f"{PART_ONE}/01-softmax.ipynb", f"{PART_TWO}/01-engine.ipynb"):
            assert f'href="{app}/index.html?path={code}/{name}"' in page
    assert "1단계" in page and "ステップ 1" in page and "Step 1" in page
    assert "http" not in page  # nothing the page loads or links leaves the site
    assert "from checkpoints import hand_in" in page and "2부는 01-engine" in page
    assert os.path.exists(os.path.join(site, ".nojekyll"))  # GitHub Pages keeps __init__.py
    # Korean and Japanese name fonts that hold them, and the page says which to install
    assert re.search(r'section\[lang="ko"\] \{ font-family: "Noto Sans CJK KR"', page)
    assert re.search(r'section\[lang="ja"\] \{ font-family: "Noto Sans CJK JP"', page)
    assert "fonts-noto-cjk" in page


# --- in a real browser ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(site):
    """python -m http.server on the site, on a free port; stopped afterwards."""
    with serving(site) as base:
        yield base


@pytest.fixture(scope="module")
def chromium():
    """Debian's chromium, driven by Playwright, for this module's tests."""
    from playwright.sync_api import sync_playwright

    assert os.path.exists(CHROMIUM), "the browser test needs Debian's chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def expose_app(route):
    """The lab's jupyter-lite.json as served, with JupyterLite's own exposeAppInBrowser switched on:
    the page then sets window.jupyterapp, through which the tests read what the app holds."""
    served = route.fetch()
    config = served.json()
    config["jupyter-config-data"]["exposeAppInBrowser"] = "true"
    route.fulfill(response=served, json=config)


@pytest.fixture
def browser_context(chromium):
    """A fresh browser profile (its storage is the learner's browser storage), with every request
    that would leave 127.0.0.1 refused and recorded in context.outside, and every request that
    carries a lab view report (docs/hub.md), to any address, recorded in context.reports."""
    context = chromium.new_context(viewport={"width": 1280, "height": 1600}, accept_downloads=True)
    context.set_default_timeout(notebook_page.TIMEOUT)  # clicks wait longer on a loaded machine
    context.outside, context.reports = [], []
    context.on("request", lambda request: context.reports.append(request.url)
               if b'"checkpoint": ' in (request.post_data_buffer or b"") else None)  # fmt: skip

    def refuse(route):
        context.outside.append(route.request.url)
        route.abort()

    context.route(re.compile(r"^(?!http://127\.0\.0\.1[:/]).*"), refuse)
    context.route(
        re.compile(r"^http://127\.0\.0\.1:\d+/lab(-\w+)?/jupyter-lite\.json(\?.*)?$"), expose_app
    )
    yield context
    context.close()


KERNEL = "comlink.worker"  # in the address of the Pyodide kernel's worker


def type_exercise(page, path, code, keys="Control+A"):
    """Type code into the exercise cell (keys: as notebook_page.type_into); its source."""
    return notebook_page.type_into(page, path, EXERCISE, code, keys)


def outputs(page, path, grade_id):
    """The output area of that cell of the notebook."""
    return notebook_page.cell(page, path, grade_id).locator(".jp-OutputArea")


def run_all(page, path, locale=None):
    """Run › Run All Cells on the notebook on path, in the menus' language (locale: as JupyterLab's
    language pack says)."""
    labels = (in_language(locale, words) for words in ("Run", "Run All Cells"))
    notebook_page.run_all(page, path, *labels)


def in_language(locale, words):
    """JupyterLab's words as its language pack for locale has them, a menu's own first (gettext's
    context "menu"); None: English."""
    if locale is None:
        return words
    from jupyterlab_server.translation_utils import get_language_pack

    pack = get_language_pack(locale)[0]["jupyterlab"]
    return pack.get(f"menu\x04{words}", pack.get(words))[0]


@pytest.mark.nbgrader
@pytest.mark.browser
def test_a_learner_works_in_the_browser_from_the_site_alone(served, browser_context):
    """From the landing page: notebook 1 opens, a correct softmax passes its checkpoint with a
    picture, progress() and hand_in() work, the zip downloads and, collected and autograded,
    earns exactly step 1's points; after a reload the notebook and model.py still hold the work;
    no request ever left the machine, and none carried a checkpoint's result."""
    notebook = f"en/{PART_ONE}/01-softmax.ipynb"
    page = browser_context.new_page()
    kernels = []  # each kernel is a worker of the page
    page.on("worker", lambda worker: kernels.append(worker.url) if KERNEL in worker.url else None)
    failed = []  # JupyterLab's plugins that could not start (one needing a plugin left off)
    page.on("console", lambda m: failed.append(m.text) if "failed to activate" in m.text else None)
    page.goto(served + "/index.html")
    start = time.monotonic()
    page.get_by_role("link", name="Step 1 · Softmax that never overflows").click()
    type_exercise(page, notebook, SOFTMAX)
    run_all(page, notebook)
    expect(outputs(page, notebook, CHECKS)).to_contain_text(
        "softmax: all 8 checks hold", timeout=180_000
    )
    first_result = time.monotonic() - start
    # it ran in the kernel the site's extension started as the app started, and in no other
    early = page.evaluate("document.documentElement.dataset.earlyKernel")
    assert early and notebook_page.evaluate(page, notebook_page.KERNEL_ID, path=notebook) == early
    assert len(kernels) == 1, kernels
    # the lab started none of the plugins the site leaves off, and every other one
    plugins = page.evaluate("(app => app.listPlugins().map(id => [id, app.isPluginActivated(id)]))"
                            "(window.jupyterapp)")  # fmt: skip
    started = {plugin for plugin, activated in plugins if activated}
    assert not {p for p in started if p in build.LEFT_OFF or p.split(":")[0] in build.LEFT_OFF}
    assert failed == [] and len(started) > 150, (failed, len(started))
    assert "@jupyterlab/logconsole-extension:plugin" in started  # the kernel's status opens it
    notebook_page.wait_for_run(page, notebook)
    bars = page.locator(".jp-OutputArea svg rect")  # the bars picture
    expect(bars.first).to_be_attached(timeout=notebook_page.TIMEOUT)
    screenshot(page, "site-01-softmax-correct.png")
    print(f"first checkpoint result {first_result:.1f} s after clicking the landing page's link")

    # one more cell's worth in the exercise cell: the package imported from the kernel, not
    # from the browser's storage beside the notebooks; the learner's model.py imported from its
    # folder, which Python searches last (lite/standins/piplite); the progress view and the
    # hand-in zip
    typed = type_exercise(
        page,
        notebook,
        "\n\nimport os\n\nimport checkpoints\nfrom checkpoints import hand_in, progress\n\n"
        "print('package in storage:', checkpoints.__file__.startswith(os.getcwd()))\n"
        "import sys\nimport model\n"
        "print('model.py imports:', model.__file__ == os.path.join(os.getcwd(), 'model.py'))\n"
        "print('cwd last, after site-packages:', sys.path.index('') == len(sys.path) - 1 > "
        "sys.path.index(next(p for p in sys.path if p.endswith('site-packages'))))\n"
        "print('startup left no name:', 'cwd_last' not in dir() and 'piplite' not in dir())\n"
        "progress()\nhand_in()\n",
        keys="Control+End",
    )
    notebook_page.run_cell(page, notebook)
    exercise_outputs = outputs(page, notebook, EXERCISE)
    expect(exercise_outputs).to_contain_text(
        "hand-in-attention.zip: 9 files", timeout=notebook_page.TIMEOUT
    )
    notebook_page.wait_for_run(page, notebook)
    within = notebook_page.TIMEOUT
    printed = exercise_outputs.get_by_text("package in storage: False")
    expect(printed).to_have_count(1, timeout=within)
    for line in ("model.py imports: True", "cwd last, after site-packages: True",
                 "startup left no name: True"):  # fmt: skip
        expect(exercise_outputs.get_by_text(line)).to_have_count(1, timeout=within)
    softmax_row = exercise_outputs.locator("table tr", has_text="softmax")  # the progress table
    holds = softmax_row.locator("td", has_text=re.compile(r"^holds$"))
    expect(holds).to_have_count(1, timeout=within)
    next_step = exercise_outputs.get_by_text("next: start attention in 02-attention.ipynb")
    expect(next_step).to_have_count(1, timeout=within)
    page.keyboard.press("Control+S")  # the learner saves; the notebook goes to browser storage
    notebook_page.wait_for_stored_source(page, notebook, EXERCISE, typed)

    page.locator(".jp-DirListing-item", has_text="hand-in-attention.zip").click(button="right")
    with page.expect_download() as download:
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Download$")).click()
    zipped = download.value.path()
    with zipfile.ZipFile(zipped) as z:
        assert "def softmax(xs):" in z.read("model.py").decode()
        assert set(PART_NOTEBOOKS["attention"]) <= set(z.namelist())
    # graded as docs/browser.md says: the browser's notebooks (saved by JupyterLite) earn step 1's
    # points, in a class of this test's own (released there, so its gradebook knows the
    # assignment): the course's class is the other tests' to grade meanwhile
    found, score, max_score = grade_in_a_class_of_its_own(zipped, "browser-learner")
    assert "01-softmax.ipynb" in found and "model.py" in found
    step1 = notebook_points(os.path.join(masters.SOURCE, "01-softmax.ipynb"))
    assert step1 > 0 and score == pytest.approx(step1) and max_score == pytest.approx(39)

    page.reload()
    notebook_page.wait_for_notebook(page, notebook, EXERCISE)  # reopened from browser storage
    assert "top = max(xs)" in notebook_page.cell_source(page, notebook, EXERCISE)
    notebook_page.open_document(page, f"en/{PART_ONE}/model.py")
    assert "top = max(xs)" in notebook_page.document_text(page, f"en/{PART_ONE}/model.py")
    assert browser_context.outside == [], browser_context.outside[:5]
    assert browser_context.reports == []  # the site shares no checkpoint result (docs/hub.md)


def server_answers(base):
    """Whether a server answers at base."""
    try:
        urllib.request.urlopen(base + "/index.html", timeout=5).close()
        return True
    except OSError:
        return False


KEPT = """async (count) => {
  if (navigator.serviceWorker.controller === null) return false;
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    const mark = new URL("attention-site-kept-all", navigator.serviceWorker.controller.scriptURL);
    if ((await cache.keys()).length > count && await cache.match(mark.href)) {
      return true;
    }
  }
  return false;
}"""


def wait_until_kept(page, site, seconds=120):
    """Until the site's service worker controls the page and keeps every file of the site, and
    its mark that it does (which spares a restarted worker looking them all up again)."""
    count = len(build.site_files(site))
    deadline = time.monotonic() + seconds
    while not page.evaluate(KEPT, count):  # (wait_for_function would not await the promise)
        assert time.monotonic() < deadline, f"the site's {count} files not kept in {seconds} s"
        time.sleep(0.5)


@pytest.mark.nbgrader
@pytest.mark.browser
def test_the_site_works_with_the_server_stopped_after_the_first_visit(site, browser_context):
    """A learner opens the landing page and notebook 1 once; then the server stops. The landing
    page and the notebook open again, JupyterLab's scripts and their functions run from the code
    Chrome compiled at the first visit, the kernel starts, a correct softmax passes its
    checkpoint, the edit saves, and after a reload the notebook and model.py hold it; a Tab
    completion only jedi can give works (the kernel unpacks jedi at its first import), and a
    traceback shows its failing line: all from this browser."""
    notebook = f"en/{PART_ONE}/01-softmax.ipynb"
    page = browser_context.new_page()
    with serving(site) as base:
        page.goto(base + "/index.html")
        # the learner glances at the page: its worker then already serves the lab's scripts, and
        # keeps each before the page runs it (so Chrome keeps its compiled code beside the copy)
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        page.get_by_role("link", name="Step 1 · Softmax that never overflows").click()
        notebook_page.wait_for_notebook(page, notebook, EXERCISE)
        wait_until_kept(page, site)
    assert not server_answers(base)
    page.close()

    page = browser_context.new_page()
    categories = ["devtools.timeline", "disabled-by-default-v8.compile"]
    browser_context.browser.start_tracing(page=page, categories=categories)
    page.goto(base + "/index.html")
    page.get_by_role("link", name="Step 1 · Softmax that never overflows").click()
    notebook_page.wait_for_notebook(page, notebook, EXERCISE)
    events = json.loads(browser_context.browser.stop_tracing())["traceEvents"]
    compiled = scripts_compiled(events)
    chunks = {url: cached for url, cached in compiled.items() if is_labs_chunk(site, url)}
    assert len(chunks) > 20 and all(chunks.values()), compiled  # none compiled again
    # nor their functions one by one (11,000 compiles, before build.COMPILE_ALL; 540 with it)
    assert 0 < compiles_on_the_labs_thread(events, site) < 2000
    typed = type_exercise(page, notebook, SOFTMAX)
    run_all(page, notebook)
    expect(outputs(page, notebook, CHECKS)).to_contain_text(
        "softmax: all 8 checks hold", timeout=180_000
    )
    notebook_page.wait_for_run(page, notebook)
    completed = notebook_page.evaluate(page, notebook_page.COMPLETE, path=notebook, code=INFERRED)
    assert "counter_value" in json.loads(completed)["matches"], completed
    failed = notebook_page.evaluate(page, notebook_page.TRACEBACK, path=notebook, code=BROKEN)
    assert "ZeroDivisionError" in failed and "return 1 / 0" in failed, failed
    page.keyboard.press("Control+S")
    notebook_page.wait_for_stored_source(page, notebook, EXERCISE, typed)
    page.reload()
    notebook_page.wait_for_notebook(page, notebook, EXERCISE)
    assert "top = max(xs)" in notebook_page.cell_source(page, notebook, EXERCISE)
    notebook_page.open_document(page, f"en/{PART_ONE}/model.py")
    assert "top = max(xs)" in notebook_page.document_text(page, f"en/{PART_ONE}/model.py")
    assert not server_answers(base)
    assert browser_context.outside == [], browser_context.outside[:5]


def scripts_compiled(events):
    """{address: whether Chrome took its compiled code from its code cache} of every script a
    trace's events (Chrome's devtools.timeline) saw compiled."""
    found = {}
    for event in events:
        data = event.get("args", {}).get("data", {})
        if event.get("name") == "v8.compile" and data.get("url"):
            cached = bool(data.get("consumedCacheSize"))
            found[data["url"]] = found.get(data["url"], False) or cached
    return found


def compiles_on_the_labs_thread(events, site):
    """How many times the thread that ran JupyterLab's scripts compiled code it was not given
    compiled, in a trace's events (V8.CompileCode, of disabled-by-default-v8.compile): a function
    at its first call, or a script Chrome kept no code of."""
    lab = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "v8.compile"
        and is_labs_chunk(site, e.get("args", {}).get("data", {}).get("url", ""))
    }
    assert len(lab) == 1, lab  # the page's main thread
    return sum(e.get("name") == "V8.CompileCode" and (e["pid"], e["tid"]) in lab for e in events)


def is_labs_chunk(site, url):
    """Whether url is one of JupyterLab's scripts in the site's build/ over 1 KiB (Chrome keeps
    no compiled code of a smaller script)."""
    path = urllib.parse.urlsplit(url).path.lstrip("/")
    file = os.path.join(site, *path.split("/"))
    return re.fullmatch(r"build/[^/]+\.js", path) and os.path.getsize(file) > 1024


# a host that sends lab/index.html on to lab/, as some do ("pretty URLs")
REDIRECTING = """
import functools, http.server, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        path, mark, query = self.path.partition("?")
        if path.endswith("/lab/index.html"):
            self.send_response(301)
            self.send_header("Location", path[: -len("index.html")] + mark + query)
            self.end_headers()
        else:
            super().do_GET()
server = http.server.ThreadingHTTPServer(
    ("127.0.0.1", int(sys.argv[1])), functools.partial(Handler, directory=sys.argv[2]))
server.serve_forever()
"""


@pytest.mark.nbgrader
@pytest.mark.browser
def test_a_first_visit_opens_the_notebook_from_a_host_that_redirects_index_html(
    site, browser_context
):
    """On a host that sends lab/index.html on to lab/, the first visit's worker keeps what the
    redirect gave and the notebook opens from that copy (the browser refuses an answer to a page
    load that is marked as redirected; the worker answers with the copy unmarked)."""
    notebook = f"en/{PART_ONE}/01-softmax.ipynb"
    page = browser_context.new_page()
    with serving(site, script=REDIRECTING) as base:
        redirect = requests.get(base + "/lab/index.html", allow_redirects=False, timeout=5)
        assert redirect.status_code == 301  # the host does redirect
        page.goto(base + "/index.html")
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        page.get_by_role("link", name="Step 1 · Softmax that never overflows").click()
        notebook_page.wait_for_notebook(page, notebook, EXERCISE)


# a local name of a function never run: IPython's own completer knows only the names that exist,
# so only jedi, which reads the code, completes it
INFERRED = "def f():\n    counter_value = 1\n    return counter_v"
BROKEN = "def broken():\n    return 1 / 0\n\nbroken()"  # IPython shows its line through stack_data


REPUBLISHED = "Republished: the course's second version"  # in what the second build changed


def second_version(out, monkeypatch):
    """A real `make site` build into out, of the course with what a republished course might
    change: notebooks 1 and 2 gain a second cell, a notebook is added, and the checkpoints package
    gains a module."""
    workspaces = build.workspaces

    def changed(dest):
        workspaces(dest)
        for code in editions.languages():
            folder = os.path.join(dest, code, PART_ONE)
            for name in ("01-softmax.ipynb", "02-attention.ipynb"):
                book = nbformat.read(os.path.join(folder, name), as_version=4)
                book.cells.insert(1, nbformat.v4.new_markdown_cell(REPUBLISHED))
                nbformat.write(book, os.path.join(folder, name))
            book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(REPUBLISHED)])
            nbformat.write(book, os.path.join(folder, "09-republished.ipynb"))
            for part in (PART_ONE, PART_TWO):  # the package, as every part folder holds it
                module = os.path.join(dest, code, part, "checkpoints", "republished.py")
                with open(module, "w") as f:
                    f.write(f"MARK = {REPUBLISHED!r}\n")
        return dest

    monkeypatch.setattr(build, "workspaces", changed)
    return build.build(str(out))


STORED = """async (path) => {
  const model = await window.jupyterapp.serviceManager.contents.get(path, { content: true });
  return JSON.stringify(model.content);
}"""


def site_version(site):
    """The version a built site's service worker serves (its files' digest)."""
    with open(os.path.join(site, "service-worker.js"), encoding="utf-8") as f:
        return re.search(r'^const VERSION = "(\w+)";$', f.read(), re.M).group(1)


SEEN_KEY = "attention-site-version"  # the landing page's record of the version last shown
SEEN = f"localStorage.getItem('{SEEN_KEY}')"
SERVING = """async () => {
  const worker = navigator.serviceWorker.controller;
  if (!worker) return null;
  return await new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (event) => resolve(event.data);
    worker.postMessage("attention-site-version", [channel.port2]);
    setTimeout(() => resolve(null), 5000);
  });
}"""
CHECK_FOR_UPDATE = "async () => (await navigator.serviceWorker.getRegistration()).update()"
WORKERS = f"""async () => {{
  const registration = await navigator.serviceWorker.getRegistration();
  const state = (worker) => worker && worker.state;
  const kept = {{}};
  for (const name of await caches.keys()) {{
    kept[name] = (await (await caches.open(name)).keys()).length;
  }}
  return JSON.stringify({{
    controller: state(navigator.serviceWorker.controller),
    installing: registration && state(registration.installing),
    waiting: registration && state(registration.waiting),
    active: registration && state(registration.active),
    kept,
    seen: localStorage.getItem("{SEEN_KEY}"),
  }});
}}"""


def wait_for_note(page, seconds):
    """The landing page's note that the course was updated, once visible; if it does not show
    within seconds, the failure says what the site's service workers were doing."""
    note = page.locator("#updated")
    try:
        expect(note).to_be_visible(timeout=seconds * 1000)
    except AssertionError as error:
        raise AssertionError(f"{error}\nservice workers: {page.evaluate(WORKERS)}") from None
    return note


@pytest.mark.nbgrader
@pytest.mark.browser
def test_a_republished_site_says_so_and_keeps_the_learners_edits(
    site, browser_context, tmp_path, monkeypatch
):
    """A learner edits and saves notebook 1 on the site as first published; the course is then
    republished at the same address (a second build). The landing page says so; after its
    reload button, notebook 1 still holds the learner's work and not the new version's, notebook 2
    (never changed) is the new version's, the added notebook is listed, and the kernel imports
    the checkpoints package's new module. Republished once more while the learner is in the
    notebook, the landing page says so at the next visit, and not again after its reload."""
    second = second_version(tmp_path / "second", monkeypatch)
    published = tmp_path / "published"
    shutil.copytree(site, published)
    notebook = f"en/{PART_ONE}/01-softmax.ipynb"
    page = browser_context.new_page()
    with serving(str(published)) as base:
        page.goto(base + "/index.html")
        page.get_by_role("link", name="Step 1 · Softmax that never overflows").click()
        typed = type_exercise(page, notebook, SOFTMAX)
        page.keyboard.press("Control+S")
        notebook_page.wait_for_stored_source(page, notebook, EXERCISE, typed)
        wait_until_kept(page, str(published))

        shutil.rmtree(published)
        shutil.copytree(second, published)  # the instructor republishes
        page.goto(base + "/index.html")
        # the new worker keeps all 40 MiB of the new version before it takes over: about 15 s
        # alone, over a minute beside the grading tests
        note = wait_for_note(page, seconds=300)
        expect(note).to_contain_text("This course has been updated since your last visit")
        note.get_by_role("button", name="Reload").click()
        page.get_by_role("link", name="Step 1 · Softmax that never overflows").click()
        notebook_page.wait_for_notebook(page, notebook, EXERCISE)
        assert "top = max(xs)" in notebook_page.cell_source(page, notebook, EXERCISE)
        kept = page.evaluate(STORED, notebook)
        assert "top = max(xs)" in kept and REPUBLISHED not in kept
        assert REPUBLISHED in page.evaluate(STORED, f"en/{PART_ONE}/02-attention.ipynb")
        assert "09-republished.ipynb" in page.evaluate(STORED, f"en/{PART_ONE}")
        type_exercise(page, notebook, "import checkpoints.republished\n"
                      "print(checkpoints.republished.MARK)\n")  # fmt: skip
        notebook_page.run_cell(page, notebook)
        expect(outputs(page, notebook, EXERCISE)).to_contain_text(REPUBLISHED, timeout=180_000)
        assert page.evaluate(SEEN) == site_version(second)

        # Republished again (the first version) and taken over while the learner is in the
        # notebook (the browser's own check for a newer worker, asked for here): the landing page
        # says so at the next visit, and only once.
        shutil.rmtree(published)
        # copied with new times, as an upload has: on its old one, http.server would answer the
        # browser's check "304 not modified" and the worker of the second version would stay
        shutil.copytree(site, published, copy_function=shutil.copy)
        page.evaluate(CHECK_FOR_UPDATE)
        deadline = time.monotonic() + 300
        while page.evaluate(SERVING) != site_version(site):
            assert time.monotonic() < deadline, page.evaluate(WORKERS)
            time.sleep(0.5)
        page.goto(base + "/index.html")
        wait_for_note(page, seconds=60).get_by_role("button").click()
        expect(page.locator("html")).to_have_attribute("data-site-version", site_version(site))
        expect(page.locator("#updated")).to_be_hidden()  # told once

    assert browser_context.outside == [], browser_context.outside[:5]


@pytest.mark.nbgrader
@pytest.mark.browser
def test_the_korean_edition_answers_in_korean(served, browser_context):
    """From the landing page's Korean link: JupyterLab's menus are Korean (its language pack, from
    the site itself), and the checkpoint speaks Korean (its edition file is read through the
    browser's file system)."""
    page = browser_context.new_page()
    notebook = f"ko/{PART_ONE}/01-softmax.ipynb"
    page.goto(served + "/index.html")
    page.locator(f'section[lang="ko"] a[href$="{notebook}"]').click()
    notebook_page.wait_for_notebook(page, notebook, EXERCISE)
    menus = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
    korean = [in_language("ko_KR", w) for w in ("File", "Edit", "Settings")]
    assert korean == [m for m in menus if m in korean] == ["파일", "편집", "설정"], menus
    type_exercise(page, notebook, SOFTMAX)
    run_all(page, notebook, "ko_KR")
    with open(os.path.join(ROOT, "checkpoints", "locales", "ko.json"), encoding="utf-8") as f:
        passed = json.load(f)["report"]["all_hold"].format(count=8)
    passed_in_korean = outputs(page, notebook, CHECKS)  # "검사 8개 모두 통과"
    expect(passed_in_korean).to_contain_text(passed, timeout=180_000)
    notebook_page.wait_for_run(page, notebook)
    screenshot(page, "site-01-softmax-ko.png")
    assert browser_context.outside == [], browser_context.outside[:5]
