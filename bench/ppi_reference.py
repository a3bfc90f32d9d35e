#!/usr/bin/env python3
"""Every figure of `verity estimate` and `verity scores --predictor` against ppi-python.

Usage: ppi_reference.py VERITY CHAT_SERVE FIXTURE WORK [PANELS]

Builds PANELS generated panels (default 8) through the real command line: SWE-bench-shaped
tasks, two model raters served by the tests' Chat Completions server (`chat_serve`) rating
every task, a random sample drawn by `verity assign --sample` (uniform, extended by a second
draw, or weighted by the models' uncertainty), three human raters answering it with noise
(some tasks left incomplete), and three systems' results. On each, for every label
(underspecified>=2, kept, false_negative>=1, annotator_confidence), predictor (model:gpt,
models) and λ (estimated, 0, 1, 0.37), `verity estimate --json` is compared with ppi-python
0.2.3 on the same arrays: `ppi_mean_pointestimate`, `ppi_mean_ci` and `classical_mean_ci`, λ by
`_calc_lam_glm` (clipped), the weights 1/π on the labelled tasks and 1/(1 − π) on the others.
With weights, Verity centres the weighted residuals before taking their spread (Hájek's
linearisation; ppi-python's `std` of `w * x` leaves the centring out, which the coverage
simulation shows undercovers), so its interval is compared with `ppi_mean_ci` on the inputs
centred at their weighted means, shifted back. `verity scores --predictor models --json` is
compared the same way, each ratio as ppi-python's means of its numerator and denominator at the
λ `_calc_lam_glm` gives the linearised mean, and its standard error as the linearised mean's
over the denominator; ppi-python has no ratio, and Verity's interval takes Student's t with
n − 1 degrees of freedom (scipy's `t.ppf`). `--finite` is compared with the finite-population
formulas written out in numpy (ppi-python has none), with the same t. The draws' probabilities are recomputed from the
models' answers. Prints the largest difference and exits 1 if any passes 1e-9.
"""
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate
from ppi_py.ppi import _calc_lam_glm
from scipy.stats import norm, t as student

TOLERANCE = 1e-9
ALPHA = 0.05
LABELS = ["underspecified>=2", "kept", "false_negative>=1", "annotator_confidence"]
PREDICTORS = ["model:gpt", "models"]
LAMBDAS = [None, 0.0, 1.0, 0.37]
MODELS = {"gpt": 0.15, "claude": 0.3}  # each model's chance of a wrong answer
RATERS = ["r1", "r2", "r3"]
NOTE = "The issue says what to change and the tests check that and nothing else; a careful reader would write the same fix here."

worst = {"error": 0.0, "where": ""}
compared = {"figures": 0, "estimates": 0, "scores": 0}


def check(got, want, where):
    err = abs(float(got) - float(want))
    compared["figures"] += 1
    if not err <= TOLERANCE:
        print(f"MISMATCH {where}: verity {got!r}, reference {want!r}", file=sys.stderr)
    if err > worst["error"] or err != err:
        worst["error"] = err
        worst["where"] = where


