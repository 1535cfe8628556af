# ruff: noqa: E501  (an origin is one repository path and commit, kept on one line to be found)
"""A second corpus for the checkpoint diagnosis, modelled on how public repositories write these
functions; `make bench-corpus` measures the named share on it. It lives here, apart from
tests/fixtures, so that no catalogue entry or fingerprint is ever tuned on it.

Every code string is written fresh for this corpus; each keeps the *behaviour* of one public
pattern (its constants, fill values, shapes, slips), moved onto the course's names and
signatures. Verdicts were decided from the course's contract before anything was run.

PART_ONE = {entry_id: (checkpoint, verdict, origin, code)}   -- code replaces model.py functions
PART_TWO = {entry_id: (piece, verdict, origin, code)}        -- piece: engine | layers | gpt
For "gpt" entries the code sets REPLACES = (...) naming the GPT methods / module functions it
stands in for; a method is written at the left margin with `self` as its first argument.

The comment line(s) directly above an entry say what it models.
"""

AT = "harvardnlp/annotated-transformer the_annotated_transformer.py@0a91a254735c07532e23733dce8a693e504f3a08"
NANO = "karpathy/nanoGPT model.py@04a1d697ddc57aadb2edbe95816bf86c6b8918b0"
MINGPT = "karpathy/minGPT mingpt/model.py@bbbdac74fa9b2e55574d70056163ffbae42310c1"
RASBT = "rasbt/LLMs-from-scratch ch04/01_main-chapter-code/gpt.py@bbb2a0c3d59dcfb0df3260408f6848c7251cdad7"
FORMER = "pbloem/former former/modules.py@0b15530e59a9268636487805e9f0ad61bac4ca19"
HUNTER_MHA = (
    "hunterhammond-dev/scaled-dot-product-attention-examples multi_head_attention.py"
    "@2ba770e4f170384037260a93ed18f65082dda14c"
)
HUNTER_UTIL = (
    "hunterhammond-dev/scaled-dot-product-attention-examples utils/attention_utils.py"
    "@5b2eda21435d0a54a914343c10a44705fed63c41"
)

PART_ONE = {
    # ══ softmax ══
    # numpy learner code: exp of the raw scores, divided by their row sum; no shift by the max
    # (the exp is even computed twice, once for the numerator and once for the sum)
    "p1.softmax.fangzhou_raw_exp": (
        "softmax",
        "softmax.no_max_shift",
        "Fangzhou-Code/Learn_AI 第四阶段：大模型/self_attention.py@5d92ac48fd6b614084ed712bbce74526d202d6da",
        """
def softmax(xs):
    t = [math.exp(z) for z in xs]
    denom = sum(t)
    return [math.exp(z) / denom for z in xs]
""",
    ),
    # helper library: softmax with a temperature argument that defaults to 1, no max shift;
    # called as softmax(xs) the temperature is 1 and only the missing shift remains
    "p1.softmax.temperature_kwarg_unshifted": (
        "softmax",
        "softmax.no_max_shift",
        "pluu2/MLhelper attention.py@48d4304f318e74eaaa9b18779699b6b81c158e51",
        """
def softmax(xs, temperature=1):
    scaled = [x / temperature for x in xs]
    bottom = sum(math.exp(s) for s in scaled)
    return [math.exp(s) / bottom for s in scaled]
""",
    ),
    # course notebook: softmax(x, axis=0) built from exp / expand_dims(sum); unshifted
    "p1.softmax.axis_argument_unshifted": (
        "softmax",
        "softmax.no_max_shift",
        "maximistic/Natural-Language-Processing-with-Attention-Models BasicAttention.py@dc909867ab0662bb13b2fccb6296d1ba26dae0b7",
        """
def softmax(xs, axis=0):
    exps = [math.exp(x) for x in xs]
    s = sum(exps)
    return [e / s for e in exps]
""",
    ),
    # numpy utility: es = exp(scores - max(scores, axis=-1)), es / es.sum(axis=-1): correct
    "p1.softmax.max_shift_lastdim": (
        "softmax",
        "correct",
        "vanhao-le/PVCD-Pytorch chip/utils.py@1b75efc5f2d2c8643cc1eae7874f77feb1ba7d72",
        """
def softmax(xs):
    peak = max(xs)
    es = [math.exp(x - peak) for x in xs]
    tot = sum(es)
    return [e / tot for e in es]
""",
    ),
    # pure-Python tutorial: validates the input (non-empty list of int/float, else ValueError),
    # then max-shifted softmax
    "p1.softmax.guarded_pure_python": (
        "softmax",
        "correct",
        HUNTER_UTIL,
        """
def softmax(xs):
    if not xs or not all(isinstance(v, (int, float)) for v in xs):
        raise ValueError("softmax needs a non-empty list of numbers")
    max_val = max(xs)
    exps = [math.exp(v - max_val) for v in xs]
    sum_exps = sum(exps)
    return [e / sum_exps for e in exps]
""",
    ),
    # LLM-written numpy MHA: softmax(x, axis=None) with keepdims, shift by the max of the
    # whole array; on one row that is the row max: correct
    "p1.softmax.axis_none_global_max": (
        "softmax",
        "correct",
        "RasKrebs/llms4code_code_quality multihead-attention/gpt-4-turbo/medium.py@32aee3275bf935a399306801848505ce061cdd82",
        """
def softmax(xs, axis=None):
    m = max(xs)
    e_x = [math.exp(x - m) for x in xs]
    total = sum(e_x)
    return [v / total for v in e_x]
""",
    ),
    # ══ attention ══
    # annotated transformer: d_k from the query's width, masked_fill(mask == 0, -1e9),
    # softmax over the last axis, returns (p_attn @ V, p_attn): correct (-1e9 counts as hidden)
    "p1.attention.annotated_minus_1e9": (
        "attention",
        "correct",
        AT,
        """
def attention(Q, K, V, mask=None):
    d_k = len(Q[0])
    scores = [[sum(a * b for a, b in zip(q, k)) / math.sqrt(d_k) for k in K] for q in Q]
    if mask is not None:
        scores = [[-1e9 if m == 0 else s for s, m in zip(row, mrow)]
                  for row, mrow in zip(scores, mask)]
    p_attn = [softmax(row) for row in scores]
    out = [[sum(p * v[c] for p, v in zip(prow, V)) for c in range(len(V[0]))] for prow in p_attn]
    return out, p_attn
""",
    ),
    # small translator repo: same recipe as a module (query.size(-1), -1e9 fill), index loops
    "p1.attention.module_index_loops": (
        "attention",
        "correct",
        "ashtonjur/MachineTranslator ScaledDot.py@450254f9f9f34887e2321dc7a11e3aa0ac3374db",
        """
def attention(Q, K, V, mask=None):
    n_q, n_k, d_v = len(Q), len(K), len(V[0])
    scale = math.sqrt(len(Q[0]))
    scores = []
    for i in range(n_q):
        row = []
        for j in range(n_k):
            s = 0.0
            for c in range(len(Q[0])):
                s += Q[i][c] * K[j][c]
            s = s / scale
            if mask is not None and mask[i][j] == 0:
                s = -1e9
            row.append(s)
        scores.append(row)
    attn_weights = [softmax(r) for r in scores]
    output = [[0.0] * d_v for _ in range(n_q)]
    for i in range(n_q):
        for j in range(n_k):
            for c in range(d_v):
                output[i][c] += attn_weights[i][j] * V[j][c]
    return output, attn_weights
""",
    ),
    # learner utility: masked_fill_(mask == 0, 1e-15): the hidden scores become (almost) zero
    # instead of very negative, so hidden keys keep their weight
    # (a masking slip: the causal_mask checkpoint is the one that runs attention with a mask)
    "p1.attention.fill_tiny_positive": (
        "causal_mask",
        "mask.zero_scores",
        "PSRahul/Transformer_Learner util.py@4253b279e6830127138ea7296be8d6f0210bd3f0",
        """
def attention(Q, K, V, mask=None):
    d_k = len(Q[0])
    logits = [[dot(q, k) for k in K] for q in Q]
    logits = [[x / math.sqrt(d_k) for x in row] for row in logits]
    if mask is not None:
        for i in range(len(logits)):
            for j in range(len(logits[i])):
                if mask[i][j] == 0:
                    logits[i][j] = 1e-15
    attn = [softmax(row) for row in logits]
    value = [[sum(a * v[c] for a, v in zip(arow, V)) for c in range(len(V[0]))] for arow in attn]
    return value, attn
""",
    ),
    # learner script: scores = Q @ K.T, soft_max(scores) (exp without shift, divided by the row
    # sum), out = scores @ V; no 1/sqrt(d_k) and its own unshifted softmax
    "p1.attention.unscaled_with_raw_softmax": (
        "attention",
        "softmax.no_max_shift+attention.no_scaling",
        "Fangzhou-Code/Learn_AI 第四阶段：大模型/self_attention.py@5d92ac48fd6b614084ed712bbce74526d202d6da",
        """
def softmax(xs):
    t = [math.exp(z) for z in xs]
    return [v / sum(t) for v in t]


def attention(Q, K, V, mask=None):
    scores = [[dot(q, k) for k in K] for q in Q]
    if mask is not None:
        scores = [[s if m else -math.inf for s, m in zip(r, mr)] for r, mr in zip(scores, mask)]
    scores = [softmax(r) for r in scores]
    out = [[sum(w * v[c] for w, v in zip(r, V)) for c in range(len(V[0]))] for r in scores]
    return out, scores
""",
    ),
    # pure-Python tutorial (multi-head file): apply_mask with masked_value = -1e9 when the mask
    # entry is falsy, scaling by sqrt(len(k[0])), returns (output, attn_weights): correct
    "p1.attention.pure_python_apply_mask": (
        "attention",
        "correct",
        HUNTER_MHA,
        """
def attention(Q, K, V, mask=None):
    def transpose(m):
        return [list(r) for r in zip(*m)]

    def matmul(a, b):
        bt = list(zip(*b))
        return [[sum(x * y for x, y in zip(ar, bc)) for bc in bt] for ar in a]

    def apply_mask(scores, mask):
        masked_value = -1e9
        return [[s if keep else masked_value for s, keep in zip(sr, mr)]
                for sr, mr in zip(scores, mask)]

    d_k = len(K[0])
    raw = matmul(Q, transpose(K))
    scaling = math.sqrt(d_k)
    s_attn = [[x / scaling for x in row] for row in raw]
    if mask is not None:
        s_attn = apply_mask(s_attn, mask)
    attn_weights = [softmax(row) for row in s_attn]
    return matmul(attn_weights, V), attn_weights
""",
    ),
    # roadmap guide (numpy): scores = scores + mask * -1e9, with the TensorFlow convention that
    # 1 means "hide"; given the course's mask (True = visible) it hides exactly the visible keys
    # (a masking slip: the causal_mask checkpoint is the one that runs attention with a mask)
    "p1.attention.add_mask_times_minus_1e9": (
        "causal_mask",
        "mask.inverted",
        "luisdecunto/ml-roadmap guides/transformer_guide.md@b3c5d98d97db09f6070a4f854bfb37c0bc695e36",
        """
def attention(Q, K, V, mask=None):
    d_k = len(Q[0])
    scores = [[dot(q, k) / math.sqrt(d_k) for k in K] for q in Q]
    if mask is not None:
        scores = [[s + m * -1e9 for s, m in zip(row, mrow)] for row, mrow in zip(scores, mask)]
    attention_weights = [softmax(row) for row in scores]
    output = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))]
              for row in attention_weights]
    return output, attention_weights
""",
    ),
    # LLMs-from-scratch convention: the mask is triu(ones, diagonal=1).bool(), True = future,
    # masked_fill_(mask_bool, -inf); used with the course's mask it hides the visible keys
    # (a masking slip: the causal_mask checkpoint is the one that runs attention with a mask)
    "p1.attention.masked_fill_where_true": (
        "causal_mask",
        "mask.inverted",
        RASBT,
        """
def attention(Q, K, V, mask=None):
    attn_scores = [[dot(q, k) for k in K] for q in Q]
    if mask is not None:
        attn_scores = [[-math.inf if hide else s for s, hide in zip(row, mrow)]
                       for row, mrow in zip(attn_scores, mask)]
    scale = len(K[0]) ** 0.5
    attn_weights = [softmax([s / scale for s in row]) for row in attn_scores]
    context = [[sum(a * v[c] for a, v in zip(row, V)) for c in range(len(V[0]))]
               for row in attn_weights]
    return context, attn_weights
""",
    ),
    # d2l masked_softmax: the hidden entries are replaced by -1e6 (not -inf, not -1e9); after the
    # max shift exp(-1e6 - max) is exactly 0.0 in floating point, so the weights match: correct
    "p1.attention.d2l_minus_1e6": (
        "attention",
        "correct",
        "d2l-ai/d2l-en d2l/torch.py@c3fb91b02a8ea24e15134326872983d773c494cf",
        """
def attention(Q, K, V, mask=None):
    d = len(Q[0])
    scores = [[dot(q, k) / math.sqrt(d) for k in K] for q in Q]
    if mask is not None:
        for i, row in enumerate(scores):
            for j in range(len(row)):
                if not mask[i][j]:
                    row[j] = -1e6
    attention_weights = [softmax(r) for r in scores]
    return [[sum(w * v[c] for w, v in zip(r, V)) for c in range(len(V[0]))]
            for r in attention_weights], attention_weights
""",
    ),
    # nanoGPT's manual path: att = (q @ k.T) * (1/sqrt(k.size(-1))), masked_fill(bias == 0, -inf),
    # softmax, y = att @ v; the block returns y alone
    "p1.attention.returns_y_only": (
        "attention",
        "attention.returns_out_only",
        NANO,
        """
def attention(Q, K, V, mask=None):
    inv = 1.0 / math.sqrt(len(K[0]))
    att = [[dot(q, k) * inv for k in K] for q in Q]
    if mask is not None:
        att = [[a if keep else float("-inf") for a, keep in zip(ar, mr)] for ar, mr in zip(att, mask)]
    att = [softmax(r) for r in att]
    y = [[sum(a * v[c] for a, v in zip(ar, V)) for c in range(len(V[0]))] for ar in att]
    return y
""",
    ),
    # coding-exercise solution: the function has no mask at all (attn_prob = softmax(score)),
    # and returns only the context; ported with the course's signature the mask is dropped
    "p1.attention.no_mask_context_only": (
        "attention",
        "mask.ignored+attention.returns_out_only",
        "PTSown0222/TensorTonic-Solutions transformers-multi-head-attention/transformers-multi-head-attention.py@f2fc22a33506fb7c71f199d47055d7413e8d1226",
        """
def attention(Q, K, V, mask=None):
    d_k = len(K[0])
    attn_score = [[dot(q, k) / math.sqrt(d_k) for k in K] for q in Q]
    attn_prob = [softmax(r) for r in attn_score]
    context = [[sum(p * v[c] for p, v in zip(r, V)) for c in range(len(V[0]))] for r in attn_prob]
    return context
""",
    ),
    # LLM-written numpy attention: logits = q @ k.T / sqrt(depth), depth = query width, no mask
    # parameter used; returns (output, attention_weights)
    # (a masking slip: the causal_mask checkpoint is the one that runs attention with a mask)
    "p1.attention.mask_parameter_unused": (
        "causal_mask",
        "mask.ignored",
        "RasKrebs/llms4code_code_quality multihead-attention/gpt-4-turbo/medium.py@32aee3275bf935a399306801848505ce061cdd82",
        """
def attention(Q, K, V, mask=None):
    matmul_qk = [[dot(q, k) for k in K] for q in Q]
    depth = len(Q[0])
    logits = [[x / math.sqrt(depth) for x in row] for row in matmul_qk]
    attention_weights = [softmax(row) for row in logits]
    output = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))]
              for row in attention_weights]
    return output, attention_weights
""",
    ),
    # former's GPT-2 port: _attn scales by sqrt(v.size(-1)) (the VALUE width), and returns only
    # matmul(weights, v); the value-width scale is invisible when len(V[0]) == len(K[0])
    "p1.attention.scale_by_value_width_out_only": (
        "attention",
        "unknown",
        FORMER,
        """
def attention(Q, K, V, mask=None):
    dot_ = [[dot(q, k) for k in K] for q in Q]
    dot_ = [[x / (float(len(V[0])) ** 0.5) for x in row] for row in dot_]
    if mask is not None:
        dot_ = [[x if m else float("-inf") for x, m in zip(row, mr)] for row, mr in zip(dot_, mask)]
    w = [softmax(row) for row in dot_]
    return [[sum(a * v[c] for a, v in zip(row, V)) for c in range(len(V[0]))] for row in w]
""",
    ),
}

