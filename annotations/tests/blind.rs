//! What a rater gets, on the real audit data (`../shared/data`): nothing of the determinacy
//! audit reaches a rater on any channel, on a project file (`--as`, what the app's rater session
//! calls), in their package, or over their own login on a server (through Verity, and in every
//! row and function their login may read), unless the coordinator shares sweeps; and the
//! evidence a rater is shown is the same kind for every task.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use annotations::ops::{self, Actor, Engine, ErrorCode, Overwrite, Project};
use serde::Serialize;
use serde_json::Value;
use verity_testkit::project::{self, T0, at, rater};
use verity_testkit::store::all_rows;
use verity_testkit::{commit_all, git, shared_data, write_file};

/// A NodeBB task whose audit folder holds a `codebase_ambiguity.json` with a second model's
/// verdict and four precedents in two ways.
const NODEBB: &str = "instance_NodeBB__NodeBB-04998908ba6721d64eba79ae3b65a351dcfbc5b5-vnan";
/// A flipt task whose audit folder holds an advocate's reasoning and a witness.
const FLIPT: &str = "instance_flipt-io__flipt-86906cbfc3a5d3629a583f98e6301142f5f14bdb-v6bea0cc3a6fc532d7da914314f2944fc1cd04dee";
/// A NodeBB task the audit left without a `codebase_ambiguity.json`.
const PLAIN: &str = "instance_NodeBB__NodeBB-0c81642997ea1d827dbd02c311db9d4976112cd4-vf2cf3cbd463b7ad942381f1c6d077626485a1e9e";
/// The audit folders of the three tasks.
const FOLDERS: [&str; 3] = ["NodeBB_1e137b07", "flipt-io_358e13bf", "NodeBB_03a98f4d"];

/// What only the audit says, verbatim from its files: none of it may reach a rater.
const AUDIT: &[&str] = &[
    "two_expert",
    "deeper defect",
    "MISMATCH",
    "defaulted to true",
    "Lenient batch getter convention",
    "Strict/unguarded batch getter",
    "codebase_ambiguity",
    "Ambiguity witness",
    "misdetermined",
    "NodeBB_1e137b07",
    "flipt-io_358e13bf",
    "NodeBB_03a98f4d",
];

/// Fails naming the words of the audit that `what` (as its JSON, or any text) holds.
fn assert_blind(channel: &str, what: &impl Serialize) {
    let text = serde_json::to_string(what).unwrap();
    let found: Vec<&&str> = AUDIT.iter().filter(|w| text.contains(**w)).collect();
    assert!(found.is_empty(), "{channel} carries the audit's {found:?}");
}

