"""The formgrader's and the feedback's pages run nothing a learner wrote: a notebook full of HTML,
script, SVG and Markdown payloads, rendered with the course's nbgrader configuration by the same
exporter and templates nbgrader uses, and then opened in chromium."""

import html.parser

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from checkpoints import i18n
from checkpoints.pictures import show_bars
from grading.judge import attention
from grading.nbgrader.preprocess import HandedInOutputs
from tests.fixtures import hostile
from tests.fixtures.display_pages import RESOURCES, Boxed, exporter

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


def hostile_notebook(tricks=True, handed_in=False):
    """Every place nbformat lets a learner put HTML or script, plus one graded cell (its outputs
    the judge's, as JudgeCells leaves them) and one picture of the course's; handed_in: as the
    no-execution lane leaves it (the outputs the learner saved)."""
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
    return in_the_no_execution_lane(book) if handed_in else book


def in_the_no_execution_lane(book):
    """book as HandedInOutputs (EXECUTE=0) leaves it: its outputs noted as the learner's saved."""
    HandedInOutputs().preprocess(book, {})
    return book


# a gradebook can hold any name (`nbgrader db student add`), and the formgrader prints it as is
NAMED = RESOURCES | {"last_name": PAYLOADS["img"], "student": PAYLOADS["script"]}


def page(template, safe=True, path=None, book=None, handed_in=False):
    """The HTML of a notebook (the hostile one, with hostile names, run or handed_in; book, or the
    file at path, with plain ones) as the page shows it."""
    if path:
        return exporter(template, safe).from_filename(path, resources=dict(RESOURCES))[0]
    resources = dict(RESOURCES if book else NAMED)
    book = book or hostile_notebook(tricks=safe, handed_in=handed_in)
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


LANES = [False, True]  # the outputs of a run, and the outputs a learner saved (EXECUTE=0)


@pytest.mark.parametrize("handed_in", LANES)
@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_no_learner_html_reaches_the_page(template, handed_in):
    """No frame, inline SVG or attribute holding a payload; the page's <script> elements and event
    handlers are the template's own (those it has for a notebook of plain text); every payload is
    shown as text. The same when the outputs are boxed as the learner's saved ones."""
    shown = Elements(page(template, handed_in=handed_in))
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


@pytest.mark.parametrize("handed_in", LANES)
@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_the_verdicts_and_pictures_still_show(template, handed_in):
    """The graded cell's verdict stays HTML; a picture of the course stays a picture (an <img>);
    the hidden HTML is named; headings and emphasis of Markdown still render."""
    shown = Elements(page(template, handed_in=handed_in))
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


def handed_in_label(code="en"):
    """The words that head a box of saved outputs, in an edition's language."""
    return i18n.words(code)["judge"]["handed_in_output"]


def forged_notebook(code="en", handed_in=True):
    """As the no-execution lane leaves it (or, not handed_in, as an executing lane would if such
    outputs came from the run): the judge's verdict, a forger's saved outputs right under it
    (tests/fixtures/hostile.py), and an ordinary cell that printed."""
    printed = new_output("stream", name="stdout", text="1\n")
    book = new_notebook(cells=[
        graded_cell(),
        new_code_cell("", outputs=hostile.forged_outputs(handed_in_label(code))),
        new_code_cell("print(1)", outputs=[printed]),
    ])  # fmt: skip
    book.metadata["attention"] = {"edition": code}
    return in_the_no_execution_lane(book) if handed_in else book


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_saved_outputs_are_boxed_as_the_learners_never_as_a_verdict(template):
    """EXECUTE=0: each ungraded cell's saved outputs sit in one box headed by the label; what
    forges the verdict or a grader's note (ANSI green, HTML, Markdown, a picture, a result, the
    label itself) lies only inside a box, as plain text or a plain picture; the judge's verdict
    lies outside every box, and is the only verdict-styled element."""
    shown = Boxed(page(template, book=forged_notebook()))
    label = handed_in_label()
    assert len(shown.boxes) == 2
    assert all("".join(box).strip().startswith(label) for box in shown.boxes)
    inside, outside = "".join(shown.inside), "".join(shown.outside)
    for forged in (hostile.FORGED_VERDICT, hostile.FORGED_NOTE, label):
        assert forged in inside and forged not in outside, forged
    assert "\x1b" not in inside and "[1;32m" not in inside
    boxed = [(tag, attrs) for tag, attrs, in_box in shown.tags if in_box]
    assert not any("ansi" in (attrs.get("class") or "") for _, attrs in boxed)
    assert any(t == "img" and a["src"].startswith("data:image/svg+xml;base64,") for t, a in boxed)
    bars = [(t, a, in_box) for t, a, in_box in shown.tags if "border-left" in a.get("style", "")]
    assert bars == [("div", {"style": "border-left:4px solid green"}, False)]  # the judge's


@pytest.mark.parametrize("code", ["en", "ko", "ja"])
def test_the_box_label_speaks_the_notebooks_edition(code):
    """The label of the saved outputs is in the language of the notebook's edition, and each
    edition has words of its own."""
    shown = Boxed(page("feedback", book=forged_notebook(code)))
    assert len(shown.boxes) == 2
    assert all("".join(box).strip().startswith(handed_in_label(code)) for box in shown.boxes)
    labels = [handed_in_label(other) for other in i18n.editions()]
    assert len(set(labels)) == len(labels)


def test_the_outputs_of_a_run_are_not_boxed():
    """The executing lanes' outputs come from the sandboxed run: their page has no box."""
    shown = Boxed(page("feedback", book=forged_notebook(handed_in=False)))
    assert shown.boxes == [] and hostile.FORGED_NOTE in "".join(shown.outside)


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
