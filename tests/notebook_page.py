"""What a JupyterLab or JupyterLite page holds, read from the application, for the browser tests.

CodeMirror 6 draws only the editor lines near the viewport, and JupyterLab hides the tabs in the
background, so text in an editor line may be missing, or there but hidden, while the document
holds it. These helpers wait on the application's own state instead: a document open on a path
and loaded, its cells and their sources, a run that has finished, a file as the browser stored it.
They read it through window.jupyterapp, which JupyterLab and JupyterLite set when their page
config says exposeAppInBrowser (`make lab` with --LabApp.expose_app_in_browser=True; the site
tests add it to the lab's jupyter-lite.json as it is served).
"""

from playwright.sync_api import TimeoutError as PlaywrightTimeout

TIMEOUT = 120_000  # ms: a loaded two-core machine starts a kernel and renders a notebook slowly

# Put before every script below: the widget open on a path in the main area, a cell's index by its
# nbgrader grade id, a stored cell's source as one string.
FIND = """
const app = window.jupyterapp;
function opened(path) {
    if (!app || !app.shell) return null;
    for (const widget of app.shell.widgets("main")) {
        if (widget.context && widget.context.path === path) return widget;
    }
    return null;
}
function gradeIndex(cells, gradeId) {
    return cells.findIndex((cell) => (cell.metadata.nbgrader || {}).grade_id === gradeId);
}
function modelIndex(panel, gradeId) {
    return gradeIndex(panel.content.widgets.map((cell) => cell.model.toJSON()), gradeId);
}
function joined(source) {
    return Array.isArray(source) ? source.join("") : source;
}
"""

# The document on `path` is open and loaded.
DOCUMENT_READY = "({path}) => { const doc = opened(path); return !!doc && doc.context.isReady; }"

# The notebook on `path` is loaded and every cell is in the page, in the notebook's order (so the
# n-th .jp-Cell of its panel is cell n), and cell `gradeId` has its editor.
NOTEBOOK_READY = """({path, gradeId}) => {
    const panel = opened(path);
    if (!panel || !panel.context.isReady || !panel.content || !panel.content.widgets) return false;
    const cells = panel.content.widgets;
    if (!cells.length || cells.length !== panel.content.model.cells.length) return false;
    const nodes = panel.node.querySelectorAll(".jp-Cell");
    if (!cells.every((cell, i) => cell.isAttached && nodes[i] === cell.node)) return false;
    const i = modelIndex(panel, gradeId);
    return i >= 0 && !!cells[i].editor;
}"""

# Where cell `gradeId` is: [its panel's element id, its index].
CELL_PLACE = "({path, gradeId}) => [opened(path).id, modelIndex(opened(path), gradeId)]"

# The source of cell `gradeId` as the open notebook's model holds it (null: no such cell).
CELL_SOURCE = """({path, gradeId}) => {
    const panel = opened(path);
    if (!panel || !panel.context.isReady || !panel.content.widgets) return null;
    const i = modelIndex(panel, gradeId);
    return i < 0 ? null : panel.content.widgets[i].model.sharedModel.getSource();
}"""

# Cell `gradeId` holds `expected`; with `anyBlankLines`, each run of blank lines counts as one
# line break: text typed after an empty last line loses its first line break in CodeMirror.
SOURCE_IS = """(arg) => {
    const held = (CELL_SOURCE)(arg);
    const lines = (text) => (arg.anyBlankLines ? text.replace(/\\n+/g, "\\n") : text);
    return held !== null && lines(held) === lines(arg.expected);
}""".replace("CELL_SOURCE", CELL_SOURCE)

# The kernel is idle, no code cell is running or waiting to run, and each code cell shows as many
# outputs as its model holds.
RUN_FINISHED = """({path}) => {
    const panel = opened(path);
    const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
    if (!kernel || kernel.status !== "idle") return false;
    return panel.content.widgets.every((cell) => cell.model.type !== "code"
        || (cell.model.executionState !== "running"
            && cell.outputArea.widgets.length === cell.model.outputs.length));
}"""

# The source of cell `gradeId` in the notebook on `path` as stored (the browser's storage in
# JupyterLite, the disk in JupyterLab), read back through the app's contents service.
STORED_SOURCE = """async ({path, gradeId}) => {
    const stored = await app.serviceManager.contents.get(path, {content: true});
    const i = gradeIndex(stored.content.cells, gradeId);
    return i < 0 ? null : joined(stored.content.cells[i].source);
}"""

# Read that source back until it is `expected` or `timeout` ms have passed; returns the last read.
# (An async predicate cannot be given to page.wait_for_function: it takes the promise for true.)
STORED_BECOMES = """async (arg) => {
    const read = STORED_SOURCE;
    const deadline = Date.now() + arg.timeout;
    let held = await read(arg);
    while (held !== arg.expected && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        held = await read(arg);
    }
    return held;
}""".replace("STORED_SOURCE", STORED_SOURCE)

# Open `path` with the document manager, as a double-click in the file browser does, once the
# saved layout is restored (a ?path= link opens its file before that, and the restored layout can
# then leave it out).
OPEN = """async ({path}) => {
    await app.restored;
    await app.commands.execute("docmanager:open", {path});
}"""

# The text of the file open on `path` in an editor, as its model holds it.
DOCUMENT_TEXT = "({path}) => opened(path).context.model.sharedModel.getSource()"