PART_ONE.update(
    {
        # ══ causal_mask ══
        # annotated transformer subsequent_mask: triu(ones, diagonal=1) as uint8, then "== 0":
        # True on and below the diagonal: correct
        "p1.mask.triu_k1_equals_zero": (
            "causal_mask",
            "correct",
            AT,
            """
def causal_mask(n):
    upper = [[1 if j >= i + 1 else 0 for j in range(n)] for i in range(n)]
    return [[u == 0 for u in row] for row in upper]
""",
        ),
        # TensorFlow tutorial look-ahead mask: 1 - band_part(ones, -1, 0): 1.0 marks the FUTURE
        # (the positions to hide), 0.0 the visible ones
        "p1.mask.one_minus_band_part": (
            "causal_mask",
            "mask.complement",
            "stefan-codes/TransformersNLG src/masking.py@b10d622e5da301e50671523b0a592aa0f11a447a",
            """
def causal_mask(n):
    band = [[1.0 if j <= i else 0.0 for j in range(n)] for i in range(n)]
    return [[1.0 - b for b in row] for row in band]
""",
        ),
        # (triu(ones) == 1).transpose(0, 1), then masked_fill 0 -> -inf and 1 -> 0.0:
        # the lower triangle is right, but it is returned as an additive float mask
        "p1.mask.transpose_then_additive": (
            "causal_mask",
            "mask.additive",
            "AndrewSukhobok95/discrete_latents_for_text_to_image_gen modules/common_utils.py@d1d026910c32c9748f7e3621f0ae97b61761f695",
            """
def causal_mask(n):
    tri = [[1.0 if j >= i else 0.0 for j in range(n)] for i in range(n)]
    low = [[tri[j][i] for j in range(n)] for i in range(n)]
    return [[float("-inf") if v == 0 else 0.0 for v in row] for row in low]
""",
        ),
        # PyTorch's generate_square_subsequent_mask: full of -inf with triu(diagonal=1), 0.0 elsewhere
        "p1.mask.square_subsequent_float": (
            "causal_mask",
            "mask.additive",
            "pytorch/pytorch torch/nn/modules/transformer.py@d5cc3c9355fa15f557d204a9a5154f905a5a6055",
            """
def causal_mask(n):
    out = []
    for i in range(n):
        out.append([float("-inf") if j > i else 0.0 for j in range(n)])
    return out
""",
        ),
        # tril(ones(1, size, size)).type(uint8): 1 = may look, 0 = future; ints, not booleans: correct
        "p1.mask.tril_uint8_loop": (
            "causal_mask",
            "correct",
            "nikitakapitan/transformers src/transformers/mask.py@54a608f013d188b266c7578ed7ffdfc4aeed1a3d",
            """
def causal_mask(n):
    following = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            following[i][j] = 1
    return following
""",
        ),
        # nanoGPT registers tril(ones(T, T)) as a float buffer and hides where it is 0: correct
        "p1.mask.tril_float_buffer": (
            "causal_mask",
            "correct",
            NANO,
            """
def causal_mask(n):
    bias = [[1.0 if c <= r else 0.0 for c in range(n)] for r in range(n)]
    return [[b != 0 for b in row] for row in bias]
""",
        ),
        # former's util mask_(matrices, maskval, mask_diagonal=True): its default also hides the
        # diagonal (triu_indices offset 0); the attention modules pass mask_diagonal=False, a port of
        # the helper that keeps the default produces a strict mask
        "p1.mask.mask_diagonal_default_true": (
            "causal_mask",
            "mask.strict",
            "pbloem/former former/util/util.py@d2b7c02bc2ac4f6dd6803979f1f598f4a017404f",
            """
def causal_mask(n, mask_diagonal=True):
    offset = 0 if mask_diagonal else 1
    hidden = {(i, j) for i in range(n) for j in range(i + offset, n)}
    return [[(i, j) not in hidden for j in range(n)] for i in range(n)]
""",
        ),
        # ══ multi_head ══
        # pure-Python tutorial: split_heads by contiguous blocks of len(x[0]) // num_heads, per-head
        # attention with the mask, merge_heads concatenates; but it returns (output, all_weights)
        # and never checks h (a non-divisor silently drops columns)
        "p1.multi_head.returns_output_and_weights": (
            "multi_head",
            "unknown",
            HUNTER_MHA,
            """
def multi_head(Q, K, V, h, mask=None):
    def split_heads(x, num_heads):
        head_dim = len(x[0]) // num_heads
        return [[[row[i + hh * head_dim] for i in range(head_dim)] for row in x]
                for hh in range(num_heads)]

    def merge_heads(outputs):
        return [[val for head in tokens for val in head] for tokens in zip(*outputs)]

    head_outputs, all_weights = [], []
    for q, k, v in zip(split_heads(Q, h), split_heads(K, h), split_heads(V, h)):
        out, weights = attention(q, k, v, mask)
        head_outputs.append(out)
        all_weights.append(weights)
    return merge_heads(head_outputs), all_weights
""",
        ),
        # coding-exercise MHA: reshape(b, n, heads, d_k).transpose -> contiguous blocks, d_k =
        # d_model // num_heads, no mask argument at all and no divisibility check
        "p1.multi_head.reshape_no_mask_no_check": (
            "multi_head",
            "multi_head.mask_dropped+multi_head.no_value_error",
            "PTSown0222/TensorTonic-Solutions transformers-multi-head-attention/transformers-multi-head-attention.py@f2fc22a33506fb7c71f199d47055d7413e8d1226",
            """
def multi_head(Q, K, V, h, mask=None):
    d_k = len(Q[0]) // h
    heads = []
    for k in range(h):
        q_s = [row[k * d_k:(k + 1) * d_k] for row in Q]
        k_s = [row[k * d_k:(k + 1) * d_k] for row in K]
        v_s = [row[k * d_k:(k + 1) * d_k] for row in V]
        heads.append(attention(q_s, k_s, v_s)[0])
    return [sum((hd[i] for hd in heads), []) for i in range(len(Q))]
""",
        ),
        # LLM-written MHA: assert embedding_size % num_heads == 0; split_into_heads by reshape;
        # scaled_dot_product_attention(q, k, v) takes no mask
        "p1.multi_head.assert_split_no_mask": (
            "multi_head",
            "multi_head.mask_dropped+multi_head.no_value_error",
            "RasKrebs/llms4code_code_quality multihead-attention/gpt-4-turbo/medium.py@32aee3275bf935a399306801848505ce061cdd82",
            """
def multi_head(Q, K, V, h, mask=None):
    assert len(Q[0]) % h == 0
    depth = len(Q[0]) // h

    def split_into_heads(x):
        return [[row[i * depth:(i + 1) * depth] for row in x] for i in range(h)]

    outs = [attention(q, k, v)[0] for q, k, v in
            zip(split_into_heads(Q), split_into_heads(K), split_into_heads(V))]
    return [[x for o in outs for x in o[p]] for p in range(len(Q))]
""",
        ),
        # former SelfAttentionNarrow (no projections after the split): queries and keys each divided
        # by e ** (1/4) with e the FULL embedding width, i.e. the scores are scaled by sqrt(d), not
        # sqrt(d/h); assert emb % heads == 0; the given mask is passed through here
        "p1.multi_head.quarter_power_full_width": (
            "multi_head",
            "multi_head.full_d_scaling+multi_head.no_value_error",
            FORMER,
            """
def multi_head(Q, K, V, h, mask=None):
    e = len(Q[0])
    assert e % h == 0, f"Embedding dimension ({e}) should be divisible by nr. of heads ({h})"
    s = e // h
    out = [[] for _ in Q]
    for hh in range(h):
        lo, hi = hh * s, (hh + 1) * s
        queries = [[x / (e ** (1 / 4)) for x in r[lo:hi]] for r in Q]
        keys = [[x / (e ** (1 / 4)) for x in r[lo:hi]] for r in K]
        values = [r[lo:hi] for r in V]
        scores = [[dot(q, k) for k in keys] for q in queries]
        if mask is not None:
            scores = [[x if m else float("-inf") for x, m in zip(r, mr)] for r, mr in zip(scores, mask)]
        w = [softmax(r) for r in scores]
        for i, r in enumerate(w):
            out[i].extend(sum(a * v[c] for a, v in zip(r, values)) for c in range(s))
    return out
""",
        ),
        # former SelfAttention(mask=True): the module is built causal and always masks the upper
        # triangle (diagonal kept) whatever mask is given; same sqrt(e) scaling through e ** (1/4)
        "p1.multi_head.constructor_causal_flag": (
            "multi_head",
            "multi_head.always_causal+multi_head.full_d_scaling",
            FORMER,
            """
CAUSAL = True


def multi_head(Q, K, V, h, mask=None):
    e = len(Q[0])
    if e % h:
        raise ValueError(f"Embedding dimension ({e}) should be divisible by nr. of heads ({h})")
    s = e // h
    t = len(Q)
    heads = []
    for hh in range(h):
        sl = slice(hh * s, (hh + 1) * s)
        q = [[x / e ** 0.25 for x in r[sl]] for r in Q]
        k = [[x / e ** 0.25 for x in r[sl]] for r in K]
        dots = [[dot(a, b) for b in k] for a in q]
        if CAUSAL:
            dots = [[dots[i][j] if j <= i else float("-inf") for j in range(t)] for i in range(t)]
        w = [softmax(r) for r in dots]
        heads.append([[sum(a * v[sl][c] for a, v in zip(r, V)) for c in range(s)] for r in w])
    return [[x for hd in heads for x in hd[i]] for i in range(t)]
""",
        ),
        # nanoGPT CausalSelfAttention without the projections: view(B, T, nh, hs).transpose(1, 2)
        # (contiguous blocks), 1/sqrt(hs) scaling, but always the registered tril mask (no mask
        # argument), and only `assert n_embd % n_head == 0`
        "p1.multi_head.always_tril_assert": (
            "multi_head",
            "multi_head.always_causal+multi_head.no_value_error",
            NANO,
            """
def multi_head(Q, K, V, h, mask=None):
    C = len(Q[0])
    assert C % h == 0
    hs = C // h
    T = len(Q)
    bias = causal_mask(T)
    ys = []
    for head in range(h):
        q = columns(Q, head * hs, (head + 1) * hs)
        k = columns(K, head * hs, (head + 1) * hs)
        v = columns(V, head * hs, (head + 1) * hs)
        ys.append(attention(q, k, v, bias)[0])
    return [[x for y in ys for x in y[t]] for t in range(T)]
""",
        ),
        # LLMs-from-scratch MultiHeadAttention without projections: assert d_out % num_heads == 0,
        # the causal triu(diagonal=1) buffer is always applied with -inf, scores / head_dim ** 0.5
        "p1.multi_head.registered_triu_buffer": (
            "multi_head",
            "multi_head.always_causal+multi_head.no_value_error",
            RASBT,
            """
def multi_head(Q, K, V, h, mask=None):
    d_out = len(Q[0])
    assert d_out % h == 0, "d_out must be divisible by num_heads"
    head_dim = d_out // h
    n = len(Q)
    mask_bool = [[j > i for j in range(n)] for i in range(n)]
    context = [[] for _ in range(n)]
    for hh in range(h):
        lo = hh * head_dim
        q = [r[lo:lo + head_dim] for r in Q]
        k = [r[lo:lo + head_dim] for r in K]
        v = [r[lo:lo + head_dim] for r in V]
        scores = [[-math.inf if mask_bool[i][j] else dot(q[i], k[j]) for j in range(n)] for i in range(n)]
        w = [softmax([s / head_dim ** 0.5 for s in row]) for row in scores]
        for i in range(n):
            context[i] += [sum(w[i][j] * v[j][c] for j in range(n)) for c in range(head_dim)]
    return context
""",
        ),
        # annotated transformer MultiHeadedAttention minus the linears: assert d_model % h == 0,
        # the same mask for every head (mask.unsqueeze(1)), concat via transpose/view: only the
        # assert is wrong
        "p1.multi_head.annotated_assert": (
            "multi_head",
            "multi_head.no_value_error",
            AT,
            """
def multi_head(Q, K, V, h, mask=None):
    d_model = len(Q[0])
    assert d_model % h == 0
    d_k = d_model // h
    x, attn = [], []
    for i in range(h):
        a, p = attention(columns(Q, i * d_k, (i + 1) * d_k), columns(K, i * d_k, (i + 1) * d_k),
                         columns(V, i * d_k, (i + 1) * d_k), mask)
        x.append(a)
        attn.append(p)
    return [[val for head in x for val in head[t]] for t in range(len(Q))]
""",
        ),
        # BERT-style guard: `if hidden % heads != 0: raise ValueError(...)` only; h = 0 raises
        # ZeroDivisionError, a negative divisor or 2.0 slips through to slicing errors
        # (correct by the course's contract: a ValueError when d is not divisible by h)
        "p1.multi_head.modulus_only_guard": (
            "multi_head",
            "correct",
            "huggingface/transformers src/transformers/models/bert/modeling_bert.py@8ec58104181bfb34d824d89bccc009b4f6be6e0e",
            """
def multi_head(Q, K, V, h, mask=None):
    hidden = len(Q[0])
    if hidden % h != 0:
        raise ValueError(
            f"The hidden size ({hidden}) is not a multiple of the number of attention heads ({h})"
        )
    head_size = int(hidden / h)
    ctx = [[] for _ in range(len(Q))]
    for k in range(h):
        lo = k * head_size
        o, _ = attention(columns(Q, lo, lo + head_size), columns(K, lo, lo + head_size),
                         columns(V, lo, lo + head_size), mask)
        for i, row in enumerate(o):
            ctx[i].extend(row)
    return ctx
""",
        ),
    }
)

