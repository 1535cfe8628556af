"""The corpus part two trains on (corpus.txt, written for this course) and its 40 tokens.

A token is a word, "." or the end of a line: 38 words + "." + "\\n" = 40, the lesson's vocabulary.
"""

import os
import re

CORPUS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.txt")
NEWLINE = "\n"


def read_corpus(path=CORPUS_FILE):
    """The corpus text."""
    with open(path, encoding="utf-8") as f:
        return f.read()


def split(text):
    """Words, "." and line ends, in order: "the cat sits." → ["the", "cat", "sits", "."]."""
    return re.findall(r"[a-z]+|\.|\n", text)


def vocabulary(text):
    """Every token of the text, sorted: a token's id is its place in this list."""
    return sorted(set(split(text)))


def encode(text, vocab):
    """Token ids; a word outside the vocabulary is refused by name."""
    index = {t: k for k, t in enumerate(vocab)}
    unknown = sorted({t for t in split(text) if t not in index})
    if unknown:
        raise ValueError(f"not in the vocabulary: {', '.join(unknown)}")
    return [index[t] for t in split(text)]


def decode(ids, vocab):
    """Text from token ids: words joined by spaces, no space before "." or after a line end."""
    out = ""
    for t in (vocab[i] for i in ids):
        out += t if t in (".", NEWLINE) or out.endswith(NEWLINE) or not out else " " + t
    return out


def windows(ids, context, step=1):
    """(inputs, targets) pairs: each window of `context` tokens and the same shifted by one."""
    return [
        (ids[k : k + context], ids[k + 1 : k + context + 1])
        for k in range(0, len(ids) - context, step)
    ]
