"""The formgrader's and the feedback's pages run nothing a learner wrote: a notebook full of HTML,
script, SVG and Markdown payloads, rendered with the course's nbgrader configuration by the same
exporter and templates nbgrader uses, and then opened in chromium."""

import html.parser
import os

import nbformat
import pytest
from nbconvert import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell
from traitlets.config import Config

import grader_config
from checkpoints import i18n
from checkpoints.pictures import show_bars
from grading.judge import attention

MARK = "PWNED"  # every payload sets document.title to this
RUN = f"document.title='{MARK}'"
PAYLOADS = {
    "img": f'<img src="x" onerror="{RUN}">',
    "script": f"<script>{RUN}</script>",
    "svg": f"<svg xmlns='http://www.w3.org/2000/svg' onload=\"{RUN}\"><script>{RUN}</script></svg>",
    "iframe": f'<iframe srcdoc="<script>parent.{RUN}</script>"></iframe>',
}
GRADED = next(iter(attention.CELLS))
TRICKS = "\n\n".join(
    [  # Markdown that nbconvert or mistune would turn into a live page
        f"```mermaid\n{PAYLOADS['img']}\n```",  # written into the page unescaped
        f"[via files](/files/javascript:{RUN})",  # strip_files_prefix leaves javascript:
        f"[via entity](javascript&amp;colon;{RUN})",  # decoded once more after mistune's check
        "![tracker](http://attacker.example/t.png) ![same origin](/logout)",  # fetched on load
        "![missing](attachment:nothing.png)",  # nbconvert raises on it
        # the formgrader's own pages write parts of their address into the page unescaped
        "[my derivation](http://127.0.0.1:8888/formgrader/manage_students/%22;x=%22)",
        "[up](%23/../../manage_students/%22;x=%22)",  # decodes to #…, but the browser follows it
        f"# {GRADED}",  # an anchor with the id of the formgrader's score input
    ]
)
VERDICT = "<div style='border-left:4px solid green'><b>the judge's verdict</b></div>"


def graded_cell():
    """A graded cell as JudgeCells leaves it: the judge's verdict as its only output."""
    verdict = new_output("display_data", data={"text/html": VERDICT, "text/plain": "verdict"})
    record = {"grade": True, "grade_id": GRADED, "locked": True, "points": 1, "score": 1,
              "schema_version": 3, "solution": False}  # fmt: skip
    return new_code_cell("check", outputs=[verdict], metadata={"nbgrader": record})


def hostile_notebook(tricks=True):
    """Every place nbformat lets a learner put HTML or script, plus one graded cell (its outputs
    the judge's, as JudgeCells leaves them) and one picture of the course's."""
    every = "\n\n".join(PAYLOADS.values())
    outputs = [new_output("display_data", data={"text/html": p, "text/plain": "plain " + k})
               for k, p in PAYLOADS.items()]  # fmt: skip
    outputs += [
        new_output("display_data", data={"application/javascript": RUN}),
        new_output("display_data", data={"text/markdown": every}),
        new_output("display_data", data={"image/svg+xml": PAYLOADS["svg"]}),
        new_output("display_data", data={"image/png": f'iVBOR"><script>{RUN}</script>'}),
        new_output(
            "display_data",
            data={"image/png": "iVBORw0KGgo="},
            metadata={"image/png": {"width": f"1 onerror={RUN}"}},
        ),  # fmt: skip
        new_output("execute_result", data={"text/plain": "1"}, execution_count=1),
        new_output("stream", name="stdout", text=every),
        new_output("error", ename="E", evalue=every, traceback=[every]),
    ]
    if tricks:  # metadata of the wrong shape, on which nbconvert alone fails
        jpeg = {"image/jpeg": "/9j/4A=="}
        outputs.append(new_output("display_data", data=jpeg, metadata={"image/jpeg": [1]}))
    picture = show_bars({"row": [1.0, -0.5, 0.25]})
    book = new_notebook(cells=[
        new_markdown_cell(f"# A heading\n\nSome *words*.\n\n{every}\n\n[a link](javascript:{RUN})"),
        *([new_markdown_cell(TRICKS)] if tricks else []),  # nbconvert alone fails on one
        new_raw_cell(every, metadata={"raw_mimetype": "text/html"}),
        new_raw_cell(every),
        new_code_cell("x = 1", outputs=outputs),
        new_code_cell("picture", outputs=[new_output("display_data", data={
            "image/svg+xml": picture._repr_svg_(), "text/html": picture._repr_html_(),
            "text/plain": repr(picture)})]),  # fmt: skip
        graded_cell(),
    ])  # fmt: skip
    book.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return book