# What the page holds of `path`, for a failure message.
DESCRIBE = """({path}) => {
    if (!app) return "no window.jupyterapp on this page (is exposeAppInBrowser set?)";
    const open = Array.from(app.shell.widgets("main")).map((w) => w.context && w.context.path);
    const panel = opened(path);
    if (!panel) return `${path} is not open; open: ${JSON.stringify(open)}`;
    if (!panel.context.isReady) return `${path} is open, not loaded yet`;
    if (!panel.content.widgets) return `${path} is loaded`;
    const session = panel.sessionContext.session;
    const cells = panel.content.widgets.map((cell) => `${cell.isAttached ? "" : "detached "}`
        + `${cell.model.executionState === "running" ? "running " : ""}${cell.model.type}`
        + `${cell.model.outputs ? ` (${cell.model.outputs.length} outputs)` : ""}`);
    return `${path}: kernel ${session && session.kernel ? session.kernel.status : "none"}; `
        + `${cells.length} cells: ${cells.join(", ")}`;
}"""


def wrapped(script):
    """A function of one argument that runs the script (one of those above) with FIND before it."""
    return f"(arg) => {{ {FIND}\n return ({script})(arg); }}"


def evaluate(page, script, **arg):
    """What the script (one of those above) returns on these arguments."""
    return page.evaluate(wrapped(script), arg)


def wait(page, script, what, timeout=TIMEOUT, **arg):
    """Wait until the script returns true on these arguments; else fail, saying what was awaited
    and what the page holds of the document on arg["path"]."""
    try:
        page.wait_for_function(wrapped(script), arg=arg, timeout=timeout, polling=200)
    except PlaywrightTimeout:
        state = evaluate(page, DESCRIBE, path=arg["path"])
        raise AssertionError(f"{what}: not within {timeout / 1000:.0f} s; {state}") from None


def wait_for_document(page, path, timeout=TIMEOUT):
    """Wait until the document on path (a notebook or a file) is open and loaded."""
    wait(page, DOCUMENT_READY, f"{path} open and loaded", timeout, path=path)


def wait_for_notebook(page, path, grade_id, timeout=TIMEOUT):
    """Wait until the notebook on path is loaded, all its cells are in the page and the cell with
    this nbgrader grade id has its editor."""
    what = f"{path} loaded, with cell {grade_id} and its editor"
    wait(page, NOTEBOOK_READY, what, timeout, path=path, gradeId=grade_id)


def cell(page, path, grade_id, timeout=TIMEOUT):
    """The element of the notebook's cell with this nbgrader grade id, once wait_for_notebook."""
    wait_for_notebook(page, path, grade_id, timeout)
    panel, index = evaluate(page, CELL_PLACE, path=path, gradeId=grade_id)
    return page.locator(f"#{panel} .jp-Cell").nth(index)


def cell_source(page, path, grade_id):
    """The source of that cell as the open notebook's model holds it (None: no such cell)."""
    return evaluate(page, CELL_SOURCE, path=path, gradeId=grade_id)


def wait_for_source(page, path, grade_id, expected, any_blank_lines=False, timeout=TIMEOUT):
    """Wait until that cell's source in the notebook's model is exactly `expected` (what was typed
    landed in that cell, whole; any_blank_lines: but for the number of blank lines between two
    lines); returns the source. Else fail with the source it holds."""
    try:
        page.wait_for_function(
            wrapped(SOURCE_IS),
            arg={
                "path": path,
                "gradeId": grade_id,
                "expected": expected,
                "anyBlankLines": any_blank_lines,
            },
            timeout=timeout,
            polling=200,
        )
    except PlaywrightTimeout:
        held = cell_source(page, path, grade_id)
        raise AssertionError(
            f"cell {grade_id} of {path} holds {held!r}, not {expected!r}"
        ) from None
    return cell_source(page, path, grade_id)


def wait_for_run(page, path, timeout=TIMEOUT):
    """Wait until the notebook's run has finished and shows all its outputs: the kernel idle, no
    cell running or queued. Call it once the run has visibly begun (an output it makes was seen):
    just after a click on Run, nothing may be queued yet."""
    wait(page, RUN_FINISHED, f"the run of {path} finished", timeout, path=path)


def stored_source(page, path, grade_id):
    """The source of that cell in the notebook as stored, read back (None: no such cell)."""
    return evaluate(page, STORED_SOURCE, path=path, gradeId=grade_id)


def wait_for_stored_source(page, path, grade_id, expected, timeout=TIMEOUT):
    """Wait until that cell's source in the notebook as stored, read back, is exactly `expected`:
    it was saved. Else fail with the source stored."""
    arg = {"path": path, "gradeId": grade_id, "expected": expected, "timeout": timeout}
    held = evaluate(page, STORED_BECOMES, **arg)
    assert held == expected, f"{path} as stored holds {held!r} in cell {grade_id}, not {expected!r}"


def open_document(page, path, timeout=TIMEOUT):
    """Open the file on path in the lab, once the app has restored its layout; wait until loaded."""
    wait(page, "() => !!app && !!app.commands", "window.jupyterapp", timeout, path=path)
    evaluate(page, OPEN, path=path)
    wait_for_document(page, path, timeout)


def document_text(page, path, timeout=TIMEOUT):
    """The text of the file open on path in an editor, once it is loaded, as its model holds it."""
    wait_for_document(page, path, timeout)
    return evaluate(page, DOCUMENT_TEXT, path=path)
