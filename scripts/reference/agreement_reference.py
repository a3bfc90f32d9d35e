#!/usr/bin/env python3
"""Regenerates the agreement reference fixtures with the reference libraries.

Writes, under annotations/tests/fixtures/agreement/:
  reference.json  seeded random datasets (sizes, missing data, 2-5 raters, 2-5 categories,
                  degenerate ones) with every coefficient computed by the reference libraries;
  published.json  the published worked examples with the libraries' full-precision values.

Each dataset: level, categories (labels in scale order), values (numbers per category, or
null for label scales), raters, matrix (units x raters of category indices, null = missing)
and expected values; null where the library returns NaN or refuses the data. The Rust tests
(annotations/tests/agreement.rs) check every coefficient against these to 1e-9.

Usage: pip install -r scripts/reference/requirements.txt
       python3 scripts/reference/agreement_reference.py
"""

import json
import math
import sys
import warnings
from importlib.metadata import version
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
from irrCAC.raw import CAC
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

OUT = Path(__file__).resolve().parents[2] / "annotations" / "tests" / "fixtures" / "agreement"
SEED = 20240611


def clean(x):
    """A float, or None for NaN/inf (the Rust side must report those as undefined)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def guarded(fn):
    """The library's value, or None when it refuses the data or returns NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return clean(fn())
        except (ValueError, ZeroDivisionError, FloatingPointError, IndexError, AssertionError):
            return None


def percent_agreement(matrix):
    # Formula (no library implements it with missing data): mean over units with >= 2
    # ratings of agreeing pairs / pairs.
    shares = []
    for row in matrix:
        present = [v for v in row if v is not None]
        m = len(present)
        if m < 2:
            continue
        counts = {}
        for v in present:
            counts[v] = counts.get(v, 0) + 1
        shares.append(sum(n * (n - 1) for n in counts.values()) / (m * (m - 1)))
    return sum(shares) / len(shares) if shares else None


def cohen(matrix, a, b, q, weights):
    y1 = [row[a] for row in matrix if row[a] is not None and row[b] is not None]
    y2 = [row[b] for row in matrix if row[a] is not None and row[b] is not None]
    if not y1:
        return None
    return guarded(
        lambda: cohen_kappa_score(
            y1, y2, labels=list(range(q)), weights=weights, replace_undefined_by=np.nan
        )
    )


def fleiss_complete(matrix, r, q):
    if r < 2:
        return None
    rows = [row for row in matrix if all(v is not None for v in row)]
    if not rows:
        return None
    table = np.zeros((len(rows), q))
    for i, row in enumerate(rows):
        for v in row:
            table[i, v] += 1
    return guarded(lambda: fleiss_kappa(table, method="fleiss"))


def frame(matrix, cats, values):
    """Ratings as irrCAC wants them: one column per rater, the category's value or label."""
    scale = values if values is not None else cats
    data = [[scale[v] if v is not None else np.nan for v in row] for row in matrix]
    df = pd.DataFrame(data, dtype=object if values is None else float)
    return df, list(scale)


def irrcac(matrix, cats, values, weights, method):
    df, scale = frame(matrix, cats, values)
    if df.dropna(how="all").empty:
        return None

    def run():
        cac = CAC(df, weights=weights, categories=scale, digits=30)
        return getattr(cac, method)()["est"]["coefficient_value"]

    return guarded(run)


def alpha(matrix, values, level):
    r = len(matrix[0]) if matrix else 0
    if level in ("interval", "ratio"):
        if values is None:
            return None
        data = [[values[row[j]] if row[j] is not None else np.nan for row in matrix] for j in range(r)]
        domain = sorted(values)
    else:
        q = len(values) if values is not None else None
        data = [[row[j] if row[j] is not None else np.nan for row in matrix] for j in range(r)]
        domain = list(range(q)) if q is not None else None
    return guarded(
        lambda: krippendorff.alpha(
            reliability_data=np.array(data, dtype=float),
            value_domain=domain,
            level_of_measurement=level,
        )
    )


