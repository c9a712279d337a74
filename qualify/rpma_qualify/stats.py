# SPDX-License-Identifier: BSD-3-Clause
"""The statistics of repeats and of many clients."""


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        raise ValueError("median of nothing")
    if n % 2:
        return v[n // 2]
    return (v[n // 2 - 1] + v[n // 2]) / 2


def summary(values):
    """Median, range and the range's width relative to the median (%) of
    the values of one metric over a point's repeats; None if there are
    none."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    med = median(v)
    lo, hi = min(v), max(v)
    spread = (hi - lo) / med * 100 if med else 0.0
    return {"median": med, "min": lo, "max": hi, "n": len(v),
            "spread_pct": spread}


def jain(values):
    """Jain's fairness index: (sum x)^2 / (n * sum x^2); 1 when every
    client gets the same, 1/n when one gets everything."""
    v = list(values)
    if not v:
        return None
    sq = sum(x * x for x in v)
    if sq == 0:
        return None
    return sum(v) ** 2 / (len(v) * sq)


def per_client(values):
    """The per-client view: each client's figure, min/median/max, Jain."""
    v = list(values)
    if not v:
        return None
    return {"values": v, "min": min(v), "median": median(v), "max": max(v),
            "jain": jain(v)}
