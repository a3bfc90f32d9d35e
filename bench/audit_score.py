#!/usr/bin/env python3
"""Scores Verity's evidence reports against the determinacy audit's verdicts.

Usage: audit_score.py AUDIT_DIR REPORTS.jsonl [--cases CASES.json] [--dev OWNER,OWNER...] [--json]

AUDIT_DIR is `determinacy-audit/` (COVERAGE.md, KNOWN_AMBIGUOUS.md, cases/). REPORTS.jsonl
holds one `verity evidence ID --json` report per line. Tasks are matched by instance id.

Three measures, each over the development repositories and over the held-out ones:
- **witness recall**: for each airtight task (COVERAGE.md's witness class `airtight`), whether
  the discriminating constant of its AMBIGUITY_WITNESS.md is among the report's first three
  candidates. A candidate matches when, quotes stripped, it equals the constant, contains it,
  or is a piece of four characters or more of it (the constant `telemetry_enabled: false`
  is matched by the candidate `telemetry_enabled`).
  The witness is *reachable* when, quotes stripped, it appears on an added line of the task's
  hidden test patch: a constant the tests never write out cannot be found in them, and the
  reachable count is the recall any term-based engine can reach.
- **flagged share**: ENTAILED and DETERMINED-codebase tasks showing at least one airtight
  candidate (the red ones).
- **AUROC** of the report's `summary.risk` for the PROVEN tasks of KNOWN_AMBIGUOUS.md against
  the ENTAILED and DETERMINED-codebase ones (ties count a half), and the share of PROVEN tasks
  flagged red.

With `--cases` (`verity cases --json` after `verity sweep`), the same AUROC and red shares again
with each task's risk as Verity orders it, the evidence's moved by the task's sweep, and red when
the terms or the sweep flag it; and how the sweep's tiers fall among proven and clean tasks.
"""

import argparse
import json
import re
import sys
from pathlib import Path

DEV_DEFAULT = ("flipt-io", "NodeBB", "future-architect")


