#!/usr/bin/env python3
"""Writes a seeded long-format ratings CSV (unit,rater,value) for bench/agreement.sh.

Each unit has a true category 1..Q; each rater gives it with probability AGREE, otherwise a
uniform category; each rating is missing with probability MISSING (a missing row).
Usage: gen_ratings.py UNITS RATERS MISSING SEED > ratings.csv
"""
import random
import sys

units, raters, missing, seed = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
Q, AGREE = 5, 0.6
rng = random.Random(seed)
out = ["unit,rater,value"]
for u in range(units):
    truth = rng.randint(1, Q)
    for r in range(raters):
        if rng.random() < missing:
            continue
        value = truth if rng.random() < AGREE else rng.randint(1, Q)
        out.append(f"task-{u:05d},rater-{r},{value}")
sys.stdout.write("\n".join(out) + "\n")
