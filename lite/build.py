"""make site: the whole course as a static in-browser site (JupyterLite + Pyodide), offline.

python -m grading site --fetch   # the pinned Pyodide and the kernel's wheels, into .venv/lite/
python -m grading site           # site/: every edition's student notebooks, both parts, as is

The site serves everything it runs: JupyterLab's pages, the Pyodide runtime, and the Python
packages Pyodide's kernel needs (IPython and its dependencies, pure Python). Nothing is fetched
from elsewhere while a learner works. The notebooks come from the same student editions as the
nbgrader release (authoring.course.workspace), so the site holds no solution, no hidden check, no
reference and no seed. Each edition in another language than English opens in an app of its
own, lab-<code>/ (the lab app with that edition's settings overrides), so JupyterLab's menus are in
the edition's language; api/translations/ holds those languages' packs.
"""

import base64
import copy
import hashlib
import html
import io
import json
import os
import pathlib
import posixpath
import shutil
import string
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile

from grading import paths
from grading.authoring import course
from grading.paths import LITE_CACHE, ROOT

PYODIDE_VERSION = "314.0.6"
PYODIDE_TARBALL = f"https://registry.npmjs.org/pyodide/-/pyodide-{PYODIDE_VERSION}.tgz"
PYODIDE_SHA256 = "d78ac549b28a2a58600cd06f44e017024151775f8c6b2d73fab1475400d38ea2"
# what the kernel's worker loads from the runtime package; the rest (consoles, maps) stays out
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
PYODIDE_PYTHON = "3.14"
SITE_PACKAGES = f"/lib/python{PYODIDE_PYTHON}/site-packages"  # the kernel's, in Pyodide

