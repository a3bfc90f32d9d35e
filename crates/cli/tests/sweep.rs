//! `verity sweep`: proposals verified at a task's base commit in a real git repository built
//! here, with negatives (one identifier changed on any line, a test file's lines claimed as
//! live code, a line only the gold patch adds) that must not verify, whitespace variants that
//! must, receipts rerun with `sh -c`, the tiers, and who sees a stored sweep.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::util::Harness;
use verity_testkit::{git, run_receipt as run};

const TASK: &str = "acme__store-1";

/// Live code with two ways of guarding a batch getter, a file whose first line of one snippet
/// is there but not the rest, and a test file.
const FILES: &[(&str, &str)] = &[
    (
        "lib/hash.js",
        "'use strict';\n\nmodule.getObjectsFields = async function (keys, fields) {\n\tif (!Array.isArray(keys) || !keys.length) {\n\t\treturn [];\n\t}\n\treturn load(keys, fields);\n};\n",
    ),
    (
        "lib/aaa_first.js",
        "module.sortedSetScores = async function (key, values) {\n\treturn null;\n};\n",
    ),
    (
        "lib/sorted.js",
        "module.sortedSetScores = async function (key, values) {\n\tif (!key) {\n\t\treturn null;\n\t}\n\tif (!values.length) {\n\t\treturn [];\n\t}\n\treturn scores(key, values);\n};\n",
    ),
    (
        "test/database.js",
        "describe('mget', () => {\n\tit('returns empty', async () => {\n\t\tassert.deepStrictEqual(await db.mget(false), []);\n\t});\n});\n",
    ),
    (
        "docs/guide.md",
        "Batch getters return [] for empty input.\n",
    ),
];

const LENIENT: &str = "module.getObjectsFields = async function (keys, fields) {\n\t\tif (!Array.isArray(keys) || !keys.length) {\n\t\t\treturn [];\n\t\t}";
const STRICT: &str = "module.sortedSetScores = async function (key, values) {\n\t\tif (!key) {\n\t\t\treturn null;\n\t\t}\n\t\tif (!values.length) {\n\t\t\treturn [];\n\t\t}";
const GOLD_ONLY: &str =
    "module.mget = async function (keys) {\n\tif (!keys || !Array.isArray(keys) || !keys.length) {";

fn gold_patch() -> String {
    "diff --git a/lib/hash.js b/lib/hash.js\n--- a/lib/hash.js\n+++ b/lib/hash.js\n@@ -8,0 +9,6 @@\n+\n+module.mget = async function (keys) {\n+\tif (!keys || !Array.isArray(keys) || !keys.length) {\n+\t\treturn [];\n+\t}\n+};\n".to_string()
}