PART_ONE.update(
    {
        # ══ pos_encoding ══
        # holberton exercise: angle = pos / 10000 ** (2 * (i // 2) / dm) for every column, then sin on
        # the even columns and cos on the odd ones; slices make odd d work: correct
        "p1.pe.angles_then_slices": (
            "pos_encoding",
            "correct",
            "Aminekham/holbertonschool-machine_learning supervised_learning/attention/4-positional_encoding.py@fedcfe654e2f7769b6186fb330d9d7d698bcb1f0",
            """
def pos_encoding(n, d):
    pe = [[0.0] * d for _ in range(n)]
    for i in range(d):
        for pos in range(n):
            pe[pos][i] = pos / 10000 ** (2 * (i // 2) / d)
    for pos in range(n):
        for i in range(d):
            pe[pos][i] = math.sin(pe[pos][i]) if i % 2 == 0 else math.cos(pe[pos][i])
    return pe
""",
        ),
        # annotated transformer: div_term = exp(arange(0, d, 2) * -(log(10000) / d)); pe[:, 0::2] =
        # sin, pe[:, 1::2] = cos; right for even d, but for odd d there is one more frequency than odd
        # columns and the cos assignment fails (here: IndexError)
        "p1.pe.div_term_pairs_even_only": (
            "pos_encoding",
            "pos_encoding.odd_d",
            AT,
            """
def pos_encoding(n, d):
    div_term = [math.exp(c * -(math.log(10000.0) / d)) for c in range(0, d, 2)]
    pe = [[0.0] * d for _ in range(n)]
    for p in range(n):
        for k, f in enumerate(div_term):
            pe[p][2 * k] = math.sin(p * f)
            pe[p][2 * k + 1] = math.cos(p * f)
    return pe
""",
        ),
        # "how to code the transformer" blog pattern: for i in range(0, d, 2): sin(pos / 10000 **
        # (2 * i / d)) and cos(pos / 10000 ** (2 * (i + 1) / d)) -- i is already even, so the exponent
        # is doubled and the cos column gets yet another frequency; this fork guards i + 1 < d
        # (correct by the course's contract, which is pos_encoding's properties: n x d, values in [-1, 1], rows distinct)
        "p1.pe.doubled_exponent_guarded": (
            "pos_encoding",
            "correct",
            "Maplewarrior/MT_HW2 PositionalEncoder.py@17b1b693e7a2601b4b8457203dcea70045b9bbc4 (same loop as the SamLynnEvans/Transformer blog code)",
            """
def pos_encoding(n, d):
    pe = [[0.0] * d for _ in range(n)]
    for pos in range(n):
        for i in range(0, d, 2):
            pe[pos][i] = math.sin(pos / (10000 ** ((2 * i) / d)))
            if i + 1 < d:
                pe[pos][i + 1] = math.cos(pos / (10000 ** ((2 * (i + 1)) / d)))
    return pe
""",
        ),
        # homework fork of the same blog code: sin and cos share the exponent 2 * i / d with i even
        # (doubled); no guard, so odd d raises IndexError
        "p1.pe.doubled_exponent_shared": (
            "pos_encoding",
            "pos_encoding.odd_d",
            "Maplewarrior/MT_HW2 PositionalEncoder.py@17b1b693e7a2601b4b8457203dcea70045b9bbc4",
            """
def pos_encoding(n, d):
    pe = [[0.0] * d for _ in range(n)]
    for pos in range(n):
        for i in range(0, d, 2):
            pe[pos][i] = math.sin(pos / 10000 ** (2 * i / d))
            pe[pos][i + 1] = math.cos(pos / 10000 ** (2 * i / d))
    return pe
""",
        ),
        # TF-2 speech transformer: get_angles with 2 * (i // 2), then concatenate([sines, cosines]):
        # all the sines first, then all the cosines -- not interleaved
        # (correct by the course's contract, which is pos_encoding's properties: n x d, values in [-1, 1], rows distinct)
        "p1.pe.concatenated_halves": (
            "pos_encoding",
            "correct",
            "xingchensong/Speech-Transformer-tf2.0 models/modules/positional_encoding.py@5e2ab2e6adf132a82987812f55a408e50c7702e2",
            """
def pos_encoding(n, d):
    out = []
    for pos in range(n):
        angles = [pos / 10000 ** (2 * (i // 2) / d) for i in range(d)]
        sines = [math.sin(a) for a in angles[0::2]]
        cosines = [math.cos(a) for a in angles[1::2]]
        out.append(sines + cosines)
    return out
""",
        ),
        # scratch file (jadore801120-style table): position 0 is left all zeros (`if pos != 0 else
        # zeros`), and sin/cos are applied from row 1 on; row 0 should be [0, 1, 0, 1, ...]
        # (correct by the course's contract, which is pos_encoding's properties: n x d, values in [-1, 1], rows distinct)
        "p1.pe.zero_first_row": (
            "pos_encoding",
            "correct",
            "seasa2016/code_test pytorch/encode_test.py@8ac8c3aec96c69c98a4ce2789fbfede28491a6fc",
            """
def pos_encoding(n, d):
    table = [[pos / 10000 ** (2 * (j // 2) / d) for j in range(d)] if pos != 0 else [0.0] * d
             for pos in range(n)]
    for pos in range(1, n):
        for j in range(d):
            table[pos][j] = math.sin(table[pos][j]) if j % 2 == 0 else math.cos(table[pos][j])
    return table
""",
        ),
        # seq2seq repo: phase = pos / 1e4 ** (dim // d_model) -- integer division makes the exponent 0
        # for every column, so every column has frequency 1 (sin(pos) / cos(pos) alternating)
        # (correct by the course's contract, which is pos_encoding's properties: n x d, values in [-1, 1], rows distinct)
        "p1.pe.floor_division_exponent": (
            "pos_encoding",
            "correct",
            "wicaksonoleksono/NLP SEQ2SEQ/src/transformer/pos_encode.py@d60212f2ba4673c0f4d14ed95e42775211b7729f",
            """
def pos_encoding(n, d):
    return [[math.sin(pos / 1e4 ** (dim // d)) if dim % 2 == 0 else math.cos(pos / 1e4 ** (dim // d))
             for dim in range(d)] for pos in range(n)]
""",
        ),
        # roadmap guide: angles = pos / power(10000, 2 * (i // 2) / d), in place sin / cos on the
        # even / odd slices: correct
        "p1.pe.guide_inplace_slices": (
            "pos_encoding",
            "correct",
            "luisdecunto/ml-roadmap guides/transformer_guide.md@b3c5d98d97db09f6070a4f854bfb37c0bc695e36",
            """
def pos_encoding(n, d):
    angles = [[p / math.pow(10000, (2 * (i // 2)) / d) for i in range(d)] for p in range(n)]
    for row in angles:
        row[0::2] = [math.sin(a) for a in row[0::2]]
        row[1::2] = [math.cos(a) for a in row[1::2]]
    return angles
""",
        ),
        # former-style tutorial code tends to build a (d, n) table and index it [i][pos]; kept as
        # built (d rows of n) the result is the transpose; frequencies are right
        # TF-tutorial pattern cast to float32 (tf.cast(pos_encoding, tf.float32)); the exponent is
        # computed with np.float32(d_model) too; values rounded to single precision
        "p1.pe.float32_cast": (
            "pos_encoding",
            "correct",
            "xingchensong/Speech-Transformer-tf2.0 models/modules/positional_encoding.py@5e2ab2e6adf132a82987812f55a408e50c7702e2 (get_angles + tf.cast float32, interleaved variant)",
            """
def pos_encoding(n, d):
    import struct

    def f32(x):
        return struct.unpack("f", struct.pack("f", x))[0]

    rows = []
    for pos in range(n):
        row = []
        for i in range(d):
            rate = 1 / 10000 ** (2 * (i // 2) / f32(float(d)))
            a = pos * rate
            row.append(f32(math.sin(a) if i % 2 == 0 else math.cos(a)))
        rows.append(row)
    return rows
""",
        ),
    }
)

