# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
#   language_info:
#     name: python
# ---

# %% [markdown] id="cell-00"
# # Part two · Step 5 · Generating text
#
# A trained GPT gives, at the last position, a score to every token that could come next. **Sampling**
# turns those scores into a choice: softmax makes them probabilities, and a seeded random draw picks one
# token. Append it, run the model again on the last 12 tokens, and repeat. That loop is all that
# generating text is, in this tiny model and in the large ones.
#
# By the end of this notebook `gpt.py` also holds `generate`, and your model, trained in step 4 with your
# own engine, writes sentences.

# %% id="xslm05-setup" nbgrader={"grade": false, "grade_id": "xslm05-setup", "locked": true, "schema_version": 3, "solution": false}
import json
import random

from checkpoints.xslm import check, check_artifact, demo, save, write_artifact
from checkpoints.xslm.corpus import decode, encode, read_corpus, vocabulary

with demo():
    from engine import softmax
    from gpt import GPT

# %% [markdown] id="cell-02"
# ## Temperature
#
# Dividing the logits by a **temperature** $T$ before the softmax sharpens or flattens the choice:
# $T < 1$ favours the likeliest tokens (at $T \to 0$ it always takes the top one), $T > 1$ spreads the
# chances out. See it on three logits:

# %% id="cell-03"
with demo():
    from engine import Value

    for T in [0.1, 0.5, 1.0, 2.0]:
        probs = softmax([Value(v / T) for v in [2.0, 1.0, 0.0]])
        print(f"T = {T}:", [round(p.data, 3) for p in probs])


# %% [markdown] id="cell-04"
# ## Your turn: `generate(model, prompt, steps, temperature=1.0, seed=0)` (5 points)
#
# `prompt` is a list of token ids: start from `list(prompt)`. For each of `steps` new tokens: run
# `model.forward` on the last `model.context` ids (a longer text would not fit), take the **last** row of
# logits, divide each by the temperature (you may assume it is above 0), softmax, and draw one id with `rng.choices(range(model.vocab), weights=probs)[0]`, where
# `rng = random.Random(seed)` is made once at the start and `probs` are the plain numbers (`.data`).
# Drawing exactly this way makes your samples the same as the grader's for the same seed. Return the
# prompt followed by the new ids.

# %% id="xslm05-generate-solution" nbgrader={"grade": false, "grade_id": "xslm05-generate-solution", "locked": false, "schema_version": 3, "solution": true}
def generate(model, prompt, steps, temperature=1.0, seed=0):
    """ids + `steps` draws ~ softmax(forward(ids[-context:])[-1] / temperature)"""
    ### BEGIN SOLUTION
    rng, ids = random.Random(seed), list(prompt)
    for _ in range(steps):
        row = model.forward(ids[-model.context :])[-1]
        probs = softmax([v / temperature for v in row])
        ids.append(rng.choices(range(model.vocab), weights=[p.data for p in probs])[0])
    return ids
    ### END SOLUTION


# %% id="xslm05-save-generate" nbgrader={"grade": false, "grade_id": "xslm05-save-generate", "locked": true, "schema_version": 3, "solution": false}
save(generate)

# %% [markdown] id="cell-06"
# ## Your model speaks
#
# Load the weights you trained in step 4 and let the model continue a few prompts. After only 240 steps on
# 60 sentences it will not be Shakespeare, but it should have picked up which words follow which, and
# where a sentence ends.

# %% id="xslm05-load" nbgrader={"grade": false, "grade_id": "xslm05-load", "locked": true, "schema_version": 3, "solution": false}
with demo():
    vocab = vocabulary(read_corpus())
    model = GPT(len(vocab), 8, 12)
    with open("outputs/xslm-weights.json", encoding="utf-8") as f:
        model.load(json.load(f))

# %% id="cell-08"
with demo():
    samples = []
    for prompt, T in [("the cat", 0.5), ("the dog", 0.5), ("the bird", 1.0)]:
        ids = generate(model, encode(prompt, vocab), 12, temperature=T, seed=1)
        samples.append(f"T={T} | {decode(ids, vocab)!r}")
        print(samples[-1])

# %% [markdown] id="cell-09"
# An untrained model with the same code, for comparison: any token after any other.

# %% id="cell-10"
with demo():
    fresh = GPT(len(vocab), 8, 12)
    print(repr(decode(generate(fresh, encode("the cat", vocab), 12, seed=1), vocab)))

# %% [markdown] id="cell-11"
# ## Checkpoint 5 and the last artifact
#
# The checkpoint checks `generate`: the prompt comes back first, the right number of new ids, all in the
# vocabulary, the same seed giving the same text, and a tiny temperature picking the top token every time.
# The artifact holds the three samples above.

# %% id="xslm05-generate-checks" nbgrader={"grade": true, "grade_id": "xslm05-generate-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("generate")

# %% id="xslm05-generate-hidden" nbgrader={"grade": true, "grade_id": "xslm05-generate-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints.xslm import hidden

hidden("generate")
### BEGIN HIDDEN TESTS
### END HIDDEN TESTS

# %% id="xslm05-write-samples" nbgrader={"grade": false, "grade_id": "xslm05-write-samples", "locked": true, "schema_version": 3, "solution": false}
write_artifact("xslm-samples.txt", "\n".join(samples))

# %% id="xslm05-samples-artifact" nbgrader={"grade": true, "grade_id": "xslm05-samples-artifact", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check_artifact("xslm-samples.txt")

# %% [markdown] id="hand-in-intro"
# ## Handing in
#
# When you are done, or at the end of each session in the browser, the cell below puts part two's
# notebooks, `engine.py`, `gpt.py` and `outputs/` into one file, `hand-in-xslm.zip`, beside the
# notebooks, and says what is not in it yet. Save every notebook first (File ▸ Save All): the zip
# holds what was last saved.
#
# - **In the browser**: right-click `hand-in-xslm.zip` in the file browser on the left and choose
#   Download. Your work lives in this browser only, so keep the zip.
# - **In `make lab`**: the zip is in your workspace folder.
#
# Give the zip to your instructor the way they asked (an upload to your course's site, say).

# %% id="hand-in"
from checkpoints.xslm import hand_in

hand_in()
