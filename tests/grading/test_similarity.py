"""grading/similarity.py: a copied submission, renamed, reordered and re-commented, is listed with
its source; honest submissions are not, even when two of them share the same short softmax."""

import ast
import os

import pytest

from grading import similarity
from grading.authoring.mistakes import replace_functions
from grading.judge.reference import reference_source
from tests.fixtures.corpus import CORPUS

# One learner's own way of writing five functions (the corpus's correct, tutorial-style entries).
OWN = ["softmax.index_loop", "attention.matmul_helpers", "multi_head.checked_loops",
       "layer_norm.two_pass_fsum", "block.index_loops"]  # fmt: skip
TEXTBOOK_SOFTMAX = """
def softmax(xs):
    m = max(xs)
    e = [math.exp(x - m) for x in xs]
    s = sum(e)
    return [v / s for v in e]
"""


class Rename(ast.NodeTransformer):
    """What a copier does: every argument and variable the code sets given a new name."""

    def __init__(self, tree):
        self.own = {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)} | {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }

    def visit_Name(self, node):
        return ast.Name(node.id + "_mine", node.ctx) if node.id in self.own else node

    def visit_arg(self, node):
        return ast.arg(node.arg + "_mine")


def copied(source):
    """source renamed, its functions in reverse order, a comment on top: the copier's model.py."""
    tree = ast.parse(source)
    tree = Rename(tree).visit(tree)
    tree.body = [n for n in tree.body if not isinstance(n, ast.FunctionDef)] + [
        n for n in reversed(tree.body) if isinstance(n, ast.FunctionDef)
    ]
    return "# my own work\n" + ast.unparse(tree) + "\n"


def own_model():
    source = reference_source()
    for entry in OWN:
        source = replace_functions(source, CORPUS[entry][2])
    return source


@pytest.fixture
def class_folder(tmp_path, monkeypatch):
    """A class of four: original, copier, and two honest learners sharing a textbook softmax."""
    honest_one = replace_functions(reference_source(), TEXTBOOK_SOFTMAX)
    honest_two = replace_functions(honest_one, CORPUS["layer_norm.constant_eps"][2])
    honest_two = replace_functions(honest_two, CORPUS["block.index_loops"][2])
    models = {"original": own_model(), "copier": copied(own_model()),
              "honest-one": honest_one, "honest-two": honest_two}  # fmt: skip
    for student, text in models.items():
        folder = tmp_path / "submitted" / student / "attention"
        folder.mkdir(parents=True)
        (folder / "model.py").write_text(text)
    monkeypatch.setattr(similarity, "SUBMITTED", str(tmp_path / "submitted"))
    monkeypatch.setattr(similarity, "RECORDS", str(tmp_path / "records"))
    return tmp_path


def test_the_copied_pair_and_only_it_is_listed(class_folder):
    found = similarity.write("attention")
    assert [(p["a"], p["b"]) for p in found] == [("copier", "original")]
    assert found[0]["score"] > 0.99
    page = (class_folder / "records" / "similar.html").read_text()
    assert "copier and original" in page and "x_mine" in page  # the functions side by side


def test_the_same_textbook_softmax_alone_is_not_a_case():
    codes = {
        "one": similarity.functions(TEXTBOOK_SOFTMAX),
        "two": similarity.functions(TEXTBOOK_SOFTMAX),
    }
    assert similarity.similar_pairs(codes, "attention") == []


def test_a_link_or_a_huge_file_is_not_read(tmp_path):
    (tmp_path / "real.py").write_text("def f(x):\n    return x\n")
    os.symlink(tmp_path / "real.py", tmp_path / "link.py")
    (tmp_path / "huge.py").write_text("x = 1\n" * (similarity.MAX_BYTES // 6 + 1))
    assert similarity.read_plain(str(tmp_path / "real.py")).startswith("def f")
    assert similarity.read_plain(str(tmp_path / "link.py")) == ""
    assert similarity.read_plain(str(tmp_path / "huge.py")) == ""
