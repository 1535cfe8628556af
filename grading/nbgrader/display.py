"""What the formgrader and the feedback pages show of a learner's notebook: the judge's verdicts as
HTML, and everything the learner wrote or printed as text and plain images.

Both pages are nbconvert's HTMLExporter, and nbconvert passes HTML through as it is (its own
`sanitize_html` escapes every paragraph and heading of Markdown, nbconvert#2016). Without this, a
cell that displays `<script>` runs it in the instructor's browser when the formgrader shows the
submission: with the instructor's Jupyter session, so with their grades and a terminal. So:

- `SafeDisplay` (a preprocessor) keeps the rich outputs of the graded cells only, which JudgeCells
  filled with the judge's verdicts; every other output keeps its text and its PNG/JPEG images, and
  an SVG becomes an <img> (no script runs in one). HTML, JavaScript, Markdown and widget outputs
  are dropped, with a line saying so; raw cells become Markdown code blocks; the notebook's
  metadata keeps only what the pages need.
- In the no-execution lane (EXECUTE=0: the notebook says so, preprocess.outputs_handed_in) no
  output but a verdict was made at grading: each cell's outputs are shown inside one box of the
  course's making, labelled in the edition's language as the learner's saved output, not re-run.
  Inside it everything is text (ANSI codes removed) or a plain picture, so nothing a learner saved
  (a verdict's words, its colours, a label like the box's own) appears outside a box.
- `markdown2html` (a filter) renders Markdown cells as nbconvert does, but escapes raw HTML in
  them, so `<img onerror=…>` shows as text; and (SafeRenderer) a mermaid block is code, a link is
  its text and its address as text (only an anchor within the page, written with #, stays a link),
  an image is only one of the cell's own attachments (no page fetches a URL a learner chose), and
  heading anchors cannot take the id of the formgrader's score inputs.
- The names and paths the formgrader writes into its page unescaped (resources) are escaped.

grader_config.py sets both on HTMLExporter, for the formgrader and `nbgrader generate_feedback`.
The notebook on disk is never changed: only the page made from it.
"""

import base64
import functools
import html
import importlib
import re

import jinja2
import nbformat
from nbconvert.filters import strip_ansi
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import Preprocessor

from checkpoints import i18n
from grading import parts
from grading.nbgrader.preprocess import edition_of, outputs_handed_in

IMAGE_MIME = ("image/png", "image/jpeg")  # base64 data, shown as <img src="data:…">
BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*\Z")
TAG = re.compile(r"[A-Za-z0-9_\-]+\Z")
PYTHON = {"name": "python", "pygments_lexer": "ipython3"}
PAGE_TEXT = ("student", "first_name", "last_name", "notebook_path")  # the formgrader's resources
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # what a terminal would act on; text keeps \t, \n
# The box around a learner's saved outputs: dashed and grey on all sides, unlike a verdict's
# coloured left bar; its class lets a test find what lies inside it.
BOX_CLASS = "attention-handed-in"
BOX_STYLE = "border:2px dashed #8a8a8a;background:#f3f3f3;padding:0.3em 0.7em;margin:0.2em 0"
LABEL_STYLE = "color:#444;font-weight:bold;font-style:italic;margin-bottom:0.3em"


@functools.cache
def judged_cells():
    """The grade_ids whose outputs are the judge's (every part's CELLS, from the registry)."""
    return {gid for part in parts.PARTS.values()
            for gid in importlib.import_module(part.judge).CELLS}  # fmt: skip


def is_base64(text):
    """True when text is a string of base64 characters only (no quote, no angle bracket)."""
    return isinstance(text, str) and BASE64.match(text) is not None


