"""Part two's corpus (xslm/corpus.txt, written for the course) and tokens; training on it."""

import random

import pytest

from checkpoints.xslm.corpus import decode, encode, read_corpus, vocabulary, windows
from xslm import gpt

pytestmark = pytest.mark.xslm


def test_the_corpus_has_the_lessons_forty_tokens_and_round_trips():
    """38 words, "." and the line end; decode(encode(text)) is the text."""
    text = read_corpus()
    vocab = vocabulary(text)
    assert len(vocab) == 40 and {".", "\n"} <= set(vocab)
    assert decode(encode(text, vocab), vocab) == text


def test_a_word_outside_the_vocabulary_is_refused_by_name():
    """encode says which words it does not know."""
    with pytest.raises(ValueError, match="zebra"):
        encode("the zebra sits.", vocabulary(read_corpus()))


def test_windows_pair_each_input_with_the_next_tokens():
    """targets are the inputs shifted by one."""
    assert windows([1, 2, 3, 4, 5], 3) == [([1, 2, 3], [2, 3, 4]), ([2, 3, 4], [3, 4, 5])]


@pytest.mark.slow
def test_forty_steps_on_the_corpus_lower_the_held_out_loss():
    """Seeded: every tenth window held out; 40 steps of plain gradient descent lower its mean loss
    from about ln 40 by at least 0.3."""
    text = read_corpus()
    vocab = vocabulary(text)
    pairs = windows(encode(text, vocab), 12, step=3)
    held, train = pairs[::10], [p for k, p in enumerate(pairs) if k % 10]
    model, rng = gpt.GPT(len(vocab), 8, 12, seed=7), random.Random(0)

    def held_loss():
        return sum(gpt.loss(model, a, b).data for a, b in held) / len(held)

    before = held_loss()
    for _ in range(40):
        gpt.train_step(model, *rng.choice(train), rate=0.1)
    assert 3.3 < before < 4.2 and held_loss() < before - 0.3