PART_ONE.update(
    {
        # ══ layer_norm ══
        # annotated transformer LayerNorm: a_2 * (x - mean) / (std + eps) + b_2 with torch's default
        # (unbiased, n - 1) std, eps = 1e-6 added to the std outside the root; gain 1, bias 0
        "p1.ln.annotated_std_plus_eps": (
            "layer_norm",
            "layer_norm.unbiased_variance+layer_norm.eps_outside_sqrt+layer_norm.wrong_default_eps",
            AT,
            """
def layer_norm(row, eps=1e-6):
    a_2 = [1.0] * len(row)
    b_2 = [0.0] * len(row)
    mean = sum(row) / len(row)
    std = math.sqrt(sum((x - mean) ** 2 for x in row) / (len(row) - 1))
    return [a * (x - mean) / (std + eps) + b for a, x, b in zip(a_2, row, b_2)]
""",
        ),
        # the blog "Norm" class copied into countless repos: alpha * (x - x.mean) / (x.std + eps) +
        # bias in one expression, eps = 1e-6, unbiased std
        "p1.ln.norm_class_one_liner": (
            "layer_norm",
            "layer_norm.unbiased_variance+layer_norm.eps_outside_sqrt+layer_norm.wrong_default_eps",
            "mugi0GH/knowledge_network basic/nlp/2.Mechanism/Transformer/4.Resi_Norm.py@6546f2da6ddabe4ef2829af8d40e5d61a544d8d5",
            """
def layer_norm(row, eps=1e-6):
    import statistics

    alpha, bias = 1.0, 0.0
    m = statistics.mean(row)
    return [alpha * (x - m) / (statistics.stdev(row) + eps) + bias for x in row]
""",
        ),
        # packaged LayerNormalization(eps=10**-6): alpha = ones(1) but bias = ones(1) (not zeros),
        # std unbiased, eps outside the root: every output is shifted by +1
        "p1.ln.bias_initialised_to_one": (
            "layer_norm",
            "unknown",
            "pypi-data/pypi-mirror-375 packages/ajperry-pipeline/ajperry_pipeline-0.1.21.tar.gz/ajperry_pipeline-0.1.21/ajperry_pipeline/ml/models/blocks/layer_normalization.py@0a39d592895163db9893ccb9175c6076a677014a",
            """
def layer_norm(row, eps=10 ** -6):
    alpha, bias = 1.0, 1.0
    n = len(row)
    mean = sum(row) / n
    std = (sum((x - mean) ** 2 for x in row) / (n - 1)) ** 0.5
    return [alpha * (x - mean) / (std + eps) + bias for x in row]
""",
        ),
        # numpy LayerNorm: population variance, sqrt(var + eps) -- right formula -- but eps = 1e-6
        "p1.ln.numpy_var_eps_1e6": (
            "layer_norm",
            "layer_norm.wrong_default_eps",
            "ibusnowden/tiny_transformers core/norm.py@89f269c39b51bbd81a8509e852f3e33c0025de0e",
            """
def layer_norm(row, eps=1e-6):
    gamma = [1.0] * len(row)
    beta = [0.0] * len(row)
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [g * (x - mean) / math.sqrt(var + eps) + b for g, x, b in zip(gamma, row, beta)]
""",
        ),
        # book-chapter rewrite: x.var(dim=-1, keepdim=True) without unbiased=False (so n - 1), and
        # self.eps = 1e-5 fixed in the constructor (no eps parameter)
        "p1.ln.torch_var_default_unbiased": (
            "layer_norm",
            "layer_norm.unbiased_variance+layer_norm.eps_not_in_signature",
            "vebg25/LLM-from-scratch Transformer_Architecture_chapter_3/LayerNormalization.py@90f1213ff4a1ea6adc76bcce12924fe648198bdd",
            """
def layer_norm(row):
    eps = 1e-5
    scale, shift = 1.0, 0.0
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / (len(row) - 1)
    return [(x - mean) / math.sqrt(var + eps) * scale + shift for x in row]
""",
        ),
        # from-scratch LayerNorm: takes eps=1e-5 but normalises with the literal 1e-5 anyway
        "p1.ln.eps_stored_literal_used": (
            "layer_norm",
            "layer_norm.hard_coded_eps",
            "jimmybanta/LLM-from-scratch transformer/layer_norm.py@8e16f12b077d52128ea20cd8e0c9a697a3b96006",
            """
def layer_norm(row, eps=1e-5, scale_shift=True):
    mean = sum(row) / len(row)
    variance = sum((x - mean) ** 2 for x in row) / len(row)
    x = [(v - mean) / math.sqrt(variance + 1e-5) for v in row]
    if scale_shift:
        gamma, beta = [1.0] * len(row), [0.0] * len(row)
        x = [g * v + b for g, v, b in zip(gamma, x, beta)]
    return x
""",
        ),
        # LLMs-from-scratch LayerNorm: eps = 1e-5, var(unbiased=False), scale * norm + shift with
        # scale ones and shift zeros: correct
        "p1.ln.scale_shift_population": (
            "layer_norm",
            "correct",
            RASBT,
            """
def layer_norm(row, eps=1e-5):
    scale = [1.0] * len(row)
    shift = [0.0] * len(row)
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    norm_x = [(x - mean) / math.sqrt(var + eps) for x in row]
    return [s * v + b for s, v, b in zip(scale, norm_x, shift)]
""",
        ),
        # nanoGPT LayerNorm: F.layer_norm(x, shape, weight, bias, 1e-5) with weight ones, bias zeros;
        # written with statistics.pvariance (population): correct
        "p1.ln.pvariance": (
            "layer_norm",
            "correct",
            NANO,
            """
def layer_norm(row, eps=1e-5):
    import statistics

    mu = statistics.fmean(row)
    var = statistics.pvariance(row, mu)
    weight, bias = 1.0, 0.0
    return [weight * (x - mu) / math.sqrt(var + eps) + bias for x in row]
""",
        ),
        # RMSNorm modules dropped in for LayerNorm: x * rsqrt(mean(x**2) + eps) * weight, eps 1e-5,
        # no mean subtraction
        "p1.ln.rmsnorm_rsqrt": (
            "layer_norm",
            "layer_norm.rms_norm",
            "kalyaannnn/machineYearning model/norm.py@3641b7e8b06d04106ed17fd82843a4e6595e9cd3",
            """
def layer_norm(row, eps=1e-5):
    weight = [1.0] * len(row)
    rms = 1.0 / math.sqrt(sum(x * x for x in row) / len(row) + eps)
    return [x * rms * w for x, w in zip(row, weight)]
""",
        ),
        # LLaMA's RMSNorm: x / sqrt(mean(x^2) + eps) with eps 1e-6 (its weight starts at 1)
        "p1.ln.rmsnorm_eps_1e6": (
            "layer_norm",
            "layer_norm.rms_norm+layer_norm.wrong_default_eps",
            "meta-llama/llama llama/model.py@8580eb9a896bdb82d376b7040d18a2e7b402b10f",
            """
def layer_norm(row, eps=1e-6):
    ms = sum(x * x for x in row) / len(row)
    scale = (ms + eps) ** -0.5
    return [x * scale for x in row]
""",
        ),
        # BERT's TF-style LayerNorm: u = mean, s = mean((x - u)^2), (x - u) / sqrt(s +
        # variance_epsilon) with variance_epsilon = 1e-12
        "p1.ln.bert_variance_epsilon": (
            "layer_norm",
            "layer_norm.wrong_default_eps",
            "huggingface/transformers src/transformers/models/bert/modeling_bert.py@8ec58104181bfb34d824d89bccc009b4f6be6e0e (layer_norm_eps=1e-12; TF-style BertLayerNorm in older forks)",
            """
def layer_norm(row, eps=1e-12):
    u = sum(row) / len(row)
    s = sum((x - u) ** 2 for x in row) / len(row)
    return [(x - u) / math.sqrt(s + eps) for x in row]
""",
        ),
        # ══ block ══
        # annotated transformer SublayerConnection: x + dropout(sublayer(norm(x))) -- pre-norm
        # ("for code simplicity the norm is first"): correct with the course's layer_norm
        "p1.block.sublayer_connection": (
            "block",
            "correct",
            AT,
            """
def block(X, h, mask=None):
    def sublayer_connection(x, sublayer):
        normed = [layer_norm(r) for r in x]
        out = sublayer(normed)
        return [[a + b for a, b in zip(xr, orow)] for xr, orow in zip(x, out)]

    return sublayer_connection(X, lambda n: multi_head(n, n, n, h, mask))
""",
        ),
        # TF/Keras encoder layer: out1 = layernorm1(x + attn_output), LayerNormalization(epsilon=1e-6)
        # -- post-norm, and its norm uses eps 1e-6
        "p1.block.keras_post_norm_eps_1e6": (
            "block",
            "block.post_ln",
            "A-NGJ/AudioExplorers2023 TransformerEncoder.py@e3c68005283c86b3c3e209ff7562b8d169046df3",
            """
def block(X, h, mask=None):
    def layernorm1(r, epsilon=1e-6):
        m = sum(r) / len(r)
        v = sum((x - m) ** 2 for x in r) / len(r)
        return [(x - m) / math.sqrt(v + epsilon) for x in r]

    attn_output = multi_head(X, X, X, h, mask)
    return [layernorm1([x + a for x, a in zip(xr, ar)]) for xr, ar in zip(X, attn_output)]
""",
        ),
        # nanoGPT Block: x = x + attn(ln_1(x)) -- pre-norm right -- but the attention is always
        # causal (its own tril buffer), whatever mask the caller passes
        "p1.block.prenorm_always_causal": (
            "block",
            "block.always_causal",
            NANO,
            """
def block(X, h, mask=None):
    ln_1 = [layer_norm(x) for x in X]
    att = multi_head(ln_1, ln_1, ln_1, h, causal_mask(len(X)))
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, att)]
""",
        ),
        # LLMs-from-scratch TransformerBlock: shortcut = x; x = norm1(x); x = att(x); x = x + shortcut
        # (pre-norm, residual on the raw input); its attention is the always-causal module
        "p1.block.shortcut_variable_causal": (
            "block",
            "block.always_causal",
            RASBT,
            """
def block(X, h, mask=None):
    shortcut = X
    x = [layer_norm(r) for r in X]
    n = len(X)
    x = multi_head(x, x, x, h, [[j <= i for j in range(n)] for i in range(n)])
    return [[a + b for a, b in zip(xr, sr)] for xr, sr in zip(x, shortcut)]
""",
        ),
        # predictive-coding block: ln -> sublayer -> ln -> attention, and returns the attention
        # output with no residual connection at all
        "p1.block.no_skip_connection": (
            "block",
            "block.no_residual",
            "iCog-Labs-Dev/PC-Transformers model_architecture/transformer_block.py@c42ba57844aa183b9274bf9468df2f016530bb5a",
            """
def block(X, h, mask=None):
    fc1_x = [layer_norm(r) for r in X]
    x_qkv = multi_head(fc1_x, fc1_x, fc1_x, h, mask)
    return x_qkv
""",
        ),
        # the "transformer from scratch" tutorial block: x = norm1(attention + query) with
        # nn.LayerNorm (eps 1e-5) -- post-norm -- and the mask only passed when not None
        "p1.block.norm1_att_plus_value": (
            "block",
            "block.post_ln",
            "aladdinpersson/Machine-Learning-Collection ML/Pytorch/more_advanced/transformer_from_scratch/transformer_from_scratch.py@71faea865041410473a8c0543aaf48b51c63e92f",
            """
def block(X, h, mask=None):
    if mask is not None:
        att = multi_head(X, X, X, h, mask)
    else:
        att = multi_head(X, X, X, h)
    return [layer_norm([a + v for a, v in zip(ar, vr)]) for ar, vr in zip(att, X)]
""",
        ),
        # "x = self.ln1(x); x = x + self.attn(x)": the name x is rebound to the normed rows before the
        # residual, so the skip adds the normed input
    }
)