def coverage(audit: Path) -> dict[str, tuple[str, str]]:
    """Slug -> (verdict, witness class)."""
    rows = {}
    for line in (audit / "COVERAGE.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and (audit / "cases" / cells[0]).is_dir():
            rows[cells[0]] = (cells[1], cells[4])
    return rows


def proven(audit: Path) -> set[str]:
    text = (audit / "KNOWN_AMBIGUOUS.md").read_text()
    section = text.split("## PROVEN", 1)[1].split("\n## ", 1)[0]
    return {
        m.group(1)
        for m in re.finditer(r"^\| ([A-Za-z][\w.-]*_[0-9a-f]{8}) \|", section, re.M)
    }


def witness(case: Path) -> str | None:
    """The discriminating constant of an airtight task, as the witness states it."""
    path = case / "AMBIGUITY_WITNESS.md"
    if not path.exists():
        return None
    text = path.read_text()
    for pattern in (
        r"discriminating constant `([^`\n]+)`",
        r"gold value \(test-pinned\): `(.+)`\s*$",
    ):
        m = re.search(pattern, text, re.M)
        if m:
            return m.group(1)
    return None


def reachable(case: Path, constant: str | None) -> bool:
    if constant is None:
        return False
    added = "\n".join(
        line[1:]
        for line in (case / "hidden_test.diff").read_text(errors="replace").splitlines()
        if line.startswith("+") and not line.startswith("+++")
    )
    return unquote(constant) in added


def unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def matches(candidate: str, constant: str) -> bool:
    c, w = unquote(candidate), unquote(constant)
    return c == w or (len(w) >= 3 and w in c) or (len(c) >= 4 and c in w)


def share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def auroc(positives: list[float], negatives: list[float]) -> float | None:
    if not positives or not negatives:
        return None
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audit", type=Path, help="the determinacy-audit folder")
    parser.add_argument("reports", type=Path, help="verity evidence --json reports, one a line")
    parser.add_argument(
        "--dev",
        default=",".join(DEV_DEFAULT),
        help="owners of the development repositories, comma-separated",
    )
    parser.add_argument("--cases", type=Path, help="verity cases --json, after verity sweep")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    options = parser.parse_args()
    audit, reports_path = options.audit, options.reports
    dev = tuple(options.dev.split(","))
    reports = {}
    for line in reports_path.read_text().splitlines():
        if line.strip():
            report = json.loads(line)
            # Reports written before `instance_id` named the task call it `case_id`.
            reports[report.get("instance_id", report.get("case_id"))] = report
    cover = coverage(audit)
    proven_set = proven(audit)
    rows = {}
    if options.cases:
        rows = {r["instance_id"]: r for r in json.loads(options.cases.read_text())}

    splits: dict[str, dict] = {}
    for slug, (verdict, klass) in sorted(cover.items()):
        case = audit / "cases" / slug
        instance = (case / "instance_id.txt").read_text().strip()
        report = reports.get(instance)
        if report is None:
            continue
        split = "dev" if slug.split("_")[0] in dev else "held-out"
        s = splits.setdefault(
            split,
            {
                "tasks": 0,
                "airtight": [],
                "clean": [],
                "pos": [],
                "neg": [],
                "proven_red": [],
                "swept_pos": [],
                "swept_neg": [],
                "swept_red_pos": [],
                "swept_red_neg": [],
                "tiers": {},
                "repos": set(),
            },
        )
        s["tasks"] += 1
        s["repos"].add(report["repo"])
        candidates = report.get("candidates", [])
        red = any(c.get("airtight", True) for c in candidates)
        risk = report.get("summary", {}).get("risk")
        if klass == "airtight":
            constant = witness(case)
            top = [c["term"] for c in candidates[:3]]
            hit = constant is not None and any(matches(t, constant) for t in top)
            s["airtight"].append((slug, constant, hit, top, reachable(case, constant)))
        clean = verdict in ("ENTAILED", "DETERMINED-codebase")
        if clean:
            s["clean"].append((slug, red))
            if risk is not None:
                s["neg"].append(risk)
        if slug in proven_set:
            s["proven_red"].append(red)
            if risk is not None:
                s["pos"].append(risk)
        row = rows.get(instance)
        if row is not None and (clean or slug in proven_set):
            side = "pos" if slug in proven_set else "neg"
            if row.get("risk") is not None:
                s[f"swept_{side}"].append(row["risk"])
            s[f"swept_red_{side}"].append(red or row.get("sweep_red", False))
            key = f"{'proven' if side == 'pos' else verdict} {row.get('sweep_tier') or 'no sweep'}"
            s["tiers"][key] = s["tiers"].get(key, 0) + 1

    out = {}
    for split, s in sorted(splits.items()):
        recall = [hit for _, _, hit, _, _ in s["airtight"]]
        reach = [r for *_, r in s["airtight"]]
        flagged = [red for _, red in s["clean"]]
        out[split] = {
            "repos": sorted(s["repos"]),
            "tasks": s["tasks"],
            "airtight_tasks": len(recall),
            "witness_in_top3": sum(recall),
            "witness_recall": sum(recall) / len(recall) if recall else None,
            "witness_reachable": sum(reach),
            "clean_tasks": len(flagged),
            "clean_flagged": sum(flagged),
            "flagged_share": sum(flagged) / len(flagged) if flagged else None,
            "proven_tasks": len(s["pos"]),
            "auroc": auroc(s["pos"], s["neg"]),
            "proven_flagged": sum(s["proven_red"]),
            "proven_flagged_share": share(s["proven_red"]),
            "missed": [
                {"case": slug, "witness": w, "top3": top}
                for slug, w, hit, top, _ in s["airtight"]
                if not hit
            ],
        }
        if rows:
            out[split]["with_sweep"] = {
                "auroc": auroc(s["swept_pos"], s["swept_neg"]),
                "proven_flagged": sum(s["swept_red_pos"]),
                "proven_tasks": len(s["swept_red_pos"]),
                "proven_flagged_share": share(s["swept_red_pos"]),
                "clean_flagged": sum(s["swept_red_neg"]),
                "clean_tasks": len(s["swept_red_neg"]),
                "flagged_share": share(s["swept_red_neg"]),
                "tiers": dict(sorted(s["tiers"].items())),
            }
    if options.json:
        print(json.dumps(out, indent=1))
        return 0
    for split, r in out.items():
        print(f"{split}: {r['tasks']} tasks of {', '.join(r['repos'])}")
        fmt = lambda v: "n/a" if v is None else f"{v:.3f}"
        print(
            f"  witness in top-3: {r['witness_in_top3']}/{r['airtight_tasks']} "
            f"({fmt(r['witness_recall'])}); {r['witness_reachable']} witnesses appear on an "
            "added line of the test patch"
        )
        print(
            f"  ENTAILED/DETERMINED flagged: {r['clean_flagged']}/{r['clean_tasks']} "
            f"({fmt(r['flagged_share'])})"
        )
        print(
            f"  AUROC of risk, {r['proven_tasks']} proven vs {r['clean_tasks']} clean: "
            f"{fmt(r['auroc'])}; proven flagged: {r['proven_flagged']} "
            f"({fmt(r['proven_flagged_share'])})"
        )
        w = r.get("with_sweep")
        if w:
            print(
                f"  with the sweep: AUROC {fmt(w['auroc'])}; proven flagged "
                f"{w['proven_flagged']}/{w['proven_tasks']} ({fmt(w['proven_flagged_share'])}); "
                f"ENTAILED/DETERMINED flagged {w['clean_flagged']}/{w['clean_tasks']} "
                f"({fmt(w['flagged_share'])})"
            )
            for key, n in w["tiers"].items():
                print(f"    {key}: {n}")
        if split == "dev":
            for m in r["missed"]:
                print(f"    missed {m['case']}: {m['witness']!r} top-3 {m['top3']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
