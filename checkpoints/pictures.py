"""Pictures of the course's numbers as SVG, standard library only (so they work in any Python).

    show_attention(weights)            a heatmap: one row per query, one column per key
    show_heads([w0, w1, ...])          one heatmap per head, side by side
    show_encoding(pos_encoding(50, 16))  the positional-encoding pattern, -1 blue to +1 red
    show_bars({"before": row, "after": layer_norm(row)})   vectors as bars, each on its own scale
    show_growth([8, 16, 32, 64])       how the score matrix grows with the sequence length
    show_curve(losses)                 a loss curve, raw and smoothed (part two)

Each returns a Picture: Jupyter shows it (image/svg+xml), a terminal shows a one-line summary,
and `.svg` is the SVG text (for nbconvert, the feedback HTML, or a file).

The words (default titles, captions) are in locales/<edition>.json, "pictures".
"""

import html
from dataclasses import dataclass

from . import i18n

CELL = 22  # pixels per matrix cell
MAX_CELLS = 64  # larger matrices are drawn with smaller cells

say = i18n.speaker("pictures")  # locales/<edition>.json, section "pictures"


@dataclass(frozen=True)
class Picture:
    """An SVG image with a caption."""

    svg: str
    caption: str

    def _repr_svg_(self):
        return self.svg

    def _repr_html_(self):
        caption = f"<figcaption>{html.escape(self.caption)}</figcaption>"
        return f"<figure style='margin:0.4em 0'>{self.svg}{caption}</figure>"

    def __repr__(self):
        return f"<{say('picture', caption=self.caption)}>"


def _mix(a, b, t):
    """The colour t of the way from a to b (t in [0, 1]), as #rrggbb."""
    t = min(1.0, max(0.0, t))
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


WHITE, BLUE, RED = (255, 255, 255), (33, 102, 172), (178, 24, 43)


def weight_colour(w):
    """0 white to 1 dark blue: an attention weight."""
    return _mix(WHITE, BLUE, w)


def signed_colour(v):
    """-1 blue, 0 white, +1 red: a value in [-1, 1]."""
    return _mix(WHITE, RED, v) if v >= 0 else _mix(WHITE, BLUE, -v)


def _grid(matrix, colour, x0, y0, size, numbers, cell_width=None):
    """SVG rectangles (and values, when there is room) for one matrix; cells size × size, or
    cell_width × size."""
    parts, wide = [], cell_width or size
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            x, y = x0 + j * wide, y0 + i * size
            parts.append(
                f"<rect x='{x:g}' y='{y}' width='{wide:g}' height='{size}' fill='{colour(v)}' "
                f"stroke='#ddd' stroke-width='0.5'><title>[{i}][{j}] = {v:.4g}</title></rect>"
            )
            if numbers:
                ink = "#fff" if abs(v) > 0.6 else "#333"
                parts.append(
                    f"<text x='{x + wide / 2:g}' y='{y + size / 2 + 3}' font-size='8' "
                    f"text-anchor='middle' fill='{ink}'>{v:.2f}</text>"
                )
    return parts


def text_width(text, font_size):
    """A generous estimate of a label's width in pixels (sans-serif digits are about 0.6 em)."""
    return 0.62 * font_size * len(text)


def _cell_size(matrix):
    """Pixels per cell: smaller for larger matrices, so a picture stays a readable size."""
    longest = max(len(matrix), max((len(r) for r in matrix), default=0))
    return CELL if longest <= 16 else max(3, CELL * 16 // min(longest, MAX_CELLS * 4))


def heatmaps(matrices, titles, colour, caption, numbers=None, width=None):
    """Matrices side by side as one SVG, each with its title above; with `width`, each matrix's
    cells are widened (never narrowed) so that it is about that wide."""
    size = min(_cell_size(m) for m in matrices)
    numbers = size >= CELL if numbers is None else numbers
    parts, x, height = [], 10, 0
    for matrix, title in zip(matrices, titles):
        columns = max((len(r) for r in matrix), default=0)
        cell_width = max(size, (width or 0) / max(1, columns))  # an empty block: no cells
        room = max(columns * cell_width, text_width(title, 12))  # room for the title
        parts.append(f"<text x='{x}' y='14' font-size='12'>{html.escape(title)}</text>")
        parts += _grid(matrix, colour, x, 22, size, numbers, cell_width)
        x += room + 24
        height = max(height, len(matrix) * size)
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{x}' height='{height + 30}' "
        f"font-family='sans-serif'>{''.join(parts)}</svg>"
    )
    return Picture(svg, caption)