def exporter(template, safe=True):
    """An HTMLExporter configured as nbgrader configures it from grader_config.py, with the
    formgrader's or the feedback's template; safe=False leaves out the course's display rules."""
    import nbgrader.server_extensions.formgrader.handlers as handlers

    config = Config()
    grader_config.configure(config)
    if not safe:
        del config.HTMLExporter["preprocessors"], config.HTMLExporter["filters"]
    config.HTMLExporter.template_name = template
    if "extra_template_basedirs" not in config.HTMLExporter:  # the course's MathJax, once served
        config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    if template == "feedback":  # its stylesheet, as GenerateFeedback finds it
        static = os.path.join(os.path.dirname(handlers.__file__), "static")
        css = os.path.join(static, "node_modules", "bootstrap", "dist", "css")
        config.HTMLExporter.extra_template_paths = [css]
    return HTMLExporter(config=config)


RESOURCES = {"assignment_id": "attention", "notebook_id": "01-softmax", "submission_id": "x",
             "index": 0, "total": 1, "base_url": "", "student": "s", "last_name": "L",
             "first_name": "F", "notebook_path": "p",  # the formgrader's, then the feedback's
             "nbgrader": {"notebook": "01-softmax", "score": 1, "max_score": 1,
                          "late_penalty": 0}}  # fmt: skip


# a gradebook can hold any name (`nbgrader db student add`), and the formgrader prints it as is
NAMED = RESOURCES | {"last_name": PAYLOADS["img"], "student": PAYLOADS["script"]}


def page(template, safe=True, path=None, book=None):
    """The HTML of a notebook (the hostile one, with hostile names; book, or the file at path,
    with plain ones) as the page shows it."""
    if path:
        return exporter(template, safe).from_filename(path, resources=dict(RESOURCES))[0]
    resources = dict(RESOURCES if book else NAMED)
    book = book or hostile_notebook(tricks=safe)
    return exporter(template, safe).from_notebook_node(book, resources)[0]


def plain_notebook():
    """Text only: a heading, a cell that prints, and the graded cell."""
    printed = new_output("stream", name="stdout", text="1\n")
    cells = [new_markdown_cell("# Plain"), new_code_cell("print(1)", outputs=[printed])]
    return new_notebook(cells=cells + [graded_cell()])