/// The three tasks' rows from SWE-bench Pro, at `commit` for the NodeBB ones (a repository
/// built here holds the audit's snippets there), and their audit folders, in `dir`.
fn real_tasks(data: &Path, dir: &Path, commit: &str) -> Vec<PathBuf> {
    let rows = std::fs::read_to_string(data.join("swebench-pro/instances.jsonl")).unwrap();
    let mut kept = String::new();
    for line in rows.lines() {
        let mut row: Value = serde_json::from_str(line).unwrap();
        let id = row["instance_id"].as_str().unwrap().to_string();
        if ![NODEBB, FLIPT, PLAIN].contains(&id.as_str()) {
            continue;
        }
        if id != FLIPT {
            row["base_commit"] = Value::from(commit);
        }
        kept.push_str(&format!("{row}\n"));
    }
    let tasks = dir.join("tasks.jsonl");
    std::fs::write(&tasks, kept).unwrap();
    let cases = dir.join("cases");
    for folder in FOLDERS {
        let from = data.join("determinacy-audit/cases").join(folder);
        let to = cases.join(folder);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    vec![tasks, cases]
}

/// A repository whose live code holds the NodeBB audit's snippets, as NodeBB's does: its commit.
fn nodebb_repository(data: &Path, root: &Path) -> String {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(
            data.join("determinacy-audit/cases/NodeBB_1e137b07/codebase_ambiguity.json"),
        )
        .unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(root).unwrap();
    git(root, &["init", "-q", "-b", "main", "."]);
    let mut files: std::collections::BTreeMap<String, String> = Default::default();
    for precedent in doc["verified"].as_array().unwrap() {
        let file = files
            .entry(precedent["path"].as_str().unwrap().to_string())
            .or_default();
        file.push_str(precedent["snippet"].as_str().unwrap());
        file.push_str("\n\t\treturn load();\n\t};\n\n");
    }
    for (path, content) in files {
        write_file(root, &path, content);
    }
    write_file(root, "test/database.js", "describe('mget', () => {});\n");
    commit_all(root, "base")
}

/// The project: the three tasks, their audit folders, NodeBB's repository, ana on every task.
fn audited_project(location: &Path, data: &Path, dir: &Path) -> Project {
    let clone = dir.join("nodebb");
    let commit = nodebb_repository(data, &clone);
    let mut p = project::init(location, "swe-bench-verified");
    project::import(&mut p, &real_tasks(data, dir, &commit));
    ops::add_repository(&mut p, "NodeBB/NodeBB", &clone, T0).unwrap();
    for name in ["ana", "bo"] {
        ops::add_rater(&mut p, name, T0).unwrap();
    }
    project::assign_tasks(&mut p, &["ana"], &[NODEBB, FLIPT, PLAIN]);
    // The coordinator sees the audit: its verdict, and its precedents checked in the evidence.
    let shown = ops::show_case(&p, FLIPT).unwrap();
    assert_eq!(shown.audit_status.as_deref(), Some("proven"));
    let evidence = ops::case_evidence(&mut p, &Engine::default(), NODEBB, false, T0).unwrap();
    assert_eq!(evidence.report.precedents.len(), 4);
    assert_eq!(evidence.report.summary.precedents_found, 4);
    ops::case_evidence(&mut p, &Engine::default(), PLAIN, false, T0).unwrap();
    p
}

/// Everything a rater reads of the tasks through Verity, the app's calls among them: none of
/// it carries the audit, and the evidence is the same kind for an audited task as for another.
fn rater_reads_nothing_of_the_audit(p: &mut Project, channel: &str) {
    let engine = Engine::default();
    for task in [NODEBB, FLIPT, PLAIN] {
        assert_blind(channel, &ops::show_case(p, task).unwrap());
        assert_blind(channel, &ops::case_view(p, task).unwrap());
        assert_blind(channel, &ops::answer_history(p, task).unwrap());
    }
    assert_blind(channel, &ops::rater_queue(p, "ana").unwrap());
    let mut shapes = Vec::new();
    for (task, refresh) in [(NODEBB, false), (NODEBB, true), (PLAIN, false)] {
        let view = ops::case_evidence(p, &engine, task, refresh, at(5)).unwrap();
        assert_blind(&format!("{channel}, evidence of {task}"), &view);
        assert!(view.report.precedents.is_empty(), "{channel}: {task}");
        let s = &view.report.summary;
        assert_eq!((s.precedents_found, s.precedents_missing), (0, 0));
        let json = serde_json::to_value(&view.report).unwrap();
        let mut keys: Vec<String> = json.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        shapes.push(keys);
    }
    assert!(
        shapes.windows(2).all(|w| w[0] == w[1]),
        "{channel}: {shapes:?}"
    );
}

#[test]
fn a_rater_on_a_project_file_and_in_their_package_gets_nothing_of_the_audit() {
    let Some(data) = shared_data() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut p = audited_project(&dir.path().join("p.verity"), &data, dir.path());

    // `--as`: the rater's own tasks, and nothing of the audit.
    p.act_as(rater("ana")).unwrap();
    rater_reads_nothing_of_the_audit(&mut p, "--as ana");
    let listed = ops::list_raters(&p).unwrap();
    assert_eq!(
        listed.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["ana"]
    );
    p.act_as(rater("bo")).unwrap();
    for err in [
        ops::show_case(&p, NODEBB).map(drop).unwrap_err(),
        ops::case_evidence(&mut p, &Engine::default(), NODEBB, false, T0)
            .map(drop)
            .unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::NotAssigned, "{err}");
    }
    p.act_as(Actor::Coordinator).unwrap();

    // The package: every row it holds, task texts and cached evidence among them.
    let package = dir.path().join("ana.verity");
    ops::package_for_rater(&mut p, "ana", &package, Overwrite::Refuse, at(3)).unwrap();
    let store = verity_store::open(&package, None).unwrap();
    let rows: Vec<String> = all_rows(&*store)
        .into_iter()
        .map(|(table, rows)| format!("{table}: {rows:?}"))
        .collect();
    assert_blind("ana's package", &rows);
    let opened = ops::open_project(&package).unwrap();
    for task in [NODEBB, FLIPT, PLAIN] {
        assert_blind(
            "ana's package opened",
            &ops::case_view(&opened, task).unwrap(),
        );
    }
}

