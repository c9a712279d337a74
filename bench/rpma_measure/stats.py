# SPDX-License-Identifier: BSD-3-Clause
"""The statistics of repeats and of many clients: the one median of the
tree, the summary of repeats (median, range, spread), the comparison
rules (of two runs, and of a run against several base runs), fairness
and steady state."""

import math

_NOTHING = object()


def median(values, default=_NOTHING):
    """The median of VALUES, None among them left out; DEFAULT when none
    is left (ValueError without a DEFAULT)."""
    v = sorted(x for x in values if x is not None)
    n = len(v)
    if n == 0:
        if default is _NOTHING:
            raise ValueError("median of nothing")
        return default
    if n % 2:
        return v[n // 2]
    return (v[n // 2 - 1] + v[n // 2]) / 2


def median_or_none(values):
    """The median of VALUES, None among them left out; None when none is
    left (a table's empty cell)"""
    return median(values, None)


def summary(values):
    """Median, range and the range's width relative to the median (%) of
    the values of one metric over a point's repeats, and the values in
    the repeats' order; None if there are none."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    med = median(v)
    lo, hi = min(v), max(v)
    spread = (hi - lo) / med * 100 if med else 0.0
    return {"median": med, "min": lo, "max": hi, "n": len(v),
            "spread_pct": spread, "values": v}


def smallest_p(m, n):
    """The smallest two-sided p-value a Mann-Whitney U test of m and n
    values can give (the two complete separations; ties make it larger)."""
    return min(1.0, 2 / math.comb(m + n, m))


def mann_whitney(a, b):
    """The exact two-sided p-value of the Mann-Whitney U test of samples a
    and b (ties by midranks): the share of the C(m+n, m) ways to split the
    pooled values into m and n whose U is as far from m*n/2 as a's.

    Counted, not approximated: the pooled values are taken group by group
    of equal values, keeping for each number of a-values placed so far the
    number of splits that reach each 2U (U counts the pairs a > b, and half
    the ties)."""
    m, n = len(a), len(b)
    if not m or not n:
        raise ValueError("a Mann-Whitney test of an empty sample")
    groups = {}
    for x in a:
        groups.setdefault(x, [0, 0])[0] += 1
    for x in b:
        groups.setdefault(x, [0, 0])[1] += 1
    # U of a, doubled to stay whole, and the null distribution of it
    u2 = 0
    below_b = 0
    dist = {(0, 0): 1}
    placed = 0
    for x in sorted(groups):
        ka, kb = groups[x]
        u2 += 2 * ka * below_b + ka * kb
        below_b += kb
        t = ka + kb
        nxt = {}
        for (used, w), count in dist.items():
            bs = placed - used
            for k in range(min(t, m - used) + 1):
                if t - k > n - bs:
                    continue
                key = (used + k, w + 2 * k * bs + k * (t - k))
                nxt[key] = nxt.get(key, 0) + count * math.comb(t, k)
        dist = nxt
        placed += t
    far = abs(u2 - m * n)
    total = extreme = 0
    for (used, w), count in dist.items():
        if used == m:
            total += count
            if abs(w - m * n) >= far:
                extreme += count
    return extreme / total


DEFAULT_ALPHA = 0.05


def compare(a, b, better, cfg):
    """The comparison rule (rpma-qualify(1), COMPARISON RULE): a, b: the
    summary() of one metric in runs A and B; better: "higher" or "lower";
    cfg: {floor_pct, spread_factor, alpha}. A Mann-Whitney U test of the
    repeats where their numbers let it reach alpha at all, else the range
    rule. Returns {verdict, change_pct, allowance_pct, test, p}."""
    out = {"verdict": "missing", "change_pct": None, "allowance_pct": None,
           "test": None, "p": None}
    if not a or not b or not a["median"]:
        return out
    change = (b["median"] - a["median"]) / a["median"] * 100
    floor = cfg["floor_pct"]
    alpha = cfg.get("alpha", DEFAULT_ALPHA)
    if smallest_p(a["n"], b["n"]) < alpha:
        p = mann_whitney(a["values"], b["values"])
        same = p >= alpha or abs(change) <= floor
        out.update(test="mann-whitney", p=p, allowance_pct=floor)
    else:
        allow = max(floor, cfg["spread_factor"] * max(a["spread_pct"],
                                                      b["spread_pct"]))
        overlap = a["min"] <= b["max"] and b["min"] <= a["max"]
        same = overlap or abs(change) <= allow
        out.update(test="range", allowance_pct=allow)
    out["change_pct"] = change
    if same:
        out["verdict"] = "same"
    else:
        good = change > 0 if better == "higher" else change < 0
        out["verdict"] = "improvement" if good else "regression"
    return out


def t_tail(t, df):
    """P(|T| >= t) of Student's t with df (a whole number, 1 or more)
    degrees of freedom: the closed forms for whole df (Abramowitz and
    Stegun, Handbook of Mathematical Functions, 26.7.3 and 26.7.4), sums
    of powers of cos(theta), theta = atan(t / sqrt(df)); no library
    beyond math."""
    if df < 1 or df != int(df):
        raise ValueError("t with %r degrees of freedom" % (df,))
    th = math.atan(abs(t) / math.sqrt(df))
    c2 = math.cos(th) ** 2
    term = total = 1.0
    if df % 2:
        for j in range(1, (df - 1) // 2):
            term *= 2 * j / (2 * j + 1) * c2
            total += term
        inside = 2 / math.pi * (th + (math.sin(th) * math.cos(th) * total
                                      if df > 1 else 0))
    else:
        for j in range(1, df // 2):
            term *= (2 * j - 1) / (2 * j) * c2
            total += term
        inside = math.sin(th) * total
    return max(0.0, 1 - inside)


def t_critical(p, df):
    """The t of df degrees of freedom with P(|T| >= t) = p (0 < p < 1):
    the two-sided critical value, by bisection of t_tail (its error far
    below any figure's)."""
    if not 0 < p < 1:
        raise ValueError("a two-sided level of %r" % (p,))
    lo, hi = 0.0, 1.0
    while t_tail(hi, df) > p:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_tail(mid, df) > p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# a prediction interval needs two base runs for a spread at all
MIN_BASES = 2


def _log_spread(medians):
    """(k, mean, standard deviation) of the logarithms of the base runs'
    medians; None when fewer than MIN_BASES or one is not positive."""
    logs = [math.log(m) for m in medians if m is not None and m > 0]
    if len(logs) < MIN_BASES or len(logs) < len([m for m in medians
                                                 if m is not None]):
        return None
    k = len(logs)
    mean = sum(logs) / k
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (k - 1))
    return k, mean, sd


def _half_width(k, sd, alpha):
    """The prediction interval's half width, in log units, for one new
    run's median from k base runs' (rpma-qualify(1), SEVERAL BASE RUNS)."""
    return t_critical(alpha, k - 1) * sd * math.sqrt(1 + 1 / k)


def detectable(medians, better, cfg):
    """The smallest change of a metric, in % of the base runs' centre and
    in its worse direction (positive for a latency, negative for IOPS),
    that the several-base-runs rule calls a regression, from the base
    runs' medians alone: the prediction bound or floor_pct, whichever is
    further. None below MIN_BASES runs."""
    ls = _log_spread(medians)
    if ls is None:
        return None
    k, _, sd = ls
    h = _half_width(k, sd, cfg.get("alpha", DEFAULT_ALPHA))
    floor = cfg["floor_pct"] / 100
    if better == "higher":
        return -max(1 - math.exp(-h), floor) * 100
    return max(math.exp(h) - 1, floor) * 100


def compare_bases(medians, new, better, cfg):
    """The several-base-runs rule (rpma-qualify(1), SEVERAL BASE RUNS):
    medians: one metric's median in each of k base runs of one build;
    new: its median in the run compared. The run is the unit: on the
    logarithms of the medians, new is different when it lies outside the
    two-sided prediction interval of level 1 - alpha for one more run,
    mean +- t(alpha, k - 1) * sd * sqrt(1 + 1/k) (p: the share of
    Student's t beyond new's place, two-sided), and it differs from the
    centre (the medians' geometric mean) by more than floor_pct.
    Returns {verdict, change_pct, allowance_pct, test, p, k, centre,
    detectable_pct}; "missing" below MIN_BASES base medians or without
    new."""
    out = {"verdict": "missing", "change_pct": None, "allowance_pct": None,
           "test": "prediction", "p": None, "k": None, "centre": None,
           "detectable_pct": detectable(medians, better, cfg)}
    ls = _log_spread(medians)
    if ls is None or new is None or new <= 0:
        return out
    k, mean, sd = ls
    alpha = cfg.get("alpha", DEFAULT_ALPHA)
    y = math.log(new)
    scale = sd * math.sqrt(1 + 1 / k)
    if scale > 0:
        p = t_tail((y - mean) / scale, k - 1)
    else:
        # base runs all alike: any other value lies outside
        p = 1.0 if y == mean else 0.0
    change = (math.exp(y - mean) - 1) * 100
    out.update(change_pct=change, p=p, k=k, centre=math.exp(mean),
               allowance_pct=abs(out["detectable_pct"]))
    if p >= alpha or abs(change) <= cfg["floor_pct"]:
        out["verdict"] = "same"
    else:
        good = change > 0 if better == "higher" else change < 0
        out["verdict"] = "improvement" if good else "regression"
    return out


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


# SNIA's Performance Test Specification: a measurement window of 5
# rounds is steady when the figure's range over it is within 20 % of its
# mean, and the least-squares line through the rounds moves less than
# 10 % of the mean from the first round to the last
STEADY_ROUNDS = 5
STEADY_RANGE_PCT = 20.0
STEADY_SLOPE_PCT = 10.0


def steady(series):
    """SNIA's judgement of a per-interval series (fio's steady-state
    window, one value a second) taken as 5 rounds of equal length, each
    the mean of its intervals: {rounds, mean, range_pct, slope_pct,
    steady}. ValueError when the series is not 5 rounds."""
    k = STEADY_ROUNDS
    if not series or len(series) % k:
        raise ValueError("a window of %d values is not %d rounds"
                         % (len(series), k))
    step = len(series) // k
    rounds = [sum(series[i * step:(i + 1) * step]) / step for i in range(k)]
    mean = sum(rounds) / k
    if mean <= 0:
        return {"rounds": rounds, "mean": mean, "range_pct": None,
                "slope_pct": None, "steady": False}
    xm = (k - 1) / 2
    slope = (sum((x - xm) * (y - mean) for x, y in enumerate(rounds))
             / sum((x - xm) ** 2 for x in range(k)))
    range_pct = (max(rounds) - min(rounds)) / mean * 100
    slope_pct = abs(slope) * (k - 1) / mean * 100
    return {"rounds": rounds, "mean": mean, "range_pct": range_pct,
            "slope_pct": slope_pct,
            "steady": (range_pct <= STEADY_RANGE_PCT
                       and slope_pct <= STEADY_SLOPE_PCT)}