class Elements(html.parser.HTMLParser):
    """Every tag with its attributes, and the text outside <script> and <style>."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.text, self.open = [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]

    def handle_data(self, data):
        if not {"script", "style"} & set(self.open):
            self.text.append(data)


def ids(page, wanted):
    """The tags of the elements whose id is wanted."""
    return [t for t, attrs in page.tags if attrs.get("id") == wanted]


def handlers(page):
    """{(tag, attribute, value)} of every event handler (on…) in a page."""
    return {(t, a, v) for t, attrs in page.tags for a, v in attrs.items() if a.startswith("on")}


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_no_learner_html_reaches_the_page(template):
    """No frame, inline SVG or attribute holding a payload; the page's <script> elements and event
    handlers are the template's own (those it has for a notebook of plain text); every payload is
    shown as text."""
    shown = Elements(page(template))
    plain = Elements(page(template, book=plain_notebook()))
    assert handlers(shown) <= handlers(plain)
    for tag, attrs in shown.tags:
        assert not any(MARK in (v or "") for v in attrs.values()), (tag, attrs)
        href = "".join((attrs.get("href") or "").split()).lower()
        assert not href.startswith(("javascript:", "data:", "vbscript:")), (tag, attrs)
        assert tag != "img" or attrs.get("src", "").startswith("data:image/"), (tag, attrs)
        assert tag not in ("iframe", "object", "embed", "svg", "math"), tag
    assert ids(shown, GRADED) == ids(plain, GRADED)  # the score input's, not a heading's
    links = {attrs["href"] for t, attrs in shown.tags if t == "a" and "href" in attrs}
    theirs = {attrs["href"] for t, attrs in plain.tags if t == "a" and "href" in attrs}
    assert all(href.startswith("#") for href in links - theirs), links - theirs  # the learner's
    scripts = [(a.get("src"), a.get("type")) for t, a in shown.tags if t == "script"]
    assert scripts == [(a.get("src"), a.get("type")) for t, a in plain.tags if t == "script"]
    text = "".join(shown.text)
    assert PAYLOADS["script"] in text and PAYLOADS["img"] in text  # the instructor reads them


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_the_verdicts_and_pictures_still_show(template):
    """The graded cell's verdict stays HTML; a picture of the course stays a picture (an <img>);
    the hidden HTML is named; headings and emphasis of Markdown still render."""
    shown = Elements(page(template))
    assert ("div", {"style": "border-left:4px solid green"}) in shown.tags  # the verdict, as HTML
    images = [a["src"] for t, a in shown.tags if t == "img" and "src" in a]
    assert sum(src.startswith("data:image/svg+xml;base64,") for src in images) == 2
    assert "not shown here: text/html" in "".join(shown.text)
    assert ("h1", {"id": "md-A-heading"}) in shown.tags and ("em", {}) in shown.tags


@pytest.mark.parametrize("code", ["en", "ko", "ja"])
def test_the_note_on_hidden_output_speaks_the_notebooks_edition(code):
    """A learner's HTML output left out of the feedback is named in the language of the edition
    the notebook was handed out in (its metadata), as the verdicts are."""
    html_out = new_output("display_data", data={"text/html": "<b>table</b>"})
    book = new_notebook(cells=[new_code_cell("table", outputs=[html_out]), graded_cell()])
    book.metadata["attention"] = {"edition": code}
    with i18n.speaking(code):
        want = i18n.Section("judge")["output_not_shown"].format(kinds="text/html")
    text = "".join(Elements(page("feedback", book=book)).text)
    assert want in text
    others = [i18n.words(other)["judge"]["output_not_shown"] for other in i18n.editions()]
    assert len(set(others)) == len(others)  # each edition has words of its own


def test_the_file_on_disk_is_not_changed(tmp_path):
    """Only the page is made safe: the autograded notebook keeps every output."""
    path = tmp_path / "nb.ipynb"
    nbformat.write(hostile_notebook(), str(path))
    before = path.read_bytes()
    page("formgrade", path=str(path))
    assert path.read_bytes() == before


@pytest.mark.browser
def test_no_payload_runs_in_chromium(tmp_path):
    """Both pages, opened in chromium with the network cut: the title is never the payload's.
    The same notebook without the course's display rules does run it (so the check can fail)."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser import CHROMIUM, CHROMIUM_FLAGS

    titles = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        for template in ("formgrade", "feedback"):
            for safe in (True, False):
                file = tmp_path / f"{template}-{safe}.html"
                file.write_text(page(template, safe), encoding="utf-8")
                tab = browser.new_page()
                tab.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
                          else r.abort())  # fmt: skip
                tab.on("dialog", lambda d: d.dismiss())
                tab.goto(file.as_uri())
                tab.wait_for_timeout(1500)  # onerror and onload fire after the load
                titles[template, safe] = tab.title()
                tab.close()
        browser.close()
    assert titles["formgrade", True] != MARK and titles["feedback", True] != MARK
    assert titles["formgrade", False] == MARK and titles["feedback", False] == MARK