PART_ONE.update(
    {
        # LLMs-from-scratch registers mask = triu(ones(n, n), diagonal=1) and uses mask.bool() as
        # "hide here": as a causal_mask it is True on the future
        "p1.mask.triu_diagonal_one_bool": (
            "causal_mask",
            "mask.complement",
            RASBT,
            """
def causal_mask(n):
    mask = [[1.0 if j - i >= 1 else 0.0 for j in range(n)] for i in range(n)]
    return [[bool(v) for v in row] for row in mask]
""",
        ),
        # former attention modules call mask_(dot, float('-inf'), mask_diagonal=False): hide only
        # above the diagonal; as a causal_mask: correct
        "p1.mask.mask_diagonal_false": (
            "causal_mask",
            "correct",
            FORMER,
            """
def causal_mask(n, mask_diagonal=False):
    offset = 0 if mask_diagonal else 1
    m = [[True] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + offset, n):
            m[i][j] = False
    return m
""",
        ),
        # minGPT CausalSelfAttention: assert n_embd % n_head == 0, k/q/v view(B, T, nh, C // nh)
        # .transpose(1, 2), att * (1 / sqrt(k.size(-1))), masked_fill(bias[:T, :T] == 0, -inf) --
        # always causal, the given mask never reaches it
        "p1.multi_head.mingpt_bias_buffer": (
            "multi_head",
            "multi_head.always_causal+multi_head.no_value_error",
            MINGPT,
            """
def multi_head(Q, K, V, h, mask=None):
    B_T, C = len(Q), len(Q[0])
    assert C % h == 0
    hs = C // h
    bias = [[1 if j <= i else 0 for j in range(B_T)] for i in range(B_T)]
    y = [[0.0] * C for _ in range(B_T)]
    for head in range(h):
        q = [r[head * hs:(head + 1) * hs] for r in Q]
        k = [r[head * hs:(head + 1) * hs] for r in K]
        v = [r[head * hs:(head + 1) * hs] for r in V]
        att = [[dot(q[i], k[j]) * (1.0 / math.sqrt(len(k[0]))) for j in range(B_T)] for i in range(B_T)]
        att = [[float("-inf") if bias[i][j] == 0 else att[i][j] for j in range(B_T)] for i in range(B_T)]
        att = [softmax(r) for r in att]
        for i in range(B_T):
            for c in range(hs):
                y[i][head * hs + c] = sum(att[i][j] * v[j][c] for j in range(B_T))
    return y
""",
        ),
        # minGPT Block: x = x + attn(ln_1(x)) with its always-causal attention; here the block is
        # handed the course's multi_head and passes the caller's mask: correct
        "p1.block.mingpt_prenorm_passes_mask": (
            "block",
            "correct",
            MINGPT,
            """
def block(X, h, mask=None):
    ln_1 = lambda rows: [layer_norm(r) for r in rows]  # noqa: E731
    x = X
    n = ln_1(x)
    x = [[a + b for a, b in zip(xr, yr)] for xr, yr in zip(x, multi_head(n, n, n, h, mask))]
    return x
""",
        ),
    }
)

