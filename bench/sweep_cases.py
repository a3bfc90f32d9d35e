"""Makes the inputs of bench/sweep.sh and scores its outputs.

    sweep_cases.py make CASES INSTANCES OUT    # proposals.json, negatives.json, variants.json,
                                               # and for a served proposer answers.json (the
                                               # audit's proposals as replies by instance id)
                                               # and rows.jsonl (those tasks' rows)
    sweep_cases.py score CASES INSTANCES OUT   # figures from results.json and the others

OUT/clones lists `OWNER/NAME PATH` for each registered clone. Only proposals of those
repositories are used.
"""

import glob
import json
import os
import random
import re
import subprocess
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
TEST_PATH = re.compile(
    r"(^|/)(test|tests|__tests__|spec|testing)/|(^|/)test_[^/]*\.py$|_test\.(go|py)$|\.(test|spec)\.[jt]sx?$"
)
TEST_LINE = re.compile(r"assert|expect\(|t\.(Error|Fatal)|require\.|self\.assert")


def load(cases, instances, out):
    repo_of = {}
    for line in open(instances):
        row = json.loads(line)
        repo_of[row["instance_id"]] = (row["repo"], row["base_commit"])
    clones = dict(line.split(None, 1) for line in open(os.path.join(out, "clones")).read().splitlines())
    docs = []
    for f in sorted(glob.glob(os.path.join(cases, "*", "codebase_ambiguity.json"))):
        doc = json.load(open(f))
        repo = repo_of.get(doc["iid"], (None, None))[0]
        if repo in clones:
            docs.append(doc)
    return docs, repo_of, clones


def git(clone, *args):
    return subprocess.run(["git", *args], cwd=clone, capture_output=True, check=True).stdout


def mutate(snippet, which, rng):
    """The snippet with one identifier changed on its `which`-th non-blank line, or None."""
    lines = snippet.split("\n")
    filled = [i for i, l in enumerate(lines) if l.strip()]
    at = filled[which % len(filled)]
    names = list(IDENT.finditer(lines[at]))
    if not names:
        return None
    m = rng.choice(names)
    lines[at] = lines[at][: m.start()] + m.group(0) + "Qz" + lines[at][m.end():]
    return "\n".join(lines)


def reindent(snippet, rng):
    out = []
    for line in snippet.split("\n"):
        lead = rng.choice(["", "  ", "\t", "    ", "\t\t"])
        tail = rng.choice(["", " ", "\t", "  "])
        out.append(lead + line.strip(" \t") + tail)
    return rng.choice(["\n", "\r\n"]).join(out)


def make(cases, instances, out):
    rng = random.Random(28)
    docs, repo_of, clones = load(cases, instances, out)
    json.dump(docs, open(os.path.join(out, "proposals.json"), "w"), indent=1)
    negatives, variants = [], []
    for doc in docs:
        neg, var = [], []
        for k, s in enumerate(doc["verified"]):
            for which in (k, k + 1, k + 2):
                changed = mutate(s["snippet"], which, rng)
                if changed is not None and changed not in [n["snippet"] for n in neg]:
                    neg.append({"path": s["verified_path"], "snippet": changed, "way": f"identifier changed ({k})"})
            var.append({"path": s["verified_path"], "snippet": reindent(s["snippet"], rng), "way": f"re-indented ({k})"})
        negatives.append({"iid": doc["iid"], "choice": "negatives", "proposed": neg})
        variants.append({"iid": doc["iid"], "choice": "whitespace variants", "proposed": var})
    # A test file's lines claimed as live code: assertion lines of test files at each
    # repository's first proposal's base commit.
    seen = set()
    for doc in docs:
        repo, commit = repo_of[doc["iid"]]
        if repo in seen:
            continue
        seen.add(repo)
        paths = [p for p in git(clones[repo], "ls-tree", "-r", "--name-only", commit).decode().splitlines() if TEST_PATH.search(p)]
        rng.shuffle(paths)
        claimed = []
        for path in paths:
            if len(claimed) >= 12:
                break
            try:
                text = git(clones[repo], "show", f"{commit}:{path}").decode()
            except (subprocess.CalledProcessError, UnicodeDecodeError):
                continue
            lines = text.split("\n")
            for i in range(len(lines) - 1):
                if TEST_LINE.search(lines[i]) and len(lines[i].strip()) > 25 and lines[i + 1].strip():
                    claimed.append({"path": path, "snippet": lines[i] + "\n" + lines[i + 1], "way": "a test file's lines"})
                    break
        negatives.append({"iid": doc["iid"], "choice": "test lines claimed as live", "proposed": claimed})
    json.dump(negatives, open(os.path.join(out, "negatives.json"), "w"), indent=1)
    json.dump(variants, open(os.path.join(out, "variants.json"), "w"), indent=1)
    # What the audit's model proposed, as the sweep proposer's replies: the choice, no graded
    # value (the audit's files give none) and each snippet's path, code and way.
    answers = {
        doc["iid"]: {
            "choice": doc["choice"],
            "graded_value": "",
            "snippets": [{"path": s["path"], "snippet": s["snippet"], "way": s["way"]} for s in doc["verified"]],
        }
        for doc in docs
    }
    json.dump(answers, open(os.path.join(out, "answers.json"), "w"), indent=1)
    with open(os.path.join(out, "rows.jsonl"), "w") as rows:
        for line in open(instances):
            if json.loads(line)["instance_id"] in answers:
                rows.write(line)


