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
# # Step 8 · Three things, in numbers
#
# Write `outputs/08-notes.md`: at least three lines, in your own words, that record
#
# 1. **Scaling**: the largest weight of each of step 2's two runs, with and without dividing by
#    $\sqrt{d_k}$ (copy them as the cell below prints them, or rounded to two decimals: 0.9999 as
#    1.00 and 0.4567 as 0.46, each with its decimal point; 0.45, which cuts 0.4567 off instead of
#    rounding it, is too far to count), and what the difference means.
# 2. **Order**: the property step 5 showed: attention alone is blind to order (permutation
#    equivariant) until a positional encoding is added.
# 3. **Square**: how many times the score matrix grows when the sequence length doubles. It has
#    $n \times n$ entries, so $2n$ positions give $(2n)^2 = 4n^2$: **4×**. Going from a 4k to an 8k
#    context quadruples the memory and time attention spends on scores.
#
# The check looks for the words scaling, order and square (or quadratic, n²; in Korean 스케일링, 순서,
# 제곱; in Japanese スケーリング, 順序, 二乗), the factor 4 (4×, 4x, 4 times, fourfold, a factor of 4,
# quadruples; 4배; 4倍) and your two numbers from step 2.

# %% id="step08-setup" nbgrader={"grade": false, "grade_id": "step08-setup", "locked": true, "schema_version": 3, "solution": false}
from checkpoints import check_artifact, demo, write_artifact
from checkpoints.attention.artifacts import NOTES_FILE, SCALE_FILE, read_artifact, read_fields

measured = read_fields(read_artifact(SCALE_FILE) or "")
scaled, unscaled = float(measured.get("scaled", "nan")), float(measured.get("unscaled", "nan"))
print(f"{SCALE_FILE}: scaled {scaled:.4f}, unscaled {unscaled:.4f}")

# %% id="cell-02"
n = 6
growth = (2 * n) ** 2 // (n * n)
print(f"{n} positions: {n * n} scores;  {2 * n} positions: {(2 * n) ** 2} scores  ({growth}×)")

# %% id="growth-picture"
from checkpoints.pictures import show_growth

show_growth([4, 8, 16, 32])

# %% [markdown] id="notes-your-turn"
# ## Your turn: `outputs/08-notes.md` (2 points)
#
# Assign your text to `notes` in the cell below; the same cell writes the file, and the check after
# it reads the file back.

# %% id="step08-notes-solution" nbgrader={"grade": false, "grade_id": "step08-notes-solution", "locked": false, "schema_version": 3, "solution": true}
with demo():
    ### BEGIN SOLUTION
    notes = (
        "# Notes on attention\n\n"
        f"- 스케일링 (scaling): the largest weight was {scaled:.4f} with the √d_k division and "
        f"{unscaled:.4f} without it; unscaled scores make softmax pick one key instead of "
        "averaging.\n"
        "- 순서 (order): attention alone is permutation-equivariant, so it cannot see order; "
        "adding a positional encoding makes the output depend on it.\n"
        "- 제곱 (square): the score matrix has n² entries, so doubling the sequence length makes "
        "it 4× larger.\n"
    )
    ### END SOLUTION
    write_artifact(NOTES_FILE, notes)

# %% id="step08-notes-artifact" nbgrader={"grade": true, "grade_id": "step08-notes-artifact", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check_artifact("08-notes.md")

# %% [markdown] id="progress-intro"
# ## Where you stand
#
# `progress()` checks all seven functions and the three artifacts at once, without stopping at the
# first one that fails, and says what to do next. It works in any notebook of the course, and in a
# terminal as `python -m checkpoints progress` (run it in your workspace folder).

# %% id="progress-view"
from checkpoints import progress

progress()

# %% [markdown] id="hand-in-intro"
# ## Handing in
#
# When you are done, or at the end of each session in the browser, the cell below puts this part's
# notebooks, `model.py` and `outputs/` into one file, `hand-in-attention.zip`, beside the notebooks,
# and says what is not in it yet. Save every notebook first (File ▸ Save All): the zip holds what
# was last saved.
#
# - **In the browser**: right-click `hand-in-attention.zip` in the file browser on the left and
#   choose Download. Your work lives in this browser only, so keep the zip.
# - **In `make lab`**: the zip is in your workspace folder.
#
# Give the zip to your instructor the way they asked (an upload to your course's site, say).

# %% id="hand-in"
from checkpoints import hand_in

hand_in()
