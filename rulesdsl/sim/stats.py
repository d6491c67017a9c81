"""Small statistics for simulation reports: Wilson intervals, Student's t tests and intervals, and an exact
paired test on win indicators (McNemar's), with no dependency beyond the standard library."""

from __future__ import annotations

import math

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (good for rates near 0 or 1 and small n)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_sd(values) -> tuple[float, float]:
    """The mean and the sample standard deviation (n - 1 in the denominator; 0 for fewer than two values)."""
    values = list(values)
    if not values:
        return (0.0, 0.0)
    m = sum(values) / len(values)
    if len(values) < 2:
        return (m, 0.0)
    return (m, math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1)))


def incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only below the mean: use the symmetry
        return 1.0 - incomplete_beta(1.0 - x, b, a)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * result


def t_p_value(t: float, df: float) -> float:
    """Two-sided p-value of Student's t statistic `t` with `df` degrees of freedom."""
    if math.isnan(t):
        return 1.0
    if math.isinf(t):
        return 0.0
    x, y = df / (df + t * t), t * t / (df + t * t)  # y = 1 - x, kept exact for a t near 0
    if x > (df / 2 + 1) / (df / 2 + 2.5):
        return 1.0 - incomplete_beta(y, 0.5, df / 2)
    return incomplete_beta(x, df / 2, 0.5)


def t_quantile(p: float, df: float) -> float:
    """The t value that a two-sided p-value of `p` corresponds to (0.05 gives the 95% interval's multiplier)."""
    low, high = 0.0, 1.0
    while t_p_value(high, df) > p:
        high *= 2
    for _ in range(100):  # bisection: t_p_value falls as t grows
        middle = (low + high) / 2
        low, high = (middle, high) if t_p_value(middle, df) > p else (low, middle)
    return (low + high) / 2


def mean_interval(values) -> tuple[float, float, float]:
    """(mean, low, high): the mean and its 95% t interval (infinite for fewer than two values)."""
    values = list(values)
    m, sd = mean_sd(values)
    if len(values) < 2:
        return (m, -math.inf, math.inf)
    half = t_quantile(0.05, len(values) - 1) * sd / math.sqrt(len(values))
    return (m, m - half, m + half)


def return_interval(low: float, high: float) -> str:
    """A 95% interval of mean returns as text, signed ('[-0.210, +0.830]'; unbounded for a single game)."""
    if math.isinf(low):
        return "[n too small]"
    return f"[{low:+.3f}, {high:+.3f}]"


def welch_p_value(a, b) -> float:
    """Two-sided p-value that two independent samples have the same mean (Welch's t test)."""
    (ma, sa), (mb, sb) = mean_sd(a), mean_sd(b)
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return 1.0
    va, vb = sa * sa / na, sb * sb / nb
    if va + vb == 0:
        return 1.0 if ma == mb else 0.0
    df = (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))  # Welch-Satterthwaite
    return t_p_value((ma - mb) / math.sqrt(va + vb), df)


def paired_p_value(a, b) -> float:
    """Two-sided p-value that paired samples (the same seeds) have the same mean (t test on the differences)."""
    diffs = [y - x for x, y in zip(a, b)]
    m, sd = mean_sd(diffs)
    if len(diffs) < 2:
        return 1.0
    if sd == 0:
        return 1.0 if m == 0 else 0.0
    return t_p_value(m / (sd / math.sqrt(len(diffs))), len(diffs) - 1)


def binomial_cdf_half(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return incomplete_beta(0.5, n - k, k + 1)


def mcnemar_p_value(a, b) -> float:
    """Two-sided exact McNemar p-value that paired yes/no outcomes (the same seeds) are as often yes in `a` as
    in `b`: of the pairs that differ, each is equally likely to favour either side (a binomial test)."""
    only_a = sum(bool(x) and not y for x, y in zip(a, b))
    only_b = sum(bool(y) and not x for x, y in zip(a, b))
    return min(1.0, 2 * binomial_cdf_half(min(only_a, only_b), only_a + only_b))


def shown_p(p: float) -> str:
    """A p-value as reports print it."""
    return "p < 0.0001" if p < 0.0001 else f"p = {p:.2g}" if p < 0.01 else f"p = {p:.3f}"
