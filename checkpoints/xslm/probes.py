"""Part two's probes: small programs that drive the learner's engine.py and gpt.py and return plain
numbers, so a check (here, or the grader's judge) can compare them with known answers.

Every probe is `PROBES[name](engine, gpt, *args)`: engine and gpt are the learner's modules (gpt may
be None before step 3); args and the result are plain JSON data. This file imports only random and
defines everything it needs, because the judge runs it, as text, inside the sandbox beside the
learner's code.
"""

import random

# The engine's operations as a probe program spells them: [op, register, register or number].
OPERATIONS = {
    "add": lambda r, i, j: r[i] + r[j],
    "sub": lambda r, i, j: r[i] - r[j],
    "mul": lambda r, i, j: r[i] * r[j],
    "div": lambda r, i, j: r[i] / r[j],
    "pow": lambda r, i, k: r[i] ** k,
    "exp": lambda r, i: r[i].exp(),
    "log": lambda r, i: r[i].log(),
    "relu": lambda r, i: r[i].relu(),
    "neg": lambda r, i: -r[i],
    "add_number": lambda r, i, c: r[i] + c,
    "number_add": lambda r, i, c: c + r[i],
    "sub_number": lambda r, i, c: r[i] - c,
    "number_sub": lambda r, i, c: c - r[i],
    "number_mul": lambda r, i, c: c * r[i],
    "mul_number": lambda r, i, c: r[i] * c,
    "div_number": lambda r, i, c: r[i] / c,
    "number_div": lambda r, i, c: c / r[i],
}


def number(v):
    """A learner's Value's .data (or a plain number) as a float."""
    return float(getattr(v, "data", v))


def program(engine, gpt, inputs, steps, backward_calls=1):
    """Run steps on Values made from inputs; backward() from the last: [output, inputs' grads]."""
    registers = [engine.Value(x) for x in inputs]
    for op, *args in steps:
        registers.append(OPERATIONS[op](registers, *args))
    out = registers[-1]
    for _ in range(backward_calls):
        out.backward()
    return [number(out), [float(r.grad) for r in registers[: len(inputs)]]]


def chain(engine, gpt, length):
    """y = x · 1.0001, `length` times over, then y.backward(): [y, dy/dx]."""
    x = engine.Value(1.0)
    y = x
    for _ in range(length):
        y = y * 1.0001
    y.backward()
    return [number(y), float(x.grad)]


def weighted(engine, outputs, weights):
    """Σ_i weights_i · outputs_i as one Value: a loss that gives every output its own gradient."""
    total = engine.Value(0.0)
    for o, w in zip(outputs, weights):
        total = total + o * w
    return total


def values(engine, data):
    """A vector (or a matrix: a list of rows) of numbers as Values of the same shape."""
    if data and isinstance(data[0], list):
        return [values(engine, row) for row in data]
    return [engine.Value(x) for x in data]


def grads(made):
    """The .grad of every Value of a vector or matrix, in the same shape."""
    if made and isinstance(made[0], list):
        return [grads(row) for row in made]
    return [float(v.grad) for v in made]


def layer(engine, gpt, name, arguments, weights):
    """engine.<name>(*arguments as Values), backward from Σ weights · outputs: [outputs, grads]."""
    made = [values(engine, a) for a in arguments]
    outputs = getattr(engine, name)(*made)
    weighted(engine, outputs, weights).backward()
    return [[number(o) for o in outputs], [grads(m) for m in made]]


def model(gpt, dims, state):
    """gpt.GPT(*dims) with state loaded."""
    m = gpt.GPT(*dims)
    m.load(state)
    return m


def parameter_grads(m):
    """Every weight's gradient: {matrix name: rows}."""
    return {name: grads(matrix) for name, matrix in m.weights.items()}


def shapes(engine, gpt, dims):
    """[{name: [rows, cols]} of gpt.GPT(*dims).weights, its number of parameters]."""
    m = gpt.GPT(*dims)
    return [{n: [len(w), len(w[0])] for n, w in m.weights.items()}, len(m.parameters)]


def initial(engine, gpt, dims, seed):
    """gpt.GPT(*dims, seed=seed).state(): the seeded starting weights."""
    return gpt.GPT(*dims, seed=seed).state()


def logits(engine, gpt, dims, state, ids):
    """forward(ids) of the loaded model, as numbers."""
    return [[number(v) for v in row] for row in model(gpt, dims, state).forward(ids)]


def causal_gap(engine, gpt, dims, state, ids):
    """The largest change of an earlier position's logits when the later tokens are added."""
    m = model(gpt, dims, state)
    full = [[number(v) for v in row] for row in m.forward(ids)]
    gap = 0.0
    for k in range(1, len(ids)):
        for row, whole in zip(m.forward(ids[:k]), full):
            gap = max([gap] + [abs(number(v) - w) for v, w in zip(row, whole)])
    return gap


