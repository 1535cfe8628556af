"""The numbers of classical test theory for one class: how hard each item was, how well it tells
stronger learners from weaker ones, and how the totals spread."""

import math
import statistics


def difficulty(scores, top):
    """p = mean score / maximum: the share of the item's points the class earned (1 is easy)."""
    return statistics.fmean(scores) / top if scores and top else None


def correlation(xs, ys):
    """Pearson's r of two lists of numbers; None when either does not vary."""
    if len(xs) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def discrimination(item, totals):
    """The corrected item-total correlation r(item, total − item): how well the item separates
    learners who do well on the rest from those who do not (above 0.3 is good; None: no spread)."""
    return correlation(item, [t - i for t, i in zip(totals, item)])


def histogram(totals, top, bins=10):
    """[(low, high, count)]: the totals in `bins` equal ranges of 0 … top (top in the last)."""
    width = top / bins if top else 1.0
    counts = [0] * bins
    for total in totals:
        counts[min(int(total / width), bins - 1) if width else 0] += 1
    return [(k * width, (k + 1) * width, counts[k]) for k in range(bins)]
