"""Part two's reference (xslm/): the scalar autograd engine against numeric differentiation and
PyTorch, and the tiny GPT's shapes, causality, gradients (against PyTorch), learning and saving.
"""

import math
import random

import pytest

from xslm import engine, gpt

Value, linear, norm, softmax = engine.Value, engine.linear, engine.norm, engine.softmax
GPT, train_step, loss_of, generate = gpt.GPT, gpt.train_step, gpt.loss, gpt.generate

pytestmark = pytest.mark.xslm


def numeric(f, xs, h=1e-6):
    """Central differences of f at xs, one coordinate at a time."""
    out = []
    for k in range(len(xs)):
        up, down = list(xs), list(xs)
        up[k] += h
        down[k] -= h
        out.append((f(up) - f(down)) / (2 * h))
    return out


def expression(a, b, c):
    """Every operation of the engine at least once, a used twice."""
    return ((a * b + a) / (c**2 + 1.0) - (b - 3.0).exp() + (c * c + 1.0).log() + (a - b).relu()) * 2


def test_every_operation_matches_numeric_differentiation():
    """Gradients of an expression using + - * / ** exp log relu agree with central differences."""
    xs = [1.3, 0.7, -0.4]
    vs = [Value(x) for x in xs]
    expression(*vs).backward()
    want = numeric(lambda p: expression(*[Value(x) for x in p]).data, xs)
    assert all(math.isclose(v.grad, w, rel_tol=1e-6, abs_tol=1e-8) for v, w in zip(vs, want))


def test_a_value_used_twice_gets_both_paths():
    """c = a·b + a: dc/da = b + 1."""
    a, b = Value(2.0), Value(5.0)
    (a * b + a).backward()
    assert (a.grad, b.grad) == (6.0, 2.0)


def test_backward_is_not_recursive():
    """A chain of 100,000 operations (far past the recursion limit) differentiates."""
    x = Value(1.0)
    y = x
    for _ in range(100_000):
        y = y * 1.0 + 0.0
    y.backward()
    assert x.grad == 1.0


def test_layers_do_what_they_say():
    """linear with W as (out × in), norm to mean 0 and variance 1, softmax summing to 1."""
    out = linear([Value(1.0), Value(2.0)], [[Value(1.0), Value(0.0)], [Value(0.5), Value(0.5)]])
    assert [v.data for v in out] == [1.0, 1.5]
    n = [v.data for v in norm([Value(2.0), Value(4.0), Value(6.0)])]
    assert math.isclose(sum(n), 0.0, abs_tol=1e-12)
    assert math.isclose(sum(v * v for v in n) / 3, 1.0, rel_tol=1e-4)
    p = softmax([Value(1000.0), Value(999.0)])  # would overflow without the max shift
    assert math.isclose(p[0].data, 1 / (1 + math.exp(-1)), rel_tol=1e-12)


@pytest.mark.torch
def test_the_lessons_worked_attention_example_gives_its_numbers():
    """Notebook 2's cell: query [2, 0] over keys [1,0], [0,1], [1,1] (width 2), values [10,0],
    [0,10], [5,5]. Worked by hand: scores √2, 0, √2; weights e^√2 / (2e^√2 + 1) and 1 / (2e^√2 + 1);
    the lesson prints 0.446, 0.108 and the mix 6.687, 3.313."""
    keys, values = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]]
    scores = [s / 2**0.5 for s in engine.linear([engine.Value(2.0), engine.Value(0.0)], keys)]
    weights = engine.softmax(scores)
    mixed = engine.linear(weights, [list(column) for column in zip(*values)])
    big, small = math.exp(2**0.5) / (2 * math.exp(2**0.5) + 1), 1 / (2 * math.exp(2**0.5) + 1)
    assert [w.data for w in weights] == pytest.approx([big, small, big], abs=1e-12)
    assert [m.data for m in mixed] == pytest.approx([15 * big, 10 * small + 5 * big], abs=1e-12)
    assert [w.data for w in weights] == pytest.approx([0.446, 0.108, 0.446], abs=5e-4)
    assert [m.data for m in mixed] == pytest.approx([6.687, 3.313], abs=5e-4)


def test_the_model_gives_the_lessons_printed_numbers():
    """The lesson prints token 5's and position 0's rows of GPT(40, 8, 12), and the third
    position's first four logits of GPT(10, 8, 12) on [1, 2, 3]; notebook 3 prints them too."""
    model = gpt.GPT(40, 8, 12)
    token_5 = [-0.081, 0.024, 0.043, -0.149, 0.005, 0.131, -0.201, -0.032]
    position_0 = [-0.102, -0.036, 0.089, 0.01, -0.085, -0.084, 0.267, 0.114]
    assert [v.data for v in model.weights["token"][5]] == pytest.approx(token_5, abs=5e-4)
    assert [v.data for v in model.weights["position"][0]] == pytest.approx(position_0, abs=5e-4)
    logits = gpt.GPT(10, 8, 12).forward([1, 2, 3])[2][:4]
    assert [v.data for v in logits] == pytest.approx([0.159, 0.011, -0.239, 0.428], abs=5e-4)