def state_round_trip(engine, gpt, dims, seed):
    """One model's state() loaded into another: [the same state back, plain floats only]."""
    first, second = gpt.GPT(*dims, seed=seed), gpt.GPT(*dims, seed=seed + 1)
    saved = first.state()
    second.load(saved)
    plain = all(type(x) is float for rows in saved.values() for row in rows for x in row)
    return [second.state() == saved, plain]


def refuses_shape(engine, gpt, dims, seed):
    """load() of three states of another shape (a row too few, a row one number short, a matrix
    missing): for each, [the exception's name, the weights unchanged]."""
    m = gpt.GPT(*dims, seed=seed)
    before = m.state()
    short_row = [before["token"][0][:-1]] + before["token"][1:]
    missing = {name: rows for name, rows in before.items() if name != "head"}
    answers = []
    for state in (dict(before, head=before["head"][:-1]), dict(before, token=short_row), missing):
        try:
            m.load(state)
            raised = None
        except Exception as err:  # which exception it was is the answer
            raised = type(err).__name__
        answers.append([raised, m.state() == before])
    return answers


def refuses_length(engine, gpt, dims, seed):
    """forward([]) and forward(context + 1 ids): the name of what each raised (None: nothing)."""
    m = gpt.GPT(*dims, seed=seed)
    names = []
    for ids in ([], [0] * (dims[2] + 1)):
        try:
            m.forward(ids)
            names.append(None)
        except Exception as err:
            names.append(type(err).__name__)
    return names


def model_gradients(engine, gpt, dims, state, ids, targets):
    """backward() from Σ_i logits_i[targets_i]: [that sum, every weight's gradient]."""
    m = model(gpt, dims, state)
    picked = [row[t] for row, t in zip(m.forward(ids), targets)]
    total = weighted(engine, picked, [1.0] * len(picked))
    total.backward()
    return [number(total), parameter_grads(m)]


def loss_and_gradients(engine, gpt, dims, state, inputs, targets):
    """gpt.loss of the loaded model, then backward(): [loss, every weight's gradient]."""
    m = model(gpt, dims, state)
    value = gpt.loss(m, inputs, targets)
    value.backward()
    return [number(value), parameter_grads(m)]


def training(engine, gpt, dims, state, pairs, rate, steps):
    """train_step over the pairs in turn, `steps` times: [each step's loss, the mean loss of the
    pairs before training, and after]."""
    m = model(gpt, dims, state)
    before = sum(number(gpt.loss(m, i, t)) for i, t in pairs) / len(pairs)
    losses = [float(gpt.train_step(m, *pairs[k % len(pairs)], rate)) for k in range(steps)]
    after = sum(number(gpt.loss(m, i, t)) for i, t in pairs) / len(pairs)
    return [losses, before, after]


def sample(engine, gpt, dims, state, prompt, steps, temperature, seed):
    """gpt.generate(the loaded model, prompt, steps, temperature, seed) as a list of ids."""
    ids = gpt.generate(model(gpt, dims, state), list(prompt), steps, temperature, seed)
    return [int(i) for i in ids]


def greedy(engine, gpt, dims, state, prompt, steps):
    """The ids a model picks when it always takes its top logit (from the last `context` ids).

    It uses only the model's forward, so generate at a tiny temperature can be compared with it.
    """
    m, ids = model(gpt, dims, state), list(prompt)
    for _ in range(steps):
        row = [number(v) for v in m.forward(ids[-dims[2] :])[-1]]
        ids.append(max(range(len(row)), key=row.__getitem__))
    return ids


def as_lists(value):
    """Dicts (a model's matrices) as [[name, value], ...] sorted by name, so answers are lists
    (the judge's channel carries no dicts) and compare as lists."""
    if isinstance(value, dict):
        return [[k, as_lists(value[k])] for k in sorted(value)]
    if isinstance(value, (list, tuple)):
        return [as_lists(v) for v in value]
    return value


PROBES = {
    f.__name__: f
    for f in (
        program, chain, layer, shapes, initial, logits, causal_gap, state_round_trip,
        refuses_shape, refuses_length, model_gradients, loss_and_gradients, training, sample,
        greedy,
    )
}  # fmt: skip


def seeded_state(shapes, seed, spread=0.5):
    """{name: rows} of seeded Gaussian numbers, rounded to 4 places, for {name: [rows, cols]}."""
    rng = random.Random(seed)
    return {
        name: [[round(rng.gauss(0.0, spread), 4) for _ in range(cols)] for _ in range(rows)]
        for name, (rows, cols) in shapes.items()
    }


def stated_shapes(vocab, width, context):
    """{name: [rows, cols]} of the nine matrices, out × in, as the notebooks state them."""
    return {
        "token": [vocab, width],
        "position": [context, width],
        "query": [width, width],
        "key": [width, width],
        "value": [width, width],
        "project": [width, width],
        "expand": [2 * width, width],
        "contract": [width, 2 * width],
        "head": [vocab, width],
    }