def expected(ds):
    matrix, cats, values = ds["matrix"], ds["categories"], ds["values"]
    q, r = len(cats), len(ds["raters"])
    alpha_domain = values if values is not None else list(range(q))
    out = {
        "percent_agreement": clean(percent_agreement(matrix)),
        "cohen_kappa": {},
        "fleiss_kappa": fleiss_complete(matrix, r, q),
        "fleiss_kappa_all_units": irrcac(matrix, cats, values, "identity", "fleiss"),
        "krippendorff_alpha": {
            "nominal": alpha(matrix, alpha_domain, "nominal"),
            "ordinal": alpha(matrix, alpha_domain, "ordinal"),
        },
        "gwet_ac1": irrcac(matrix, cats, values, "identity", "gwet"),
        "gwet_ac2": {
            "linear": irrcac(matrix, cats, values, "linear", "gwet"),
            "quadratic": irrcac(matrix, cats, values, "quadratic", "gwet"),
        },
    }
    if values is not None:
        out["krippendorff_alpha"]["interval"] = alpha(matrix, values, "interval")
        out["krippendorff_alpha"]["ratio"] = alpha(matrix, values, "ratio") if min(values) >= 0 else None
    for a in range(r):
        for b in range(a + 1, r):
            key = f"{ds['raters'][a]}|{ds['raters'][b]}"
            out["cohen_kappa"][key] = {
                "unweighted": cohen(matrix, a, b, q, None),
                "linear": cohen(matrix, a, b, q, "linear"),
                "quadratic": cohen(matrix, a, b, q, "quadratic"),
            }
    return out


def dataset(name, level, cats, values, matrix, raters=None):
    r = len(matrix[0])
    return {
        "name": name,
        "level": level,
        "categories": cats,
        "values": values,
        "raters": raters or [f"r{j}" for j in range(r)],
        "matrix": matrix,
    }


def random_dataset(rng, name, units, raters, q, missing, agree, scale_kind):
    if scale_kind == "labels":
        cats, values, level = [f"c{k}" for k in range(q)], None, "ordinal"
    elif scale_kind == "integers":
        cats, values, level = [str(k) for k in range(q)], [float(k) for k in range(q)], "interval"
    else:  # unevenly spaced positive numbers, so positions and values differ
        vals = sorted(rng.choice([0.5, 1, 2, 3, 5, 8, 13, 21], size=q, replace=False).tolist())
        cats, values, level = [f"{v:g}" for v in vals], [float(v) for v in vals], "ratio"
    matrix = []
    for _ in range(units):
        truth = int(rng.integers(q))
        row = []
        for _ in range(raters):
            if rng.random() < missing:
                row.append(None)
            elif rng.random() < agree:
                row.append(truth)
            else:
                row.append(int(rng.integers(q)))
        matrix.append(row)
    return dataset(name, level, cats, values, matrix)


def reference_datasets():
    rng = np.random.default_rng(SEED)
    out = []
    shapes = [
        (5, 2, 2, 0.0, 0.6, "integers"),
        (12, 3, 3, 0.1, 0.5, "labels"),
        (30, 4, 5, 0.3, 0.7, "integers"),
        (80, 5, 4, 0.2, 0.4, "uneven"),
        (200, 3, 5, 0.5, 0.8, "labels"),
        (50, 2, 3, 0.25, 0.9, "uneven"),
        (40, 5, 2, 0.4, 0.3, "integers"),
        (150, 4, 3, 0.0, 0.6, "labels"),
        (25, 3, 4, 0.6, 0.5, "uneven"),
        (300, 5, 5, 0.2, 0.65, "integers"),
    ]
    for i, (units, raters, q, missing, agree, kind) in enumerate(shapes):
        out.append(random_dataset(rng, f"random-{i}-{units}x{raters}-q{q}-{kind}", units, raters, q, missing, agree, kind))
    # Degenerate data: each case makes some coefficient undefined, or exercises an edge.
    ints3 = (["0", "1", "2"], [0.0, 1.0, 2.0])
    out.append(dataset("one-category-used", "interval", *ints3, [[1, 1, 1], [1, 1, None], [1, None, 1]]))
    out.append(dataset("perfect-agreement", "interval", *ints3, [[0, 0, 0], [2, 2, 2], [1, 1, None], [0, None, 0]]))
    out.append(dataset("no-pairable-unit", "interval", *ints3, [[0, None], [None, 2], [1, None]]))
    out.append(dataset("pair-never-co-rates", "interval", *ints3, [[0, None, 0], [None, 1, 1], [2, None, 2], [None, 0, 1]]))
    out.append(dataset("no-complete-unit", "ordinal", ["a", "b", "c"], None, [[0, 1, None], [None, 2, 2], [1, None, 1]]))
    out.append(dataset("single-pairable-unit", "interval", *ints3, [[0, 2], [1, None], [None, 2]]))
    out.append(dataset("zeros-in-ratio", "ratio", ["0", "1", "4"], [0.0, 1.0, 4.0], [[0, 0, 1], [0, 2, 2], [1, 1, 0], [2, 2, None], [0, 0, 0]]))
    out.append(dataset("maximal-disagreement", "interval", ["0", "1"], [0.0, 1.0], [[0, 1], [1, 0], [0, 1], [1, 0]]))
    out.append(dataset("unused-categories", "interval", ["1", "2", "3", "4", "5"], [1.0, 2.0, 3.0, 4.0, 5.0], [[1, 1, 2], [1, 2, 2], [2, 2, 2], [1, 1, 1]]))
    for ds in out:
        ds["expected"] = expected(ds)
    return out


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the example with missing
# data: 4 observers (rows), 12 units; None is a missing value.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]