HERE = os.path.dirname(os.path.abspath(__file__))
BYTECODE = os.path.join(HERE, "bytecode.mjs")
EARLY_KERNEL = os.path.join(HERE, "early_kernel.js")  # the site's own lab extension, as written
EARLY_KERNEL_NAME = "attention-early-kernel"  # its name in early_kernel.js and in the site
ZIP_TIME = (2026, 1, 1, 0, 0, 0)  # of every file in the zips the build writes: same files, same zip
CACHE = LITE_CACHE
REQUIREMENTS = os.path.join(HERE, "requirements-pyodide.txt")
STANDINS = os.path.join(HERE, "standins")
SITE = paths.SITE
KERNEL_EXTENSION = os.path.join(
    sys.prefix, "share", "jupyter", "labextensions", "@jupyterlite", "pyodide-kernel-extension"
)
# the kernel's own wheels, shipped inside its extension: the kernel itself and an ipykernel shim
KERNEL_WHEELS = ("pyodide_kernel-", "ipykernel-")
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
KERNEL_FILES = "static/pyodide/"  # where the site keeps the kernel's runtime and wheels
# what a kernel wheel's copy on the site leaves out: jedi's stubs of third-party packages and of
# Django (4,800 of its 5,600 files: unpacking them took 1.5 of the 2 s jedi cost every page load,
# measured in Pyodide). Of those packages the kernel has Pygments alone, whose own source jedi
# reads instead; the stubs of the standard library stay.
LEFT_OUT = {"jedi": ("jedi/third_party/typeshed/stubs/", "jedi/third_party/django-stubs/")}
# the kernel's packages served but not unpacked as it starts, each unpacked at its own first import
# by the site's piplite (lite/standins/piplite/later.py): jedi and parso, which a Tab completion
# imports (870 files, 0.2 s of every page load); prompt_toolkit and wcwidth, which only IPython's
# terminal imports, and a kernel never starts one; matplotlib-inline, for %matplotlib (216 files,
# 50-65 ms of each start in Pyodide). A traceback's stack_data, and the three it reads code with,
# stay unpacked: without their wheels IPython shows its own failure instead of the learner's error.
LATER = ("jedi", "parso", "prompt-toolkit", "wcwidth", "matplotlib-inline")
# JupyterLab's plugins the site's lab leaves off: each does nothing in a browser with no server,
# or nothing for this course, and each one started is work the page does before the notebook
# shows (its code run, its settings read and checked against their schema)
LEFT_OFF = (
    # no language servers or terminals in a browser (the log console stays: the kernel's status
    # turns "dead" from the kernel's log there, and opens it when clicked)
    "@jupyterlab/lsp-extension", "@jupyterlite/application-extension:lsp-connection-manager",
    "@jupyterlab/notebook-extension:language-server",
    "@jupyterlab/fileeditor-extension:language-server", "@jupyterlab/terminal-extension",
    # viewers of files the course has none of (its pictures, .png, keep theirs)
    "@jupyterlab/csvviewer-extension", "@jupyterlab/htmlviewer-extension",
    "@jupyterlab/pdf-extension", "@jupyterlab/vega5-extension", "@jupyterlab/json-lines-extension",
    "@jupyterlab/javascript-extension", "@jupyterlab/mermaid-extension",
    "@jupyterlab/video-extension", "@jupyterlab/audio-extension",
    # an author's tools: cell metadata and tags (nbgrader's live there), the property inspector
    "@jupyterlab/metadataform-extension", "@jupyterlab/celltags-extension",
    "@jupyterlab/notebook-extension:metadata-editor", "@jupyterlab/notebook-extension:tools",
    "@jupyterlab/notebook-extension:active-cell-tool",
    "@jupyterlab/notebook-extension:update-raw-mimetype",
    "@jupyterlab/application-extension:property-inspector",
    # a developer's tools and links to elsewhere
    "@jupyterlite/application-extension:plugin-manager", "@jupyterlab/workspaces-extension",
    "@jupyterlab/help-extension:jupyter-forum", "@jupyterlab/help-extension:resources",
)  # fmt: skip
# the first line of every script the lab's page runs (compile_all; not the workers'): V8 (Chrome
# 136 on) then compiles each of its functions as the script loads, not at the function's first
# call. Chrome keeps a script's compiled code once the script's first run ends, so a function
# first called later (a plugin's, as the app starts) was compiled again at every visit: 11,000
# functions, 0.54 s of the page's main thread
COMPILE_ALL = b"//# allFunctionsCalledOnLoad\n"
LEARNER_PACKAGE = "checkpoints"  # installed in the kernel, not kept in the browser's storage
# files of a built site no page asks for: JupyterLite's build configuration and service worker
# (the site's own replaces it), and the service worker itself
NOT_KEPT = {".nojekyll", "service-worker.js", "build/service-worker.js", "package.json",
            "rspack.config.js", "rspack.config.analyze.js", "rspack.config.watch.js"}  # fmt: skip


def sha256(path):
    """Hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_runtime(cache=CACHE):
    """The Pyodide runtime files in cache/pyodide/ (from npm's tarball, checked by its SHA-256)."""
    target = os.path.join(cache, "pyodide")
    if all(os.path.exists(os.path.join(target, n)) for n in RUNTIME_FILES + ("pyodide-lock.json",)):
        return target
    print(f"fetching Pyodide {PYODIDE_VERSION} from {PYODIDE_TARBALL} ...", flush=True)
    with urllib.request.urlopen(PYODIDE_TARBALL, timeout=300) as reply:
        data = reply.read()
    found = hashlib.sha256(data).hexdigest()
    if found != PYODIDE_SHA256:
        raise SystemExit(f"Pyodide tarball has SHA-256 {found}, expected {PYODIDE_SHA256}")
    partial = target + ".partial"  # renamed into place once complete: no half-written cache
    shutil.rmtree(partial, ignore_errors=True)
    os.makedirs(partial)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for name in RUNTIME_FILES + ("pyodide-lock.json",):
            member = tar.getmember(f"package/{name}")
            with tar.extractfile(member) as src, open(os.path.join(partial, name), "wb") as dst:
                shutil.copyfileobj(src, dst)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(partial, target)
    return target


def fetch_wheels(cache=CACHE):
    """The kernel's pinned pure-Python wheels in cache/wheels/ (pip checks each hash)."""
    target = os.path.join(cache, "wheels")
    done = os.path.join(target, ".requirements")
    with open(REQUIREMENTS, encoding="utf-8") as f:
        wanted = f.read()
    if os.path.exists(done):
        with open(done, encoding="utf-8") as f:
            if f.read() == wanted:
                return target
    print("fetching the in-browser kernel's wheels ...", flush=True)
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--only-binary=:all:", "--require-hashes", "--platform", "any",
         "--implementation", "py", "--abi", "none", "--python-version", PYODIDE_PYTHON,
         "-r", REQUIREMENTS, "-d", target],
        check=True,
    )  # fmt: skip
    with open(done, "w", encoding="utf-8") as f:
        f.write(wanted)
    return target


