#!/usr/bin/env python3
"""The alternative annotator test in Python, the reference `annotations::agreement::alt_test` is
checked against, and the panels it is checked on.

The test follows the algorithm Calderon, Reichart and Dror publish with "The Alternative
Annotator Test for LLM-as-a-Judge" (ACL 2025): keep the instances the model labelled that have
at least two human labels; test each human with at least 30 of them; on each of that human's
instances, score the model's label and the human's against the remaining humans' labels
(accuracy, or negative RMSE on ordered scales), the model winning when its score is at least the
human's and the human when theirs is at least the model's; a one-sided one-sample t-test of the
differences of those indicators (human minus model) against epsilon, alternative "less" (scipy);
Benjamini-Yekutieli at q = 0.05 across the tested humans; the winning rate is the share of
tested humans whose null is rejected, passed at 0.5 or more. The step-up procedure is written
out as the paper states it and cross-checked against statsmodels' `multipletests(method=
"fdr_by")` on every panel whose p-values are all defined. Where the authors' code would divide by
zero (no human tested) the panel is refused instead.

Usage:
  alt_test_reference.py panels OUT.json [COUNT SEED]
      generates COUNT seeded panels (nominal and ordinal questions, numbered and unnumbered
      scales, 1 to 6 humans, missing labels, models from a copy of the consensus to noise,
      panels too small for the test) and writes them with the expected results.
"""
import json
import math
import sys
from importlib.metadata import version

import numpy as np
from scipy.stats import ttest_1samp
from statsmodels.stats.multitest import multipletests

MIN_HUMANS_PER_INSTANCE = 2
MIN_INSTANCES_PER_HUMAN = 30
Q_FDR = 0.05


def accuracy(pred, others):
    return float(np.mean([pred == o for o in others]))


def neg_rmse(pred, others):
    return -float(np.sqrt(np.mean([(pred - o) ** 2 for o in others])))


def by_rejections(p_values, q):
    """Indices rejected by the Benjamini-Yekutieli step-up procedure (NaN is never rejected)."""
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    order = np.argsort(p)  # NaN sorts last
    harmonic = np.sum(1.0 / np.arange(1, m + 1))
    thresholds = (np.arange(1, m + 1) / m) * (q / harmonic)
    last = -1
    for k in range(m):
        if p[order[k]] <= thresholds[k]:
            last = k
    rejected = set(int(i) for i in order[: last + 1])
    if m and not np.isnan(p).any():
        reject, _, _, _ = multipletests(p, alpha=q, method="fdr_by")
        assert rejected == set(int(i) for i in np.flatnonzero(reject)), (p, rejected, reject)
    return rejected


def alt_test(model, humans, scoring, epsilon):
    """model: {instance: label}; humans: {human: {instance: label}} (insertion-ordered)."""
    score = accuracy if scoring == "accuracy" else neg_rmse
    raters_of = {}
    for h, labels in humans.items():
        for i in labels:
            raters_of.setdefault(i, []).append(h)
    kept = {i for i, hs in raters_of.items() if len(hs) >= MIN_HUMANS_PER_INSTANCE and i in model}
    per_human, p_values, tested = [], [], []
    for h, labels in humans.items():
        instances = [i for i in labels if i in kept]
        entry = {"rater": h, "tasks": len(instances), "tested": False}
        per_human.append(entry)
        if len(instances) < MIN_INSTANCES_PER_HUMAN:
            continue
        model_ind, human_ind = [], []
        for i in instances:
            others = [humans[o][i] for o in raters_of[i] if o != h]
            s_model = score(model[i], others)
            s_human = score(labels[i], others)
            model_ind.append(1 if s_model >= s_human else 0)
            human_ind.append(1 if s_human >= s_model else 0)
        diffs = [a - b for a, b in zip(human_ind, model_ind)]
        with np.errstate(all="ignore"):
            p = float(ttest_1samp(diffs, epsilon, alternative="less").pvalue)
        entry.update(
            tested=True,
            model_wins=float(np.mean(model_ind)),
            human_wins=float(np.mean(human_ind)),
            p_value=None if math.isnan(p) else p,
            rejected=False,
        )
        p_values.append(p)
        tested.append(entry)
    if not tested:
        return {"n_cases": len(kept), "humans": per_human, "verdict": None}
    rejected = by_rejections(p_values, Q_FDR)
    for k in rejected:
        tested[k]["rejected"] = True
    winning_rate = len(rejected) / len(tested)
    return {
        "n_cases": len(kept),
        "humans": per_human,
        "verdict": {
            "humans_tested": len(tested),
            "humans_won": len(rejected),
            "winning_rate": winning_rate,
            "passed": winning_rate >= 0.5,
            "advantage_probability": float(np.mean([e["model_wins"] for e in tested])),
        },
    }