#[test]
fn a_raters_login_gets_nothing_of_the_audit_through_verity_or_in_any_row_it_reads() {
    let Some(data) = shared_data() else { return };
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = audited_project(&dir.path().join("p.verity"), &data, dir.path());
    let url = db.url();
    ops::migrate_project(&file, Path::new(&url)).unwrap();
    drop(file);
    let mut coordinator = ops::open_project(Path::new(&url)).unwrap();
    let login = ops::panel_grant(&mut coordinator, "ana", false, T0).unwrap();
    let mut ana =
        ops::open_project_with_password(Path::new(&db.url_as(&login.role)), Some(&login.password))
            .unwrap();
    rater_reads_nothing_of_the_audit(&mut ana, "ana's login");
    let listed = ops::list_raters(&ana).unwrap();
    assert_eq!(
        listed.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["ana"]
    );

    // Every row of every table her login may read, and the task texts through `case_text`.
    let as_ana = |sql: &str| db.try_sql(Some((&login.role, &login.password)), sql);
    let tables = db
        .try_sql(
            None,
            "SELECT tablename FROM pg_tables WHERE schemaname = 'verity' ORDER BY tablename",
        )
        .unwrap();
    let mut read = 0;
    for table in tables.into_iter().map(|r| r[0].clone().unwrap()) {
        if let Ok(rows) = as_ana(&format!("SELECT to_jsonb(t)::text FROM verity.{table} t")) {
            read += rows.len();
            assert_blind(&format!("ana's login, table {table}"), &rows);
        }
    }
    assert!(read > 0);
    let texts = as_ana("SELECT verity.case_text(id) FROM verity.case_revisions").unwrap();
    assert_eq!(texts.len(), 3);
    assert_blind("ana's login, case_text", &texts);
    let sources = as_ana("SELECT case_id FROM verity.case_sources").unwrap();
    assert_eq!(
        sources.len(),
        3,
        "the rows no audit folder gave: {sources:?}"
    );

    // Until the coordinator shares sweeps, a sweep of the audit's proposals is the
    // coordinator's; shared, it is what the rater sees of the audit, verified.
    let doc = std::fs::read_to_string(
        data.join("determinacy-audit/cases/NodeBB_1e137b07/codebase_ambiguity.json"),
    )
    .unwrap();
    let proposals = ops::read_proposals(&doc, "codebase_ambiguity.json").unwrap();
    ops::sweep_proposals(
        &mut coordinator,
        &Engine::default(),
        &proposals,
        "codebase_ambiguity.json",
        at(6),
    )
    .unwrap();
    assert!(ops::show_case(&ana, NODEBB).unwrap().sweep.is_none());
    assert!(as_ana("SELECT * FROM verity.sweeps").unwrap().is_empty());
    ops::set_sweep_for_raters(&mut coordinator, true).unwrap();
    let shared = ops::show_case(&ana, NODEBB).unwrap().sweep.unwrap();
    assert_eq!(shared[0].result.n_verified, 4);
    assert_eq!(as_ana("SELECT * FROM verity.sweeps").unwrap().len(), 1);
    // Even then her texts and evidence hold nothing of the audit's own files.
    assert_blind("ana's login, case_text", &texts);
    let view = ops::case_evidence(&mut ana, &Engine::default(), NODEBB, false, at(7)).unwrap();
    assert!(view.report.precedents.is_empty());

    // On a server too, a later proposal that verifies nothing, naming the task by a short id,
    // erases nothing: the task keeps both sweeps, its standing stays, and the sweep says so.
    let weaker = ops::read_proposals(
        &serde_json::json!({"iid": &NODEBB[..30], "choice": "c", "proposed": [
            {"path": "src/database/mongo/hash.js", "snippet": "module.neverWritten = 1;", "way": "w"}]})
        .to_string(),
        "weaker.json",
    )
    .unwrap();
    let run = ops::sweep_proposals(
        &mut coordinator,
        &Engine::default(),
        &weaker,
        "weaker.json",
        at(8),
    )
    .unwrap();
    assert_eq!(run.results[0].iid, NODEBB);
    let change = &run.changes[0];
    assert_eq!((change.added, change.kept), (1, 2));
    assert_eq!(change.before, change.after);
    assert_eq!(
        change.after.map(|s| (s.tier.as_str(), s.red)),
        Some(("codebase-plural", true))
    );
    let kept = ops::show_case(&ana, NODEBB).unwrap().sweep.unwrap();
    assert_eq!(kept.len(), 2);
}