def fetch(cache=CACHE):
    """Everything make site downloads, so that building (and the tests) need no network."""
    return fetch_runtime(cache), fetch_wheels(cache)


def standin_wheel(name, dest):
    """A wheel of lite/standins/<name> (version 0+course) written into dest; returns its path."""
    return package_wheel(os.path.join(STANDINS, name), dest)


def package_wheel(source, dest, version="0+course"):
    """A wheel of the package folder source (its every file but compiled ones) written into dest;
    returns its path."""
    name = os.path.basename(source)
    info = f"{name}-{version}.dist-info"
    files = {}
    for folder, subfolders, names in os.walk(source):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")  # in order, pruned
        for n in sorted(names):
            if not n.endswith(".pyc"):
                path = os.path.join(folder, n)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, os.path.dirname(source)).replace(os.sep, "/")] = (
                        f.read()
                    )
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    )
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: lite.build\nRoot-Is-Purelib: true\n"
    files[f"{info}/top_level.txt"] = f"{name}\n".encode()
    record = [f"{p},sha256={_urlsafe_digest(data)},{len(data)}" for p, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join(record + [f"{info}/RECORD,,"]) + "\n").encode()
    path = os.path.join(dest, f"{name}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as whl:
        for p, data in files.items():
            whl.writestr(zipfile.ZipInfo(p, date_time=ZIP_TIME), data)
    return path


def without(wheel, left_out, dest):
    """A copy of wheel in dest, under the same name, without the files whose paths start with one
    of left_out, nor their lines in RECORD; returns its path."""
    path = os.path.join(dest, os.path.basename(wheel))
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if info.filename.startswith(left_out):
                continue
            data = src.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                lines = data.decode().splitlines(keepends=True)
                data = "".join(ln for ln in lines if not ln.startswith(left_out)).encode()
            out.writestr(info, data)
    return path


def folder_digest(folder, leave_out=()):
    """Hex SHA-256 of a folder's files (their paths inside it and their bytes), compiled ones and
    the paths in leave_out left out."""
    digest = hashlib.sha256()
    for path in sorted(
        os.path.join(d, n)
        for d, _, names in os.walk(folder)
        for n in names
        if "__pycache__" not in d
    ):
        inside = os.path.relpath(path, folder)
        if inside.replace(os.sep, "/") not in leave_out:
            with open(path, "rb") as f:
                digest.update(inside.encode() + b"\0" + f.read())
    return digest.hexdigest()


def _urlsafe_digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel_entry(path):
    """One pyodide-lock.json package entry for a pure-Python wheel file."""
    from packaging.utils import canonicalize_name, parse_wheel_filename

    name, version, _, _ = parse_wheel_filename(os.path.basename(path))
    with zipfile.ZipFile(path) as whl:
        names = whl.namelist()
        tops = [n for n in names if n.endswith(".dist-info/top_level.txt")]
        if tops:
            imports = whl.read(tops[0]).decode().split()
        else:  # no top_level.txt: the top folders and modules the wheel installs
            imports = sorted(
                {n.split("/")[0].removesuffix(".py") for n in names if ".dist-info/" not in n}
            )
    return {
        "name": canonicalize_name(name),
        "version": str(version),
        "file_name": os.path.basename(path),
        "install_dir": "site",
        "sha256": sha256(path),
        "package_type": "package",
        "imports": [i for i in imports if i.isidentifier()],
        "depends": [],  # every package is named in loadPyodideOptions.packages: none to resolve
        "unvendored_tests": False,
    }


def kernel_packages(pyodide_dir, wheels):
    """Copy the wheels beside the runtime and write its pyodide-lock.json; returns their names.

    The lock keeps the runtime's own `info` and lists only the site's wheels: the kernel's
    packages, and stand-ins for micropip and piplite (the installers the kernel loads first).
    """
    with open(os.path.join(pyodide_dir, "pyodide-lock.json"), encoding="utf-8") as f:
        runtime_lock = json.load(f)
    entries = {}
    for path in wheels:
        shutil.copy(path, pyodide_dir)
        entry = wheel_entry(os.path.join(pyodide_dir, os.path.basename(path)))
        entries[entry["name"]] = entry
    lock = {"info": runtime_lock["info"], "packages": entries}
    with open(os.path.join(pyodide_dir, "pyodide-lock.json"), "w", encoding="utf-8") as f:
        json.dump(lock, f, indent=1, sort_keys=True)
    return sorted(entries)


def lite_config(packages):
    """jupyter-lite.json: the site's own Pyodide, the kernel's packages but LATER loaded at start,
    no PyPI, and JupyterLab's plugins but LEFT_OFF."""
    kernel = {
        "pyodideUrl": f"./{KERNEL_FILES}pyodide.mjs",
        "disablePyPIFallback": True,
        "pipliteUrls": [],
        "loadPyodideOptions": {
            "packages": [p for p in packages if p not in LATER],
            # compiled files would be written through to the browser's storage beside the
            # learner's notebooks; the site's modules are small and import quickly without them
            "env": {
                "HOME": "/home/pyodide",
                "PYTHONDONTWRITEBYTECODE": "1",
                # run by IPython as the shell starts: the learner's folder last on sys.path
                "PYTHONSTARTUP": f"{SITE_PACKAGES}/piplite/startup.py",
            },
        },
    }
    return {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "Attention by hand",
            "disabledExtensions": list(LEFT_OFF),
            "litePluginSettings": {KERNEL_PLUGIN: kernel},
        },
    }


