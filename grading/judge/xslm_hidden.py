"""Part two's hidden checks: seeded cases the learner never sees, judged against the reference.

Each case is (claim name, probe, arguments). The judge runs the probe on the learner's code in the
sandbox and on the reference in its own process, and compares the two to 1e-6 (ids exactly).
Feedback shows no inputs and no seed: counts, the first failing claim, and a diagnosis.
"""

import functools
import random

from checkpoints.xslm.probes import seeded_state, stated_shapes

SEED = 20261130
TRAIN_STEPS, TRAIN_RATE, TRAIN_DIMS = 10, 0.5, [12, 6, 8]
TRAIN_FALL = 0.5  # the stated margin: 10 steps lower the mean loss of their windows by this much


def random_program(rng, inputs):
    """A random expression over `inputs` registers using every operation, each in its domain.

    log and division only ever see x² + 1 (positive, away from 0); powers are 2, 3 or -1 of that.
    """
    steps, count = [], inputs

    def emit(step):
        nonlocal count
        steps.append(step)
        count += 1
        return count - 1

    def positive(i):
        return emit(["add_number", emit(["pow", i, 2]), 1.0])

    for _ in range(rng.randint(8, 16)):
        i, j = rng.randrange(count), rng.randrange(count)  # reuse is likely: values used twice
        op = rng.choice(["add", "sub", "mul", "div", "pow", "exp", "log", "relu", "neg",
                         "number_sub", "number_div", "number_mul", "sub_number"])  # fmt: skip
        if op == "div":
            emit(["div", i, positive(j)])
        elif op == "number_div":
            emit(["number_div", positive(i), round(rng.uniform(-3, 3), 3)])
        elif op == "log":
            emit(["log", positive(i)])
        elif op == "pow":
            emit(["pow", positive(i), rng.choice([2, 3, -1, 0.5])])
        elif op == "exp":
            emit(["exp", emit(["number_mul", i, 0.1])])  # small exponents: no overflow
        elif op in ("relu", "neg"):
            emit([op, i])
        elif op.startswith("number_") or op.endswith("_number"):
            emit([op, i, round(rng.uniform(-3, 3), 3)])
        else:
            emit([op, i, j])
    total = count - 1  # the last result depends on the others through a final sum
    for k in range(inputs, count - 1):
        total = emit(["add", total, k])
    return steps


def vector(rng, n, scale=1.0):
    """n Gaussian numbers."""
    return [rng.gauss(0.0, scale) for _ in range(n)]


@functools.cache
def cases(group):
    """[(claim, probe, args)] of one hidden check: Value, layers, GPT, learning or generate."""
    rng = random.Random(f"{SEED}:{group}")
    out = []
    if group == "Value":
        for _ in range(12):
            inputs = vector(rng, rng.randint(2, 5), 2.0)
            out.append(("value_expression", "program", [inputs, random_program(rng, len(inputs))]))
        inputs = vector(rng, 3)
        out.append(("value_twice", "program", [inputs, random_program(rng, 3), 2]))
        out.append(("value_deep", "chain", [rng.randint(40_000, 60_000)]))
    elif group == "layers":
        for k in range(6):
            n = rng.randint(2, 9)
            scale = 300.0 if k % 3 == 2 else 2.0  # every third: scores in the hundreds
            out.append(
                ("layer_values", "layer", ["softmax", [vector(rng, n, scale)], vector(rng, n)])
            )
            rows, cols = rng.randint(1, 6), rng.randint(1, 6)
            matrix = [vector(rng, cols) for _ in range(rows)]
            out.append(
                (
                    "layer_values",
                    "layer",
                    ["linear", [vector(rng, cols), matrix], vector(rng, rows)],
                )
            )
            out.append(("layer_values", "layer", ["norm", [vector(rng, n, 3.0)], vector(rng, n)]))
    elif group == "GPT":
        for _ in range(5):
            dims = [rng.randint(4, 10), rng.choice([2, 4, 6]), rng.randint(3, 7)]
            state = seeded_state(stated_shapes(*dims), rng.randrange(10**6))
            ids = [rng.randrange(dims[0]) for _ in range(rng.randint(1, dims[2]))]
            targets = [rng.randrange(dims[0]) for _ in ids]
            out.append(("gpt_logits", "logits", [dims, state, ids]))
            out.append(("gpt_gradients", "model_gradients", [dims, state, ids, targets]))
            out.append(("gpt_causal", "causal_gap", [dims, state, ids]))
        out.append(("gpt_initial", "initial", [[6, 4, 5], rng.randrange(10**6)]))
        out.append(("gpt_shapes", "shapes", [[rng.randint(5, 50), 6, rng.randint(3, 20)]]))
    elif group == "learning":
        for _ in range(3):
            dims = [rng.randint(4, 8), 4, 6]
            state = seeded_state(stated_shapes(*dims), rng.randrange(10**6))
            ids = [rng.randrange(dims[0]) for _ in range(rng.randint(2, 6))]
            targets = [rng.randrange(dims[0]) for _ in ids]
            out.append(("loss_value", "loss_and_gradients", [dims, state, ids, targets]))
        dims = TRAIN_DIMS  # small enough to train in about a second, large enough to learn
        state = seeded_state(stated_shapes(*dims), rng.randrange(10**6), spread=0.1)
        pairs = []
        for _ in range(4):
            ids = [rng.randrange(dims[0]) for _ in range(dims[2] + 1)]
            pairs.append([ids[:-1], ids[1:]])
        out.append(("train_lowers", "training", [dims, state, pairs, TRAIN_RATE, TRAIN_STEPS]))
    elif group == "generate":
        for _ in range(4):
            dims = [rng.randint(4, 9), 4, rng.randint(3, 6)]
            state = seeded_state(stated_shapes(*dims), rng.randrange(10**6), spread=1.0)
            prompt = [rng.randrange(dims[0]) for _ in range(rng.randint(1, dims[2] + 2))]
            steps, temperature = rng.randint(3, 10), rng.choice([0.5, 1.0, 1.7])
            seed = rng.randrange(10**6)
            out.append(
                ("generate_sample", "sample", [dims, state, prompt, steps, temperature, seed])
            )
    return out