def svg_as_img(svg):
    """An SVG as an <img> with a data: URL: the browser draws it and runs none of its scripts."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img src="data:image/svg+xml;base64,{data}">'


def image_metadata(metadata, mime):
    """An image's width and height when they are numbers; nothing else of the output's metadata."""
    given = metadata.get(mime) if isinstance(metadata, dict) else None
    sizes = {k: v for k, v in (given if isinstance(given, dict) else {}).items()
             if k in ("width", "height") and type(v) is int}  # fmt: skip
    return {mime: sizes} if sizes else {}


def shown_data(data, metadata, hidden_note):
    """(data, metadata) of a display or a result as the pages may show it: its text, PNG/JPEG,
    and SVG as <img>; a note names what was left out when no picture stands in for it."""
    data = data if isinstance(data, dict) else {}
    kept, meta = {}, {}
    if isinstance(data.get("text/plain"), str):
        kept["text/plain"] = data["text/plain"]
    for mime in IMAGE_MIME:
        if is_base64(data.get(mime)):
            kept[mime] = data[mime]
            meta.update(image_metadata(metadata, mime))
    if isinstance(data.get("image/svg+xml"), str):
        kept["text/html"] = svg_as_img(data["image/svg+xml"])
    left_out = sorted(set(data) - set(kept) - {"image/svg+xml"})
    if left_out:
        note = hidden_note.format(kinds=", ".join(left_out))
        kept["text/plain"] = f"{kept['text/plain']}\n{note}" if "text/plain" in kept else note
    return kept, meta


def shown_output(output, hidden_note):
    """One output of an ungraded code cell as the pages may show it, or None (an unknown kind)."""
    kind = output.get("output_type")
    if kind == "stream":
        name = "stderr" if output.get("name") == "stderr" else "stdout"
        return {"output_type": "stream", "name": name, "text": text_of(output.get("text"))}
    if kind == "error":
        return {"output_type": "error", "ename": str(output.get("ename", "")),
                "evalue": str(output.get("evalue", "")),
                "traceback": [str(line) for line in output.get("traceback") or []]}  # fmt: skip
    if kind in ("display_data", "execute_result"):
        data, meta = shown_data(output.get("data"), output.get("metadata"), hidden_note)
        shown = {"output_type": kind, "data": data, "metadata": meta}
        if kind == "execute_result":
            count = output.get("execution_count")
            shown["execution_count"] = count if isinstance(count, int) else None
        return shown
    return None


def text_of(value):
    """A stream's text, as nbformat allows it: a string or a list of strings."""
    return "".join(map(str, value)) if isinstance(value, list) else str(value or "")


def preformatted(text):
    """Text as HTML that shows it verbatim: escaped, without ANSI codes or other controls."""
    plain = CONTROL.sub("", strip_ansi(text.replace("\r\n", "\n")))
    return f'<pre style="margin:0;background:none">{html.escape(plain)}</pre>'


def output_html(output):
    """One output as shown_output left it, as HTML of the course's making: what nbconvert would
    pick of it (a picture before text), its text escaped."""
    kind = output["output_type"]
    if kind == "stream":
        return preformatted(output["text"])
    if kind == "error":
        lines = output["traceback"] or [f"{output['ename']}: {output['evalue']}"]
        return preformatted("\n".join(lines))
    data, meta = output["data"], output["metadata"]
    if "text/html" in data:  # only ever svg_as_img's <img>: shown_data keeps no learner HTML
        return data["text/html"]
    for mime in IMAGE_MIME:
        if mime in data:  # base64 characters only (shown_data), sizes only ints (image_metadata)
            sizes = "".join(f' {k}="{v}"' for k, v in meta.get(mime, {}).items())
            return f'<img src="data:{mime};base64,{"".join(data[mime].split())}"{sizes}>'
    return preformatted(data.get("text/plain", ""))


def handed_in_box(outputs, label):
    """A cell's saved outputs as one display of the course's: the label, then each output."""
    shown = "".join(f"<div>{output_html(o)}</div>" for o in outputs)
    return nbformat.v4.new_output("display_data", data={
        "text/html": f'<div class="{BOX_CLASS}" style="{BOX_STYLE}">'
                     f'<div style="{LABEL_STYLE}">{html.escape(label)}</div>{shown}</div>',
        "text/plain": label,
    })  # fmt: skip


def as_code_block(text):
    """Markdown that shows text verbatim: a fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def safe_metadata(metadata):
    """A cell's metadata as the templates read it: its nbgrader record and plain tags only."""
    kept = {}
    record = metadata.get("nbgrader")
    if isinstance(record, dict) and TAG.match(str(record.get("grade_id", ""))):
        kept["nbgrader"] = record  # the formgrader writes its grade_id into HTML ids, unescaped
    tags = metadata.get("tags")
    if isinstance(tags, list):
        kept["tags"] = [t for t in tags if isinstance(t, str) and TAG.match(t)]
    return kept


