"""The catalogue of classic mistakes: a stable name, the checkpoint that spots it, what, the fix.

This file is data. How each mistake answers on the checkpoint inputs is stored beside it in
fingerprints.json (made by the instructor's `python -m grading fingerprints`); the learner-facing
checks compare a learner's outputs with those answers, so no solution code ships.
"""

from dataclasses import dataclass

from .. import i18n


@dataclass(frozen=True)
class Mistake:
    """One classic mistake, as the diagnosis names it; its words are in locales/<edition>.json."""

    name: str
    """Stable id, "<step>.<what went wrong>": the key of its answers in fingerprints.json."""
    checkpoint: str
    """The checkpoint whose checks spot it (not always the step it is made in)."""

    @property
    def names(self):
        """The catalogue names it stands for: just its own (a Both stands for two)."""
        return (self.name,)

    @property
    def title(self):
        """A few words: "looks like: <title>"."""
        return i18n.lookup("mistakes", self.name)["title"]

    @property
    def explanation(self):
        """What the mistake does to the numbers, in one sentence."""
        return i18n.lookup("mistakes", self.name)["explanation"]

    @property
    def hint(self):
        """The fix, shown when the learner asks hint(...) for a closer hint."""
        return i18n.lookup("mistakes", self.name)["fix"]


MISTAKES = [
    # ── softmax ──
    Mistake("softmax.no_max_shift", "softmax"),
    Mistake("softmax.divide_by_max", "softmax"),
    Mistake("softmax.no_normalising", "softmax"),
    Mistake("softmax.wrong_axis", "attention"),
    Mistake("softmax.temperature", "softmax"),
    Mistake("softmax.min_shift", "softmax"),
    Mistake("softmax.normalise_scores", "softmax"),
    # ── attention ──
    Mistake("attention.no_scaling", "attention"),
    Mistake("attention.divide_by_d", "attention"),
    Mistake("attention.scale_by_n_keys", "attention"),
    Mistake("attention.scale_after_softmax", "attention"),
    Mistake("attention.weights_transposed", "attention"),
    Mistake("attention.returns_out_only", "attention"),
    Mistake("attention.returns_pair_swapped", "attention"),
    Mistake("attention.v_transposed", "attention"),
    Mistake("attention.scores_from_v", "attention"),
    Mistake("attention.output_from_k", "attention"),
    # ── mask ──
    Mistake("mask.transposed", "causal_mask"),
    Mistake("mask.strict", "causal_mask"),
    Mistake("mask.multiply_after_softmax", "causal_mask"),
    Mistake("mask.softmax_twice", "causal_mask"),
    Mistake("mask.zero_scores", "causal_mask"),
    Mistake("mask.ignored", "causal_mask"),
    Mistake("mask.inverted", "causal_mask"),
    Mistake("mask.all_visible", "causal_mask"),
    Mistake("mask.complement", "causal_mask"),
    Mistake("mask.additive", "causal_mask"),
    # ── multi_head ──
    Mistake("multi_head.full_d_scaling", "multi_head"),
    Mistake("multi_head.interleaved_split", "multi_head"),
    Mistake("multi_head.heads_summed", "multi_head"),
    Mistake("multi_head.heads_averaged", "multi_head"),
    Mistake("multi_head.mask_dropped", "multi_head"),
    Mistake("multi_head.reversed_heads", "multi_head"),
    Mistake("multi_head.heads_averaged_tiled", "multi_head"),
    Mistake("multi_head.ignores_given_mask", "multi_head"),
    Mistake("multi_head.no_value_error", "multi_head"),
    Mistake("multi_head.always_causal", "multi_head"),
    # ── pos_encoding ──
    Mistake("pos_encoding.out_of_range", "pos_encoding"),
    Mistake("pos_encoding.identical_rows", "pos_encoding"),
    Mistake("pos_encoding.transposed", "pos_encoding"),
    Mistake("pos_encoding.odd_d", "pos_encoding"),
    # ── layer_norm ──
    Mistake("layer_norm.unbiased_variance", "layer_norm"),
    Mistake("layer_norm.eps_outside_sqrt", "layer_norm"),
    Mistake("layer_norm.no_mean_subtraction", "layer_norm"),
    Mistake("layer_norm.no_eps", "layer_norm"),
    Mistake("layer_norm.divide_by_variance", "layer_norm"),
    Mistake("layer_norm.eps_not_in_signature", "layer_norm"),
    Mistake("layer_norm.hard_coded_eps", "layer_norm"),
    Mistake("layer_norm.wrong_default_eps", "layer_norm"),
    Mistake("layer_norm.rms_norm", "layer_norm"),
    Mistake("layer_norm.across_positions", "block"),
    # ── block ──
    Mistake("block.post_ln", "block"),
    Mistake("block.no_residual", "block"),
    Mistake("block.residual_on_normed", "block"),
    Mistake("block.no_layer_norm", "block"),
    Mistake("block.ignores_h", "block"),
    Mistake("block.mask_ignored", "block"),
    Mistake("block.ignores_given_mask", "block"),
    Mistake("block.always_causal", "block"),
]

BY_NAME = {m.name: m for m in MISTAKES}

# Pairs that change the same answers, so that neither one's stored answers show the other: their
# code is stored as well ("first+second"), and the diagnosis names both when no single one fits.
# (Pairs that show on different probes need no entry: checkpoints/both.py reads them.)
PAIRS = [
    ("block.post_ln", "block.mask_ignored"),  # the post-LN tutorial block, written without a mask
    ("layer_norm.unbiased_variance", "layer_norm.no_eps"),  # statistics.stdev in the denominator
]


def pair_name(first, second):
    """The key of a stored pair's answers: "first+second"."""
    return f"{first}+{second}"


def at_checkpoint(checkpoint):
    """The mistakes a given checkpoint can recognise, in catalogue order."""
    return [m for m in MISTAKES if m.checkpoint == checkpoint]


def pairs_at(checkpoint):
    """The stored pairs a given checkpoint can recognise, as (first, second) names."""
    return [(a, b) for a, b in PAIRS if BY_NAME[a].checkpoint == checkpoint]
