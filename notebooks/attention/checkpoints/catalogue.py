"""The catalogue of classic mistakes: a stable name, the checkpoint that spots it, what, the fix.

This file is data. How each mistake answers on the checkpoint inputs is stored beside it in
fingerprints.json (made by the instructor's `python -m grading.fingerprints`); the learner-facing
checks compare a learner's outputs with those answers, so no solution code ships.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    """One classic mistake, as the diagnosis names it."""

    name: str
    """Stable id, "<step>.<what went wrong>": the key of its answers in fingerprints.json."""
    checkpoint: str
    """The checkpoint whose checks spot it (not always the step it is made in)."""
    title: str
    """A few words: "looks like: <title>"."""
    explanation: str
    """What the mistake does to the numbers, in one sentence."""
    hint: str
    """The fix, shown when the learner asks hint(...) for a closer hint."""


MISTAKES = [
    # ── softmax ──
    Mistake(
        "softmax.no_max_shift",
        "softmax",
        "exp without subtracting the max",
        "exp(1000) overflows a float, so large inputs crash or turn into inf/nan.",
        "compute m = max(xs) and take exp(x - m): the result is mathematically identical.",
    ),
    Mistake(
        "softmax.divide_by_max",
        "softmax",
        "dividing by the largest exp instead of the sum",
        "each exp is divided by the biggest one, so the largest entry is 1 and the row sums to"
        " more than 1.",
        "divide every exp by the sum of all of them.",
    ),
    Mistake(
        "softmax.no_normalising",
        "softmax",
        "exp without normalising",
        "the exps are returned as they are: nothing makes them sum to 1 (and large inputs"
        " overflow).",
        "subtract the max, take exp, then divide each value by their sum.",
    ),
    Mistake(
        "softmax.wrong_axis",
        "attention",
        "softmax over the wrong axis of the score matrix",
        "each column of the scores was normalised (over queries), so the columns sum to 1, not the"
        " rows.",
        "apply softmax to each row: weights[i] = softmax(scores[i]), one query at a time.",
    ),
    Mistake(
        "softmax.temperature",
        "softmax",
        "scores scaled inside the softmax (a temperature)",
        "the inputs were divided (or multiplied) by a constant before exp, which sharpens or"
        " flattens the weights.",
        "take exp(x - max) of the inputs as they are; scaling belongs to attention's √d_k, not to"
        " softmax.",
    ),
    Mistake(
        "softmax.min_shift",
        "softmax",
        "subtracting the minimum instead of the maximum",
        "x - min(xs) is large for the biggest inputs, so exp overflows when the scores are far"
        " apart.",
        "subtract max(xs): then every exponent is at most 0 and exp never overflows.",
    ),
    Mistake(
        "softmax.normalise_scores",
        "softmax",
        "normalising the raw scores instead of their exps",
        "the scores themselves were divided by their sum, so negative scores give negative"
        " weights.",
        "take exp of each (shifted) score first, then divide each exp by the sum of the exps.",
    ),
    # ── attention ──
    Mistake(
        "attention.no_scaling",
        "attention",
        "no √d_k scaling",
        "the scores are raw dot products; with many features the softmax saturates and picks one"
        " key.",
        "divide every score by math.sqrt(d_k), where d_k = len(K[0]), before the softmax.",
    ),
    Mistake(
        "attention.divide_by_d",
        "attention",
        "dividing by d_k instead of √d_k",
        "the scores are divided by d_k itself, which flattens the weights too much.",
        "divide by math.sqrt(d_k), not by d_k.",
    ),
    Mistake(
        "attention.scale_by_n_keys",
        "attention",
        "scaling by √(number of keys) instead of √d_k",
        "the divisor uses len(K) (how many keys) where it should use len(K[0]) (features per key).",
        "d_k is the length of one key vector: math.sqrt(len(K[0])).",
    ),
    Mistake(
        "attention.scale_after_softmax",
        "attention",
        "dividing by √d_k after the softmax",
        "the weights were divided by √d_k after normalising, so rows no longer sum to 1.",
        "scale the scores, then take the softmax; leave the weights as softmax returns them.",
    ),
    Mistake(
        "attention.weights_transposed",
        "attention",
        "weights transposed",
        "the weights are right but used and returned as their transpose: out[i] mixes by"
        " weights[j][i].",
        "out[i] = Σ_j weights[i][j] · V[j]: row i of the weights belongs to query i.",
    ),
    Mistake(
        "attention.returns_out_only",
        "attention",
        "returning only the output",
        "attention returned out alone; the contract is the pair (out, weights).",
        "end with `return out, weights`.",
    ),
    Mistake(
        "attention.returns_pair_swapped",
        "attention",
        "returning (weights, out)",
        "the pair is in the wrong order.",
        "return out first, then weights: `return out, weights`.",
    ),
    Mistake(
        "attention.v_transposed",
        "attention",
        "V's rows and columns confused",
        "the output indexes V as V[c][j] (column-major) instead of V[j][c].",
        "row j of V is the value of key j: out[i][c] = Σ_j weights[i][j] · V[j][c].",
    ),
    Mistake(
        "attention.scores_from_v",
        "attention",
        "scores from q · v instead of q · k",
        "each query was compared with the values; keys decide where to look, values what is passed"
        " on.",
        "scores[i][j] = dot(Q[i], K[j]) / √d_k; V only enters the weighted average.",
    ),
    Mistake(
        "attention.output_from_k",
        "attention",
        "output mixed from K instead of V",
        "the weighted average was taken over the keys, so the output carries the keys' features.",
        "out[i] = Σ_j weights[i][j] · V[j]: the values, not the keys.",
    ),
    # ── causal mask ──
    Mistake(
        "mask.transposed",
        "causal_mask",
        "mask transposed (j >= i)",
        "each query sees the future instead of the past.",
        "mask[i][j] is true when i >= j: query i may look at keys 0..i.",
    ),
    Mistake(
        "mask.strict",
        "causal_mask",
        "strict mask (i > j): the diagonal is hidden",
        "a position may not look at itself, so the first row has nothing to attend to.",
        "use i >= j: every position sees itself.",
    ),
    Mistake(
        "mask.multiply_after_softmax",
        "causal_mask",
        "masking after softmax by multiplying with 0",
        "the hidden weights are zeroed after normalising, so the rows no longer sum to 1.",
        "set the hidden scores to -math.inf before the softmax; the softmax then shares 1 among"
        " the visible keys.",
    ),
    Mistake(
        "mask.softmax_twice",
        "causal_mask",
        "masking after softmax, then renormalising with a second softmax",
        "a second softmax over the zeroed weights gives the hidden keys exp(0) = 1 again: they are"
        " not 0.",
        "mask once, on the scores, with -math.inf, and take a single softmax.",
    ),
    Mistake(
        "mask.zero_scores",
        "causal_mask",
        "masked scores set to 0 instead of -inf",
        "a score of 0 still gets weight exp(0 - max) > 0, so hidden keys leak into the output.",
        "hidden scores must be -math.inf (or a huge negative number) so their weight is exactly 0.",
    ),
    Mistake(
        "mask.ignored",
        "causal_mask",
        "mask argument ignored",
        "attention accepts mask but never uses it, so every query sees every key.",
        "where mask[i][j] is false, replace scores[i][j] by -math.inf before the softmax.",
    ),
    Mistake(
        "mask.inverted",
        "causal_mask",
        "mask meaning inverted (True hides)",
        "the scores were hidden where the mask is true, so each query sees exactly what it should"
        " not.",
        "mask[i][j] true means visible: hide the score only where the mask is false.",
    ),
    Mistake(
        "mask.all_visible",
        "causal_mask",
        "a causal mask where everything is visible",
        "every entry of the mask is true, so every position still sees the future.",
        "mask[i][j] = i >= j: true on and below the diagonal, false above it.",
    ),
    # ── multi-head ──
    Mistake(
        "multi_head.full_d_scaling",
        "multi_head",
        "each head scaled by √d instead of √(d / h)",
        "the heads divide by the full width's root, not by their own width's.",
        "give attention the sliced matrices, so it computes √(d // h) from what it receives.",
    ),
    Mistake(
        "multi_head.interleaved_split",
        "multi_head",
        "interleaved split (features k::h)",
        "head k took every h-th feature instead of one contiguous block of d // h features.",
        "head k gets columns k·w .. (k+1)·w - 1 with w = d // h: row[k*w:(k+1)*w].",
    ),
    Mistake(
        "multi_head.heads_summed",
        "multi_head",
        "heads summed instead of concatenated",
        "the head outputs were added together, so the result has d // h columns instead of d.",
        "join each row's head outputs side by side: row = head_0[i] + head_1[i] + … (list"
        " concatenation).",
    ),
    Mistake(
        "multi_head.heads_averaged",
        "multi_head",
        "heads averaged instead of concatenated",
        "the head outputs were averaged, so the result has d // h columns instead of d.",
        "concatenate the head outputs row by row instead of averaging them.",
    ),
    Mistake(
        "multi_head.mask_dropped",
        "multi_head",
        "mask not passed to the heads",
        "multi_head takes mask but calls attention without it.",
        "pass mask on: attention(q_k, k_k, v_k, mask) for every head.",
    ),
    Mistake(
        "multi_head.reversed_heads",
        "multi_head",
        "heads concatenated in reverse order",
        "each head attended to the right slice, but the outputs were joined last head first.",
        "join the head outputs in head order: head 0's columns first.",
    ),
    Mistake(
        "multi_head.heads_averaged_tiled",
        "multi_head",
        "heads averaged, then repeated to width d",
        "the head outputs were averaged and the average copied h times, so all heads' columns look"
        " alike.",
        "concatenate the head outputs row by row instead of averaging them.",
    ),
    # ── positional encoding ──
    Mistake(
        "pos_encoding.out_of_range",
        "pos_encoding",
        "values outside [-1, 1]",
        "the raw angles (or positions) were stored instead of their sine and cosine.",
        "store math.sin(angle) and math.cos(angle), which always lie in [-1, 1].",
    ),
    Mistake(
        "pos_encoding.identical_rows",
        "pos_encoding",
        "every position gets the same row",
        "the value depends on the feature index only, so positions cannot be told apart.",
        "the angle must grow with the position p: angle = p / 10000 ** (2i / d).",
    ),
    Mistake(
        "pos_encoding.transposed",
        "pos_encoding",
        "rows and columns swapped (d × n)",
        "the matrix has one row per feature instead of one row per position.",
        "build n rows (positions) of d values (features) each.",
    ),
    # ── layer norm ──
    Mistake(
        "layer_norm.unbiased_variance",
        "layer_norm",
        "unbiased variance (divide by n - 1)",
        "the variance was divided by len(row) - 1; layer norm uses the population variance.",
        "var = Σ (x - mean)² / len(row).",
    ),
    Mistake(
        "layer_norm.eps_outside_sqrt",
        "layer_norm",
        "eps added outside the square root",
        "the denominator is √var + eps instead of √(var + eps).",
        "divide by math.sqrt(var + eps).",
    ),
    Mistake(
        "layer_norm.no_mean_subtraction",
        "layer_norm",
        "mean not subtracted",
        "the values were divided by the spread but never centred, so the mean is not 0.",
        "return (x - mean) / math.sqrt(var + eps) for each x.",
    ),
    Mistake(
        "layer_norm.no_eps",
        "layer_norm",
        "eps ignored",
        "without eps a constant vector (variance 0) divides by zero.",
        "use the eps argument: math.sqrt(var + eps).",
    ),
    Mistake(
        "layer_norm.divide_by_variance",
        "layer_norm",
        "dividing by the variance instead of its square root",
        "the denominator is var + eps, not √(var + eps), so the result's spread is not 1.",
        "divide by math.sqrt(var + eps): the standard deviation, not the variance.",
    ),
    Mistake(
        "layer_norm.eps_not_in_signature",
        "layer_norm",
        "eps missing from the signature",
        "layer_norm(row) has no eps argument, so layer_norm(row, eps=0.5) fails and a constant row"
        " divides by zero.",
        "def layer_norm(row, eps=1e-5): and use it inside the square root.",
    ),
    Mistake(
        "layer_norm.across_positions",
        "block",
        "layer norm across positions instead of within each vector",
        "each feature column was normalised over the positions, like batch norm, instead of each"
        " row.",
        "normalise every row on its own: N = [layer_norm(row) for row in X].",
    ),
    # ── block ──
    Mistake(
        "block.post_ln",
        "block",
        "post-LN: normalising after the residual sum",
        "the block returned layer_norm(X + attention(X)); the course builds the pre-LN block.",
        "normalise first, add after: X + multi_head(N, N, N, h, mask) with N the normalised rows.",
    ),
    Mistake(
        "block.no_residual",
        "block",
        "residual missing",
        "the block returned only the attention output, so X itself is lost.",
        "add X back, element by element: X[i][c] + A[i][c].",
    ),
    Mistake(
        "block.residual_on_normed",
        "block",
        "residual added to LN(X) instead of X",
        "the skip connection carries the normalised rows, not the original input.",
        "add the attention output to the original X, not to N.",
    ),
    Mistake(
        "block.no_layer_norm",
        "block",
        "no layer norm in the block",
        "the block attends over X itself; the pre-LN block normalises each row first.",
        "N = [layer_norm(row) for row in X], then multi_head(N, N, N, h, mask).",
    ),
    Mistake(
        "block.ignores_h",
        "block",
        "the block ignores h (always one head)",
        "block calls attention (or multi_head with h = 1) whatever h it is given.",
        "pass h on: multi_head(N, N, N, h, mask).",
    ),
    Mistake(
        "block.mask_ignored",
        "block",
        "mask not passed through the block",
        "block takes mask but calls multi_head without it.",
        "pass mask on: multi_head(N, N, N, h, mask).",
    ),
]

BY_NAME = {m.name: m for m in MISTAKES}


def at_checkpoint(checkpoint):
    """The mistakes a given checkpoint can recognise, in catalogue order."""
    return [m for m in MISTAKES if m.checkpoint == checkpoint]
