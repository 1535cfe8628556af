"""Step 7, the pre-LN block: the catalogued mistakes "block.*" as code.

Each function is what a learner with that mistake writes, under the name of its mistake;
@mistake registers it as the function of model.py it replaces, @spelling as another way
of writing the same mistake. The text stays exactly as a learner writes it (no formatter).
"""

from typing import TYPE_CHECKING

from grading.authoring.mistakes.register import both, mistake, spelling

if TYPE_CHECKING:  # the reference's own functions, which model.py holds beside the mistake
    from model import attention, causal_mask, layer_norm, multi_head


# A learner's code, exactly as written: the formatter keeps out of it.
# fmt: off
@mistake("block.post_ln", replaces="block")
def post_ln(X, h, mask=None):
    A = multi_head(X, X, X, h, mask)
    return [layer_norm([x + a for x, a in zip(xr, ar)]) for xr, ar in zip(X, A)]


@spelling("block.post_ln", replaces="block")
def post_ln_spelling_1(X, h, mask=None):
    A = multi_head(X, X, X, h, mask)
    out = []
    for xr, ar in zip(X, A):
        out.append(layer_norm([x + a for x, a in zip(xr, ar)]))
    return out


@both("block.post_ln", "block.mask_ignored", replaces="block")
def post_ln_mask_ignored(X, h, mask=None):
    A = multi_head(X, X, X, h)
    return [layer_norm([x + a for x, a in zip(xr, ar)]) for xr, ar in zip(X, A)]


@mistake("block.no_residual", replaces="block")
def no_residual(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    return multi_head(N, N, N, h, mask)


@spelling("block.no_residual", replaces="block")
def no_residual_spelling_1(X, h, mask=None):
    normed = []
    for row in X:
        normed.append(layer_norm(row))
    out = multi_head(normed, normed, normed, h, mask)
    return out


@mistake("block.residual_on_normed", replaces="block")
def residual_on_normed(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, mask)
    return [[x + a for x, a in zip(nr, ar)] for nr, ar in zip(N, A)]


@spelling("block.residual_on_normed", replaces="block")
def residual_on_normed_spelling_1(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, mask)
    out = []
    for i in range(len(N)):
        out.append([N[i][c] + A[i][c] for c in range(len(N[i]))])
    return out


@mistake("block.mask_ignored", replaces="block")
def mask_ignored(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h)
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]


@spelling("block.mask_ignored", replaces="block")
def mask_ignored_spelling_1(X, h, mask=None):
    out = []
    N = [layer_norm(row) for row in X]
    for xr, ar in zip(X, multi_head(N, N, N, h)):
        out.append([x + a for x, a in zip(xr, ar)])
    return out


@mistake("block.no_layer_norm", replaces="block")
def no_layer_norm(X, h, mask=None):
    A = multi_head(X, X, X, h, mask)
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]


@spelling("block.no_layer_norm", replaces="block")
def no_layer_norm_spelling_1(X, h, mask=None):
    out = []
    for xr, ar in zip(X, multi_head(X, X, X, h, mask)):
        out.append([x + a for x, a in zip(xr, ar)])
    return out


@mistake("block.ignores_h", replaces="block")
def ignores_h(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, 1, mask)
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]


@spelling("block.ignores_h", replaces="block")
def ignores_h_spelling_1(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = attention(N, N, N, mask)[0]
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]


@mistake("block.ignores_given_mask", replaces="block")
def ignores_given_mask(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, None if mask is None else causal_mask(len(X)))
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]


@spelling("block.ignores_given_mask", replaces="block")
def ignores_given_mask_spelling_1(X, h, mask=None):
    n = len(X)
    if mask is not None:
        mask = [[j <= i for j in range(n)] for i in range(n)]
    out = []
    normed = [layer_norm(row) for row in X]
    for xr, ar in zip(X, multi_head(normed, normed, normed, h, mask)):
        out.append([x + a for x, a in zip(xr, ar)])
    return out


@mistake("block.always_causal", replaces="block")
def always_causal(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, causal_mask(len(X)))  # a decoder block: always causal
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]


@spelling("block.always_causal", replaces="block")
def always_causal_spelling_1(X, h, mask=None):
    n = len(X)
    causal = [[j <= i for j in range(n)] for i in range(n)]
    normed = [layer_norm(row) for row in X]
    out = []
    for xr, ar in zip(X, multi_head(normed, normed, normed, h, causal)):
        out.append([x + a for x, a in zip(xr, ar)])
    return out
