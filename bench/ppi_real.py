#!/usr/bin/env python3
"""The share of underdetermined SWE-bench Pro tasks from few labels: the determinacy audit's
verdicts as the panel's labels on uniform samples, and Verity's evidence risk (with the sweep)
as the predictor on every task, beside the full audit's share.

Usage: ppi_real.py VERITY PROJECT WORK SIZES DRAWS

PROJECT holds the development repositories' tasks with their evidence and sweeps computed
(bench/ppi_real.sh makes it) and no rater yet. For each sample size, DRAWS projects are copied
from it; in each, one rater ("audit") is given a uniform sample (`verity assign --sample N
--seed S`) and answers every sampled task with the audit's verdict (a defect verdict where the
audit proves the task underdetermined, `unknown` where its claim waits for raters, `entailed`
otherwise: the audit's tiers as `verity scores` reads them); then `verity estimate --label
underdetermined --predictor risk` gives the prediction-powered share beside the labels alone,
the default interval (a superpopulation of tasks like these) and `--finite` (these tasks' own
share, which the full audit gives). Prints the first draw's figures per size and, over the draws,
the mean half-widths and how often each interval held the full audit's share.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

WITNESS = "The audit's witness: the graded constant appears only in the gold patch and the hidden test, never in the prose or the codebase at the base commit."


def verity(binary, project, *args):
    out = subprocess.run([binary, "--project", str(project), *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"verity {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def main():
    binary, base, work, sizes, draws = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    sizes = [int(s) for s in sizes.split(",")]
    # The audit's reading of every task, as Verity's scores read it: the tasks it leaves out,
    # underdetermined or pending, and the rest determinate.
    coverage = json.loads(verity(binary, base, "scores", "--json"))["coverage"]
    left_out = work / "left-out.csv"
    verity(binary, base, "export", "--format", "underdetermined", "--out", str(left_out), "--force")
    tier = {}
    for line in left_out.read_text().splitlines()[1:]:
        task, determinacy = line.split(",")[:2]
        tier[task] = determinacy
    cases = json.loads(verity(binary, base, "cases", "--json"))
    tasks = [c["instance_id"] for c in cases]
    total = len(tasks)
    underdetermined = sum(1 for t in tasks if tier.get(t) == "underdetermined")
    truth = underdetermined / total
    print(f"{total} tasks of flipt, NodeBB and vuls; the full audit: {underdetermined} underdetermined ({100 * truth:.1f}%), "
          f"{coverage['pending']} pending raters, {coverage['determinate']} determinate")
    verdict = {
        t: {"underdetermined": "airtight", "pending": "unknown"}.get(tier.get(t, ""), "entailed") for t in tasks
    }
    answer_file = work / "answer.json"
    rows = []
    for size in sizes:
        if size > total:
            print(f"  {size}: more than the {total} tasks; left out")
            continue
        summary = {"size": size, "ppi": [], "humans": [], "ppi_finite": [], "humans_finite": []}
        for draw in range(draws):
            project = work / f"n{size}-{draw}.verity"
            shutil.copyfile(base, project)
            verity(binary, project, "raters", "add", "audit")
            drawn = json.loads(verity(binary, project, "assign", "--sample", str(size), "--seed", str(draw), "--per-case", "1", "--json"))["drawn"]
            for task in drawn:
                values = {"verdict": verdict[task], "confidence": 5}
                if verdict[task] == "airtight":
                    values["witness"] = WITNESS
                answer_file.write_text(json.dumps(values))
                verity(binary, project, "answer", "--rater", "audit", "--case", task, "--file", str(answer_file), "--submit")
            e = json.loads(verity(binary, project, "estimate", "--label", "underdetermined", "--predictor", "risk", "--json"))
            f = json.loads(verity(binary, project, "estimate", "--label", "underdetermined", "--predictor", "risk", "--finite", "--json"))
            if draw == 0:
                summary["first"] = (e, f)
            for key, source, ci in [("ppi", e, "ci"), ("humans", e, "classical_ci"), ("ppi_finite", f, "ci"), ("humans_finite", f, "classical_ci")]:
                lo, hi = source[ci]
                summary[key].append(((hi - lo) / 2, lo <= truth <= hi))
            project.unlink()
        rows.append(summary)

    pct = lambda v: f"{100 * v:.1f}%"
    ivl = lambda c: f"[{100 * c[0]:.1f}, {100 * c[1]:.1f}]"
    width = lambda c: f"±{100 * (c[1] - c[0]) / 2:.1f}"
    print()
    print(f"First draw (seed 0) of each size; the full audit's share: {pct(truth)} ({underdetermined} of {total}).")
    print()
    print("| labelled | PPI++ (risk) | width | humans alone | width | λ | effective n | PPI++ --finite | width | humans alone --finite | width |")
    print("|---:|---|---:|---|---:|---:|---:|---|---:|---|---:|")
    for r in rows:
        e, f = r["first"]
        print(f"| {e['n_labeled']} | {pct(e['estimate'])} {ivl(e['ci'])} | {width(e['ci'])} | {pct(e['classical_estimate'])} {ivl(e['classical_ci'])} | "
              f"{width(e['classical_ci'])} | {e['lambda']:.2f} | {e['effective_n']:.0f} | {pct(f['estimate'])} {ivl(f['ci'])} | {width(f['ci'])} | "
              f"{pct(f['classical_estimate'])} {ivl(f['classical_ci'])} | {width(f['classical_ci'])} |")
    print()
    print(f"Over {draws} draws of each size (seeds 0 to {draws - 1}): mean half-width in points, and how many intervals held the full audit's share.")
    print()
    print("| labelled | PPI++ | humans alone | PPI++ --finite | humans alone --finite |")
    print("|---:|---|---|---|---|")
    for r in rows:
        cell = lambda key: f"±{100 * sum(w for w, _ in r[key]) / len(r[key]):.1f} ({sum(c for _, c in r[key])} of {len(r[key])})"
        print(f"| {r['size']} | {cell('ppi')} | {cell('humans')} | {cell('ppi_finite')} | {cell('humans_finite')} |")


if __name__ == "__main__":
    main()
