"""Part two's classic mistakes as real code: the reference with one change each.

    engine, gpt = buggy("engine.overwrite_gradients")

Each mistake is a list of (file, text in the reference, what a learner wrote instead); every
replacement must apply, so a change to the reference that would silently void a mistake fails.
"""

import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))

MISTAKES = {
    "engine.recursive_backward": [
        (
            "engine.py",
            "        order = topological_order(self)\n",
            "        order = recursive_order(self, [], set())\n",
        ),
        (
            "engine.py",
            "def softmax(values):",
            "def recursive_order(node, order, seen):\n"
            "    if id(node) not in seen:\n"
            "        seen.add(id(node))\n"
            "        for parent in node.inputs:\n"
            "            recursive_order(parent, order, seen)\n"
            "        order.append(node)\n"
            "    return order\n\n\n"
            "def softmax(values):",
        ),
    ],
    "engine.overwrite_gradients": [
        ("engine.py", "source.grad += slope * v.grad", "source.grad = slope * v.grad"),
    ],
    "engine.no_zeroing": [
        (
            "engine.py",
            "        for v in order:  # afresh: a second backward() must not add to the first "
            "one's gradients\n            v.grad = 0.0\n",
            "",
        ),
    ],
    "engine.softmax_no_shift": [
        (
            "engine.py",
            "exps = [(v - top).exp() for v in values]",
            "exps = [v.exp() for v in values]",
        ),
    ],
    "gpt.future_visible": [
        (
            "gpt.py",
            "        for i, token in enumerate(ids):  # keys and values grow as we go: "
            "the future is not there\n"
            '            x = add(w["token"][token], w["position"][i])  # width\n'
            '            h = norm(x)\n            keys.append(linear(h, w["key"]))\n'
            '            values.append(linear(h, w["value"]))\n',
            "        for i, token in enumerate(ids):\n"
            '            h = norm(add(w["token"][token], w["position"][i]))\n'
            '            keys.append(linear(h, w["key"]))\n'
            '            values.append(linear(h, w["value"]))\n'
            "        for i, token in enumerate(ids):\n"
            '            x = add(w["token"][token], w["position"][i])\n'
            "            h = norm(x)\n",
        ),
    ],
    "gpt.no_sqrt_width": [("gpt.py", " / scale for k in keys]", " for k in keys]")],
    "gpt.loss_no_minus": [("gpt.py", "[-softmax(row)[t].log()", "[softmax(row)[t].log()")],
    "gpt.loss_no_log": [("gpt.py", "[-softmax(row)[t].log()", "[-softmax(row)[t]")],
}


def source(name):
    """The reference's text of engine.py or gpt.py."""
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def buggy_texts(mistake):
    """{"engine.py": text, "gpt.py": text}: the reference's files with the mistake's changes."""
    texts = {"engine.py": source("engine.py"), "gpt.py": source("gpt.py")}
    for name, was, now in MISTAKES[mistake]:
        if was not in texts[name]:
            raise ValueError(f"{mistake}: {was!r} is not in the reference {name}")
        texts[name] = texts[name].replace(was, now, 1)
    return texts


def buggy(mistake):
    """(engine, gpt) modules: the reference with the mistake's changes, gpt using that engine."""
    texts = buggy_texts(mistake)
    engine = types.ModuleType(f"xslm_buggy_engine_{mistake}")
    exec(compile(texts["engine.py"], f"<{mistake}: engine.py>", "exec"), engine.__dict__)
    gpt = types.ModuleType(f"xslm_buggy_gpt_{mistake}")
    saved = sys.modules.get("engine")
    sys.modules["engine"] = engine  # gpt.py's `from engine import ...` takes this one
    try:
        exec(compile(texts["gpt.py"], f"<{mistake}: gpt.py>", "exec"), gpt.__dict__)
    finally:
        if saved is None:
            sys.modules.pop("engine", None)
        else:
            sys.modules["engine"] = saved
    return engine, gpt