def verity(binary, project, *args):
    out = subprocess.run(
        [binary, "--project", str(project), *args],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"verity {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def answer(values):
    return {
        "underspecified": int(values[0]),
        "underspecified_notes": NOTE,
        "false_negative": int(values[1]),
        "false_negative_notes": NOTE,
        "difficulty": "<15 min fix",
        "difficulty_notes": "One guard.",
        "other_major_issues": int(values[2]),
        "other_notes": NOTE,
        "annotator_confidence": int(values[3]),
    }


def rule(label, a):
    """The label of one answer (or ensemble) as a dict of values."""
    if label == "underspecified>=2":
        return float(a["underspecified"] >= 2)
    if label == "false_negative>=1":
        return float(a["false_negative"] >= 1)
    if label == "kept":
        return float(not (a["underspecified"] >= 2 or a["false_negative"] >= 2 or a["other_major_issues"] >= 1))
    if label == "annotator_confidence":
        return float(a["annotator_confidence"])
    raise ValueError(label)


def noisy(rng, truth, wrong):
    """An answer near the truth: each value off by one step with chance `wrong`."""
    out = list(truth)
    for k, top in enumerate([3, 3, 1, 5]):
        if rng.random() < wrong:
            low = 1 if k == 3 else 0
            out[k] = int(min(top, max(low, out[k] + rng.choice([-1, 1]))))
    return out


def serve(chat_serve, work, name, answers):
    folder = work / f"serve-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answers.json").write_text(json.dumps(answers))
    port_file = folder / "port"
    if port_file.exists():
        port_file.unlink()
    proc = subprocess.Popen(
        [chat_serve, str(folder), "--answers", str(folder / "answers.json")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        if port_file.exists() and port_file.read_text().strip():
            return proc, port_file.read_text().strip()
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("chat_serve did not start")


def weighted_centre(values, weights):
    w = weights / weights.sum() * len(weights)
    return float((w * values).mean())


def ref_lambda(Y, f, fu, w, wu):
    n, N = len(Y), len(fu)
    ww = np.ones(n) if w is None else w / w.sum() * n
    wwu = np.ones(N) if wu is None else wu / wu.sum() * N
    theta = (wwu * fu).mean() + (ww * (Y - f)).mean()
    return float(
        _calc_lam_glm(ww * (Y - theta), ww * (f - theta), wwu * (fu - theta), np.eye(1), clip=True)
    )


def ref_point(Y, f, fu, w, wu, lam):
    kw = {} if w is None else {"w": w, "w_unlabeled": wu}
    return float(np.ravel(ppi_mean_pointestimate(Y, f, fu, lam=lam, **kw))[0])


def ref_ci(Y, f, fu, w, wu, lam):
    """ppi-python's interval; with weights, of the inputs centred at their weighted means."""
    if w is None:
        lo, hi = ppi_mean_ci(Y, f, fu, alpha=ALPHA, lam=lam)
        return float(np.ravel(lo)[0]), float(np.ravel(hi)[0])
    r = weighted_centre(Y - lam * f, w)
    m = weighted_centre(fu, wu)
    lo, hi = ppi_mean_ci(Y - r, f, fu - m, alpha=ALPHA, lam=lam, w=w, w_unlabeled=wu)
    shift = r + lam * m
    return float(np.ravel(lo)[0]) + shift, float(np.ravel(hi)[0]) + shift


def ref_classical(Y, w):
    if w is None:
        lo, hi = classical_mean_ci(Y, alpha=ALPHA)
        return float(Y.mean()), (float(lo), float(hi))
    m = weighted_centre(Y, w)
    lo, hi = classical_mean_ci(Y - m, w=w, alpha=ALPHA)
    return m, (float(lo) + m, float(hi) + m)


def ref_finite(Y, f, fu, lam_fixed):
    """The finite-population difference estimator with a simple random sample, in numpy."""
    n, T = len(Y), len(Y) + len(fu)
    allf = np.concatenate([f, fu])
    if lam_fixed is None:
        cov = np.mean((Y - Y.mean()) * (f - f.mean()))
        lam = float(np.clip(cov / allf.var(), 0, 1)) if allf.var() > 0 else 0.0
    else:
        lam = lam_fixed
    r = Y - lam * f
    est = lam * allf.mean() + r.mean()
    se = np.sqrt((1 - n / T) * r.var(ddof=1) / n)
    q = student.ppf(1 - ALPHA / 2, n - 1)
    return lam, est, (est - q * se, est + q * se)


def uncertainty_probabilities(f, size, floor, cap=0.9):
    u = np.sqrt(np.clip(f, 0, 1) * (1 - np.clip(f, 0, 1)))
    T = len(f)
    share = (1 - floor) * u / u.sum() + floor / T if u.sum() > 0 else np.full(T, 1 / T)
    pi = size * share
    held = np.zeros(T, bool)
    while True:
        over = (~held) & (pi > cap)
        if not over.any():
            return pi
        held |= over
        pi[over] = cap
        free = ~held
        pi[free] *= (size - pi[held].sum()) / pi[free].sum()


def panel(spec, binary, chat_serve, fixture, work):
    name = spec["name"]
    rng = np.random.default_rng(spec["seed"])
    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    project = folder / "p.verity"
    if project.exists():
        project.unlink()
    base = json.loads(Path(fixture).read_text().splitlines()[0])
    ids, truth = [], {}
    with open(folder / "tasks.jsonl", "w") as fh:
        for i in range(spec["tasks"]):
            task = dict(base)
            task["instance_id"] = f"acme__calc-{10000 + i}"
            fh.write(json.dumps(task) + "\n")
            ids.append(task["instance_id"])
            hard = rng.random() < spec["share"]
            truth[task["instance_id"]] = [
                int(rng.integers(2, 4)) if hard else int(rng.integers(0, 2)),
                int(rng.integers(0, 4)),
                int(rng.random() < 0.1),
                int(rng.integers(3, 6)) if not hard else int(rng.integers(1, 4)),
            ]
    verity(binary, project, "init")
    verity(binary, project, "import", str(folder / "tasks.jsonl"))
    model_answers = {m: {} for m in MODELS}
    servers = []
    try:
        for m, wrong in MODELS.items():
            for i in ids:
                model_answers[m][i] = answer(noisy(rng, truth[i], wrong))
            proc, port = serve(chat_serve, work, f"{name}-{m}", model_answers[m])
            servers.append(proc)
            verity(binary, project, "models", "add", m, "--endpoint", f"http://127.0.0.1:{port}/v1",
                   "--model", m, "--api-key-env", "VERITY_BENCH_NO_KEY")
            out = subprocess.run([binary, "--project", str(project), "models", "rate", m, "--all", "--json"],
                                 capture_output=True, text=True, env={**os.environ, "VERITY_BENCH_NO_KEY": "none"})
            if out.returncode != 0:
                raise SystemExit(f"models rate failed: {out.stderr}")
    finally:
        for proc in servers:
            proc.kill()
            proc.wait()
    for r in RATERS:
        verity(binary, project, "raters", "add", r)
    draw = ["assign", "--sample", str(spec["sample"]), "--seed", str(spec["seed"]), "--per-case", "3", "--json"]
    if spec["by"] == "uncertainty":
        draw += ["--by", "uncertainty", "--predictor", "models", "--label", "kept", "--floor", str(spec["floor"])]
    verity(binary, project, *draw)
    if spec.get("extend"):
        verity(binary, project, "assign", "--sample", str(spec["extend"]), "--seed", str(spec["seed"] + 1), "--per-case", "3", "--json")
    db = sqlite3.connect(project)
    instance = dict(db.execute("SELECT id, instance_id FROM cases"))
    frame = {}
    drawn = set()
    for draw_id, case, p, d in db.execute("SELECT draw_id, case_id, probability, drawn FROM sample_frame ORDER BY draw_id, case_id"):
        frame.setdefault(case, []).append(float(p))
        if d:
            drawn.add(case)
    if spec["by"] == "uncertainty":
        kept = np.array([np.mean([rule("kept", model_answers[m][instance[c]]) for m in MODELS]) for c in sorted(frame)])
        pi = uncertainty_probabilities(kept, spec["sample"], spec["floor"])
        for c, want in zip(sorted(frame), pi):
            check(frame[c][0], want, f"{name}: draw probability of {instance[c]}")
    db.close()
    # The humans answer every sampled task, but leave a few incomplete.
    complete = set()
    answers_file = folder / "answer.json"
    for c in sorted(drawn):
        i = instance[c]
        leave = rng.random() < spec["incomplete"]
        for k, r in enumerate(RATERS):
            if leave and k == 2:
                continue
            answers_file.write_text(json.dumps(answer(noisy(rng, truth[i], 0.2))))
            verity(binary, project, "answer", "--rater", r, "--case", i, "--file", str(answers_file), "--submit")
        if not leave:
            complete.add(c)
    # Three systems, likelier to resolve a task that is not underspecified.
    for s, (easy, hard) in {"alpha": (0.55, 0.2), "beta": (0.35, 0.15), "gamma": (0.3, 0.3)}.items():
        results = {f"instance_{i}": bool(rng.random() < (hard if truth[i][0] >= 2 else easy)) for i in ids}
        (folder / f"{s}.eval_results.json").write_text(json.dumps(results))
        verity(binary, project, "results", "import", str(folder / f"{s}.eval_results.json"))
    ensemble = json.loads(verity(binary, project, "ensemble", "--json"))
    gold = {c["instance_id"]: {l["question"]: l["value"] for l in c["labels"]} for c in ensemble["cases"]}

    population = sorted(frame)
    pi = {c: 1 - np.prod([1 - p for p in frame[c]]) for c in population}
    labelled = [c for c in population if c in complete]
    others = [c for c in population if c not in complete]
    share = len(labelled) / len(drawn)
    uniform = max(pi.values()) - min(pi.values()) <= 1e-9 * max(pi.values())
    if uniform:
        w = wu = None
    else:
        w = np.array([1 / (pi[c] * share) for c in labelled])
        wu = np.array([1 / (1 - pi[c] * share) for c in others])

    def predicted(label, predictor, c):
        i = instance[c]
        if predictor == "models":
            return float(np.mean([rule(label, model_answers[m][i]) for m in MODELS]))
        return rule(label, model_answers[predictor.split(":")[1]][i])

    for label in LABELS:
        Y = np.array([rule(label, gold[instance[c]]) for c in labelled])
        for predictor in PREDICTORS:
            f = np.array([predicted(label, predictor, c) for c in labelled])
            fu = np.array([predicted(label, predictor, c) for c in others])
            lam_hat = ref_lambda(Y, f, fu, w, wu)
            if w is None:
                # λ as ppi-python estimates it inside ppi_mean_ci.
                lo_a, _ = ppi_mean_ci(Y, f, fu, alpha=ALPHA)
                lo_b, _ = ppi_mean_ci(Y, f, fu, alpha=ALPHA, lam=lam_hat)
                check(float(np.ravel(lo_a)[0]), float(np.ravel(lo_b)[0]), f"{name}: λ recreated")
            c_est, c_ci = ref_classical(Y, w)
            for lam in LAMBDAS:
                where = f"{name} {label} {predictor} λ={lam}"
                args = ["estimate", "--label", label, "--predictor", predictor, "--json"]
                if lam is not None:
                    args += ["--lambda", str(lam)]
                e = json.loads(verity(binary, project, *args))
                compared["estimates"] += 1
                used = lam_hat if lam is None else lam
                check(e["lambda"], used, where + " lambda")
                check(e["estimate"], ref_point(Y, f, fu, w, wu, used), where + " estimate")
                lo, hi = ref_ci(Y, f, fu, w, wu, used)
                check(e["ci"][0], lo, where + " ci")
                check(e["ci"][1], hi, where + " ci")
                check(e["classical_estimate"], c_est, where + " classical_estimate")
                check(e["classical_ci"][0], c_ci[0], where + " classical_ci")
                check(e["classical_ci"][1], c_ci[1], where + " classical_ci")
                se, se_c = (hi - lo) / 2, (c_ci[1] - c_ci[0]) / 2
                check(e["effective_n"] / len(Y), (se_c / se) ** 2, where + " effective_n / n")
                check(e["n_labeled"], len(Y), where + " n_labeled")
                check(e["n_unlabeled"], len(fu), where + " n_unlabeled")
                if e["sampling"] != ("uniform" if uniform else "weighted"):
                    raise SystemExit(f"{where}: sampling {e['sampling']}")
                if uniform and lam in (None, 1.0):
                    fin = json.loads(verity(binary, project, *args, "--finite"))
                    lam_f, est_f, ci_f = ref_finite(Y, f, fu, lam)
                    check(fin["lambda"], lam_f, where + " finite lambda")
                    check(fin["estimate"], est_f, where + " finite estimate")
                    check(fin["ci"][0], ci_f[0], where + " finite ci")
                    check(fin["ci"][1], ci_f[1], where + " finite ci")
    scores(binary, project, name, folder, instance, population, labelled, others, gold, w, wu, predicted)
    return {"name": name, "tasks": spec["tasks"], "sampled": len(drawn), "labelled": len(labelled),
            "sampling": "uniform" if uniform else "weighted"}


def ref_ratio(a, ah, au, b, bh, bu, w, wu, lam):
    """ppi-python's means of a and b at λ (estimated on the linearised mean), and the
    linearised mean's interval over b's estimate."""
    if lam is None:
        theta1 = ref_point(a, ah, au, w, wu, 1.0) / ref_point(b, bh, bu, w, wu, 1.0)
        lam = ref_lambda(a - theta1 * b, ah - theta1 * bh, au - theta1 * bu, w, wu)
    den = ref_point(b, bh, bu, w, wu, lam)
    theta = ref_point(a, ah, au, w, wu, lam) / den
    lo, hi = ref_ci(a - theta * b, ah - theta * bh, au - theta * bu, w, wu, lam)
    # ppi-python's z-interval gives the standard error; a ratio takes Student's t with n − 1
    # degrees of freedom.
    se = (hi - lo) / 2 / norm.ppf(1 - ALPHA / 2) / den
    q = student.ppf(1 - ALPHA / 2, len(a) - 1)
    return theta, (theta - q * se, theta + q * se)


def scores(binary, project, name, folder, instance, population, labelled, others, gold, w, wu, predicted):
    report = json.loads(verity(binary, project, "scores", "--predictor", "models", "--bootstrap", "0", "--json"))
    outcomes = {}
    for s in ["alpha", "beta", "gamma"]:
        res = json.loads((folder / f"{s}.eval_results.json").read_text())
        outcomes[s] = {i: res.get(f"instance_{i}", False) for i in instance.values()}
    D = np.array([rule("kept", gold[instance[c]]) for c in labelled])
    Dh = np.array([predicted("kept", "models", c) for c in labelled])
    Du = np.array([predicted("kept", "models", c) for c in others])
    R = {s: (np.array([float(outcomes[s][instance[c]]) for c in labelled]),
             np.array([float(outcomes[s][instance[c]]) for c in others])) for s in outcomes}
    by_name = {s["system"]: s for s in report["systems"]}
    for s, (rl, ru) in R.items():
        for lam, key in [(None, "determinate_rate_ppi"), (0.0, "determinate_rate_labeled")]:
            theta, ci = ref_ratio(D * rl, Dh * rl, Du * ru, D, Dh, Du, w, wu, lam)
            check(by_name[s][key], theta, f"{name} scores {s} {key}")
            check(by_name[s][key + "_ci"][0], ci[0], f"{name} scores {s} {key}_ci")
            check(by_name[s][key + "_ci"][1], ci[1], f"{name} scores {s} {key}_ci")
            compared["scores"] += 1
    for p in report["pairs"]:
        if p["denominator"] != "determinate":
            continue
        (al, au), (bl, bu) = R[p["a"]], R[p["b"]]
        x, xu = al - bl, au - bu
        for lam, key in [(None, "difference_ppi"), (0.0, "difference_labeled")]:
            theta, ci = ref_ratio(D * x, Dh * x, Du * xu, D, Dh, Du, w, wu, lam)
            check(p[key], theta, f"{name} scores {p['a']}-{p['b']} {key}")
            check(p[key + "_ci"][0], ci[0], f"{name} scores {p['a']}-{p['b']} {key}_ci")
            check(p[key + "_ci"][1], ci[1], f"{name} scores {p['a']}-{p['b']} {key}_ci")
            compared["scores"] += 1


SPECS = [
    {"name": "uniform-150", "tasks": 150, "sample": 45, "by": "uniform", "share": 0.3, "incomplete": 0.0, "seed": 1},
    {"name": "uniform-240-incomplete", "tasks": 240, "sample": 60, "by": "uniform", "share": 0.2, "incomplete": 0.15, "seed": 2},
    {"name": "uniform-extended", "tasks": 200, "sample": 40, "extend": 30, "by": "uniform", "share": 0.35, "incomplete": 0.1, "seed": 3},
    {"name": "uncertainty-300", "tasks": 300, "sample": 70, "by": "uncertainty", "floor": 0.5, "share": 0.3, "incomplete": 0.0, "seed": 4},
    {"name": "uncertainty-200-floor", "tasks": 200, "sample": 50, "by": "uncertainty", "floor": 0.2, "share": 0.25, "incomplete": 0.1, "seed": 5},
    {"name": "uniform-400", "tasks": 400, "sample": 90, "by": "uniform", "share": 0.15, "incomplete": 0.05, "seed": 6},
    {"name": "uncertainty-extended", "tasks": 220, "sample": 40, "extend": 25, "by": "uncertainty", "floor": 0.5, "share": 0.3, "incomplete": 0.0, "seed": 7},
    {"name": "uniform-100", "tasks": 100, "sample": 30, "by": "uniform", "share": 0.4, "incomplete": 0.0, "seed": 8},
]


def main():
    binary, chat_serve, fixture, work = sys.argv[1:5]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else len(SPECS)
    work = Path(work)
    rows = [panel(spec, binary, chat_serve, fixture, work) for spec in SPECS[:count]]
    for r in rows:
        print(f"  {r['name']}: {r['tasks']} tasks, {r['sampled']} sampled ({r['sampling']}), {r['labelled']} labelled")
    print(
        f"ppi: {len(rows)} panels, {compared['estimates']} estimates and {compared['scores']} rates and differences, "
        f"{compared['figures']} figures against ppi-python {__import__('importlib.metadata').metadata.version('ppi-python')}; "
        f"largest difference {worst['error']:.3g} ({worst['where']})"
    )
    if not worst["error"] <= TOLERANCE:
        sys.exit(1)


if __name__ == "__main__":
    main()
