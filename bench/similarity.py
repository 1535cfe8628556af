"""How long `make similar` takes for a class: every pair of learners compared.

    python -m bench.similarity [--size 200] [--seed 7]

The class is made in memory, never on disk: each learner's model.py is the reference with each
step, by a seeded draw, left as the reference writes it, or rewritten as one of the corpus's
real-looking implementations of that step (tests/fixtures/corpus.py) or one catalogued mistake,
so the class mixes common and rare forms as a real one does. One learner, who wrote two steps
their own way, is copied by another. Prints the pairs compared, the seconds and peak memory, and
the pairs listed (the copied pair must be among them).
"""

import argparse
import random
import time
import tracemalloc

from grading.authoring.mistakes import BUGGY, replace_functions
from grading.judge.reference import reference_source
from grading.similarity import functions, similar_pairs
from tests.fixtures.corpus import CORPUS

FILE = "model.py"
# The copied learner's own way with two steps: loops where the reference has comprehensions, so
# the form is theirs and their copier's alone, as a copied submission's is in a real class.
OWN_WAY = """
def attention(Q, K, V, mask=None):
    width = len(K[0])
    out, weights = [], []
    for i in range(len(Q)):
        row = []
        for j in range(len(K)):
            total = 0.0
            for c in range(width):
                total += Q[i][c] * K[j][c]
            if mask is not None and not mask[i][j]:
                total = -math.inf
            row.append(total / math.sqrt(width))
        weight = softmax(row)
        weights.append(weight)
        mixed = []
        for c in range(len(V[0])):
            acc = 0.0
            for j in range(len(V)):
                acc += weight[j] * V[j][c]
            mixed.append(acc)
        out.append(mixed)
    return out, weights


def layer_norm(row, eps=1e-5):
    count = len(row)
    mean = 0.0
    for x in row:
        mean += x / count
    spread = 0.0
    for x in row:
        spread += (x - mean) * (x - mean) / count
    result = []
    for x in row:
        result.append((x - mean) / math.sqrt(spread + eps))
    return result
"""


def variants(reference):
    """{step function: [code that rewrites it]}: the corpus's and the catalogue's, for the
    functions of part one's reference."""
    steps, out = functions(reference), {}
    for code in [code for _, _, code in CORPUS.values()] + [code for _, code in BUGGY.values()]:
        names = set(functions(code))
        if names and names <= set(steps):
            out.setdefault(min(names), []).append(code)
    return out


def learner(rng, choices, reference):
    """One learner's {file:function: (source, tokens)}: each step kept or rewritten at random."""
    picked = [rng.choice(codes) for codes in choices.values() if rng.random() < 0.6]
    source = replace_functions(reference, "\n\n".join(picked)) if picked else reference
    return {f"{FILE}:{name}": found for name, found in functions(source).items()}


def main(argv=None):
    """Build the class, time similar_pairs on it, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200, help="learners in the class")
    parser.add_argument("--seed", type=int, default=7, help="the draw of each learner's code")
    args = parser.parse_args(argv)
    reference = reference_source()
    rng, choices = random.Random(args.seed), variants(reference)
    codes = {f"learner-{k:03d}": learner(rng, choices, reference) for k in range(args.size - 1)}
    own = replace_functions(reference, OWN_WAY)
    codes["learner-000"] = {f"{FILE}:{name}": found for name, found in functions(own).items()}
    codes["copier"] = dict(codes["learner-000"])  # the one pair that must be listed
    tracemalloc.start()
    start = time.perf_counter()
    found = similar_pairs(codes, "attention")
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    pairs = len(codes) * (len(codes) - 1) // 2
    listed = {(p["a"], p["b"]) for p in found}
    print(f"{len(codes)} learners, {pairs} pairs compared in {seconds:.1f} s "
          f"({1e3 * seconds / pairs:.2f} ms a pair), peak {peak / 2**20:.1f} MiB traced; "
          f"{len(found)} pairs listed, the copied pair "
          f"{'among them' if ('copier', 'learner-000') in listed else 'MISSING'}")  # fmt: skip


if __name__ == "__main__":
    main()