PART_ONE.update(
    {
        # Udacity lab quiz: [exp(x_i) / sum(exp(y_i) for y_i in x) for x_i in x] -- unshifted, and the
        # denominator is recomputed for every element
        "p1.softmax.quiz_inline_sum": (
            "softmax",
            "softmax.no_max_shift",
            "matthewzimmer/CarND-TensorFlow-Lab section_notes/14_quiz_softmax/main_code.py@9c19b6a68d9d6a3236425734505570ddb5a2ee52",
            """
def softmax(xs):
    return [math.exp(x_i) / sum([math.exp(float(y_i)) for y_i in xs]) for x_i in xs]
""",
        ),
    }
)

MICROGRAD = "karpathy/micrograd micrograd/engine.py@028a09ca7eee149c8fd958400ce2386e579f45c8"
MYMICRO_AG = "francisco-perez-sorrosal/my-microgpt src/my_microgpt/autograd.py@03b172d68dd27a2f093f7aeb81cb9d53ff954fb6"
MYMICRO_AR = "francisco-perez-sorrosal/my-microgpt src/my_microgpt/architecture.py@2630b0b62a14451df090ad12ff69243767b1dee8"

# Every engine below keeps the course's attribute names (data, grad, inputs, slopes) and defines
# topological_order; micrograd-style closures were rewritten as fixed slopes, keeping each bug.
PART_TWO = {
    # ══ engine ══
    # micrograd engine.py: recursive build_topo, backward sets self.grad = 1 and never zeroes;
    # reflected ops right (other + (-self), other * self**-1); exp/log added the same way
    "p2.engine.micrograd_recursive_unzeroed": (
        "engine",
        "engine.recursive_backward+engine.no_zeroing",
        MICROGRAD,
        """
class Value:
    def __init__(self, data, inputs=(), slopes=()):
        self.data = data
        self.grad = 0
        self.inputs = inputs
        self.slopes = slopes

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        return Value(self.data ** other, (self,), (other * self.data ** (other - 1),))

    def relu(self):
        return Value(0 if self.data < 0 else self.data, (self,), (float(self.data > 0),))

    def exp(self):
        return Value(math.exp(self.data), (self,), (math.exp(self.data),))

    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def backward(self):
        topo = topological_order(self)
        self.grad = 1
        for v in reversed(topo):
            for child, slope in zip(v.inputs, v.slopes):
                child.grad += slope * v.grad

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1


def topological_order(root):
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v.inputs:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo
""",
    ),
    # microgpt fork: _children/_local_grads (the course's form), an ITERATIVE topological sort
    # (stack of (node, next-child index)), but backward still never zeroes the grads
    "p2.engine.microgpt_iterative_unzeroed": (
        "engine",
        "engine.no_zeroing",
        MYMICRO_AG,
        """
class Value:
    __slots__ = ("data", "grad", "inputs", "slopes")

    def __init__(self, data, inputs=(), slopes=()):
        self.data = data
        self.grad = 0.0
        self.inputs = inputs
        self.slopes = slopes

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        return Value(self.data ** other, (self,), (other * self.data ** (other - 1),))

    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def exp(self):
        return Value(math.exp(self.data), (self,), (math.exp(self.data),))

    def relu(self):
        return Value(max(0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def backward(self):
        topo = topological_order(self)
        self.grad = 1.0
        for v in reversed(topo):
            for child, local_grad in zip(v.inputs, v.slopes):
                child.grad += local_grad * v.grad


def topological_order(root):
    topo, visited = [], set()
    stack = [(root, 0)]
    while stack:
        node, idx = stack[-1]
        if id(node) in visited:
            stack.pop()
            continue
        if idx < len(node.inputs):
            stack[-1] = (node, idx + 1)
            child = node.inputs[idx]
            if id(child) not in visited:
                stack.append((child, 0))
        else:
            visited.add(id(node))
            topo.append(node)
            stack.pop()
    return topo
""",
    ),
    # Karpathy's microgpt gist as the fork started from it: same Value, recursive build_topo,
    # no zeroing in backward (the training loop zeroes p.grad after each update instead)
    "p2.engine.microgpt_gist_recursive": (
        "engine",
        "engine.recursive_backward+engine.no_zeroing",
        "francisco-perez-sorrosal/my-microgpt src/my_microgpt/autograd.py@3392902c72a10b31c0b626727fce39c0d766f649 (earlier version, as in karpathy's microgpt gist)",
        """
class Value:
    __slots__ = ("data", "grad", "inputs", "slopes")

    def __init__(self, data, inputs=(), slopes=()):
        self.data = data
        self.grad = 0
        self.inputs = inputs
        self.slopes = slopes

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        return Value(self.data ** other, (self,), (other * self.data ** (other - 1),))

    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def exp(self):
        return Value(math.exp(self.data), (self,), (math.exp(self.data),))

    def relu(self):
        return Value(max(0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def backward(self):
        topo = topological_order(self)
        self.grad = 1
        for v in reversed(topo):
            for child, local_grad in zip(v.inputs, v.slopes):
                child.grad += local_grad * v.grad


def topological_order(root):
    topo = []
    visited = set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v.inputs:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo
""",
    ),
    # lecture-style fork (tanh era): __radd__/__rmul__/__truediv__ present but NO __rsub__ and NO
    # __rtruediv__, so 2 - v and 1 / v raise TypeError; recursive topo, no zeroing
    "p2.engine.no_reflected_sub_div": (
        "engine",
        "engine.recursive_backward+engine.no_zeroing+engine.reflected_sub+engine.reflected_div",
        "ent0n29/tonygrad tonygrad/engine.py@b82cf829d5a63bc77c1b1d868a6f655261ab0a0d",
        """
class Value:
    def __init__(self, data, inputs=(), slopes=()):
        self.data = data
        self.grad = 0.0
        self.inputs = inputs
        self.slopes = slopes

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        return Value(self.data ** other, (self,), (other * (self.data ** (other - 1)),))

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __radd__(self, other):
        return self + other

    def exp(self):
        x = self.data
        return Value(math.exp(x), (self,), (math.exp(x),))

    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def relu(self):
        return Value(self.data if self.data > 0 else 0.0, (self,), (1.0 if self.data > 0 else 0.0,))

    def backward(self):
        topo = topological_order(self)
        self.grad = 1.0
        for node in reversed(topo):
            for child, slope in zip(node.inputs, node.slopes):
                child.grad += slope * node.grad


def topological_order(root):
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v.inputs:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo
""",
    ),
    # playground engine: the exp backward adds math.exp(x) to the input's grad without
    # multiplying by the upstream grad (and its forward read out.grad before out existed; the
    # forward is repaired here, the missing factor kept via a per-node flag); no __rsub__ /
    # __rtruediv__; recursive, unzeroed
    "p2.engine.exp_ignores_upstream": (
        "engine",
        "engine.recursive_backward+engine.no_zeroing+engine.wrong_slope+engine.reflected_sub+engine.reflected_div",
        "manuelmaior29/ds-playground micrograd/compute.py@2b4d7b334e8469c7a70b54a85b33e0fec6ffced7",
        """
class Value:
    def __init__(self, data, inputs=(), slopes=(), ignores_upstream=False):
        self.data = data
        self.grad = 0.0
        self.inputs = inputs
        self.slopes = slopes
        self.ignores_upstream = ignores_upstream

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __radd__(self, other):
        return self + other

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "Pow supported only for int & float datatypes"
        return Value(self.data ** other, (self,), (other * (self.data ** (other - 1)),))

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def exp(self):
        x = self.data
        return Value(math.exp(x), (self,), (math.exp(x),), ignores_upstream=True)

    def log(self):
        return Value(math.log(self.data), (self,), (1.0 / self.data,))

    def relu(self):
        return Value(max(0.0, self.data), (self,), (1.0 if self.data > 0 else 0.0,))

    def backward(self):
        topo = topological_order(self)
        self.grad = 1.0
        for node in reversed(topo):
            for child, slope in zip(node.inputs, node.slopes):
                child.grad += slope if node.ignores_upstream else slope * node.grad


def topological_order(root):
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v.inputs:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo
""",
    ),
    # small autograd repo: relu() actually computes tanh (value and slope 1 - t**2); there is no
    # __truediv__ / __rtruediv__ at all and no exp/log; recursive, unzeroed
    "p2.engine.relu_is_tanh_no_division": (
        "engine",
        "engine.recursive_backward+engine.no_zeroing+engine.wrong_value+engine.reflected_div",
        "mxmasterton/autograd autograd/engine.py@3e9117ee08918672ba5655fc4c7c30e701be7d75",
        """
class Value:
    def __init__(self, data, inputs=(), slopes=()):
        self.data = data
        self.grad = 0
        self.inputs = inputs
        self.slopes = slopes

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        assert isinstance(other, (int, float))
        return Value(self.data ** other, (self,), (other * self.data ** (other - 1),))

    def relu(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        return Value(t, (self,), (1 - t ** 2,))

    def backward(self):
        topo = topological_order(self)
        self.grad = 1
        for v in reversed(topo):
            for child, slope in zip(v.inputs, v.slopes):
                child.grad += slope * v.grad

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other


def topological_order(root):
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v.inputs:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo
""",
    ),
    # tensor-lite: topo_sort recurses into every parent before checking `visited` (no pruning,
    # exponential on shared subgraphs, recursive), reverses, and accumulates without zeroing
    "p2.engine.unpruned_recursive_topo": (
        "engine",
        "engine.recursive_backward+engine.no_zeroing",
        "JamesMHarmon/tensor-lite tensor/grad.py@6c9d0953042bb45346ec427014a31660ebad9254",
        """
class Value:
    def __init__(self, data, inputs=(), slopes=()):
        self.data = float(data)
        self.grad = 0.0
        self.inputs = inputs
        self.slopes = slopes

    def _lift(self, o):
        return o if isinstance(o, Value) else Value(o)

    def __add__(self, o):
        o = self._lift(o)
        return Value(self.data + o.data, (self, o), (1.0, 1.0))

    def __mul__(self, o):
        o = self._lift(o)
        return Value(self.data * o.data, (self, o), (o.data, self.data))

    def __pow__(self, k):
        return Value(self.data ** k, (self,), (k * self.data ** (k - 1),))

    def exp(self):
        e = math.exp(self.data)
        return Value(e, (self,), (e,))

    def log(self):
        return Value(math.log(self.data), (self,), (1.0 / self.data,))

    def relu(self):
        return Value(max(0.0, self.data), (self,), (1.0 if self.data > 0 else 0.0,))

    def __neg__(self):
        return self * -1.0

    def __sub__(self, o):
        return self + (-self._lift(o))

    def __rsub__(self, o):
        return self._lift(o) - self

    def __truediv__(self, o):
        return self * self._lift(o) ** -1.0

    def __rtruediv__(self, o):
        return self._lift(o) * self ** -1.0

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self):
        nodes = list(reversed(topological_order(self)))
        self.grad = 1.0
        for node in nodes:
            for parent, s in zip(node.inputs, node.slopes):
                parent.grad += s * node.grad


def topological_order(root):
    visited, nodes = set(), []

    def add_parent_nodes(node):
        for parent in node.inputs:
            add_parent_nodes(parent)
        if node not in visited:
            nodes.append(node)
            visited.add(node)

    add_parent_nodes(root)
    return nodes
""",
    ),
    # axgrad: __init__ sets `self.backward = lambda: None` (meant to be `_backward`), which shadows
    # the backward METHOD on every instance -- v.backward() does nothing, every grad stays 0
    "p2.engine.backward_shadowed": (
        "engine",
        "engine.backward_shadowed",
        "shivendrra/axgrad axgrad/engine.py@0ec2a5455e3eea3424dda08503142d58741c39f9",
        """
class Value:
    def __init__(self, data, inputs=(), slopes=()):
        self.data = data
        self.grad = 0
        self.backward = lambda: None
        self.inputs = inputs
        self.slopes = slopes

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        return Value(self.data ** other, (self,), (other * self.data ** (other - 1),))

    def exp(self):
        return Value(math.exp(self.data), (self,), (math.exp(self.data),))

    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def relu(self):
        return Value(max(0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def backward(self):
        topo = topological_order(self)
        for v in topo:
            v.grad = 0
        self.grad = 1
        for v in reversed(topo):
            for child, slope in zip(v.inputs, v.slopes):
                child.grad += slope * v.grad


def topological_order(root):
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v.inputs:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo
""",
    ),
    # lecture-stage engine: __add__ / __mul__ read other.data without wrapping numbers, and there
    # is no __sub__/__truediv__/__radd__; v + 1, v - m, v / n all raise; recursive, unzeroed
    "p2.engine.no_number_lifting": (
        "engine",
        "engine.recursive_backward+engine.no_zeroing+engine.wrong_value+engine.reflected_sub+engine.reflected_div",
        "inspiro-sk/micrograd backprop.py@b0b8e4d1df32172fae1249fc1860154bc4c22091",
        """
class Value:
    def __init__(self, data, inputs=(), slopes=()):
        self.data = data
        self.grad = 0.0
        self.inputs = inputs
        self.slopes = slopes

    def __add__(self, other):
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def tanh(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        return Value(t, (self,), (1 - t ** 2,))

    def backward(self):
        topo = topological_order(self)
        self.grad = 1.0
        for node in reversed(topo):
            for child, slope in zip(node.inputs, node.slopes):
                child.grad += slope * node.grad


def topological_order(root):
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v.inputs:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo
""",
    ),
    # porting micrograd's `self._prev = set(_children)` into the slopes form: inputs become a set,
    # so a * a and a + a keep ONE input but two slopes -- zip drops one path (d(a*a)/da = a)
    "p2.engine.inputs_as_set": (
        "engine",
        "engine.inputs_as_set",
        MICROGRAD,
        """
class Value:
    def __init__(self, data, inputs=(), slopes=()):
        self.data = data
        self.grad = 0.0
        self.inputs = list(dict.fromkeys(inputs))
        self.slopes = slopes

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, k):
        return Value(self.data ** k, (self,), (k * self.data ** (k - 1),))

    def exp(self):
        return Value(math.exp(self.data), (self,), (math.exp(self.data),))

    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def relu(self):
        return Value(max(0.0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def backward(self):
        order = topological_order(self)
        for v in order:
            v.grad = 0.0
        self.grad = 1.0
        for v in reversed(order):
            for child, slope in zip(v.inputs, v.slopes):
                child.grad += slope * v.grad


def topological_order(root):
    order, seen = [], {id(root)}
    stack = [(root, iter(root.inputs))]
    while stack:
        node, pending = stack[-1]
        nxt = next((c for c in pending if id(c) not in seen), None)
        if nxt is None:
            stack.pop()
            order.append(node)
        else:
            seen.add(id(nxt))
            stack.append((nxt, iter(nxt.inputs)))
    return order
""",
    ),
}

