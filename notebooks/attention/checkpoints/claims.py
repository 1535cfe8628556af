"""What each named check claims, in the words the learner reads beside its ✓ or ✗.

A check's name is also the key of its hints in hints.py; {fields} are filled in per input.
"""

CLAIMS = {
    # ── softmax ──
    "softmax.length": "returns a list as long as its input ([0.5, -1, 2, 0] → 4 numbers)",
    "softmax.sum": "sums to 1",
    "softmax.overflow": "no overflow: [1000, 1001, 1002] gives finite values that sum to 1",
    "softmax.shift": "adding 100 to every input changes nothing",
    "softmax.answer": "known answer for softmax({xs})",
    # ── attention ──
    "attention.pair": "returns the pair (out, weights)",
    "attention.shapes": "out is n_q × d_v (3 × 6) and weights n_q × n_k (3 × 5)"
    " for Q 3×4, K 5×4, V 5×6",
    "attention.rows": "each row of weights sums to 1",
    "attention.weights": "known weights (Q {q}, K {k})",
    "attention.output": "known output (Q {q}, K {k})",
    # ── causal mask ──
    "mask.values": "causal_mask({n}) is true exactly where i >= j",
    "mask.zeros": "with a {label} mask, hidden weights are exactly 0",
    "mask.rows": "with a {label} mask, each row of weights still sums to 1",
    "mask.proportions": "with a {label} mask, the visible weights keep their unmasked proportions",
    # ── multi-head ──
    "heads.shape": "output is n × d (4 × 8 for h = 2)",
    "heads.one": "h = 1 gives exactly attention(Q, K, V)[0]",
    "heads.split": "d = 8, h = 3 raises ValueError",
    "heads.independent": "changing head 1's features (columns 4-7) leaves head 0's output"
    " columns 0-3 alone (h = 2)",
    "heads.answer": "known output for h = {h}{masked}",
    # ── positional encoding ──
    "pe.shape": "pos_encoding({n}, {d}) is {n} × {d}",
    "pe.range": "pos_encoding({n}, {d}): every value lies in [-1, 1]",
    "pe.distinct": "pos_encoding({n}, {d}): no two positions share a row",
    # ── layer norm ──
    "ln.length": "returns a vector as long as its input",
    "ln.mean": "the result has mean 0",
    "ln.variance": "the result has variance 1 (population variance, up to eps)",
    "ln.constant": "a constant vector gives zeros (no division by zero)",
    "ln.answer": "known answer for layer_norm({row}{eps})",
    # ── block ──
    "block.shape": "output has the input's shape (5 × 8)",
    "block.causal": "with a causal mask, changing the last position leaves the earlier rows alone",
    "block.answer": "known output for X {x}, h = {h}{masked}",
}