class SafeDisplay(Preprocessor):
    """Only the judge's verdicts as HTML; the learner's outputs as text and plain images."""

    def preprocess(self, nb, resources):
        """The notebook as the page may show it (a copy: the file on disk is not touched)."""
        for key in PAGE_TEXT:  # the formgrader's template writes these into its page as they are
            if isinstance(resources.get(key), str):
                resources[key] = html.escape(resources[key])
        judged = judged_cells()
        words = i18n.words(edition_of(nb))["judge"]  # the notebook's language
        note = words["output_not_shown"]
        label = words["handed_in_output"] if outputs_handed_in(nb) else None
        nb.metadata = {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": dict(PYTHON),
        }
        for index, cell in enumerate(nb.cells):
            nb.cells[index] = self.shown_cell(cell, judged, note, label)
        return nb, resources

    def shown_cell(self, cell, judged, hidden_note, label=None):
        """One cell as the page may show it; hidden_note names an output left out, and label,
        when the learner saved the outputs, boxes an ungraded cell's outputs as theirs."""
        grade_id = (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id")
        cell.metadata = safe_metadata(cell.get("metadata", {}))
        if cell.cell_type == "raw":
            cell.cell_type, cell.source = "markdown", as_code_block(cell.source)
            cell.pop("attachments", None)
        elif cell.cell_type == "markdown":
            images = {
                name: {m: d for m, d in files.items() if m in IMAGE_MIME and is_base64(d)}
                for name, files in (cell.get("attachments") or {}).items()
                if isinstance(files, dict)
            }
            cell.attachments = {name: files for name, files in images.items() if files}
        elif cell.cell_type == "code":
            count = cell.get("execution_count")
            cell.execution_count = count if isinstance(count, int) else None  # "In [n]:", as is
            if grade_id not in judged:
                shown = (shown_output(o, hidden_note) for o in cell.get("outputs") or [])
                cell.outputs = [o for o in shown if o is not None]
                if label and cell.outputs:
                    cell.outputs = [handed_in_box(cell.outputs, label)]
        return cell


class SafeRenderer(IPythonRenderer):
    """nbconvert's Markdown renderer without the three ways around its `escape`, and no image
    fetched from anywhere."""

    def block_mermaidjs(self, code):
        """A mermaid block as code: nbconvert writes its text into the page unescaped."""
        return f"<pre><code>{html.escape(code)}</code></pre>\n"

    def link(self, text, url, title=None):
        """An anchor within the page stays a link; any other link is its text and its address as
        text: a click could reach the instructor's own server, whose formgrader pages write parts
        of their address into the page unescaped."""
        if url.startswith("#"):  # as written: a decoded %23 would still be followed as a path
            return super().link(text, url, title)
        return f'{text} <span class="learner-link">({html.escape(url)})</span>'

    def image(self, text, url, title=None):
        """One of the cell's own attachments; any other image is its alt text in brackets."""
        if url.startswith("attachment:") and url[len("attachment:") :] in self.attachments:
            return super().image(text, url, title)
        return f"[{text}]"

    def heading(self, text, level, **attrs):
        """A heading whose anchor is md-<text>: `# step01-softmax-checks` cannot become the id of
        the formgrader's score input for that cell."""
        made = super().heading(text, level, **attrs)
        return re.sub(r'(id="|href="#)', r"\1md-", made)


@jinja2.pass_context
def markdown2html(context, source):
    """Markdown to HTML as nbconvert renders it, with raw HTML escaped (shown as text)."""
    cell = context.get("cell", {})
    renderer = SafeRenderer(
        escape=True,
        attachments=cell.get("attachments", {}),
        embed_images=False,
        path=context.get("resources", {}).get("metadata", {}).get("path", ""),
        anchor_link_text="¶",
        allow_harmful_protocols=False,  # a second guard: data: URLs only for raster images
    )
    return MarkdownWithMath(renderer=renderer).render(source)