def score(cases, instances, out):
    docs, repo_of, clones = load(cases, instances, out)
    results = json.load(open(os.path.join(out, "results.json")))
    assert [r["iid"] for r in results] == [d["iid"] for d in docs], "results follow the proposals"
    total = verified = audit_path_whole = audit_path_not = 0
    missed, receipts_bad, receipts_run = [], [], 0
    tiers = {}
    for doc, r in zip(docs, results):
        tiers[r["tier"]] = tiers.get(r["tier"], 0) + 1
        clone = clones[repo_of[doc["iid"]][0]]
        for claimed, s in zip(doc["verified"], r["snippets"]):
            total += 1
            if s["verified"]:
                verified += 1
                assert s["verified_path"] in s["live_paths"]
            else:
                missed.append((doc["iid"], claimed["snippet"].strip().split("\n")[0]))
            if claimed["verified_path"] in s["live_paths"]:
                audit_path_whole += 1
            else:
                audit_path_not += 1
            printed = subprocess.run(["sh", "-c", s["receipt"]["command"]], cwd=clone, capture_output=True).stdout
            receipts_run += 1
            if printed.decode("utf-8", "replace") != s["receipt"]["prints"]:
                receipts_bad.append((doc["iid"], s["receipt"]["command"][:120]))
    print(f"proposals {len(docs)} in {len(clones)} repositories; snippets {total}, verified {verified}")
    print(f"tiers: {json.dumps(tiers, sort_keys=True)}")
    print(f"the audit's verified_path holds the whole snippet: {audit_path_whole}; does not: {audit_path_not}")
    print(f"receipts rerun with sh -c: {receipts_run}, printing other than claimed: {len(receipts_bad)}")
    for iid, first in missed:
        print(f"  not verified: {iid}: {first[:100]}")
    for iid, command in receipts_bad:
        print(f"  receipt differs: {iid}: {command}")
    negatives = json.load(open(os.path.join(out, "negatives.json")))
    neg_results = json.load(open(os.path.join(out, "negative-results.json")))
    kinds = {}
    for proposal, r in zip(negatives, neg_results):
        for claimed, s in zip(proposal["proposed"], r["snippets"]):
            kind = proposal["choice"]
            n, bad = kinds.get(kind, (0, []))
            if s["verified"]:
                bad.append((r["iid"], claimed["path"], s["verified_path"], claimed["snippet"][:80]))
            kinds[kind] = (n + 1, bad)
    for kind, (n, bad) in sorted(kinds.items()):
        print(f"negatives, {kind}: {n}, verified {len(bad)}")
        for item in bad:
            print(f"  verified: {item}")
    variants = json.load(open(os.path.join(out, "variants.json")))
    var_results = json.load(open(os.path.join(out, "variant-results.json")))
    n = kept = 0
    for doc, r, vr in zip(docs, results, var_results):
        for s, v in zip(r["snippets"], vr["snippets"]):
            if s["verified"]:
                n += 1
                kept += v["verified"]
    print(f"re-indented / other line-end whitespace: {kept} of {n} verified snippets still verify")
    by_model = {r["iid"]: r for r in json.load(open(os.path.join(out, "model-results.json")))}
    same, differ = 0, []
    for r in results:
        m = by_model.get(r["iid"])
        key = lambda x: [(s["verified"], s["verified_path"], s["receipt"]) for s in x["snippets"]] + [x["tier"]]
        if m is not None and key(m) == key(r):
            same += 1
        else:
            differ.append(r["iid"])
    print(f"sweep --all --model (a served proposer giving the audit's proposals) vs --proposals: "
          f"{same} of {len(results)} proposals give the same verified lists, receipts and tier; "
          f"{len(by_model)} swept by the model")
    for iid in differ:
        print(f"  differs: {iid}")


if __name__ == "__main__":
    {"make": make, "score": score}[sys.argv[1]](*sys.argv[2:5])
