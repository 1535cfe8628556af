"""Hints in three tiers: why the property matters, then where to look, and only last the formula.

A failing check shows the first tier. `hint("<step>")` shows the second; calling it again, the
third. The checkpoint never prints a solution line unasked.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Hint:
    """What to say about one failing check, from gentle to exact."""

    why: str  # tier 1: what the property means and why it matters
    where: str  # tier 2: which part of the code to look at
    formula: str  # tier 3: the formula or line itself

    def tiers(self):
        """The three tiers, gentlest first."""
        return (self.why, self.where, self.formula)


HINTS = {
    # ── softmax ──
    "softmax.length": Hint(
        "softmax turns each score into one weight, so the output is as long as the input.",
        "build the result with one entry per input value.",
        "[e / total for e in exps]",
    ),
    "softmax.sum": Hint(
        "weights are shares of one whole: they must add up to exactly 1.",
        "after taking the exponentials, divide each by the same number.",
        "total = sum(exps); return [e / total for e in exps]",
    ),
    "softmax.overflow": Hint(
        "math.exp(710) is already too big for a float; scores in the hundreds happen.",
        "shift every input by the same constant before math.exp; the result does not change.",
        "top = max(xs); exps = [math.exp(x - top) for x in xs]",
    ),
    "softmax.shift": Hint(
        "adding the same number to every score must not change the weights; the overflow "
        "fix relies on it.",
        "look for a step that depends on the absolute size of the inputs.",
        "softmax(x + c) = softmax(x): only differences between inputs matter",
    ),
    "softmax.answer": Hint(
        "your numbers differ from softmax's on an input worked out in advance.",
        "compare each step (shift, exp, sum, divide) with the notebook's formula.",
        "exp(x - max(xs)) for each x, divided by the sum of those exps",
    ),
    # ── attention ──
    "attention.pair": Hint(
        "later steps read both the output and the weights, as a pair.",
        "look at the return statement of attention.",
        "return out, weights",
    ),
    "attention.shapes": Hint(
        "every query gets one weight per key, and one output row as wide as a value.",
        "check which list you loop over for rows (queries) and for columns (keys).",
        "weights: len(Q) × len(K); out: len(Q) × len(V[0])",
    ),
    "attention.rows": Hint(
        "each query shares its attention among the keys: its row of weights sums to 1.",
        "softmax must run on one query's row of scores at a time.",
        "weights = [softmax(row) for row in scores]",
    ),
    "attention.weights": Hint(
        "the weights differ from attention's on inputs worked out in advance.",
        "check the score of query i and key j, and what it is divided by.",
        "scores[i][j] = dot(Q[i], K[j]) / math.sqrt(len(K[0]))",
    ),
    "attention.output": Hint(
        "the output is a weighted average of the value rows.",
        "check which weights and which rows of V go into out[i].",
        "out[i][c] = Σ_j weights[i][j] · V[j][c]",
    ),
    # ── causal mask ──
    "mask.values": Hint(
        "a causal mask lets each position see itself and the past, never the future.",
        "compare the row index i (query) with the column index j (key).",
        "mask[i][j] = i >= j",
    ),
    "mask.zeros": Hint(
        "a hidden key must get exactly zero weight, or the future leaks in.",
        "where the mask is false, change the score before the softmax.",
        "scores[i][j] = -math.inf where mask[i][j] is false, then softmax",
    ),
    "mask.rows": Hint(
        "masking removes keys; the visible ones must still share all of the weight.",
        "the softmax must come after the masking, once per row.",
        "mask the scores, then weights = [softmax(row) for row in scores]",
    ),
    "mask.proportions": Hint(
        "hiding keys must not change how the visible keys compare with each other.",
        "check that the scores of visible keys are left exactly as they were.",
        "only hidden scores become -math.inf; one softmax per row, after masking",
    ),
    # ── multi-head ──
    "heads.shape": Hint(
        "the heads' outputs sit side by side, so the result is as wide as the input.",
        "look at how the per-head outputs are joined for each row.",
        "row i of the result = head 0's row i + head 1's row i + … (list concatenation)",
    ),
    "heads.one": Hint(
        "with a single head, multi-head attention is plain attention.",
        "with h = 1 the only slice must be the whole matrix.",
        "slice width d // h: columns 0 to d for h = 1",
    ),
    "heads.split": Hint(
        "d features cannot be split into h equal heads unless h divides d.",
        "check the sizes before slicing, and refuse clearly.",
        "if d % h: raise ValueError(f'd = {d} is not divisible by h = {h}')",
    ),
    "heads.independent": Hint(
        "each head sees only its own features: changing the second half of the "
        "columns must not move the first head's output.",
        "check which columns each head's slice takes.",
        "head k uses columns k·(d//h) up to (k+1)·(d//h)",
    ),
    "heads.answer": Hint(
        "the output differs from multi-head attention's on inputs worked out in advance.",
        "check the slicing, the mask passed to each head, and the order of concatenation.",
        "slice Q, K, V into h column blocks, attention on each, concatenate in head order",
    ),
    # ── positional encoding ──
    "pe.shape": Hint(
        "the encoding is added to X, so it needs one row per position and one value per feature.",
        "loop over n positions outside and d features inside.",
        "[[value(p, c) for c in range(d)] for p in range(n)]",
    ),
    "pe.range": Hint(
        "values must stay in [-1, 1] so they do not swamp the tokens' own features.",
        "store a bounded function of the angle, not the angle itself.",
        "math.sin(angle) for even c, math.cos(angle) for odd c",
    ),
    "pe.distinct": Hint(
        "two positions with the same encoding would look identical to attention.",
        "the angle must change with the position p.",
        "angle = p / 10000 ** (2 * (c // 2) / d)",
    ),
    # ── layer norm ──
    "ln.length": Hint(
        "layer norm rescales one vector: one output per feature.",
        "build the result with one entry per input value.",
        "[(x - mean) / math.sqrt(var + eps) for x in row]",
    ),
    "ln.mean": Hint(
        "after layer norm the features are centred: their mean is 0.",
        "subtract the same number from every value.",
        "mean = sum(row) / len(row); x - mean",
    ),
    "ln.variance": Hint(
        "after layer norm the spread is 1, so every vector reaches the next layer on the "
        "same scale.",
        "check how the variance is averaged, and that you divide by its square root.",
        "var = Σ (x - mean)² / len(row); divide by math.sqrt(var + eps)",
    ),
    "ln.constant": Hint(
        "a constant vector has variance 0: it must not cause a division by zero.",
        "eps exists for exactly this case; check where it goes.",
        "math.sqrt(var + eps)",
    ),
    "ln.answer": Hint(
        "your numbers differ from layer norm's on an input worked out in advance.",
        "check the mean, the variance (over len(row)), eps and the square root.",
        "(x - mean) / math.sqrt(var + eps) with var = Σ (x - mean)² / len(row)",
    ),
    # ── block ──
    "block.shape": Hint(
        "the block adds its attention output to X, so the shape cannot change.",
        "check that the result is X plus something of X's shape, row by row.",
        "[[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, attended)]",
    ),
    "block.causal": Hint(
        "with a causal mask, a change at the last position must not reach earlier rows.",
        "check that the mask reaches multi_head, and that each row is normalised alone.",
        "multi_head(N, N, N, h, mask) with N = [layer_norm(r) for r in X]",
    ),
    "block.answer": Hint(
        "the output differs from the pre-LN block's on inputs worked out in advance.",
        "check the order: normalise, attend, then add the original X back.",
        "N = [layer_norm(r) for r in X]; return X + multi_head(N, N, N, h, mask)",
    ),
}