/// A project with the task, its repository registered, ana assigned to it. Returns the
/// harness, the clone's folder (inside the harness) and the base commit.
fn setup() -> (Harness, std::path::PathBuf, String) {
    let h = Harness::new();
    let root = h.path("store");
    std::fs::create_dir(&root).unwrap();
    git(&root, &["init", "-q", "-b", "main", "."]);
    for (path, content) in FILES {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let commit = git(&root, &["rev-parse", "HEAD"]).trim().to_string();
    let row = json!({
        "instance_id": TASK, "repo": "acme/store", "base_commit": commit,
        "problem_statement": "db.mget should read many keys at once.",
        "patch": gold_patch(),
        "test_patch": "diff --git a/test/database.js b/test/database.js\n--- a/test/database.js\n+++ b/test/database.js\n@@ -5,0 +6,1 @@\n+assert.deepStrictEqual(await db.mget(null), []);\n",
    });
    let tasks = h.write("tasks.jsonl", format!("{row}\n"));
    h.ok(&["import", &tasks]);
    h.ok(&["repo", "add", "acme/store", root.to_str().unwrap()]);
    h.ok(&["raters", "add", "ana"]);
    h.ok(&["assign", "--per-case", "1"]);
    (h, root, commit)
}

fn snippet(path: &str, way: &str, text: &str) -> Value {
    json!({"path": path, "way": way, "snippet": text})
}

/// The snippet with one identifier changed on line `at` (0-based): its longest word gets two
/// letters in its middle. `None` for a line without one.
fn changed(text: &str, at: usize) -> Option<String> {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let line = &lines[at];
    let word = line
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .max_by_key(|w| w.len())
        .filter(|w| w.len() >= 3)?;
    let start = line.find(word).unwrap() + word.len() / 2;
    lines[at].insert_str(start, "Qz");
    Some(lines.join("\n"))
}

fn sweep(h: &Harness, proposals: &Value) -> Vec<Value> {
    let file = h.write("proposals.json", proposals.to_string());
    let out = h.json(&["sweep", "--proposals", &file, "--json"]);
    out.as_array().unwrap().clone()
}

#[test]
fn whole_snippets_verify_in_live_code_and_nothing_else_does() {
    let (h, root, commit) = setup();
    let reindented = LENIENT
        .split('\n')
        .map(|l| format!("    {}  ", l.trim()))
        .collect::<Vec<_>>()
        .join("\r\n");
    let mut negatives: Vec<Value> = Vec::new();
    for (text, lines) in [(LENIENT, 4), (STRICT, 7)] {
        for at in 0..lines {
            if let Some(text) = changed(text, at) {
                negatives.push(snippet("lib/hash.js", "changed", &text));
            }
        }
    }
    negatives.push(snippet(
        "test/database.js",
        "test lines",
        "it('returns empty', async () => {\n\t\tassert.deepStrictEqual(await db.mget(false), []);",
    ));
    negatives.push(snippet("lib/hash.js", "gold only", GOLD_ONLY));
    negatives.push(snippet(
        "docs/guide.md",
        "docs",
        "Batch getters return [] for empty input.",
    ));
    let n_negatives = negatives.len();
    let mut snippets = vec![
        snippet("lib/hash.js", "lenient", LENIENT),
        snippet("lib/aaa_first.js", "strict", STRICT),
        snippet("lib/hash.js", "lenient", &reindented),
        snippet(
            "lib/hash.js",
            "lenient",
            "if (!Array.isArray(keys) || !keys.length) {",
        ),
    ];
    snippets.extend(negatives);
    // The audit's format, snippets under `verified`, and the proposer's own key.
    let audit_doc = json!({"slug": "acme_1", "iid": TASK, "choice": "falsy batches",
        "n_verified": 2, "ok": true, "verified": snippets});
    let results = sweep(
        &h,
        &json!([audit_doc, {"iid": TASK, "choice": "c", "proposed": snippets}]),
    );
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["snippets"], results[1]["snippets"]);
    let r = &results[0];
    for key in [
        "iid",
        "choice",
        "snippets",
        "n_verified",
        "ways_verified",
        "tier",
    ] {
        assert!(r.get(key).is_some(), "{key} missing from {r}");
    }
    for key in ["path", "way", "verified", "verified_path", "receipt"] {
        assert!(r["snippets"][0].get(key).is_some(), "{key} missing");
    }
    let s = r["snippets"].as_array().unwrap();
    let verified: Vec<bool> = s.iter().map(|s| s["verified"].as_bool().unwrap()).collect();
    assert_eq!(&verified[..4], &[true; 4], "{s:?}");
    assert!(
        verified[4..].iter().all(|v| !v),
        "no negative verifies: {:?}",
        &s[4..]
    );
    assert!(n_negatives >= 10, "{n_negatives} negatives");
    assert_eq!(
        (r["n_verified"].clone(), r["ways_verified"].clone()),
        (json!(4), json!(2))
    );
    assert_eq!(r["tier"], "codebase-plural");
    // The named path holds the first line only: the path given is the one holding it whole.
    assert_eq!(s[1]["verified_path"], "lib/sorted.js");
    assert_eq!(s[1]["line"], 1);
    assert_eq!(s[0]["verified_path"], "lib/hash.js");
    assert_eq!(s[0]["line"], 3);
    assert_eq!(s[3]["verified_path"], "lib/hash.js", "a one-line snippet");
    // The test file's lines are found, not counted.
    let test_claim = s.iter().find(|s| s["way"] == "test lines").unwrap();
    assert_eq!(test_claim["non_live_paths"], json!(["test/database.js"]));
    // Every receipt prints exactly what it claims, and nothing for what did not verify.
    for one in s {
        let receipt = &one["receipt"];
        let printed = run(&root, receipt["command"].as_str().unwrap());
        assert_eq!(printed, receipt["prints"].as_str().unwrap(), "{receipt}");
        assert_eq!(
            printed.is_empty(),
            !one["verified"].as_bool().unwrap(),
            "{one}"
        );
    }
    assert_eq!(s[1]["receipt"]["prints"], "lib/sorted.js:1\n");
    assert_eq!(
        s[3]["receipt"]["prints"],
        format!("{commit}:lib/hash.js:4:\tif (!Array.isArray(keys) || !keys.length) {{\n")
    );
}

