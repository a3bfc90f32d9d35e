#!/usr/bin/env python3
"""Regenerates the rater-quality reference fixture with scikit-learn, numpy and krippendorff.

Writes annotations/tests/fixtures/agreement/quality_reference.json: seeded random panels (an
ordinal 0-3 scale like SWE-bench's 1.1 and 2.1, a nominal one, a four-bucket difficulty scale
whose categories carry no numbers), each with a reference label per unit, and per rater:
  - against the reference, in the rater's answering order: accuracy (sklearn accuracy_score),
    Cohen's kappa linearly weighted on ordered scales (sklearn cohen_kappa_score), the
    confusion matrix (sklearn confusion_matrix, rater rows, reference columns), the mean of
    (rater - reference) in the scale's numbers (numpy), a numpy percentile bootstrap 95%
    interval of that mean (20,000 resamples; the Rust test allows Monte Carlo error), and the
    same accuracy, kappa and mean per block of 20 answers;
  - against the rest of the panel: Krippendorff's alpha without the rater (krippendorff), and
    the weighted kappa against the others' consensus on shared units (their lower median on
    ordered scales, their most frequent category, lower on ties, on a nominal one).
The Rust test (annotations/tests/agreement.rs) checks every value to 1e-9, the interval to
Monte Carlo tolerance.

Usage: pip install -r scripts/reference/requirements.txt
       python3 scripts/reference/quality_reference.py
"""

import json
import math
import warnings
from importlib.metadata import version
from pathlib import Path

import krippendorff
import numpy as np
from sklearn.metrics import accuracy_score, cohen_kappa_score, confusion_matrix

OUT = Path(__file__).resolve().parents[2] / "annotations" / "tests" / "fixtures" / "agreement"
SEED = 20261123
BLOCK = 20
RESAMPLES = 20000


def clean(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def kappa(a, b, labels, weights):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return clean(cohen_kappa_score(a, b, labels=labels, weights=weights))
        except (ValueError, ZeroDivisionError):
            return None


def figures(pairs, labels, numbers, weights, rng):
    if not pairs:
        return {"units": 0, "accuracy": None, "weighted_kappa": None, "bias_mean": None, "bias_ci95": None}
    r = [p[0] for p in pairs]
    x = [p[1] for p in pairs]
    out = {
        "units": len(pairs),
        "accuracy": float(accuracy_score(x, r)),
        "weighted_kappa": kappa(r, x, labels, weights),
    }
    if numbers is None:
        out["bias_mean"] = None
        out["bias_ci95"] = None
        return out
    diffs = np.array([numbers[a] - numbers[b] for a, b in pairs], dtype=float)
    out["bias_mean"] = float(diffs.mean())
    idx = rng.integers(0, len(diffs), size=(RESAMPLES, len(diffs)))
    means = diffs[idx].mean(axis=1)
    out["bias_ci95"] = [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]
    return out


def consensus(values, nominal, q):
    if nominal:
        counts = [values.count(c) for c in range(q)]
        return counts.index(max(counts))
    values = sorted(values)
    return values[(len(values) - 1) // 2]


def panel(rng, name, level, labels, values, n_units, n_raters, per_unit, skill):
    q = len(labels)
    nominal = level == "nominal"
    weights = None if nominal else "linear"
    truth = rng.integers(0, q, size=n_units)
    reference = [int(t) for t in truth]
    matrix = [[None] * n_raters for _ in range(n_units)]
    order = {r: [] for r in range(n_raters)}
    for u in range(n_units):
        for r in rng.choice(n_raters, size=per_unit, replace=False):
            r = int(r)
            if rng.random() < skill[r]:
                c = int(truth[u])
            else:
                shift = int(rng.choice([-1, 1, 1])) if not nominal else int(rng.integers(1, q))
                c = (int(truth[u]) + shift) % q if nominal else min(max(int(truth[u]) + shift, 0), q - 1)
            matrix[u][r] = c
            order[r].append(u)
    # Each rater answered their units in a shuffled order; the drift blocks follow it.
    for r in order:
        rng.shuffle(order[r])
    numbers = None if level == "nominal" else (values if values is not None else list(range(q)))
    boot = np.random.default_rng(SEED + 1)
    raters = []
    data = np.array([[np.nan if c is None else c for c in row] for row in matrix], dtype=float).T
    for r in range(n_raters):
        pairs = [(matrix[u][r], reference[u]) for u in order[r]]
        overall = figures(pairs, list(range(q)), numbers, weights, boot)
        conf = confusion_matrix([p[0] for p in pairs], [p[1] for p in pairs], labels=list(range(q)))
        drift = [figures(pairs[i:i + BLOCK], list(range(q)), numbers, weights, boot) for i in range(0, len(pairs), BLOCK)]
        without = np.delete(data, r, axis=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                alpha_without = clean(krippendorff.alpha(reliability_data=without, level_of_measurement=level, value_domain=list(range(q))))
            except (ValueError, ZeroDivisionError):
                alpha_without = None
        own, cons = [], []
        for u in range(n_units):
            if matrix[u][r] is None:
                continue
            rest = [matrix[u][o] for o in range(n_raters) if o != r and matrix[u][o] is not None]
            if not rest:
                continue
            own.append(matrix[u][r])
            cons.append(consensus(rest, nominal, q))
        raters.append({
            "order": order[r],
            "overall": overall,
            "confusion": conf.tolist(),
            "drift": drift,
            "alpha_without": alpha_without,
            "shared_units": len(own),
            "kappa_vs_consensus": kappa(own, cons, list(range(q)), weights) if own else None,
        })
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alpha = clean(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=list(range(q))))
    return {
        "name": name,
        "level": level,
        "categories": labels,
        "values": values,
        "raters": [f"rater {r + 1}" for r in range(n_raters)],
        "matrix": matrix,
        "reference": reference,
        "alpha": alpha,
        "per_rater": raters,
    }


def main():
    rng = np.random.default_rng(SEED)
    panels = [
        panel(rng, "ordinal 0-3, 12 raters, 3 per unit", "ordinal", ["0", "1", "2", "3"], [0, 1, 2, 3], 120, 12, 3,
              [0.9, 0.8, 0.7, 0.6, 0.5, 0.9, 0.85, 0.75, 0.4, 0.95, 0.65, 0.7]),
        panel(rng, "nominal, 5 raters, 2 per unit", "nominal", ["a", "b", "c"], None, 80, 5, 2, [0.9, 0.6, 0.7, 0.5, 0.8]),
        panel(rng, "difficulty buckets, 6 raters, 3 per unit", "ordinal",
              ["<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours"], None, 90, 6, 3, [0.7, 0.6, 0.8, 0.5, 0.9, 0.55]),
    ]
    out = {
        "generated_by": "scripts/reference/quality_reference.py",
        "libraries": {lib: version(lib) for lib in ["numpy", "scikit-learn", "krippendorff"]},
        "block": BLOCK,
        "panels": panels,
    }
    (OUT / "quality_reference.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
