"""Small statistics for simulation reports: Wilson intervals and a two-sample test on means."""

from __future__ import annotations

import math


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (good for rates near 0 or 1 and small n)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_sd(values) -> tuple[float, float]:
    values = list(values)
    if not values:
        return (0.0, 0.0)
    m = sum(values) / len(values)
    if len(values) < 2:
        return (m, 0.0)
    return (m, math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1)))


def welch_p_value(a, b) -> float:
    """Two-sided p-value that two samples have the same mean (Welch's t, normal approximation)."""
    ma, sa = mean_sd(a)
    mb, sb = mean_sd(b)
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return 1.0
    se = math.sqrt(sa * sa / na + sb * sb / nb)
    if se == 0:
        return 1.0 if ma == mb else 0.0
    t = abs(ma - mb) / se
    return math.erfc(t / math.sqrt(2))


def paired_p_value(a, b) -> float:
    """Two-sided p-value that paired samples (same seeds) have the same mean (t on the differences, normal approx.)."""
    diffs = [y - x for x, y in zip(a, b)]
    m, sd = mean_sd(diffs)
    if len(diffs) < 2:
        return 1.0
    if sd == 0:
        return 1.0 if m == 0 else 0.0
    return math.erfc(abs(m) / (sd / math.sqrt(len(diffs))) / math.sqrt(2))