#[test]
fn the_tiers_follow_the_written_rule_and_the_judged_step_says_so() {
    let (h, root, _) = setup();
    let one_way = |extra: Value| {
        let mut p = json!({"iid": TASK, "choice": "c",
            "proposed": [snippet("lib/hash.js", "lenient", LENIENT)]});
        p.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        p
    };
    let results = sweep(
        &h,
        &json!([
            one_way(json!({})),
            one_way(json!({"gold_follows": true})),
            one_way(json!({"graded_value": "Array.isArray"})),
            one_way(json!({"graded_value": "!keys ||"})),
            {"iid": TASK, "choice": "c", "graded_value": "mget(null)",
             "proposed": [snippet("lib/hash.js", "w", GOLD_ONLY)]},
            {"iid": TASK, "choice": "c", "graded_value": "db.mget",
             "proposed": [snippet("lib/hash.js", "w", GOLD_ONLY)]},
            {"iid": TASK, "choice": "c", "graded_value": "sortedSetScores",
             "proposed": [snippet("lib/hash.js", "w", GOLD_ONLY)]},
            // A value no patch adds is not shown to be graded: neither airtight nor a judge.
            {"iid": TASK, "choice": "c", "graded_value": "ERR_NOT_GRADED",
             "proposed": [snippet("lib/hash.js", "w", GOLD_ONLY)]},
            one_way(json!({"graded_value": "ERR_NOT_GRADED"})),
        ]),
    );
    let tiers: Vec<&str> = results
        .iter()
        .map(|r| r["tier"].as_str().unwrap())
        .collect();
    assert_eq!(
        tiers,
        [
            "unsettled",
            "determined-codebase",
            "determined-codebase",
            "misdetermined",
            "airtight",
            "unsettled",
            "unsettled",
            "unsettled",
            "unsettled"
        ]
    );
    assert_eq!(results[4]["graded_value"]["in_patches"], true);
    assert_eq!(results[7]["graded_value"]["in_patches"], false);
    assert!(
        results[7]["rests_on"]
            .as_str()
            .unwrap()
            .contains("on no line the gold or test patch adds"),
        "{}",
        results[7]["rests_on"]
    );
    assert_eq!(results[8]["judged"][0]["judgment"], Value::Null);
    let judged = &results[3]["judged"][0];
    assert_eq!(judged["step"], "does gold follow the one live way?");
    assert_eq!(judged["judgment"], false);
    assert_eq!(judged["precedent"]["verified_path"], "lib/hash.js");
    assert_eq!(
        judged["gold_lines"][0]["text"],
        "\tif (!keys || !Array.isArray(keys) || !keys.length) {"
    );
    assert!(
        judged["by"].as_str().unwrap().starts_with("the rule"),
        "{judged}"
    );
    assert_eq!(results[1]["judged"][0]["by"], "the proposal");
    assert!(
        results[0]["rests_on"]
            .as_str()
            .unwrap()
            .contains("not judged")
    );
    // Airtight: the receipt of the value's absence from live code prints nothing.
    let graded = &results[4]["graded_value"];
    assert_eq!(graded["live_paths"], json!([]));
    assert_eq!(
        run(&root, graded["receipt"]["command"].as_str().unwrap()),
        ""
    );
    assert!(
        results[5]["rests_on"]
            .as_str()
            .unwrap()
            .contains("in the prose")
    );
    assert!(
        results[6]["rests_on"]
            .as_str()
            .unwrap()
            .contains("lib/aaa_first.js, lib/sorted.js")
    );
    let graded = &results[6]["graded_value"]["receipt"];
    assert_eq!(
        run(&root, graded["command"].as_str().unwrap()),
        graded["prints"].as_str().unwrap()
    );
}

