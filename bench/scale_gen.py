#!/usr/bin/env python3
"""Generates the data of bench/scale.sh: a large task file and panels of answers.

  scale_gen.py tasks PRO_JSONL N OUT.jsonl
      N tasks of SWE-bench Pro's size: the Pro rows in turn, copy k > 0 of a row with the id
      `<id>-c<k>` and its issue text, requirements and patches marked with the copy's number,
      so no two rows are equal (a row compresses alone as it would in a real dataset).
  scale_gen.py answers IDS RATERS PER_TASK SEED OUT.csv
      OpenAI's per-annotator format for the tasks listed in IDS (a JSON lines file with an
      `instance_id` per line, or one id per line): PER_TASK distinct raters of RATERS per task,
      each task's labels drawn around a true label per task, with notes.
  scale_gen.py panel ENSEMBLED_CSV RATERS SEED OUT.csv
      OpenAI-sized: three raters of RATERS per task of the ensembled file, whose answers give
      back its labels (two give the ensembled label, the third at most as much), with notes.
"""
import csv
import json
import random
import sys

DIFFICULTIES = ["<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours"]
HEADER = [
    "instance_id", "user_id", "underspecified", "underspecified_notes", "false_negative",
    "false_negative_notes", "other_major_issues", "other_notes", "difficulty",
    "difficulty_notes", "annotator_confidence", "claimed_at", "updated_at", "submitted_at",
]
NOTE = ("The issue names the function and the expected behaviour, and the tests check "
        "exactly that; a reasonable solver would write the same fix. ")


def tasks(pro, n, out):
    rows = [json.loads(line) for line in open(pro, encoding="utf-8")]
    with open(out, "w", encoding="utf-8") as fh:
        for i in range(n):
            row = dict(rows[i % len(rows)])
            copy = i // len(rows)
            if copy:
                row["instance_id"] = f"{row['instance_id']}-c{copy}"
                for key in ("problem_statement", "requirements", "patch", "test_patch"):
                    if isinstance(row.get(key), str):
                        row[key] = f"{row[key]}\n<!-- copy {copy} -->\n" if key in (
                            "problem_statement", "requirements") else row[key].replace(
                            "\n+", f"\n+ /* {copy} */", 1)
            fh.write(json.dumps(row) + "\n")


def read_ids(path):
    ids = []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line:
            ids.append(json.loads(line)["instance_id"] if line.startswith("{") else line)
    return ids


def stamp(rng, base):
    minute = base + rng.randint(0, 59)
    return f"2024-07-{1 + minute // 1440 % 28:02d} {minute // 60 % 24:02d}:{minute % 60:02d}:00"


def row(rng, task, rater, under, neg, other, diff, t):
    return [task, rater, f"{under}.0", NOTE * 2, f"{neg}.0", NOTE, f"{other}.0",
            "" if not other else NOTE, DIFFICULTIES[diff], NOTE, str(rng.randint(1, 5)),
            stamp(rng, t), stamp(rng, t + 60), stamp(rng, t + 120)]


def near(rng, truth, top):
    return min(top, max(0, truth + rng.choice([0, 0, 0, 1, -1])))


def answers(ids_path, raters, per_task, seed, out):
    rng = random.Random(seed)
    ids = read_ids(ids_path)
    with open(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        for n, task in enumerate(ids):
            under, neg, diff = rng.randint(0, 3), rng.randint(0, 3), rng.randint(0, 3)
            other = 1 if rng.random() < 0.08 else 0
            for rater in rng.sample(range(1, raters + 1), per_task):
                w.writerow(row(rng, task, rater, near(rng, under, 3), near(rng, neg, 3),
                               other, near(rng, diff, 3), n * 3))


def panel(ensembled, raters, seed, out):
    rng = random.Random(seed)
    with open(ensembled, newline="", encoding="utf-8") as fh:
        labels = list(csv.DictReader(fh))
    with open(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        for n, lab in enumerate(labels):
            under, neg = int(float(lab["underspecified"])), int(float(lab["false_negative"]))
            other, diff = int(float(lab["other_major_issues"])), DIFFICULTIES.index(lab["difficulty"])
            chosen = rng.sample(range(1, raters + 1), 3)
            for k, rater in enumerate(chosen):
                lower = k == 2
                w.writerow(row(rng, lab["instance_id"], rater,
                               rng.randint(0, under) if lower else under,
                               rng.randint(0, neg) if lower else neg,
                               other if not lower else rng.randint(0, other),
                               rng.randint(0, diff) if lower else diff, n * 3))


if __name__ == "__main__":
    kind, args = sys.argv[1], sys.argv[2:]
    if kind == "tasks":
        tasks(args[0], int(args[1]), args[2])
    elif kind == "answers":
        answers(args[0], int(args[1]), int(args[2]), int(args[3]), args[4])
    elif kind == "panel":
        panel(args[0], int(args[1]), int(args[2]), args[3])
    else:
        sys.exit(f"scale_gen: unknown kind {kind!r}: tasks, answers or panel")
