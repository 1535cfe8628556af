"""The judge's worker: runs INSIDE the sandbox, with learner code, and answers in JSON lines only.

It is started as `python -I -S -c <this file's text>`, so it needs no file of the course. It trusts
nothing and is trusted with nothing: whatever it sends back is data the judge compares with the
reference in its own process. Protocol (one JSON object per line):

    judge → worker  {"sections": [[name, source], ...], "oracles": ["softmax", ...]}
    worker → judge  {"loaded": true, "names": [...], "broken": {section: exception name}}
    judge → worker  {"call": name, "args": [...], "kwargs": {...}}
    worker → judge  {"value": ...} | {"raises": name, "message": text}
                    or, while a call runs, {"oracle": name, "args": ..., "kwargs": ...}
    judge → worker  {"value": ...} | {"raises": name, "message": text}   (the oracle's answer)

An oracle stands in for an earlier step's function (isolation): the judge answers it with the
reference, so the reference itself never enters this process.
"""

import builtins
import json
import os
import sys


def open_channel():
    """The protocol's own pipes; the learner's prints and stderr go to /dev/null instead."""
    chan_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    chan_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    return chan_in, chan_out


def plain(value, depth=0):
    """Learner results as JSON data: lists, floats, ints, bools, None.

    Float subclasses read as plain floats.
    """
    if depth > 20:
        return {"object": "nested too deep"}
    if value is None or type(value) is bool or type(value) is str:
        return value
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, list):
        return [plain(v, depth + 1) for v in list.__iter__(value)]
    if isinstance(value, tuple):
        return [plain(v, depth + 1) for v in tuple.__iter__(value)]
    return {"object": type(value).__name__ if type(type(value).__name__) is str else "?"}


def failure(err):
    """The nearest built-in exception class of err, and its message (shortened)."""
    kind = next(
        (k.__name__ for k in type(err).__mro__ if getattr(builtins, k.__name__, None) is k),
        "Exception",
    )
    try:
        message = str(err)[:300]
    except BaseException:
        message = ""
    line, tb = None, err.__traceback__
    while tb is not None:  # the innermost line of model.py, for the report
        if tb.tb_frame.f_code.co_filename == "model.py":
            line = tb.tb_lineno
        tb = tb.tb_next
    return {"raises": kind, "message": message, "line": line}


def main():
    """Load the sections and oracles, then answer calls until the judge closes the channel."""
    chan_in, chan_out = open_channel()

    def send(message):
        try:
            text = json.dumps(message)
        except BaseException:
            text = json.dumps(
                {"raises": "UnreadableResult", "message": "the result is not plain data"}
            )
        chan_out.write(text + "\n")
        chan_out.flush()

    def receive():
        line = chan_in.readline()
        if not line:
            os._exit(0)
        return json.loads(line)

    def oracle(name):
        def earlier_step(*args, **kwargs):
            send(
                {
                    "oracle": name,
                    "args": plain(list(args)),
                    "kwargs": {k: plain(v) for k, v in kwargs.items()},
                }
            )
            answer = receive()
            if "raises" in answer:
                raise getattr(builtins, answer["raises"], RuntimeError)(answer.get("message", ""))
            return answer["value"]

        earlier_step.__name__ = name
        return earlier_step

    setup = receive()
    module = type(sys)("model")
    module.__file__ = "model.py"
    broken = {}
    for name, source in setup["sections"]:  # one section failing at import costs only that section
        try:
            exec(compile(source, "model.py", "exec"), module.__dict__)
        except BaseException as err:
            broken[name] = failure(err)["raises"]
    for name in setup["oracles"]:
        module.__dict__[name] = oracle(name)
    names = sorted(k for k, v in module.__dict__.items() if callable(v))
    send({"loaded": True, "names": names, "broken": broken})
    while True:
        request = receive()
        try:
            function = module.__dict__[request["call"]]
            send({"value": plain(function(*request["args"], **request["kwargs"]))})
        except BaseException as err:
            send(failure(err))


main()
