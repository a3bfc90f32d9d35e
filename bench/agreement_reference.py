#!/usr/bin/env python3
"""The Python side of bench/agreement.sh: pandas read_csv, Krippendorff's alpha at three
levels (the `krippendorff` package) and Fleiss' kappa on complete units (statsmodels).
Prints the values and the seconds spent after imports (reading included)."""
import sys
import time

import krippendorff
import numpy as np
import pandas as pd
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

start = time.perf_counter()
df = pd.read_csv(sys.argv[1])
wide = df.pivot(index="unit", columns="rater", values="value")
data = wide.to_numpy(dtype=float).T  # raters x units, NaN = missing
alphas = {lvl: krippendorff.alpha(reliability_data=data, level_of_measurement=lvl) for lvl in ("nominal", "ordinal", "interval")}
complete = wide.dropna().to_numpy(dtype=int)
table, _ = aggregate_raters(complete)
kappa = fleiss_kappa(table, method="fleiss")
elapsed = time.perf_counter() - start
print(" ".join(f"alpha_{k}={v:.6f}" for k, v in alphas.items()), f"fleiss={kappa:.6f}")
print(f"seconds={elapsed:.4f}")