# Fleiss (1971): 30 patients, 6 psychiatrists each, 5 diagnoses (1 depression, 2 personality
# disorder, 3 schizophrenia, 4 neurosis, 5 other); the raw form of the table in the paper, as
# in R irr's `diagnoses`.
FLEISS_1971 = [
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
]

# Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories; counts of
# raters per category.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]

# Wikipedia, "Cohen's kappa": 50 grant proposals, two readers; (A, B) -> count.
WIKIPEDIA_COHEN = {("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15}


def published_datasets():
    out = []
    # Krippendorff's matrix is observers x units; ours is units x observers.
    matrix = [[KRIPPENDORFF_2011[o][u] - 1 if KRIPPENDORFF_2011[o][u] is not None else None for o in range(4)] for u in range(12)]
    out.append(dataset("krippendorff-2011", "ratio", ["1", "2", "3", "4", "5"], [1.0, 2.0, 3.0, 4.0, 5.0], matrix, ["A", "B", "C", "D"]))
    out[-1]["published"] = {"krippendorff_alpha": {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}}

    matrix = [[v - 1 for v in row] for row in FLEISS_1971]
    cats = ["depression", "personality disorder", "schizophrenia", "neurosis", "other"]
    out.append(dataset("fleiss-1971", "nominal", cats, None, matrix))
    out[-1]["published"] = {"fleiss_kappa": 0.430}

    # Any assignment of the counts to raters gives the same Fleiss' kappa; fill raters in order.
    matrix = []
    for counts in WIKIPEDIA_FLEISS:
        row = []
        for k, n in enumerate(counts):
            row += [k] * n
        matrix.append(row)
    out.append(dataset("wikipedia-fleiss", "nominal", ["1", "2", "3", "4", "5"], None, matrix))
    out[-1]["published"] = {"fleiss_kappa": 0.210}

    matrix = []
    for (a, b), n in WIKIPEDIA_COHEN.items():
        matrix += [[["no", "yes"].index(a), ["no", "yes"].index(b)]] * n
    out.append(dataset("wikipedia-cohen", "nominal", ["no", "yes"], None, matrix, ["A", "B"]))
    out[-1]["published"] = {"cohen_kappa": {"A|B": {"unweighted": 0.4}}}

    for ds in out:
        ds["expected"] = expected(ds)
    return out


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    libraries = {p: version(p) for p in ["numpy", "pandas", "scikit-learn", "statsmodels", "krippendorff", "irrCAC"]}
    for name, datasets in [("reference.json", reference_datasets()), ("published.json", published_datasets())]:
        doc = {
            "generator": "scripts/reference/agreement_reference.py",
            "seed": SEED,
            "libraries": libraries,
            "datasets": datasets,
        }
        (OUT / name).write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {OUT / name}: {len(datasets)} datasets", file=sys.stderr)
    for ds in published_datasets():
        print(ds["name"], json.dumps(ds["published"]), "->", json.dumps({k: ds["expected"][k] for k in ds["published"]}), file=sys.stderr)


if __name__ == "__main__":
    main()