def show_attention(weights, title=None):
    """A heatmap of one weight matrix: white is 0, dark blue is 1."""
    return heatmaps(
        [weights],
        [say("attention_title") if title is None else title],
        weight_colour,
        say("attention_caption", queries=len(weights), keys=len(weights[0])),
    )


def show_heads(per_head, title=None):
    """One heatmap per head, side by side ("head 0", "head 1", … or "<title> 0", …)."""
    return heatmaps(
        per_head,
        [say("head", index=k) if title is None else f"{title} {k}" for k in range(len(per_head))],
        weight_colour,
        say("heads_caption", count=len(per_head)),
    )


def show_head_outputs(out, h):
    """A multi-head output cut into its h blocks of columns, one heatmap per head (signed colours,
    scaled by the largest magnitude), so each head's share of the concatenation shows."""
    width = max(1, len(out[0]) // h)
    top = max((abs(v) for row in out for v in row), default=1.0) or 1.0
    blocks = [[row[k * width : (k + 1) * width] for row in out] for k in range(h)]
    titles = [say("head_columns", index=k, start=k * width, stop=(k + 1) * width - 1)
              for k in range(h)]  # fmt: skip
    return heatmaps(
        blocks,
        titles,
        lambda v: signed_colour(v / top),
        say("head_outputs_caption", count=h),
        numbers=False,
    )


def show_encoding(rows, title=None, width=360):
    """The encoding pattern: -1 blue, 0 white, +1 red; its columns widened to fill `width`, or
    its title's width when that is longer, so no empty band is left beside the pattern."""
    title = say("encoding_title") if title is None else title
    return heatmaps(
        [rows],
        [title],
        signed_colour,
        say("encoding_caption", positions=len(rows), features=len(rows[0])),
        numbers=False,
        width=max(width, text_width(title, 12)),
    )


def show_bars(vectors, height=120):
    """Named vectors as bar charts, each on its own scale (its largest magnitude in its label)."""
    parts, x = [], 10
    for name, vec in vectors.items():
        top = max((abs(v) for v in vec), default=1.0) or 1.0
        label = f"{name} (max |v| = {top:.3g})"
        parts.append(f"<text x='{x}' y='14' font-size='12'>{html.escape(label)}</text>")
        mid = 22 + height / 2
        parts.append(
            f"<line x1='{x}' y1='{mid}' x2='{x + 18 * len(vec)}' y2='{mid}' stroke='#999'/>"
        )
        for k, v in enumerate(vec):
            h = abs(v) / top * (height / 2)
            y = mid - h if v >= 0 else mid
            parts.append(
                f"<rect x='{x + 18 * k + 2}' y='{y}' width='14' height='{h}' "
                f"fill='{signed_colour(v / top)}'><title>{name}[{k}] = {v:.4g}</title></rect>"
            )
        x += max(18 * len(vec), 6.5 * len(label)) + 30
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{x}' height='{height + 30}' "
        f"font-family='sans-serif'>{''.join(parts)}</svg>"
    )
    return Picture(svg, " | ".join(vectors))


