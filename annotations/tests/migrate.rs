//! `verity migrate` copies a whole project losslessly: the demo project and the SWE-bench Pro
//! import (from `../shared/data` when present), with raters' answer events, read back cell for
//! cell after a copy and a copy of the copy: onto the test server and back to a file when
//! `VERITY_TEST_POSTGRES_URL` is set, from file to file otherwise.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use annotations::ops::{self, Actor, AnswerRequest, CaseSelection, Project};
use verity_store::transfer::Cell;

use serde_json::json;

use verity_testkit::project::{T0, at};
use verity_testkit::{self, store::all_rows};

fn rows_at(location: &Path) -> Vec<(&'static str, Vec<Vec<Cell>>)> {
    all_rows(verity_store::open(location, None).unwrap().as_ref())
}

/// Copies the project at `from` onto the test server (or into a second file without one) and
/// from there back into a file, and checks that both copies read back exactly as the original.
fn round_trip(from: &Path, dir: &Path) -> usize {
    let database = verity_testkit::server::Database::fresh();
    let to = match &database {
        Some(db) => PathBuf::from(db.url()),
        None => dir.join("copy.verity"),
    };
    let back = dir.join("back.verity");
    let original = rows_at(from);
    let project = ops::open_project(from).unwrap();
    ops::migrate_project(&project, &to).unwrap();
    let copy = ops::open_project(&to).unwrap();
    ops::migrate_project(&copy, &back).unwrap();
    assert_eq!(original, rows_at(&to));
    assert_eq!(original, rows_at(&back));
    original
        .iter()
        .find(|(name, _)| *name == "answer_events")
        .map_or(0, |(_, rows)| rows.len())
}

/// Each rater drafts and submits on their first `tasks` assigned tasks, one revising.
fn answer_some(project: &mut Project, raters: &[&str], tasks: usize) {
    let notes = "The issue names the failing behaviour, but the message the tests pin is not in it; another wording fails.";
    for (i, rater) in raters.iter().enumerate() {
        project
            .act_as(verity_testkit::project::rater(rater))
            .unwrap();
        let queue = ops::rater_queue(project, rater).unwrap();
        for (n, item) in queue.iter().take(tasks).enumerate() {
            let mut req = AnswerRequest {
                rater: (*rater).into(),
                case: item.instance_id.clone(),
                values: json!({
                    "underspecified": (n + i) % 4, "underspecified_notes": notes,
                    "false_negative": n % 4, "false_negative_notes": notes,
                    "difficulty": "15 min - 1 hour", "difficulty_notes": "A few lines.",
                    "other_major_issues": 0, "annotator_confidence": 3
                })
                .as_object()
                .unwrap()
                .clone(),
                case_revision: None,
                reason: None,
            };
            let at = at(n as i64);
            ops::save_draft(project, &req, at).unwrap();
            ops::submit_answer(project, &req, at).unwrap();
            if n % 3 == 0 {
                req.values["annotator_confidence"] = json!(4);
                req.reason = Some("Ran the tests again".into());
                ops::revise_answer(project, &req, at).unwrap();
            }
        }
    }
    project.act_as(Actor::Coordinator).unwrap();
}

#[test]
fn the_demo_round_copies_losslessly() {
    let dir = tempfile::tempdir().unwrap();
    let demo = ops::open_demo_project(&dir.path().join("demo")).unwrap();
    let path: PathBuf = demo.path().to_path_buf();
    drop(demo);
    let events = round_trip(&path, dir.path());
    assert_eq!(events, 3 * 12, "three raters' submissions on twelve tasks");
}

#[test]
fn the_empty_demo_project_answered_copies_losslessly() {
    let dir = tempfile::tempdir().unwrap();
    let demo = ops::open_empty_demo_project(&dir.path().join("demo"), T0).unwrap();
    let path: PathBuf = demo.path().to_path_buf();
    let mut demo = demo;
    let raters: Vec<String> = ops::list_raters(&demo)
        .unwrap()
        .into_iter()
        .map(|r| r.name)
        .collect();
    let raters: Vec<&str> = raters.iter().map(String::as_str).collect();
    answer_some(&mut demo, &raters, 4);
    drop(demo);
    let events = round_trip(&path, dir.path());
    assert!(events >= 3 * 9, "{events} events");
}

#[test]
fn the_swe_bench_pro_import_copies_losslessly() {
    let Some(data) = verity_testkit::shared_data() else {
        return;
    };
    let pro = data.join("swebench-pro/instances.jsonl");
    if !pro.is_file() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pro.verity");
    let mut project = verity_testkit::project::init(&path, "swe-bench-verified");
    verity_testkit::project::import(&mut project, &[pro]);
    for rater in ["alice", "bob", "carol"] {
        ops::add_rater(&mut project, rater, T0).unwrap();
    }
    ops::assign(&mut project, 2, 7, &CaseSelection::All, T0).unwrap();
    answer_some(&mut project, &["alice", "bob", "carol"], 30);
    drop(project);
    let events = round_trip(&path, dir.path());
    assert!(events >= 3 * 30 * 2, "{events} events");
}

#[test]
fn a_project_written_before_compression_copies_into_a_compressed_one() {
    let dir = tempfile::tempdir().unwrap();
    let demo = ops::open_demo_project(&dir.path().join("demo")).unwrap();
    let path: PathBuf = demo.path().to_path_buf();
    drop(demo);
    // What a file written before compression holds: every content as its JSON text.
    let plain = dir.path().join("plain.verity");
    std::fs::copy(&path, &plain).unwrap();
    let conn = rusqlite::Connection::open(&plain).unwrap();
    for table in ["case_sources", "case_revisions"] {
        let texts: Vec<(i64, String)> = conn
            .prepare(&format!("SELECT rowid, content FROM {table}"))
            .unwrap()
            .query_map([], |row| {
                Ok((row.get(0)?, row.get_ref(1)?.as_blob()?.to_vec()))
            })
            .unwrap()
            .map(|row| {
                let (id, frame) = row.unwrap();
                (
                    id,
                    String::from_utf8(zstd::decode_all(&frame[..]).unwrap()).unwrap(),
                )
            })
            .collect();
        for (id, text) in texts {
            conn.execute(
                &format!("UPDATE {table} SET content = ?2 WHERE rowid = ?1"),
                rusqlite::params![id, text],
            )
            .unwrap();
        }
    }
    drop(conn);
    let copy = dir.path().join("copy.verity");
    ops::migrate_project(&ops::open_project(&plain).unwrap(), &copy).unwrap();
    assert_eq!(
        rows_at(&plain),
        rows_at(&copy),
        "the copy reads as the original"
    );
    let stored = |at: &Path| -> (i64, i64) {
        rusqlite::Connection::open(at)
            .unwrap()
            .query_row(
                "SELECT sum(typeof(content) = 'blob'), sum(length(content)) FROM case_revisions",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap()
    };
    let (plain_blobs, plain_bytes) = stored(&plain);
    let (copy_blobs, copy_bytes) = stored(&copy);
    assert_eq!(
        (plain_blobs, copy_blobs),
        (0, 12),
        "the copy's twelve revisions are frames"
    );
    assert!(
        copy_bytes * 2 < plain_bytes,
        "{copy_bytes} bytes against {plain_bytes}"
    );
}
