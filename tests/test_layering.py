"""The layers import one way: paths at the bottom, grader_config at the top, no circle.

Read from the source (ast), imports inside functions included, so an import moved into a
function to dodge a circle still counts.
"""

import ast
import os
import sys

from grading.paths import ROOT

LAYERS = ("grading", "lite", "checkpoints", "bench")  # the course's own packages


def course_modules():
    """{dotted name: file} of every module of the course's packages, and grader_config."""
    found = {"grader_config": os.path.join(ROOT, "grader_config.py")}
    for package in LAYERS:
        for here, dirs, files in os.walk(os.path.join(ROOT, package)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                if name.endswith(".py"):
                    dotted = os.path.relpath(os.path.join(here, name), ROOT)[:-3].replace("/", ".")
                    found[dotted.removesuffix(".__init__")] = os.path.join(here, name)
    return found


def imported(name, path, known):
    """The course modules that module `name` (at path) imports, anywhere in its text."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    own_packages = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}
    return {n for n in names if n in known and n != name and n not in own_packages}


def graph():
    """{module: the course modules it imports}."""
    known = course_modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def circles(edges):
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on.discard(group[-1])
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_no_module_of_the_course_imports_grader_config():
    """grader_config.py configures nbgrader from the package; the package never imports it."""
    importers = [name for name, uses in graph().items() if "grader_config" in uses]
    assert importers == []


def test_the_paths_module_imports_only_the_standard_library():
    """Every module may import grading.paths, so it imports nothing of the course itself."""
    assert graph()["grading.paths"] == set()
    tree = ast.parse(open(os.path.join(ROOT, "grading", "paths.py"), encoding="utf-8").read())
    modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert modules <= set(sys.stdlib_module_names)


def test_the_learner_package_imports_nothing_of_the_grading_side():
    """checkpoints/ ships to learners: nothing in it reaches grading/, lite/ or bench/."""
    reached = {(name, use) for name, uses in graph().items() if name.startswith("checkpoints")
               for use in uses if not use.startswith("checkpoints")}  # fmt: skip
    assert reached == set()


def test_the_shared_checkpoints_reach_no_part_and_no_part_another():
    """Each part's release ships the shared modules of checkpoints/ and its own subpackage only:
    so no shared module imports a part, and no part imports another. The package's two entry
    points name the parts on purpose: __init__ reads part one's names on first use, and
    `python -m checkpoints progress` shows part one's progress."""
    edges = graph()
    parts = {n for n in course_modules() if n.count(".") == 1 and n.startswith("checkpoints.")}
    parts = {n for n in parts if any(m.startswith(n + ".") for m in edges)}  # subpackages
    assert {"checkpoints.attention", "checkpoints.xslm"} <= parts

    def part_of(name):
        return next((p for p in parts if name == p or name.startswith(p + ".")), None)

    crossing = {
        (name, use)
        for name, uses in edges.items()
        if name.startswith("checkpoints") and name not in ("checkpoints", "checkpoints.__main__")
        for use in uses
        if part_of(use) not in (None, part_of(name))
    }
    assert crossing == set()


def test_no_import_circle_among_the_course_modules():
    """The course's modules form layers: no module imports, however indirectly, itself."""
    assert circles(graph()) == []


def test_a_circle_is_found_when_there_is_one():
    """The circle finder itself: a → b → c → a is one group, d alone is none."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]


def raw_imports(path):
    """Every module name an import statement of the file names (the course's and any other)."""
    names = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.add(node.module)
    return names


def test_the_judge_reaches_no_nbgrader_and_no_other_room():
    """The judge decides every point: it imports nothing of nbgrader, and of the grading side
    only its own room, the paths, the parts registry and the machine's confinement (the sandbox,
    its cgroups, the program finder that locates bubblewrap, and the reader of learner files that
    follows no link), so nothing else can steer it."""
    allowed = ("grading.judge", "grading.paths", "grading.parts", "grading.machine.system",
               "grading.machine.sandbox", "grading.machine.cgroups",
               "grading.machine.files")  # fmt: skip
    edges, known = graph(), course_modules()
    judge = [name for name in known if name.startswith("grading.judge")]
    assert {"grading.judge.core", "grading.judge.attention", "grading.judge.xslm"} <= set(judge)
    for name in judge:
        outside = {
            n for n in raw_imports(known[name]) if n.split(".")[0] in ("nbgrader", "nbformat")
        }
        assert not outside, f"{name} imports {sorted(outside)}"
        rooms = {
            n
            for n in edges[name]
            if n.startswith("grading.") and not n.startswith(allowed) and n != "grading.machine"
        }
        assert not rooms, f"{name} imports {sorted(rooms)}"


def test_the_machine_room_stands_on_nothing_but_the_paths():
    """grading/machine/ (packages, interpreter, sandbox, cgroups) is the bottom room: every other
    room confines learner code with it, so it imports none of them (the course user, which
    hands grading over with the class's records and the gradebook's password, stands above)."""
    edges = graph()
    machine = [name for name in edges if name.startswith("grading.machine")]
    assert "grading.machine.sandbox" in machine
    for name in machine:
        assert edges[name] <= {n for n in edges if n.startswith("grading.machine")} | {
            "grading.paths"
        }, name


def test_a_part_of_the_judge_is_reached_only_through_the_registry():
    """Nothing outside a part's own judge module and the tests picks a part's judge by name:
    the nbgrader room and the command line find it in the registry, grading.parts.PARTS."""
    from grading import parts

    edges = graph()
    for judge in (part.judge for part in parts.PARTS.values()):
        users = sorted(n for n, imports in edges.items() if judge in imports and n != judge)
        assert users == [n for n in users if n.startswith(("bench.", "grading.judge."))], users