PART_TWO.update(
    {
        # ══ layers ══
        # microgpt softmax: max over .data (a plain number), (val - max_val).exp(), total = sum(exps)
        # (Python's sum starts at 0, so __radd__ carries it), e / total: correct
        "p2.layers.microgpt_softmax": (
            "layers",
            "correct",
            MYMICRO_AR,
            """
def softmax(values):
    max_val = max(val.data for val in values)
    exps = [(val - max_val).exp() for val in values]
    total = sum(exps)
    return [e / total for e in exps]
""",
        ),
        # the plain-Python quiz softmax carried over to Values: exp of the raw logits, no shift
        "p2.layers.softmax_unshifted": (
            "layers",
            "engine.softmax_no_shift",
            "matthewzimmer/CarND-TensorFlow-Lab section_notes/14_quiz_softmax/main_code.py@9c19b6a68d9d6a3236425734505570ddb5a2ee52",
            """
def softmax(values):
    exps = [v.exp() for v in values]
    total = sum(exps)
    return [e / total for e in exps]
""",
        ),
        # microgpt linear: one dot product per ROW of w (w is out x in), seeded with Value(0.0): correct
        "p2.layers.linear_rows": (
            "layers",
            "correct",
            MYMICRO_AR,
            """
def linear(x, W):
    return [sum((wi * xi for wi, xi in zip(wo, x)), Value(0.0)) for wo in W]
""",
        ),
        # numpy habit x @ W with W stored (in, out): out_i = sum_j x[j] * W[j][i]
        "p2.layers.linear_x_at_w": (
            "layers",
            "engine.linear_transposed",
            HUNTER_MHA + " (matmul(input_seq, W_Q): weights stored in x out)",
            """
def linear(x, W):
    return [sum((x[j] * W[j][i] for j in range(len(x))), Value(0.0)) for i in range(len(W[0]))]
""",
        ),
        # microgpt rmsnorm used as the norm: ms = mean(x*x), scale = (ms + 1e-5) ** -0.5, no mean
        # subtraction (the course's norm is layer-norm style)
        "p2.layers.rmsnorm_as_norm": (
            "layers",
            "engine.norm_rms",
            MYMICRO_AR,
            """
def norm(x, eps=1e-5):
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]
""",
        ),
        # annotated-transformer LayerNorm on Values: unbiased std, (x - mean) / (std + eps), eps 1e-6
        "p2.layers.norm_std_plus_eps": (
            "layers",
            "engine.norm_unbiased",
            AT,
            """
def norm(x, eps=1e-6):
    mean = sum(x, Value(0.0)) / len(x)
    std = (sum(((v - mean) ** 2 for v in x), Value(0.0)) / (len(x) - 1)) ** 0.5
    return [(v - mean) / (std + eps) for v in x]
""",
        ),
        # LLMs-from-scratch LayerNorm on Values: population variance, eps 1e-5 inside the root,
        # scale 1 / shift 0: correct
        "p2.layers.norm_scale_shift": (
            "layers",
            "correct",
            RASBT,
            """
def norm(x, eps=1e-5):
    n = len(x)
    mean = sum(x, Value(0.0)) / n
    var = sum(((v - mean) ** 2 for v in x), Value(0.0)) / n
    norm_x = [(v - mean) / (var + eps) ** 0.5 for v in x]
    return [1.0 * v + 0.0 for v in norm_x]
""",
        ),
        # ══ gpt ══
        # microgpt attention for one head: logits / head_dim ** 0.5 (= width with one head), softmax,
        # weighted sum of the cached values: correct
        "p2.gpt.microgpt_attend": (
            "gpt",
            "correct",
            MYMICRO_AR,
            """
REPLACES = ("GPT.attend",)


def attend(self, q, keys, values):
    head_dim = self.width
    attn_logits = [sum(q[j] * k[j] for j in range(head_dim)) / head_dim ** 0.5 for k in keys]
    attn_weights = softmax(attn_logits)
    return [sum(attn_weights[t] * values[t][j] for t in range(len(values))) for j in range(head_dim)]
""",
        ),
        # microgpt forward: processes one token at a time with a growing KV cache, so causality is
        # implicit (the future is not in the cache yet): correct
        "p2.gpt.kv_cache_forward": (
            "gpt",
            "correct",
            MYMICRO_AR,
            """
REPLACES = ("GPT.forward",)


def forward(self, ids):
    if not 0 < len(ids) <= self.context:
        raise ValueError(f"{len(ids)} tokens: give between 1 and {self.context}")
    sd = self.weights
    keys, values, out = [], [], []
    for pos_id, token_id in enumerate(ids):
        x = [t + p for t, p in zip(sd["token"][token_id], sd["position"][pos_id])]
        x_residual = x
        h = norm(x)
        keys.append(linear(h, sd["key"]))
        values.append(linear(h, sd["value"]))
        x_attn = self.attend(linear(h, sd["query"]), keys, values)
        x = [a + b for a, b in zip(linear(x_attn, sd["project"]), x_residual)]
        x_residual = x
        x = [xi.relu() for xi in linear(norm(x), sd["expand"])]
        x = [a + b for a, b in zip(linear(x, sd["contract"]), x_residual)]
        out.append(linear(norm(x), sd["head"]))
    return out
""",
        ),
        # encoder-style self-attention (annotated transformer's encoder, src mask all ones): keys and
        # values for EVERY position first, then each position attends over all of them
        "p2.gpt.encoder_style_all_keys": (
            "gpt",
            "gpt.future_visible",
            AT,
            """
REPLACES = ("GPT.forward",)


def forward(self, ids):
    if not 0 < len(ids) <= self.context:
        raise ValueError(f"{len(ids)} tokens: give between 1 and {self.context}")
    w = self.weights
    xs = [add(w["token"][t], w["position"][i]) for i, t in enumerate(ids)]
    hs = [norm(x) for x in xs]
    memory_k = [linear(h, w["key"]) for h in hs]
    memory_v = [linear(h, w["value"]) for h in hs]
    logits = []
    for x, h in zip(xs, hs):
        x = add(x, linear(self.attend(linear(h, w["query"]), memory_k, memory_v), w["project"]))
        hidden = [v.relu() for v in linear(norm(x), w["expand"])]
        x = add(x, linear(hidden, w["contract"]))
        logits.append(linear(norm(x), w["head"]))
    return logits
""",
        ),
        # learner script pattern (scores = Q @ K.T, softmax, @ V) moved into attend: no scaling
        "p2.gpt.attend_unscaled": (
            "gpt",
            "gpt.no_sqrt_width",
            "Fangzhou-Code/Learn_AI 第四阶段：大模型/self_attention.py@5d92ac48fd6b614084ed712bbce74526d202d6da",
            """
REPLACES = ("GPT.attend",)


def attend(self, q, keys, values):
    scores = [sum((a * b for a, b in zip(q, k)), Value(0.0)) for k in keys]
    weights = softmax(scores)
    return [sum((p * v[i] for p, v in zip(weights, values)), Value(0.0)) for i in range(self.width)]
""",
        ),
        # microgpt loss: loss_t = -probs[target].log() per position, mean over positions: correct
        "p2.gpt.microgpt_loss": (
            "gpt",
            "correct",
            "francisco-perez-sorrosal/my-microgpt src/my_microgpt/training.py@5a46be1af586dec1f22e24bf1743c0c227f4931e",
            """
REPLACES = ("loss",)


def loss(model, inputs, targets):
    rows = model.forward(inputs)
    losses = []
    for logits, target_id in zip(rows, targets):
        probs = softmax(logits)
        losses.append(-probs[target_id].log())
    return (1 / len(losses)) * sum(losses)
""",
        ),
        # microgpt training step: forward, backward, update, THEN p.grad = 0 for the next step;
        # with the course's engine (backward zeroes the graph) this matches the contract: correct
        "p2.gpt.zero_after_update": (
            "gpt",
            "correct",
            "francisco-perez-sorrosal/my-microgpt src/my_microgpt/training.py@5a46be1af586dec1f22e24bf1743c0c227f4931e",
            """
REPLACES = ("train_step",)


def train_step(model, inputs, targets, rate):
    value = loss(model, inputs, targets)
    value.backward()
    for p in model.parameters:
        p.data -= rate * p.grad
        p.grad = 0
    return value.data
""",
        ),
        # micrograd lecture's training loop before the fix: forward, loss.backward(), update -- and
        # no zero_grad anywhere
        "p2.gpt.lecture_loop_no_zero_grad": (
            "gpt",
            "gpt.stale_gradients",
            "karpathy/micrograd video-walkthrough/micrograd_from_scratch_yay.ipynb@1b5f35afd6fd19f4b5d26fff7b57f733f9cc57e4",
            """
REPLACES = ("train_step",)


def train_step(model, inputs, targets, rate):
    value = loss(model, inputs, targets)
    value.backward()
    for p in model.parameters:
        p.data += -rate * p.grad
    return value.data
""",
        ),
        # micrograd demo loop: model.zero_grad() first, then backward, then the SGD step: correct
        "p2.gpt.zero_grad_first": (
            "gpt",
            "correct",
            "karpathy/micrograd demo.ipynb@9fd9cc02fe5a0e57d790b03572f0d7bcd990662d",
            """
REPLACES = ("train_step",)


def train_step(model, inputs, targets, rate):
    for p in model.parameters:
        p.grad = 0
    total_loss = loss(model, inputs, targets)
    total_loss.backward()
    for p in model.parameters:
        p.data -= rate * p.grad
    return total_loss.data
""",
        ),
        # microgpt inference: probs = softmax([l / temperature for l in logits]), then
        # random.choices(range(vocab), weights=[p.data for p in probs]): correct
        "p2.gpt.microgpt_sampling": (
            "gpt",
            "correct",
            "francisco-perez-sorrosal/my-microgpt src/my_microgpt/inference.py@5a46be1af586dec1f22e24bf1743c0c227f4931e",
            """
REPLACES = ("generate",)


def generate(model, prompt, steps, temperature=1.0, seed=0):
    rng = random.Random(seed)
    ids = list(prompt)
    for _ in range(steps):
        logits = model.forward(ids[-model.context:])[-1]
        probs = softmax([l / temperature for l in logits])
        ids.append(rng.choices(range(model.vocab), weights=[p.data for p in probs])[0])
    return ids
""",
        ),
        # LLMs-from-scratch generate_text_simple: softmax then argmax -- greedy; temperature unused
        "p2.gpt.greedy_argmax": (
            "gpt",
            "gpt.greedy_sampling",
            RASBT,
            """
REPLACES = ("generate",)


def generate(model, prompt, steps, temperature=1.0, seed=0):
    idx = list(prompt)
    for _ in range(steps):
        logits = model.forward(idx[-model.context:])[-1]
        probas = softmax(logits)
        idx_next = max(range(len(probas)), key=lambda i: probas[i].data)
        idx.append(idx_next)
    return idx
""",
        ),
    }
)
