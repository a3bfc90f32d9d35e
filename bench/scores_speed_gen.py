#!/usr/bin/env python3
"""Generates the data of bench/scores_speed.sh (seeded).

  scores_speed_gen.py OUT_DIR TASKS SYSTEMS SEED
writes OUT_DIR/tasks.jsonl (TASKS small SWE-bench rows with SWE-bench Pro-shaped ids),
OUT_DIR/ensembled.csv (OpenAI's ensembled format: a reference label for every task, which
decides which are determinate), and OUT_DIR/results/ (SYSTEMS systems' outcomes on about 95%
of the tasks each, their formats in turn: SWE-bench Pro eval_results.json, CSV, JSON lines, a
harness run summary, a report.json map, an experiments results.json).
"""
import csv
import json
import os
import random
import sys

out, n, systems, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
os.makedirs(os.path.join(out, "results"), exist_ok=True)
ids = [f"instance_acme__calc-{rng.getrandbits(160):040x}-v{i}" for i in range(n)]
with open(os.path.join(out, "tasks.jsonl"), "w") as fh:
    for i, iid in enumerate(ids):
        fh.write(json.dumps({"instance_id": iid, "repo": "acme/calc", "base_commit": f"{i:040x}",
                             "problem_statement": f"Task {i}", "patch": "diff --git a/x b/x\n",
                             "test_patch": "diff --git a/t b/t\n"}) + "\n")
header = ["instance_id", "underspecified", "underspecified_notes", "false_negative", "false_negative_notes",
          "other_major_issues", "other_notes", "difficulty", "underspecified_decided_by",
          "false_negative_decided_by", "other_major_issues_decided_by", "difficulty_decided_by",
          "difficulty_ensemble_decision_procedure", "filter_out"]
with open(os.path.join(out, "ensembled.csv"), "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(header)
    for iid in ids:
        u, f, o = rng.choice([0, 0, 1, 1, 2, 3]), rng.choice([0, 0, 1, 1, 1, 2, 3]), int(rng.random() < 0.05)
        w.writerow([iid, f"{u}.0", "", f"{f}.0", "", f"{o}.0", "", "15 min - 1 hour", "1", "2", "1",
                    "[1, 2, 3]", "majority", str(u >= 2 or f >= 2 or o == 1)])
difficulty = [rng.gauss(0, 1) for _ in ids]
for s in range(systems):
    ability = rng.uniform(-2, 0.5)
    outcomes = {}
    for iid, d in zip(ids, difficulty):
        if rng.random() < 0.95:
            outcomes[iid] = rng.random() < 1 / (1 + 2.718281828 ** (d - ability))
    yes = [i for i, r in outcomes.items() if r]
    no = [i for i, r in outcomes.items() if not r]
    kind = s % 6
    name = os.path.join(out, "results", f"system-{s:03d}")
    if kind == 0:
        open(name + ".eval_results.json", "w").write(json.dumps(outcomes))
    elif kind == 1:
        open(name + ".csv", "w").write("instance_id,resolved\n" + "".join(f"{i},{int(r)}\n" for i, r in outcomes.items()))
    elif kind == 2:
        open(name + ".jsonl", "w").write("".join(json.dumps({"instance_id": i, "resolved": r}) + "\n" for i, r in outcomes.items()))
    elif kind == 3:
        open(name + ".json", "w").write(json.dumps({"schema_version": 2, "submitted_ids": list(outcomes), "resolved_ids": yes,
                                                    "unresolved_ids": no, "error_ids": [], "empty_patch_ids": []}))
    elif kind == 4:
        open(name + ".json", "w").write(json.dumps({i: {"resolved": r, "tests_status": {}} for i, r in outcomes.items()}))
    else:
        open(name + ".json", "w").write(json.dumps({"no_generation": no, "no_logs": [], "resolved": yes}))