def workspaces(dest):
    """dest/<edition>/<part's folder>/: each edition's student notebooks of each part, the files
    they save and the part's checkpoints package, exactly as `make lab EDITION=<edition>` (then
    PART=xslm) prepares them (which leaves the course's release/ and gradebook as they are)."""
    from grading.authoring import editions
    from grading.parts import PARTS

    shutil.rmtree(dest, ignore_errors=True)
    for edition in editions.languages():
        for part in PARTS:
            course.workspace(os.path.join(dest, edition), edition=edition, assignment=part)
    return dest


def first_heading(notebook):
    """The first line of a notebook's first cell, without its '#': the step's title."""
    with open(notebook, encoding="utf-8") as f:
        first = json.load(f)["cells"][0]["source"]
    return "".join(first).splitlines()[0].lstrip("# ").strip()


def app_of(code):
    """The site's JupyterLab app an edition opens in: lab/ (English), or lab-<code>/."""
    from grading.authoring import editions

    return "lab" if code == editions.ENGLISH else f"lab-{code}"


def compile_all(out):
    """COMPILE_ALL as the first line of every script the lab's page runs (out/build/ and
    out/extensions/, but for the service worker and the kernel's workers); returns how many."""
    marked = 0
    for top in ("build", "extensions"):
        for folder, _, names in os.walk(os.path.join(out, top)):
            for name in names:
                path = pathlib.Path(folder, name)
                if name.endswith(".js") and not worker_script(path.relative_to(out).as_posix()):
                    path.write_bytes(COMPILE_ALL + path.read_bytes())
                    marked += 1
    return marked


def worker_script(path):
    """Whether the site's file at path (relative to its root) is a worker's own script: the
    service worker, or the kernel's (Chrome gave those no compiled code from its cache, in the
    traces, so compiling all their functions would be work at every start)."""
    return path in NOT_KEPT or ".worker." in path.rsplit("/", 1)[-1]


