"""Pictures: stdlib SVG of the learner's own numbers,
in the notebooks and in the checkpoint reports.
"""

import ast
import os
import xml.etree.ElementTree as ET

import pytest

from checkpoints import pictures
from checkpoints.attention.artifacts import scale_picture
from checkpoints.attention.steps import CHECKS
from grading.authoring.mistakes import buggy_model
from grading.judge.reference import reference
from grading.paths import ROOT

SVG = "{http://www.w3.org/2000/svg}"


def cells(picture):
    """The <rect> elements of a picture's SVG, parsed (so it is well-formed XML)."""
    return ET.fromstring(picture.svg).iter(SVG + "rect")


def test_attention_heatmap_has_one_cell_per_weight_coloured_by_value():
    """A 2 × 3 weight matrix gives six cells; weight 0 is white and weight 1 the darkest blue."""
    picture = pictures.show_attention([[1.0, 0.0, 0.0], [0.25, 0.25, 0.5]])
    fills = [r.get("fill") for r in cells(picture)]
    assert len(fills) == 6
    assert fills[0] == pictures.weight_colour(1.0) == "#2166ac" and fills[1] == "#ffffff"
    assert picture._repr_svg_() == picture.svg and "<figure" in picture._repr_html_()


def test_encoding_uses_a_diverging_scale():
    """-1 is blue, 0 white, +1 red."""
    assert pictures.signed_colour(-1.0) == "#2166ac"
    assert pictures.signed_colour(0.0) == "#ffffff"
    assert pictures.signed_colour(1.0) == "#b2182b"
    assert len(list(cells(pictures.show_encoding(reference().pos_encoding(50, 16))))) == 800


def test_bars_growth_and_heads_are_valid_svg():
    """Every kind of picture parses as SVG and draws one shape per value."""
    assert len(list(cells(pictures.show_bars({"a": [1.0, -2.0], "b": [0.5]})))) == 3
    assert len(list(cells(pictures.show_growth([4, 8, 16])))) == 3
    heads = [reference().attention([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0], [2.0]])[1]] * 2
    assert len(list(cells(pictures.show_heads(heads)))) == 4


def test_scale_picture_shows_the_collapse():
    """Without the division, the darkest cell of every row is near 1 (one key per row)."""
    picture = scale_picture(reference().attention)
    titles = [t.text for t in ET.fromstring(picture.svg).iter(SVG + "title")]
    assert len(titles) == 2 * 64


@pytest.mark.parametrize("name", ["attention", "causal_mask", "pos_encoding", "layer_norm"])
def test_reports_carry_a_picture_of_the_learners_values(name):
    """These checkpoints draw the learner's own output into the report's HTML."""
    report = CHECKS[name](reference())
    assert report.picture is not None and "<svg" in report._repr_html_()


def test_a_value_that_cannot_be_drawn_gives_no_picture_and_no_crash():
    """attention returning only `out` (a classic mistake) still reports;
    the picture is just left out.
    """
    report = CHECKS["attention"](buggy_model("attention.returns_out_only"))
    assert not report.passed


def test_pictures_module_is_standard_library_only():
    """The learner-side pictures import nothing outside the standard library
    (they must run in a browser); from their own package, only i18n (the words).
    """
    folder = os.path.join(ROOT, "checkpoints")
    tree = ast.parse(open(os.path.join(folder, "pictures.py"), encoding="utf-8").read())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
    siblings = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level
                for a in n.names}  # fmt: skip
    assert imported <= {"html", "dataclasses"}
    assert siblings <= {"i18n"}
    words = ast.parse(open(os.path.join(folder, "i18n.py"), encoding="utf-8").read())
    assert {a.name for n in ast.walk(words) if isinstance(n, ast.Import) for a in n.names} | {
        n.module for n in ast.walk(words) if isinstance(n, ast.ImportFrom)
    } <= {"contextlib", "json", "os", "collections.abc"}


def boxes(picture, tag, font_size=None):
    """(left, right) of each <text> (its estimated width) or <rect> of a picture, in order."""
    found = []
    for element in ET.fromstring(picture.svg).iter(SVG + tag):
        left = float(element.get("x"))
        if tag == "text":
            size = float(element.get("font-size") or font_size)
            found.append((left, left + pictures.text_width(element.text, size)))
        else:
            found.append((left, left + float(element.get("width"))))
    return found


@pytest.mark.parametrize("lengths", [[4, 8, 16, 32], [1, 2, 4, 8, 16, 32, 64], [3, 300]])
def test_growth_labels_never_overlap_and_fit_the_picture(lengths):
    """08's picture: each label ("n=4: 16") ends before the next begins, even under tiny squares,
    and the picture is wide enough for the last one."""
    picture = pictures.show_growth(lengths)
    labels = boxes(picture, "text")
    assert len(labels) == len(lengths)
    assert all(right < next_left for (_, right), (next_left, _) in zip(labels, labels[1:]))
    width = float(ET.fromstring(picture.svg).get("width"))
    assert labels[-1][1] <= width


def test_the_encoding_fills_its_width():
    """50 positions × 16 features: the columns are widened to 360 px (or the title's width), the
    cells tile the row with no gap, and the SVG is no wider than the pattern and its margins."""
    for title in ("PE", "a title much longer than the pattern would be at its narrowest width"):
        picture = pictures.show_encoding(reference().pos_encoding(50, 16), title)
        row = boxes(picture, "rect")[:16]
        assert all(abs(a - b) < 1e-9 for (_, a), (b, _) in zip(row, row[1:]))
        assert row[-1][1] - row[0][0] >= 360
        assert float(ET.fromstring(picture.svg).get("width")) <= row[-1][1] + 40


def test_the_heads_picture_is_drawn_from_the_learners_own_multi_head():
    """04's second picture cuts the learner's multi_head output into h blocks: the reference
    fills four blocks of two columns; heads summed instead of concatenated leave three empty."""
    X = [[0.3 * ((i * 7 + c * 3) % 5) - 0.6 for c in range(8)] for i in range(5)]
    right = pictures.show_head_outputs(reference().multi_head(X, X, X, 4), 4)
    summed = buggy_model("multi_head.heads_summed").multi_head(X, X, X, 4)
    wrong = pictures.show_head_outputs(summed, 4)
    assert len(list(cells(right))) == 5 * 8 and len(list(cells(wrong))) == 5 * 2
    assert "head 3: columns 6–7" in right.svg and "4 blocks of columns" in right.caption


def test_the_embedding_map_puts_every_point_in_its_square_with_its_name():
    """xslm 03's map: each point's dot lies inside the axes' square, higher y drawn higher, and
    each name is written beside its dot."""
    points = {"slow and small": [0.0, 0.0], "fast and big": [1.0, 1.0], "mid": [0.4, 0.6]}
    svg = ET.fromstring(pictures.show_points(points, "speed", "size").svg)
    square = next(svg.iter(SVG + "rect"))
    left, top = float(square.get("x")), float(square.get("y"))
    right, bottom = left + float(square.get("width")), top + float(square.get("height"))
    dots = [(float(c.get("cx")), float(c.get("cy"))) for c in svg.iter(SVG + "circle")]
    assert len(dots) == 3 and all(left <= x <= right and top <= y <= bottom for x, y in dots)
    assert dots[1][1] < dots[0][1] and dots[1][0] > dots[0][0]  # up and to the right
    assert set(points) <= {t.text for t in svg.iter(SVG + "text")}
