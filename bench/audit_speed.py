#!/usr/bin/env python3
"""Cold evidence against `git grep -F -l` with the same terms, on a sample of audited tasks.

Usage: audit_speed.py VERITY PROJECT REPORTS.jsonl SAMPLE OWNER/NAME...

For SAMPLE tasks of each repository (evenly spaced in id order), runs `git grep -F -l -I` at
the base commit with every term and pattern the report searched for, then a fresh
`verity evidence ID --refresh -v` (a new process: nothing cached in memory, the report
recomputed), back to back. It prints, per repository and over all, the sums of git grep's wall
time, Verity's wall time (with the process's start, the project's opening and the cache write)
and the engine's own time (the `elapsed_ms` Verity logs), and the median of the per-task ratios
engine / git grep: paired ratios cancel the load swings of a shared machine.
"""

import json
import re
import statistics
import subprocess
import sys
import time


def timed(argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    return time.perf_counter() - start, done.stderr.decode(errors="replace")


def engine_seconds(log: str) -> float:
    found = re.search(r"elapsed_ms=(\d+)", re.sub(r"\x1b\[[0-9;]*m", "", log))
    if not found:
        raise SystemExit(f"no elapsed_ms in verity's log: {log[-300:]}")
    return int(found.group(1)) / 1000.0


def main() -> int:
    verity, project, reports_path, sample = sys.argv[1:5]
    repos = sys.argv[5:]
    listing = json.loads(
        subprocess.run(
            [verity, "repo", "list", "--project", project, "--json"],
            capture_output=True,
            check=True,
        ).stdout
    )
    paths = {row["name"]: row["path"] for row in listing}
    by_repo: dict[str, list[dict]] = {}
    for line in open(reports_path):
        if line.strip():
            report = json.loads(line)
            by_repo.setdefault(report["repo"], []).append(report)
    totals = [0.0, 0.0, 0.0]
    all_ratios: list[float] = []
    for repo in repos:
        reports = sorted(by_repo.get(repo, []), key=lambda r: r.get("instance_id", r.get("case_id")))
        if not reports:
            continue
        step = max(1, len(reports) // int(sample))
        chosen = reports[::step][: int(sample)]
        sums = [0.0, 0.0, 0.0]
        ratios = []
        for report in chosen:
            terms = [t["term"] for t in report["terms"]]
            terms += [p["snippet"] for p in report.get("precedents", [])]
            grep = ["git", "-C", paths[repo], "grep", "-F", "-l", "-I"]
            for term in terms:
                grep += ["-e", term]
            grep.append(report["base_commit"])
            g, _ = timed(grep)
            v, log = timed(
                [verity, "evidence", report.get("instance_id", report.get("case_id")), "--refresh", "-v", "--project", project]
            )
            e = engine_seconds(log)
            for i, x in enumerate((g, v, e)):
                sums[i] += x
            ratios.append(e / g)
        all_ratios += ratios
        totals = [t + x for t, x in zip(totals, sums)]
        print(
            f"  {repo}: {len(chosen)} tasks, git grep {sums[0]:.2f} s, verity {sums[1]:.2f} s "
            f"(engine {sums[2]:.2f} s); median engine / git grep {statistics.median(ratios):.2f}"
        )
    if all_ratios:
        print(
            f"  all: git grep {totals[0]:.2f} s, verity {totals[1]:.2f} s (engine {totals[2]:.2f} s); "
            f"median engine / git grep {statistics.median(all_ratios):.2f} (target 0.5)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