def test_the_engine_agrees_with_pytorch_autograd():
    """Random inputs through norm, linear, softmax and log: values and gradients to 1e-10."""
    torch = pytest.importorskip("torch")
    rng = random.Random(3)
    xs, W = (
        [rng.gauss(0, 1) for _ in range(6)],
        [[rng.gauss(0, 1) for _ in range(6)] for _ in range(4)],
    )
    vx, vW = [Value(x) for x in xs], [[Value(w) for w in row] for row in W]
    mine = softmax(linear(norm(vx), vW))[2].log()
    mine.backward()
    tx = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    tW = torch.tensor(W, dtype=torch.float64, requires_grad=True)
    h = (tx - tx.mean()) / torch.sqrt(tx.var(unbiased=False) + 1e-5)
    theirs = torch.log_softmax(tW @ h, dim=0)[2]
    theirs.backward()
    assert math.isclose(mine.data, theirs.item(), rel_tol=1e-12)
    assert all(math.isclose(v.grad, g, abs_tol=1e-10) for v, g in zip(vx, tx.grad.tolist()))
    flat = [v.grad for row in vW for v in row]
    assert all(math.isclose(a, b, abs_tol=1e-10) for a, b in zip(flat, tW.grad.flatten().tolist()))


def test_the_lessons_model_has_1248_parameters_in_nine_matrices():
    """Vocabulary 40, width 8, context 12."""
    m = GPT(40, 8, 12)
    assert len(m.weights) == 9 and len(m.parameters) == 1248
    assert {n: (len(w), len(w[0])) for n, w in m.weights.items()}["expand"] == (16, 8)


def test_adding_a_token_never_changes_earlier_positions():
    """Causal: forward(ids)[:n] equals forward(ids + more) for the first n positions."""
    m = GPT(10, 8, 12)
    short, longer = m.forward([1, 2]), m.forward([1, 2, 3, 4])
    assert [[v.data for v in r] for r in short] == [[v.data for v in r] for r in longer[:2]]


def torch_loss(torch, state, inputs, targets, width):
    """The same model written with PyTorch tensors (float64), for the gradient cross-check."""
    w = {n: torch.tensor(m, dtype=torch.float64, requires_grad=True) for n, m in state.items()}

    def norm_rows(x):
        return (x - x.mean(-1, keepdim=True)) / torch.sqrt(
            x.var(-1, unbiased=False, keepdim=True) + 1e-5
        )

    n = len(inputs)
    x = w["token"][inputs] + w["position"][:n]
    h = norm_rows(x)
    q, k, v = h @ w["query"].T, h @ w["key"].T, h @ w["value"].T
    scores = (q @ k.T) / math.sqrt(width)
    scores = scores.masked_fill(~torch.tril(torch.ones(n, n, dtype=torch.bool)), float("-inf"))
    x = x + (torch.softmax(scores, -1) @ v) @ w["project"].T
    x = x + torch.relu(norm_rows(x) @ w["expand"].T) @ w["contract"].T
    logits = norm_rows(x) @ w["head"].T
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(targets))
    loss.backward()
    return loss.item(), {name: t.grad.tolist() for name, t in w.items()}


@pytest.mark.torch
def test_the_models_loss_and_every_gradient_agree_with_pytorch():
    """The loss of one window and all 1,248 gradients, to 1e-10."""
    torch = pytest.importorskip("torch")
    m = GPT(40, 8, 12, seed=11)
    inputs, targets = [3, 17, 5, 9, 22, 1, 39, 8], [17, 5, 9, 22, 1, 39, 8, 2]
    loss = loss_of(m, inputs, targets)
    loss.backward()
    want, grads = torch_loss(torch, m.state(), inputs, targets, 8)
    assert math.isclose(loss.data, want, rel_tol=1e-12)
    for name, matrix in m.weights.items():
        for row, grow in zip(matrix, grads[name]):
            assert all(math.isclose(v.grad, g, abs_tol=1e-10) for v, g in zip(row, grow)), name


def test_training_lowers_the_loss():
    """Twenty steps on one window: the loss falls well below where it started (ln 40 ≈ 3.69)."""
    m = GPT(40, 8, 12, seed=1)
    ids = [5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7, 5]
    losses = [train_step(m, ids[:-1], ids[1:], rate=0.5) for _ in range(20)]
    assert losses[0] > 3.0 and losses[-1] < 0.5 * losses[0]


def test_state_round_trips_and_a_wrong_shape_is_refused(tmp_path):
    """load(state()) gives the same model; another model's state changes nothing and says why."""
    a, b = GPT(20, 8, 12, seed=1), GPT(20, 8, 12, seed=2)
    b.load(a.state())
    assert b.state() == a.state()
    other = GPT(30, 8, 12).state()
    with pytest.raises(ValueError, match="shapes"):
        b.load(other)
    assert b.state() == a.state()


@pytest.mark.parametrize("where", ["last row of the head", "a middle row of the tokens"])
def test_a_state_with_one_short_row_anywhere_is_refused_before_anything_changes(where):
    """Every row's length is checked, not the first row's only: a shorter row elsewhere would
    leave that row's last weights stale."""
    model, saved = GPT(20, 8, 12, seed=1), GPT(20, 8, 12, seed=2).state()
    name, row = ("head", -1) if where.startswith("last") else ("token", 7)
    saved[name][row] = saved[name][row][:-1]
    before = model.state()
    with pytest.raises(ValueError, match="shapes"):
        model.load(saved)
    assert model.state() == before


def test_generate_is_seeded_and_reads_only_the_last_context_tokens():
    """Same seed, same text; a prompt longer than the context still works."""
    m = GPT(20, 8, 4)
    first, again = (
        generate(m, [1, 2, 3, 4, 5, 6], 5, seed=3),
        generate(m, [1, 2, 3, 4, 5, 6], 5, seed=3),
    )
    assert first == again and len(first) == 11 and first[:6] == [1, 2, 3, 4, 5, 6]
