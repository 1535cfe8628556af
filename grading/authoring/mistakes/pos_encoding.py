"""Step 5, positional encoding: the catalogued mistakes "pos_encoding.*" as code.

Each function is what a learner with that mistake writes, under the name of its mistake;
@mistake registers it as the function of model.py it replaces, @spelling as another way
of writing the same mistake. The text stays exactly as a learner writes it (no formatter).
"""

import math

from grading.authoring.mistakes.register import mistake, spelling


# A learner's code, exactly as written: the formatter keeps out of it.
# fmt: off
@mistake("pos_encoding.out_of_range", replaces="pos_encoding")
def out_of_range(n, d):
    return [[p / 10000 ** ((c - c % 2) / d) for c in range(d)] for p in range(n)]


@spelling("pos_encoding.out_of_range", replaces="pos_encoding")
def out_of_range_spelling_1(n, d):
    pe = []
    for p in range(n):
        pe.append([p / 10000 ** (2 * (c // 2) / d) for c in range(d)])
    return pe


@mistake("pos_encoding.identical_rows", replaces="pos_encoding")
def identical_rows(n, d):
    return [[math.sin(c / d) if c % 2 == 0 else math.cos(c / d) for c in range(d)]
            for p in range(n)]


@spelling("pos_encoding.identical_rows", replaces="pos_encoding")
def identical_rows_spelling_1(n, d):
    row = []
    for c in range(d):
        row.append(math.sin(c / d) if c % 2 == 0 else math.cos(c / d))
    return [list(row) for _ in range(n)]


@mistake("pos_encoding.transposed", replaces="pos_encoding")
def transposed(n, d):
    return [[math.sin(p / 10000 ** ((c - c % 2) / d)) if c % 2 == 0
             else math.cos(p / 10000 ** ((c - c % 2) / d))
             for p in range(n)] for c in range(d)]


@spelling("pos_encoding.transposed", replaces="pos_encoding")
def transposed_spelling_1(n, d):
    pe = [[0.0] * n for _ in range(d)]
    for p in range(n):
        for c in range(d):
            angle = p / 10000 ** (2 * (c // 2) / d)
            pe[c][p] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


@mistake("pos_encoding.odd_d", replaces="pos_encoding")
def odd_d(n, d):
    pe = [[0.0] * d for _ in range(n)]
    for p in range(n):
        for i in range(0, d, 2):  # a sine and a cosine per pair of columns: d must be even
            angle = p / 10000 ** (i / d)
            pe[p][i] = math.sin(angle)
            pe[p][i + 1] = math.cos(angle)
    return pe


@spelling("pos_encoding.odd_d", replaces="pos_encoding")
def odd_d_spelling_1(n, d):
    rates = [1 / 10000 ** (2 * i / d) for i in range(d // 2)]
    rows = []
    for p in range(n):
        row = []
        for r in rates:
            row += [math.sin(p * r), math.cos(p * r)]
        rows.append(row)
    return rows
