#!/usr/bin/env python3
"""Checks `verity scores --json` against the reference libraries on generated results.

Generates (seeded) a determinacy audit of TASKS tasks (ENTAILED, DETERMINED-codebase, proven,
rater-pending and unlisted folders, with a COVERAGE.md) and SYSTEMS systems' outcomes (some
tasks not submitted, a few ids the project lacks); then, for every results format Verity reads,
makes a project, imports the audit and every system's results in that format, runs
`verity scores --json`, and compares each figure with statsmodels (`proportion_confint(...,
method="wilson")`, `mcnemar(..., exact=True)`) and scipy (`kendalltau`, `rankdata`) to 1e-9.
The bootstrap interval of each difference is drawn from another generator than numpy's, so it
is compared with a numpy bootstrap of 20,000 resamples within 0.02.

Usage: scores_reference.py VERITY [TASKS SYSTEMS SEED]; exits 1 on any mismatch.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.stats import kendalltau, rankdata
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

VERITY = sys.argv[1]
TASKS = int(sys.argv[2]) if len(sys.argv) > 2 else 400
SYSTEMS = int(sys.argv[3]) if len(sys.argv) > 3 else 6
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 11
TOL = 1e-9
FORMATS = ["summary", "summary-infra", "reports", "report-folder", "experiments", "pro", "csv", "jsonl"]

rng = np.random.default_rng(SEED)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_audit(root):
    """Task ids and their tier: determinate, underdetermined, pending or unlabelled."""
    tiers = {}
    coverage = ["| case | verdict | cov | GAP | witness class | attribution |", "|---|---|---|---|---|---|"]
    kinds = rng.choice(5, size=TASKS, p=[0.6, 0.15, 0.14, 0.08, 0.03])
    for i, kind in enumerate(kinds):
        slug = f"acme_{i:05d}"
        iid = f"instance_acme__calc-{i:05d}"
        d = os.path.join(root, "cases", slug)
        write(os.path.join(d, "instance_id.txt"), iid)
        write(os.path.join(d, "spec.md"), "## PROBLEM\nFix it.\n\n## REQUIREMENTS\n- r\n\n## INTERFACE\nNone.\n")
        write(os.path.join(d, "gold.diff"), "diff --git a/x b/x\n")
        write(os.path.join(d, "hidden_test.diff"), "diff --git a/t b/t\n")
        doc = lambda name, cls: write(os.path.join(d, name), f"# Ambiguity\n\n- instance_id: `{iid}`\n- class: **{cls}** (x)\n")
        if kind == 0:
            coverage.append(f"| {slug} | ENTAILED | 1/1 | 0 |  | t |")
            tiers[iid] = "determinate"
        elif kind == 1:
            doc("AMBIGUITY_HYPOTHESIS.md", "determined-codebase")
            coverage.append(f"| {slug} | DETERMINED-codebase | 1/1 | 0 |  | t |")
            tiers[iid] = "determinate"
        elif kind == 2:
            doc("AMBIGUITY_WITNESS.md", "airtight")
            coverage.append(f"| {slug} | AMBIGUOUS | 1/2 | 1 | airtight | t |")
            tiers[iid] = "underdetermined"
        elif kind == 3:
            doc("AMBIGUITY_HYPOTHESIS.md", "prose-affirmative")
            coverage.append(f"| {slug} | AMBIGUOUS | 1/2 | 1 | prose-affirmative | t |")
            tiers[iid] = "pending"
        else:
            tiers[iid] = "unlabelled"
    write(os.path.join(root, "COVERAGE.md"), "# Coverage\n\n" + "\n".join(coverage) + "\n")
    return tiers


def make_systems(ids):
    """Each system's outcomes: {id: resolved} over the tasks it submitted, plus unknown ids."""
    ability = rng.uniform(-1.5, 0.5, size=SYSTEMS)
    difficulty = rng.normal(0, 1, size=len(ids))
    systems = {}
    for s in range(SYSTEMS):
        p = 1 / (1 + np.exp(-(ability[s] - difficulty)))
        resolved = rng.random(len(ids)) < p
        submitted = rng.random(len(ids)) < 0.9
        out = {iid: bool(r) for iid, r, sub in zip(ids, resolved, submitted) if sub}
        for k in range(3):
            out[f"instance_elsewhere-{s}-{k}"] = bool(k % 2)
        systems[f"system-{s}"] = out
    return systems


def write_format(fmt, path, outcomes):
    """Writes outcomes in one format; returns the path to import."""
    ids = list(outcomes)
    yes = [i for i in ids if outcomes[i]]
    no = [i for i in ids if not outcomes[i]]
    if fmt == "summary":
        write(path, json.dumps({"schema_version": 2, "submitted_ids": ids, "resolved_ids": yes, "unresolved_ids": no[::2],
                                "error_ids": no[1::2], "empty_patch_ids": [], "total_instances": len(ids)}))
    elif fmt == "summary-infra":
        write(path, json.dumps({"schema_version": 2, "submitted_ids": ids, "resolved_ids": yes, "unresolved_ids": no[::3],
                                "error_ids": [], "empty_patch_ids": no[1::3], "infra_failure_ids": no[2::3]}))
    elif fmt == "reports":
        write(path, json.dumps({i: {"resolved": outcomes[i], "tests_status": {"FAIL_TO_PASS": {}}} for i in ids}))
    elif fmt == "report-folder":
        for i in ids:
            write(os.path.join(path, i, "report.json"), json.dumps({i: {"resolved": outcomes[i]}}))
    elif fmt == "experiments":
        write(path, json.dumps({"no_generation": no[::2], "no_logs": no[1::2], "resolved": yes}))
    elif fmt == "pro":
        write(path, json.dumps(outcomes))
    elif fmt == "csv":
        write(path, "instance_id,resolved\n" + "".join(f"{i},{'True' if outcomes[i] else '0'}\n" for i in ids))
    elif fmt == "jsonl":
        write(path, "".join(json.dumps({"instance_id": i, "resolved": int(outcomes[i])}) + "\n" for i in ids))
    return path