#[test]
fn a_sweep_is_the_coordinators_until_it_is_shown_to_raters() {
    let (h, _, _) = setup();
    sweep(
        &h,
        &json!({"iid": TASK, "choice": "c", "proposed": [snippet("lib/hash.js", "lenient", LENIENT)]}),
    );
    let shown = h.json(&["case", "show", TASK, "--json"]);
    assert_eq!(shown["sweep"][0]["snippets"][0]["verified"], true);
    let as_ana = h.json(&["--as", "ana", "case", "show", TASK, "--json"]);
    assert_eq!(as_ana["sweep"], Value::Null, "off by default");
    let package = h.path("ana.verity");
    let package = package.to_str().unwrap();
    h.ok(&["package", "--rater", "ana", "--out", package]);
    let in_package = h.json(&["--project", package, "case", "show", TASK, "--json"]);
    assert_eq!(
        in_package["sweep"],
        Value::Null,
        "the package leaves it out"
    );
    let err = h.fails(&["--as", "ana", "sweep", "--for-raters", "on"]);
    assert!(err.contains("coordinator"), "{err}");

    h.ok(&["sweep", "--for-raters", "on"]);
    let as_ana = h.json(&["--as", "ana", "case", "show", TASK, "--json"]);
    assert_eq!(as_ana["sweep"][0]["tier"], "unsettled");
    h.ok(&["package", "--rater", "ana", "--out", package, "--force"]);
    let in_package = h.json(&["--project", package, "case", "show", TASK, "--json"]);
    assert_eq!(in_package["sweep"][0]["iid"], TASK);
    h.ok(&["sweep", "--for-raters", "off"]);
    let as_ana = h.json(&["--as", "ana", "case", "show", TASK, "--json"]);
    assert_eq!(as_ana["sweep"], Value::Null);
}

