#!/usr/bin/env python3
"""Cold evidence against `git grep -F -l` with the same terms, on a sample of audited tasks.

Usage: audit_speed.py VERITY PROJECT REPORTS.jsonl SAMPLE OWNER/NAME...

For SAMPLE tasks of each repository (evenly spaced in id order), times a fresh
`verity evidence ID --refresh --json` (a new process: nothing cached in memory, the report
recomputed) and `git grep -F -l -I` at the base commit with every term and pattern the report
searched for, and prints the sums and their ratio, per repository and over all.
"""

import json
import subprocess
import sys
import time


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


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
    total_v = total_g = 0.0
    for repo in repos:
        reports = sorted(by_repo.get(repo, []), key=lambda r: r["case_id"])
        if not reports:
            continue
        step = max(1, len(reports) // int(sample))
        chosen = reports[::step][: int(sample)]
        sum_v = sum_g = 0.0
        for report in chosen:
            terms = [t["term"] for t in report["terms"]]
            terms += [p["snippet"] for p in report.get("precedents", [])]
            grep = ["git", "-C", paths[repo], "grep", "-F", "-l", "-I"]
            for term in terms:
                grep += ["-e", term]
            grep.append(report["base_commit"])
            sum_g += timed(grep)
            sum_v += timed(
                [verity, "evidence", report["case_id"], "--refresh", "--json", "--project", project]
            )
        total_v += sum_v
        total_g += sum_g
        print(
            f"  {repo}: {len(chosen)} tasks, verity {sum_v:.2f} s, git grep {sum_g:.2f} s, "
            f"ratio {sum_v / sum_g:.2f}"
        )
    if total_g:
        print(f"  all: verity {total_v:.2f} s, git grep {total_g:.2f} s, ratio {total_v / total_g:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