def verity(project, *args):
    out = subprocess.run([VERITY, "--project", project, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"verity {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def reference(tiers, systems):
    """What the libraries say, per system and pair."""
    ids = sorted(tiers)
    n = len(ids)
    mask = {t: np.array([tiers[i] == t for i in ids]) for t in ("determinate", "underdetermined", "pending")}
    vectors = {name: np.array([out.get(i, False) for i in ids]) for name, out in systems.items()}
    per = {}
    for name, v in vectors.items():
        r = int(v.sum())
        row = {"n": n, "submitted": sum(1 for i in systems[name] if i in tiers), "resolved": r, "rate": r / n,
               "rate_ci": list(proportion_confint(r, n, alpha=0.05, method="wilson"))}
        for t, key in (("determinate", "determinate"), ("underdetermined", "underdetermined")):
            m = mask[t]
            k, tn = int(v[m].sum()), int(m.sum())
            row[f"{key}_n"] = tn
            row[f"{key}_resolved"] = k
            row[f"{key}_rate"] = k / tn
            row[f"{key}_rate_ci"] = list(proportion_confint(k, tn, alpha=0.05, method="wilson"))
        per[name] = row
    names = sorted(per)
    raw = np.array([per[s]["rate"] for s in names])
    det = np.array([per[s]["determinate_rate"] for s in names])
    for s, a, b in zip(names, rankdata(-raw), rankdata(-det)):
        per[s]["rank_raw"], per[s]["rank_determinate"] = float(a), float(b)
    tau = kendalltau(raw, det).statistic
    pairs = {}
    for ai, a in enumerate(names):
        for b in names[ai + 1:]:
            for denom, m in (("all", np.ones(n, bool)), ("determinate", mask["determinate"])):
                va, vb = vectors[a][m], vectors[b][m]
                table = [[int((va & vb).sum()), int((va & ~vb).sum())], [int((~va & vb).sum()), int((~va & ~vb).sum())]]
                p = mcnemar(table, exact=True).pvalue
                d = va.astype(float) - vb.astype(float)
                boot = np.random.default_rng(SEED).integers(0, len(d), size=(20000, len(d)))
                means = d[boot].mean(axis=1)
                pairs[(a, b, denom)] = {"p_value": float(p), "difference": float(d.mean()),
                                        "difference_ci": [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]}
    return per, float(tau), pairs


def compare(fmt, got, per, tau, pairs):
    bad = []
    def close(what, x, y, tol=TOL):
        if x is None or y is None or abs(x - y) > tol:
            bad.append(f"{fmt}: {what}: verity {x}, reference {y}")
    systems = {s["system"]: s for s in got["systems"]}
    if sorted(systems) != sorted(per):
        bad.append(f"{fmt}: systems {sorted(systems)} != {sorted(per)}")
        return bad
    for name, ref in per.items():
        s = systems[name]
        for key, value in ref.items():
            if isinstance(value, list):
                for i in range(2):
                    close(f"{name} {key}[{i}]", s[key][i] if s[key] else None, value[i])
            else:
                close(f"{name} {key}", s[key], value)
    close("kendall_tau", got["kendall_tau"], tau)
    seen = 0
    for p in got["pairs"]:
        ref = pairs[(p["a"], p["b"], p["denominator"])]
        seen += 1
        close(f"{p['a']}-{p['b']} {p['denominator']} p_value", p["p_value"], ref["p_value"])
        close(f"{p['a']}-{p['b']} {p['denominator']} difference", p["difference"], ref["difference"])
        for i in range(2):
            close(f"{p['a']}-{p['b']} {p['denominator']} bootstrap[{i}]", p["difference_ci"][i], ref["difference_ci"][i], 0.02)
    if seen != len(pairs):
        bad.append(f"{fmt}: {seen} pairs, the reference has {len(pairs)}")
    return bad


def main():
    work = tempfile.mkdtemp(prefix="verity-scores-")
    tiers = make_audit(os.path.join(work, "audit"))
    systems = make_systems(sorted(tiers))
    per, tau, pairs = reference(tiers, systems)
    failures = []
    checked = 0
    for fmt in FORMATS:
        project = os.path.join(work, f"{fmt}.verity")
        verity(project, "init", "--questionnaire", "determinacy")
        verity(project, "import", os.path.join(work, "audit"))
        files = []
        for name, outcomes in systems.items():
            path = os.path.join(work, fmt, name + ("" if fmt == "report-folder" else ".data"))
            files.append(write_format(fmt, path, outcomes))
        for name, path in zip(systems, files):
            verity(project, "results", "import", path, "--system", name)
        got = json.loads(verity(project, "scores", "--json", "--bootstrap", "2000"))
        failures += compare(fmt, got, per, tau, pairs)
        checked += 1
    tiers_count = {t: sum(1 for v in tiers.values() if v == t) for t in ("determinate", "underdetermined", "pending", "unlabelled")}
    print(f"{TASKS} tasks {tiers_count}, {SYSTEMS} systems, {len(pairs)} pair comparisons, {checked} formats: {', '.join(FORMATS)}")
    rates = ", ".join("%.4f" % per[s]["rate"] for s in sorted(per))
    print(f"Kendall's tau-b {tau:.6f}; raw rates {rates}")
    if failures:
        print("\n".join(failures[:40]))
        print(f"{len(failures)} mismatches")
        sys.exit(1)
    print(f"every figure equal to the reference to {TOL} (bootstrap intervals within 0.02)")


main()