#[test]
fn bad_proposals_are_refused_whole_with_a_sentence() {
    let (h, _, _) = setup();
    let file = h.write("bad.json", r#"[{"iid": "acme__store-1", "choice": "c"}]"#);
    let err = h.fails(&["sweep", "--proposals", &file]);
    assert!(
        err.contains(
            "bad.json is not a valid proposals document: proposal 0 (acme__store-1) has no snippets"
        ),
        "{err}"
    );
    let file = h.write(
        "unknown.json",
        json!([
            {"iid": TASK, "choice": "c", "proposed": [snippet("lib/hash.js", "w", LENIENT)]},
            {"iid": "acme__nowhere-9", "choice": "c", "proposed": [snippet("a", "w", "x")]}
        ])
        .to_string(),
    );
    let err = h.fails(&["sweep", "--proposals", &file]);
    assert!(
        err.contains("proposal 1 (acme__nowhere-9) cannot be swept"),
        "{err}"
    );
    let shown = h.json(&["case", "show", TASK, "--json"]);
    assert_eq!(shown["sweep"], Value::Null, "nothing was stored");
}

#[test]
fn importing_an_audit_folder_keeps_its_proposal_for_the_sweep() {
    let h = Harness::new();
    let audit = verity_testkit::fixture_path("audit/cases");
    let doc = std::fs::read_to_string(audit.join("acme_1111aaaa/codebase_ambiguity.json")).unwrap();
    let expected: Value = serde_json::from_str(&doc).unwrap();
    h.ok(&["import", audit.to_str().unwrap()]);
    let store = verity_store::open(&h.project(), None).unwrap();
    let iid = expected["iid"].as_str().unwrap();
    let stored = store.case_by_instance(iid).unwrap().unwrap();
    let kept = stored.case.audit.unwrap().codebase_ambiguity.unwrap();
    assert_eq!(kept, expected, "kept verbatim");
    let proposals = annotations::ops::read_proposals(&kept.to_string(), "kept").unwrap();
    assert_eq!(
        proposals[0].snippets.len(),
        expected["verified"].as_array().unwrap().len()
    );
}

#[test]
fn a_sweep_moves_the_risk_that_orders_the_cases() {
    let (h, _, commit) = setup();
    // A second task at the same commit, never swept.
    let other = json!({
        "instance_id": "acme__store-2", "repo": "acme/store", "base_commit": commit,
        "problem_statement": "db.mget should say which key was bad.",
        "patch": gold_patch(),
        "test_patch": "diff --git a/test/database.js b/test/database.js\n--- a/test/database.js\n+++ b/test/database.js\n@@ -5,0 +6,1 @@\n+assert.strictEqual(err.message, 'ERR_BAD_KEY_QZ');\n",
    });
    let tasks = h.write("more.jsonl", format!("{other}\n"));
    h.ok(&["import", &tasks]);
    h.ok(&["evidence", "--all"]);
    let listed = |h: &Harness| -> Vec<Value> {
        h.json(&["cases", "--json", "--sort", "risk"])
            .as_array()
            .unwrap()
            .clone()
    };
    let before = listed(&h);
    let of = |rows: &[Value], id: &str| {
        rows.iter()
            .find(|r| r["instance_id"] == id)
            .unwrap()
            .clone()
    };
    let swept_before = of(&before, TASK);
    assert_eq!(swept_before["sweep_tier"], Value::Null);
    assert_eq!(swept_before["risk"], swept_before["evidence_risk"]);
    assert_eq!(swept_before["sweep_red"], false);
    let evidence_risk = swept_before["evidence_risk"].as_f64().unwrap();
    assert!(evidence_risk < 0.95, "the terms alone: {evidence_risk}");
    assert_eq!(
        before[0]["instance_id"], "acme__store-2",
        "a constant nowhere in the code ranks first on terms alone: {before:?}"
    );

    // One live way that gold follows: capped, and not red.
    sweep(
        &h,
        &json!({"iid": TASK, "choice": "what a falsy key list gives", "gold_follows": true,
            "proposed": [snippet("lib/hash.js", "lenient: an empty list", LENIENT)]}),
    );
    let determined = of(&listed(&h), TASK);
    assert_eq!(determined["sweep_tier"], "determined-codebase");
    assert_eq!(determined["sweep_red"], false);
    assert_eq!(determined["risk"].as_f64().unwrap(), evidence_risk.min(0.2));

    // Two live ways: the codebase makes the choice both ways, and the tests grade one. The
    // task keeps both sweeps; the raising tier decides.
    sweep(
        &h,
        &json!({"iid": TASK, "choice": "what a falsy key list gives", "proposed": [
            snippet("lib/hash.js", "lenient: an empty list", LENIENT),
            snippet("lib/sorted.js", "strict: null", STRICT)]}),
    );
    let plural = listed(&h);
    assert_eq!(
        plural[0]["instance_id"], TASK,
        "raised to the top: {plural:?}"
    );
    assert_eq!(plural[0]["sweep_tier"], "codebase-plural");
    assert_eq!(plural[0]["sweep_red"], true);
    assert_eq!(plural[0]["risk"], 0.95);
    assert_eq!(plural[0]["evidence_risk"], evidence_risk);
    let unswept = of(&plural, "acme__store-2");
    assert_eq!(unswept["sweep_tier"], Value::Null);
    assert_eq!(unswept["risk"], unswept["evidence_risk"]);
    let text = h.ok(&["cases", "--sort", "risk"]);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .starts_with(&format!("{TASK}\t")),
        "{text}"
    );

    // A later proposal whose snippets verify nothing erases nothing, and `sweep` says where the
    // task stands.
    let nothing = h.write(
        "nothing.json",
        json!({"iid": TASK, "choice": "what a falsy key list gives", "proposed": [
            snippet("lib/hash.js", "a way no code has", "module.neverWritten = 1;")]})
        .to_string(),
    );
    let said = h.ok(&["sweep", "--proposals", &nothing]);
    assert!(
        said.contains(&format!(
            "{TASK}: 3 proposals kept (1 added by this sweep); still codebase-plural, risk 0.95, red"
        )),
        "{said}"
    );
    let still = of(&listed(&h), TASK);
    assert_eq!(
        (&still["sweep_tier"], &still["sweep_red"], &still["risk"]),
        (&json!("codebase-plural"), &json!(true), &json!(0.95))
    );
    let kept = h.json(&["case", "show", TASK, "--json"]);
    let kept = kept["sweep"].as_array().unwrap();
    assert_eq!(
        kept.iter()
            .map(|s| s["tier"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["determined-codebase", "codebase-plural", "unsettled"]
    );
    assert!(kept.iter().all(|s| {
        s["proposals_file"] == json!(nothing.as_str())
            || s["proposals_file"]
                .as_str()
                .unwrap()
                .ends_with("proposals.json")
    }));
    // The same sweep again adds nothing and changes nothing.
    let again = h.ok(&["sweep", "--proposals", &nothing]);
    assert!(
        again.contains(&format!(
            "{TASK}: 3 proposals kept (0 added by this sweep); still codebase-plural"
        )),
        "{again}"
    );
}

/// The user message of a logged request.
fn user_message(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_model_proposes_and_the_repository_decides_as_for_a_proposals_file() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use verity_testkit::chat_server::ChatServer;

    let (h, root, _) = setup();
    // A second task in a repository with no clone: `--all` leaves it out and says so.
    let other = json!({"instance_id": "acme__web-2", "repo": "acme/web", "base_commit": "0123456789abcdef0123456789abcdef01234567",
        "problem_statement": "p", "patch": "diff --git a/a b/a\n", "test_patch": "diff --git a/t b/t\n"});
    let other = h.write("other.jsonl", format!("{other}\n"));
    h.ok(&["import", &other]);
    let invented = "module.getObjectsFields = async function (keys, fields) {\n\tif (!keys) {\n\t\treturn [];\n\t}";
    let proposed = json!([
        snippet("lib/hash.js", "lenient: an empty list", LENIENT),
        snippet("lib/sorted.js", "strict: null for a missing key", STRICT),
        snippet("lib/hash.js", "lenient: an empty list", invented),
        snippet(
            "test/database.js",
            "lenient: an empty list",
            "assert.deepStrictEqual(await db.mget(false), []);"
        ),
    ]);
    let reply = json!({"choice": "what a falsy key list gives", "graded_value": "[]", "snippets": proposed});
    let server = ChatServer::start();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let good = reply.clone();
    // The first reply is off the schema (a blank choice): asked again, as a rating's is.
    server.answer_with(move |_| {
        if counter.fetch_add(1, Ordering::SeqCst) == 0 {
            json!({"choice": " ", "graded_value": "", "snippets": []})
        } else {
            good.clone()
        }
    });
    let endpoint = server.endpoint();
    h.ok(&[
        "models",
        "add",
        "proposer",
        "--endpoint",
        &endpoint,
        "--model",
        "test-model",
        "--seed",
        "3",
    ]);

    let err = h.fails(&["sweep", "--model", "proposer"]);
    assert!(err.contains("needs the tasks"), "{err}");
    let err = h.fails(&["--as", "ana", "sweep", "--all", "--model", "proposer"]);
    assert!(err.contains("coordinator"), "{err}");
    let err = h.fails(&["sweep", "acme__web-2", "--model", "proposer"]);
    assert!(err.contains("no clone is registered for acme/web"), "{err}");
    let err = h.fails(&["sweep", TASK, "--model", "proposer", "--budget-usd", "1"]);
    assert!(err.contains("a budget cannot be kept"), "{err}");
    assert_eq!(server.log().len(), 0, "nothing is sent for a run refused");

    let out = h.run(&["sweep", "--all", "--model", "proposer", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("1 swept, 0 failed, 0 swept before"),
        "{stderr}"
    );
    assert!(stderr.contains("1 task left out"), "{stderr}");
    let by_model: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_model = by_model.as_array().unwrap();
    assert_eq!(by_model.len(), 1);
    assert_eq!(asked.load(Ordering::SeqCst), 2);

    // What the model was given: the task's issue and patches, never its hints or a verdict.
    let log = server.log();
    let prompt = user_message(&log[0].body);
    assert!(prompt.contains("db.mget should read many keys at once."));
    assert!(prompt.contains("module.mget = async function (keys)"));
    assert_eq!(
        log[0].body["response_format"]["json_schema"]["name"],
        "sweep-proposer"
    );

    // The same proposal from a file: the same snippets verified, at the same paths, with the
    // same receipts, and the same tier.
    let from_file = sweep(
        &h,
        &json!({"iid": TASK, "choice": reply["choice"], "graded_value": "[]", "proposed": proposed}),
    );
    let mut model_result = by_model[0].clone();
    let proposer = model_result
        .as_object_mut()
        .unwrap()
        .remove("proposer")
        .unwrap();
    assert!(
        model_result
            .as_object_mut()
            .unwrap()
            .remove("swept_at")
            .is_some()
    );
    assert_eq!(model_result, from_file[0]);
    let verified: Vec<bool> = model_result["snippets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["verified"].as_bool().unwrap())
        .collect();
    assert_eq!(
        verified,
        [true, true, false, false],
        "nothing unverified is shown verified"
    );
    assert_eq!(model_result["tier"], "codebase-plural");
    for s in model_result["snippets"].as_array().unwrap() {
        let receipt = &s["receipt"];
        assert_eq!(
            run(&root, receipt["command"].as_str().unwrap()),
            receipt["prints"].as_str().unwrap()
        );
    }
    assert_eq!(proposer["rater"], "proposer");
    assert_eq!(proposer["model"], "test-model");
    assert_eq!(proposer["prompt_id"], "sweep-proposer");
    assert_eq!(proposer["seed"], 3);
    assert_eq!(proposer["request_hash"].as_str().unwrap().len(), 64);
    assert!(proposer.get("api_key").is_none());

    // The file's sweep replaced the model's; run again: the reply cache answers, nothing is
    // sent, and the model's sweep is back. Run once more: swept before, nothing asked.
    let again = h.run(&["sweep", TASK, "--model", "proposer", "--json"]);
    assert!(again.status.success());
    assert_eq!(
        server.log().len(),
        2,
        "a reply paid for is never asked again"
    );
    let again_results: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again_results[0]["snippets"], by_model[0]["snippets"]);
    let resumed = h.run(&["sweep", "--all", "--model", "proposer"]);
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(
        stdout.contains("0 swept, 0 failed, 1 swept before"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "{TASK}: codebase-plural (2 of 4 snippets verified"
        )),
        "{stdout}"
    );
    assert_eq!(server.log().len(), 2);

    // The requests are the model's costs, but a refused proposal is not a failed rating.
    let models = h.json(&["models", "list", "--json"]);
    assert_eq!(models[0]["requests"], 2, "{models:#}");
    assert_eq!(models[0]["failures"], 0);
    assert_eq!(models[0]["answers"], 0);
    // A rater reads none of it until sweeps are shown.
    let as_ana = h.json(&["--as", "ana", "case", "show", TASK, "--json"]);
    assert_eq!(as_ana["sweep"], Value::Null);
}

#[test]
fn a_proposals_file_names_a_task_by_a_short_id_and_one_without_proposals_says_so() {
    let (h, _, _) = setup();
    let results = sweep(
        &h,
        &json!({"iid": &TASK[..9], "choice": "what a falsy key list gives",
            "proposed": [snippet("lib/hash.js", "lenient: an empty list", LENIENT)]}),
    );
    assert_eq!(
        results[0]["iid"], TASK,
        "resolved as every command resolves an id"
    );
    let kept = h.json(&["case", "show", TASK, "--json"]);
    assert_eq!(kept["sweep"][0]["iid"], TASK);
    let err = h.fails(&[
        "sweep",
        "--proposals",
        &h.write(
            "nobody.json",
            json!({"iid": "acme__nowhere", "choice": "c", "proposed": []}).to_string(),
        ),
    ]);
    assert!(err.contains("acme__nowhere"), "{err}");

    for empty in ["[]", "[ ]\n"] {
        let file = h.write("empty.json", empty);
        let said = h.ok(&["sweep", "--proposals", &file]);
        assert_eq!(
            said,
            format!("{file} holds no proposals; nothing was swept\n")
        );
        let out = h.run(&["sweep", "--proposals", &file, "--json"]);
        assert!(out.status.success());
        assert_eq!(
            serde_json::from_slice::<Value>(&out.stdout).unwrap(),
            json!([])
        );
        assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 1);
    }
}

#[test]
fn a_sweep_its_budget_stops_exits_3_and_says_how_many_tasks_are_left() {
    use verity_testkit::chat_server::ChatServer;

    let (h, _, _) = setup();
    let server = ChatServer::start();
    let endpoint = server.endpoint();
    h.ok(&[
        "models",
        "add",
        "proposer",
        "--endpoint",
        &endpoint,
        "--model",
        "test-model",
        "--price-in",
        "1",
        "--price-out",
        "100",
        "--max-output-tokens",
        "1000",
    ]);
    // A request's worst case is over $0.10 (1,000 reply tokens at $100 per million): a budget
    // of 5 cents sends nothing.
    let out = h.run(&[
        "sweep",
        "--all",
        "--model",
        "proposer",
        "--budget-usd",
        "0.05",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("stopped by the budget: $0.0500 of the $0.05 budget is left")
            && stderr.contains("1 task left unswept"),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("0 swept, 0 failed, 0 swept before by this model, 1 left"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(server.log().len(), 0);
}

#[test]
fn ctrl_c_stops_a_model_sweep_after_the_reply_in_flight_and_counts_every_request() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use verity_testkit::chat_server::ChatServer;

    let (h, _, commit) = setup();
    // A second task of the same repository and base commit.
    let row = json!({
        "instance_id": "acme__store-2", "repo": "acme/store", "base_commit": commit,
        "problem_statement": "db.mget should read many keys at once, again.",
        "patch": gold_patch(),
        "test_patch": "diff --git a/test/database.js b/test/database.js\n--- a/test/database.js\n+++ b/test/database.js\n@@ -5,0 +6,1 @@\n+assert.deepStrictEqual(await db.mget([]), []);\n",
    });
    let second = h.write("second.jsonl", format!("{row}\n"));
    h.ok(&["import", &second]);
    let server = ChatServer::start();
    server.answer_with(
        |_| json!({"choice": "what a falsy key list gives", "graded_value": "[]", "snippets": []}),
    );
    server.hold();
    let endpoint = server.endpoint();
    h.ok(&[
        "models",
        "add",
        "proposer",
        "--endpoint",
        &endpoint,
        "--model",
        "test-model",
    ]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_verity"))
        .args([
            "sweep",
            "--all",
            "--model",
            "proposer",
            "--concurrency",
            "1",
        ])
        .env("VERITY_PROJECT", h.project())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let waited = std::time::Instant::now();
    while server.log().is_empty() {
        assert!(waited.elapsed().as_secs() < 60, "no request was sent");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let mut said = Vec::new();
    for line in stderr.by_ref() {
        let line = line.unwrap();
        let stopping = line.contains("stopping: no new request is sent");
        said.push(line);
        if stopping {
            break;
        }
    }
    server.release();
    let status = child.wait().unwrap();
    said.extend(stderr.map(Result::unwrap));
    assert_eq!(status.code(), Some(130), "{said:?}");
    assert!(
        said.iter()
            .any(|l| l.contains("stopped: 1 task left unswept")),
        "{said:?}"
    );
    // The request in flight was answered and kept; the second task's was never sent.
    assert_eq!(server.log().len(), 1);
    let models = h.json(&["models", "list", "--json"]);
    assert_eq!(models[0]["requests"], 1, "{models:#}");
}
