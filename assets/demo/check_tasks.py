#!/usr/bin/env python3
"""Re-derive the demo tasks' test verdicts by running them.

Rebuilds the demo repository from the snapshots in repo/<n>/ with the git command line
(the same pinned author, committer and times that annotations::demo uses with git2, so
the ids must match the tasks' base commits), then for every task in tasks.jsonl:

  1. checks out the base commit and applies the test patch: every FAIL_TO_PASS test
     must fail (or be missing) and every PASS_TO_PASS test must pass;
  2. applies the gold patch as well: every FAIL_TO_PASS and PASS_TO_PASS test must pass.

Needs git and a Python with pytest. Usage: python3 assets/demo/check_tasks.py [PYTHON]
Exit status 0 when every task behaves as recorded, 1 otherwise.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
# (time, message) of each commit; annotations/src/demo.rs pins the same values.
HISTORY = [
    (1709546400, "Initial import of tinylib 0.1.0"),
    (1713175200, "Add TTLCache and the retry decorator"),
    (1717322400, "Add JSON Lines reader and writer and the config loader"),
    (1724061600, "Add the Table class and the tinylib command"),
]
RESULT = re.compile(r"^(PASSED|FAILED|ERROR) (tests/.*?)(?: - .*)?$")


def git(cwd, *args, env=None):
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env
    ).stdout


def build_repository(work):
    git(work, "init", "--quiet", "--initial-branch=main", ".")
    ids = []
    for number, (time, message) in enumerate(HISTORY, start=1):
        shutil.copytree(HERE / "repo" / str(number), work, dirs_exist_ok=True, copy_function=shutil.copyfile)
        env = dict(os.environ)
        for role in ("AUTHOR", "COMMITTER"):
            env[f"GIT_{role}_NAME"] = "Mira Okafor"
            env[f"GIT_{role}_EMAIL"] = "mira@tinylib.example"
            env[f"GIT_{role}_DATE"] = f"{time} +0000"
        # Start from an empty index so that every file is hashed again: copied snapshot
        # files can keep the size and time stamp of the version they replace.
        git(work, "read-tree", "--empty")
        git(work, "add", "--all")
        git(work, "-c", "core.fileMode=false", "commit", "--quiet", "--no-gpg-sign", "-m", message, env=env)
        ids.append(git(work, "rev-parse", "HEAD").strip())
    return ids


def run_tests(work, python):
    completed = subprocess.run(
        [python, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "--continue-on-collection-errors"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    results = {}
    for line in completed.stdout.splitlines():
        match = RESULT.match(line)
        if match:
            results[match.group(2)] = match.group(1)
    return results


def main():
    python = sys.argv[1] if len(sys.argv) > 1 else sys.executable
    tasks = [json.loads(line) for line in (HERE / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    problems = []
    with tempfile.TemporaryDirectory() as temp:
        work = pathlib.Path(temp) / "tinylib"
        work.mkdir()
        ids = build_repository(work)
        print("commits:", " ".join(commit[:12] for commit in ids))
        for task in tasks:
            name = task["instance_id"]
            if task["base_commit"] not in ids:
                problems.append(f"{name}: base commit {task['base_commit']} is not in the rebuilt history")
                continue
            f2p = json.loads(task["FAIL_TO_PASS"])
            p2p = json.loads(task["PASS_TO_PASS"])
            git(work, "checkout", "--quiet", "--force", "--detach", task["base_commit"])
            git(work, "clean", "--quiet", "-fdx")
            for field in ("test_patch", "patch"):
                patch = pathlib.Path(temp) / f"{field}.diff"
                patch.write_text(task[field], encoding="utf-8")
                git(work, "apply", str(patch))
                results = run_tests(work, python)
                stage = "with the test patch" if field == "test_patch" else "with gold and test patches"
                for test in f2p:
                    passed = results.get(test) == "PASSED"
                    if passed != (field == "patch"):
                        problems.append(f"{name}: FAIL_TO_PASS {test} is {results.get(test, 'missing')} {stage}")
                for test in p2p:
                    if results.get(test) != "PASSED":
                        problems.append(f"{name}: PASS_TO_PASS {test} is {results.get(test, 'missing')} {stage}")
            print(f"{name}: {len(f2p)} FAIL_TO_PASS, {len(p2p)} PASS_TO_PASS checked")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