def edition_apps(out):
    """out/lab-<code>/ for each edition but English: the lab app's page with that edition's
    settings overrides (make lab's too; its interface's language) and a kernel whose checkpoints
    answer in it (ATTENTION_EDITION), and api/translations/ holding those languages' JupyterLab
    language packs. Returns the locales."""
    from jupyterlab_server.translation_utils import get_language_pack, get_language_packs

    from grading.authoring import editions

    installed, locales = get_language_packs()[0], []
    with open(os.path.join(out, "jupyter-lite.json"), encoding="utf-8") as f:
        site = json.load(f)["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    for code in editions.languages():
        if code == editions.ENGLISH:
            continue
        pyodide_options = copy.deepcopy(site["loadPyodideOptions"])
        app = os.path.join(out, app_of(code))
        shutil.copytree(os.path.join(out, "lab"), app)
        with open(os.path.join(app, "jupyter-lite.json"), encoding="utf-8") as f:
            config = json.load(f)
        data = config["jupyter-config-data"]
        data["appUrl"] = "/" + os.path.basename(app)
        data["settingsOverrides"] = editions.lab_settings(code)
        data["litePluginSettings"] = {KERNEL_PLUGIN: {"loadPyodideOptions": pyodide_options}}
        pyodide_options["env"]["ATTENTION_EDITION"] = code  # (merged with the site's, key by key)
        with open(os.path.join(app, "jupyter-lite.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, indent=1)
        locale = editions.lab_locale(code)
        if locale is None:
            continue
        if locale not in installed:
            raise SystemExit(f"the {code} edition's JupyterLab speaks {locale}, whose language "
                             "pack is not installed: pip install -r requirements.txt")  # fmt: skip
        locales.append(locale)
    translations = os.path.join(out, "api", "translations")
    listed = {k: v for k, v in installed.items() if k == "en" or k in locales}
    write_json(os.path.join(translations, "all.json"), {"data": listed, "message": ""})
    for locale in locales:
        pack = {"data": get_language_pack(locale)[0], "message": ""}
        write_json(os.path.join(translations, f"{locale}.json"), pack)
    return locales


def early_kernel(out):
    """The site's own lab extension (lite/early_kernel.js: the kernel of the notebook a link opens
    starts as the app starts) in out/extensions/, named in the site's jupyter-lite.json beside the
    Pyodide kernel's. Its file name holds its digest: a republished site never meets an old copy
    in a browser's cache."""
    load = f"static/remoteEntry.{sha256(EARLY_KERNEL)[:12]}.js"
    target = os.path.join(out, "extensions", EARLY_KERNEL_NAME, load)
    os.makedirs(os.path.dirname(target))
    shutil.copy(EARLY_KERNEL, target)
    path = os.path.join(out, "jupyter-lite.json")
    with open(path, encoding="utf-8") as f:
        config = json.load(f)
    extension = {"name": EARLY_KERNEL_NAME, "load": load, "extension": "./extension"}
    config["jupyter-config-data"]["federated_extensions"].append(extension)
    write_json(path, config)


def write_json(path, data):
    """data as UTF-8 JSON at path (its folder made if needed)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)


def landing_page(content):
    """The site's index.html: for each edition, in its language, a link that opens each part's
    first notebook, which notebooks belong to which part, and how to hand work in."""
    from checkpoints.i18n import lookup
    from grading.authoring import editions
    from grading.authoring.masters import notebooks
    from grading.parts import PARTS

    blocks = []
    for code in editions.languages():
        links = "".join(
            f'<li><a href="{app_of(code)}/index.html?path={code}/{path}">'
            f"{html.escape(first_heading(os.path.join(content, code, path)))}</a></li>"
            for path in (f"{p.folder}/{notebooks(p.masters)[0]}" for p in PARTS.values())
        )
        name = html.escape(editions.details(code)["name"])
        notes = "".join(
            f"<p>{html.escape(lookup('handin', k, code=code))}</p>" for k in ("parts", "how_to")
        )
        blocks.append(f'<section lang="{code}"><h2>{name}</h2><ul>{links}</ul>{notes}</section>')
    updated = {code: {k: lookup("site", k, code=code) for k in ("updated", "reload")}
               for code in editions.languages()}  # fmt: skip
    script_data = json.dumps(updated, ensure_ascii=False).replace("<", "\\u003c")
    with open(os.path.join(HERE, "index.html"), encoding="utf-8") as f:
        page = string.Template(f.read())
    return page.substitute(editions="\n".join(blocks), updated=script_data)


def kernel_wheels():
    """The kernel's wheels the site ships besides the stand-ins: the pinned ones fetched into the
    cache, and the kernel's own from its extension (pyodide_kernel and the ipykernel shim)."""
    shipped = os.path.join(KERNEL_EXTENSION, "static", "pypi")
    if not os.path.isdir(shipped):
        raise SystemExit(f"{KERNEL_EXTENSION} is missing: pip install -r requirements.txt")
    fetched = fetch_wheels()
    return [os.path.join(fetched, n) for n in sorted(os.listdir(fetched)) if n.endswith(".whl")] + [
        os.path.join(shipped, n) for n in sorted(os.listdir(shipped)) if n.startswith(KERNEL_WHEELS)
    ]


def build(out=SITE):
    """Build the site into out (replacing a site built there before); returns out."""
    start = time.monotonic()
    if os.path.exists(out) and os.listdir(out):
        if not os.path.exists(os.path.join(out, "jupyter-lite.json")):
            raise SystemExit(f"{out} holds files that are no site built here: choose another SITE")
    with tempfile.TemporaryDirectory(prefix="lite-") as work:
        lite_dir = os.path.join(work, "src")
        content = workspaces(os.path.join(work, "content"))
        learner_wheel = checkpoints_wheel(content, work)
        pyodide_dir = os.path.join(lite_dir, *KERNEL_FILES.split("/"))
        packages = install_kernel(pyodide_dir, work, learner_wheel)
        compiled = compile_kernel(pyodide_dir, work, [LEARNER_PACKAGE])
        with open(os.path.join(lite_dir, "jupyter-lite.json"), "w", encoding="utf-8") as f:
            json.dump(lite_config(packages), f, indent=1)
        print(
            f"kernel: Pyodide {PYODIDE_VERSION} with {len(packages)} packages, "
            f"{compiled} modules compiled",
            flush=True,
        )
        shutil.rmtree(out, ignore_errors=True)
        jupyter_lite_build(lite_dir, content, out)
        early_kernel(out)
        marked = compile_all(out)
        print(f"lab: {marked} scripts compiled whole as they load", flush=True)
        languages = edition_apps(out)
        print(f"JupyterLab in {', '.join(languages) or 'English only'}", flush=True)
        with open(os.path.join(out, "index.html"), "w", encoding="utf-8") as f:
            f.write(landing_page(content))
        # GitHub Pages (publishing from a branch) drops files named _*, such as __init__.py
        open(os.path.join(out, ".nojekyll"), "w").close()
        kept = offline(out)
        print(f"offline: service-worker.js keeps {kept} files after the first visit", flush=True)
    size = course.folder_size(out)
    where = os.path.relpath(out, ROOT) if out.startswith(ROOT + os.sep) else out
    print(f"{where}/: {size / 2**20:.1f} MiB in {time.monotonic() - start:.0f} s", flush=True)
    return out


def site_files(out):
    """The addresses of every file of the site, relative to its root, as a browser asks for them:
    each file, and each folder that has an index.html (./, lab/, ...)."""
    found = []
    for folder, subfolders, names in os.walk(out):
        subfolders.sort()
        here = os.path.relpath(folder, out).replace(os.sep, "/")
        prefix = "" if here == "." else here + "/"
        if "index.html" in names:
            found.append(prefix or "./")
        found += [prefix + n for n in sorted(names) if prefix + n not in NOT_KEPT]
    return [
        urllib.parse.quote(path, safe="/@+:~!$&'()*,;=") for path in found
    ]  # as pages spell them


def offline(out):
    """Make the site work offline after the first visit: service-worker.js (lite/'s, with the
    site's version and file list) keeps every file in the browser, and manifest.webmanifest lets
    the site be installed as an app. Returns how many addresses the service worker keeps."""
    manifest = {
        "name": "Attention by hand",
        "short_name": "Attention",
        "description": "Every piece of a transformer block, written in plain Python in the browser",
        "start_url": "./index.html",
        "scope": "./",
        "display": "standalone",
        "background_color": "#ffffff",
        "icons": [
            {"src": f"./icon-{size}x{size}.png", "type": "image/png", "sizes": f"{size}x{size}"}
            for size in (120, 512)
        ],
    }
    write_json(os.path.join(out, "manifest.webmanifest"), manifest)
    # the kernel's runtime and wheels first: on a first visit the worker starts keeping the site
    # on the landing page, and every notebook's kernel needs them within seconds of the link
    files = sorted(site_files(out), key=lambda path: not path.startswith(KERNEL_FILES))
    with open(os.path.join(HERE, "service-worker.js"), encoding="utf-8") as f:
        worker = f.read()
    version = folder_digest(out, NOT_KEPT)[:16]  # a new site, a new worker: browsers take it
    worker = worker.replace("__VERSION__", version).replace("__FILES__", json.dumps(files))
    with open(os.path.join(out, "service-worker.js"), "w", encoding="utf-8") as f:
        f.write(worker)
    return len(files)


def install_kernel(pyodide_dir, work, *more_wheels):
    """The runtime, the kernel's wheels (and more_wheels) and their lock in pyodide_dir; returns
    the package names."""
    runtime = fetch_runtime()
    os.makedirs(pyodide_dir)
    for name in RUNTIME_FILES + ("pyodide-lock.json",):
        shutil.copy(os.path.join(runtime, name), pyodide_dir)
    wheels = [site_copy(w, work) for w in kernel_wheels()]
    wheels += [standin_wheel(n, work) for n in ("micropip", "piplite")]
    return kernel_packages(pyodide_dir, wheels + list(more_wheels))


def compile_kernel(pyodide_dir, work, packages=()):
    """Bytecode in the kernel's files for every module the kernel imports as it starts (and every
    module of each of packages): compiled by Pyodide's own Python in Node.js (lite/bytecode.mjs),
    as unchecked .pyc files beside their sources, in the standard library's zip and in each wheel.
    Pyodide ships modules as source only, so the browser compiled each of them on every page
    load. Returns how many modules were compiled."""
    node = shutil.which("node")
    if node is None:
        raise SystemExit(
            "make site needs Node.js: Pyodide compiles the kernel's bytecode in it "
            "(Debian: sudo apt-get install nodejs)"
        )
    out = os.path.join(work, "bytecode")
    subprocess.run([node, BYTECODE, pyodide_dir, out, *packages], check=True)
    with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    compiled = {}  # (stdlib or site, the source's path inside it) -> the bytecode
    for name in manifest["compiled"]:
        kind, inside = name.split("/", 1)
        with open(os.path.join(out, name), "rb") as f:
            compiled[kind, inside.removesuffix("c")] = f.read()
    stdlib = {p: data for (kind, p), data in compiled.items() if kind == "stdlib"}
    with zipfile.ZipFile(os.path.join(pyodide_dir, "python_stdlib.zip"), "a") as zf:
        for source, data in sorted(stdlib.items()):  # zipimport looks for x.pyc before x.py
            zf.writestr(zipfile.ZipInfo(source + "c", ZIP_TIME), data, zipfile.ZIP_DEFLATED)
    site = {p: data for (kind, p), data in compiled.items() if kind == "site"}
    for name in sorted(os.listdir(pyodide_dir)):
        if name.endswith(".whl"):
            with_bytecode(os.path.join(pyodide_dir, name), site, manifest["cache_tag"])
    relock(pyodide_dir)
    return len(compiled)


def with_bytecode(wheel, compiled, cache_tag):
    """Add to wheel, in place, compiled[source] as __pycache__/<module>.<cache_tag>.pyc beside each
    of its sources that compiled names, each listed in RECORD."""
    with zipfile.ZipFile(wheel) as src:
        files = {info.filename: src.read(info) for info in src.infolist()}
    added = {}
    for source in files:
        if source in compiled:
            folder, module = posixpath.split(source)
            pyc = posixpath.join(folder, "__pycache__", f"{module[:-3]}.{cache_tag}.pyc")
            added[pyc] = compiled[source]
    if not added:
        return
    record = next(n for n in files if n.endswith(".dist-info/RECORD"))
    lines = [f"{p},sha256={_urlsafe_digest(data)},{len(data)}\n" for p, data in added.items()]
    files[record] += "".join(lines).encode()
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in {**files, **added}.items():
            out.writestr(zipfile.ZipInfo(name, ZIP_TIME), data, zipfile.ZIP_DEFLATED)


def relock(pyodide_dir):
    """pyodide-lock.json's hashes taken again from the wheels beside it."""
    path = os.path.join(pyodide_dir, "pyodide-lock.json")
    with open(path, encoding="utf-8") as f:
        lock = json.load(f)
    for entry in lock["packages"].values():
        entry["sha256"] = sha256(os.path.join(pyodide_dir, entry["file_name"]))
    with open(path, "w", encoding="utf-8") as f:
        json.dump(lock, f, indent=1, sort_keys=True)


def site_copy(wheel, work):
    """The wheel the site ships for a kernel wheel: itself, or a copy in work without what
    LEFT_OUT names for its package."""
    from packaging.utils import parse_wheel_filename

    name = parse_wheel_filename(os.path.basename(wheel))[0]
    return without(wheel, LEFT_OUT[name], work) if name in LEFT_OUT else wheel


def checkpoints_wheel(content, dest):
    """The checkpoints package of the site's workspaces as one wheel in dest, taken out of them.

    Python imports it from the kernel's own memory then: from the browser's storage each file
    the import system looks at is a request, and notebook 1's first cell took about 4 s. Each
    part folder of each edition holds the whole package (the workspace shares the parts it
    holds); the copies differ only in the file naming their edition, which each app's kernel gets
    as ATTENTION_EDITION instead (edition_apps). The version is the package's digest, so a
    browser never keeps an old one.
    """
    from grading.parts import PARTS

    copies = [os.path.join(content, code, part.folder, LEARNER_PACKAGE)
              for code in sorted(os.listdir(content)) for part in PARTS.values()]  # fmt: skip
    for folder in copies:
        edition_file = os.path.join(folder, "locales", "edition")
        if os.path.exists(edition_file):
            os.remove(edition_file)
    digests = {folder_digest(folder) for folder in copies}
    if len(digests) != 1:
        raise SystemExit("the site's checkpoints packages differ beyond their edition file")
    wheel = package_wheel(copies[0], dest, version=f"0+course.{digests.pop()[:12]}")
    for folder in copies:
        shutil.rmtree(folder)
    return wheel


def jupyter_lite_build(lite_dir, content, out):
    """JupyterLite's own build: its apps, the Pyodide kernel's extension (and no other), content."""
    print("jupyter lite build ...", flush=True)
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", lite_dir,
         "--output-dir", out, "--contents", content, "--no-sourcemaps",
         "--LiteBuildConfig.ignore_sys_prefix=True",
         f"--LiteBuildConfig.federated_extensions={KERNEL_EXTENSION}"],
        cwd=os.path.dirname(lite_dir), capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        print(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit("jupyter lite build failed (its log is above)")


def arguments(parser, command):
    """`python -m grading site [folder] | site --fetch`."""
    parser.add_argument("folder", nargs="?", help="where to build the site (default site/)")
    parser.add_argument("--fetch", action="store_true",
                        help="only fetch what the build needs (Pyodide, wheels)")  # fmt: skip


def main(args):
    """Fetch what the site needs, or build the site."""
    if args.fetch:
        fetch()
        return
    build(*([os.path.abspath(args.folder)] if args.folder else []))