SCALES = [
    ("nominal", ["yes", "no"], None),
    ("nominal", ["bug", "feature", "docs", "test"], None),
    ("ordinal", ["0", "1", "2", "3"], [0, 1, 2, 3]),
    ("ordinal", ["1", "2", "3", "4", "5"], [1, 2, 3, 4, 5]),
    ("ordinal", ["0", "0.5", "1.5", "3"], [0, 0.5, 1.5, 3]),
    ("ordinal", ["<15 min", "15 min-1 h", "1-4 h", ">4 h"], None),
]


def make_panel(rng, index):
    level, categories, values = SCALES[index % len(SCALES)]
    q = len(categories)
    kind = rng.integers(12)
    if kind == 0:  # too few tasks for anyone
        units, n_humans = int(rng.integers(5, 40)), int(rng.integers(2, 5))
    elif kind == 1:  # a single human
        units, n_humans = int(rng.integers(30, 80)), 1
    else:
        units, n_humans = int(rng.integers(40, 200)), int(rng.integers(2, 7))
    truth = rng.integers(q, size=units)
    # kind 2: humans who never err, so every task may be a tie (a zero-variance t-test)
    reliability = np.ones(n_humans) if kind == 2 else rng.uniform(0.4, 0.95, size=n_humans)
    coverage = rng.uniform(0.45, 1.0, size=n_humans)
    matrix = []
    for u in range(units):
        row = []
        for h in range(n_humans):
            if rng.random() > coverage[h]:
                row.append(None)
            elif rng.random() < reliability[h]:
                row.append(int(truth[u]))
            elif level == "ordinal":
                row.append(int(np.clip(truth[u] + rng.choice([-1, 1]), 0, q - 1)))
            else:
                row.append(int(rng.integers(q)))
        matrix.append(row)
    model_quality = "consensus" if kind == 2 else rng.choice(["consensus", "good", "fair", "noise"])
    accuracy_of = {"consensus": 1.0, "good": 0.85, "fair": 0.6, "noise": 0.0}[model_quality]
    model = []
    for u in range(units):
        if rng.random() < 0.05:
            model.append(None)
        elif rng.random() < accuracy_of:
            model.append(int(truth[u]))
        else:
            model.append(int(rng.integers(q)))
    epsilon = float(rng.choice([0.0, 0.1, 0.15, 0.2, 0.3]))
    humans_names = [f"h{h + 1}" for h in range(n_humans)]
    numbers = values if values is not None else list(range(q))
    humans = {}
    for h, name in enumerate(humans_names):
        humans[name] = {}
        for u in range(units):
            c = matrix[u][h]
            if c is not None:
                humans[name][u] = categories[c] if level == "nominal" else numbers[c]
    model_labels = {
        u: (categories[c] if level == "nominal" else numbers[c]) for u, c in enumerate(model) if c is not None
    }
    scoring = "accuracy" if level == "nominal" else "neg_rmse"
    expected = alt_test(model_labels, humans, scoring, epsilon)
    return {
        "name": f"panel {index} ({level}, {n_humans} humans, {units} tasks, {model_quality} model, eps {epsilon})",
        "level": level,
        "categories": categories,
        "values": values,
        "raters": humans_names,
        "matrix": matrix,
        "model": model,
        "epsilon": epsilon,
        "expected": expected,
    }


def write_panels(path, count, seed):
    """Generates `count` panels from `seed` and writes them, one per line, with the expected
    results and the versions of the libraries that computed them."""
    rng = np.random.default_rng(seed)
    panels = [make_panel(rng, i) for i in range(count)]
    versions = {name: version(name) for name in ("numpy", "scipy", "statsmodels")}
    with open(path, "w") as f:
        f.write('{"seed": %d, "versions": %s, "panels": [\n' % (seed, json.dumps(versions)))
        f.write(",\n".join(json.dumps(p) for p in panels))
        f.write("\n]}\n")
    verdicts = [p["expected"]["verdict"] for p in panels]
    print(
        f"{count} panels: {sum(v is not None and v['passed'] for v in verdicts)} passed, "
        f"{sum(v is not None and not v['passed'] for v in verdicts)} failed, "
        f"{sum(v is None for v in verdicts)} refused",
        file=sys.stderr,
    )


def main():
    if len(sys.argv) < 3 or sys.argv[1] != "panels":
        sys.exit(__doc__)
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 27
    write_panels(sys.argv[2], count, seed)


if __name__ == "__main__":
    main()