def show_growth(lengths):
    """Squares whose areas are n² for each sequence length n: the score matrix's size."""
    biggest = max(lengths)
    scale = 160 / biggest
    parts, x = [], 10
    for n in lengths:
        side, label = max(2.0, n * scale), f"n={n}: {n * n}"
        parts.append(
            f"<rect x='{x}' y='{190 - side}' width='{side}' height='{side}' fill='#c6dbef' "
            f"stroke='#2166ac'/><text x='{x}' y='208' font-size='11'>{label}</text>"
        )
        x += max(side, text_width(label, 11)) + 20  # a small square's label needs more room
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{x}' height='216'"
        " font-family='sans-serif'>"
        f"{''.join(parts)}</svg>"
    )
    return Picture(svg, say("growth_caption"))


def show_points(points, x_label, y_label, size=260):
    """Named points with both coordinates in [0, 1] on a square map, each dot labelled."""
    pad, parts = 34, []
    for name, (x, y) in points.items():
        cx, cy = pad + x * size, 10 + (1 - y) * size  # y grows upwards, as on paper
        parts.append(
            f"<circle cx='{cx:.1f}' cy='{cy:.1f}' r='4' fill='{weight_colour(1.0)}'/>"
            f"<text x='{cx + 6:.1f}' y='{cy - 4:.1f}' font-size='11'>{html.escape(name)}</text>"
        )
    axes = (
        f"<rect x='{pad}' y='10' width='{size}' height='{size}' fill='none' stroke='#999'/>"
        f"<text x='{pad + size / 2}' y='{size + 34}' font-size='12' text-anchor='middle'>"
        f"{html.escape(x_label)} →</text>"
        f"<text x='12' y='{10 + size / 2}' font-size='12' text-anchor='middle' "
        f"transform='rotate(-90 12 {10 + size / 2})'>{html.escape(y_label)} →</text>"
    )
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{pad + size + 90}' height='{size + 44}' "
        f"font-family='sans-serif'>{axes}{''.join(parts)}</svg>"
    )
    return Picture(svg, say("points_caption", count=len(points), x=x_label, y=y_label))


def show_curve(values, width=480, height=200, smooth=20):
    """A loss curve: every step in light grey, the mean of each `smooth` steps in dark blue."""
    if not values:
        return Picture("<svg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/>",
                       say("curve_empty"))  # fmt: skip
    top, bottom = max(values), min(min(values), 0.0)
    span = (top - bottom) or 1.0

    def point(k, v):
        x = 40 + k * (width - 50) / max(1, len(values) - 1)
        return f"{x:.1f},{10 + (top - v) / span * (height - 30):.1f}"

    means = [
        (
            k,
            sum(values[max(0, k - smooth + 1) : k + 1])
            / len(values[max(0, k - smooth + 1) : k + 1]),
        )
        for k in range(len(values))
    ]
    raw = " ".join(point(k, v) for k, v in enumerate(values))
    mean = " ".join(point(k, v) for k, v in means)
    axis = height - 20
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height + 10}' "
        "font-family='sans-serif' font-size='11'>"
        f"<line x1='40' y1='{axis}' x2='{width - 10}' y2='{axis}' stroke='#999'/>"
        f"<line x1='40' y1='10' x2='40' y2='{axis}' stroke='#999'/>"
        f"<text x='2' y='16'>{top:.2f}</text><text x='2' y='{axis}'>{bottom:.2f}</text>"
        f"<text x='40' y='{height + 6}'>0</text>"
        f"<text x='{width - 40}' y='{height + 6}'>{len(values) - 1}</text>"
        f"<polyline points='{raw}' fill='none' stroke='#bbb'/>"
        f"<polyline points='{mean}' fill='none' stroke='{weight_colour(1.0)}' stroke-width='2'/>"
        "</svg>"
    )
    first = means[min(smooth, len(values)) - 1][1]
    caption = say("curve_caption", steps=len(values), first=f"{first:.2f}",
                  last=f"{means[-1][1]:.2f}", smooth=smooth)  # fmt: skip
    return Picture(svg, caption)
