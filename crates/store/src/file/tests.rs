//! The project file's own tests: creating, opening, refusing and upgrading it.
#![allow(clippy::unwrap_used)]

use rusqlite::Connection;

use super::*;
use crate::{
    AnswerStore, AttemptPurpose, CaseStore, LabelStore, ModelAttempt, ModelStore, RaterStore,
    new_event_uid,
};

#[test]
fn a_newer_project_file_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    drop(Store::create(&path).unwrap());
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(
        matches!(err, StoreError::TooNew { found: 999, .. }),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a newer file is not modified"
    );
}

#[test]
fn an_existing_file_is_never_overwritten_by_create() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    std::fs::write(&path, "hello").unwrap();
    assert!(matches!(
        Store::create(&path).unwrap_err(),
        StoreError::AlreadyExists { .. }
    ));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello");
}

#[test]
fn a_file_that_is_not_a_project_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "x".repeat(4096)).unwrap();
    assert!(matches!(
        Store::open(&path).unwrap_err(),
        StoreError::NotAProject { .. }
    ));
    let other = dir.path().join("other.sqlite");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t(x); PRAGMA user_version = 1;")
        .unwrap();
    assert!(matches!(
        Store::open(&other).unwrap_err(),
        StoreError::NotAProject { .. }
    ));
}

#[test]
fn a_file_written_by_the_first_schema_opens_and_upgrades_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.verity");
    {
        // The file exactly as the first Verity wrote it: schema 1 and its rows.
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(migrations::MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute_batch(
            r#"INSERT INTO questionnaires VALUES (1, 'q', '1', 'source');
            INSERT INTO cases VALUES (1, 'a', 't');
            INSERT INTO case_revisions VALUES
              (1, 1, 1, '{"instance_id":"a"}', 'h', 'o/r', NULL, 'A', 1, 't');
            INSERT INTO raters VALUES (1, 'ana', 't');
            INSERT INTO assignments VALUES (1, 1, 't', 0);
            INSERT INTO answer_events VALUES
              (1, 1, 1, 1, 1, 'draft', 0, '{"underspecified":"1"}', NULL, 't'),
              (2, 1, 1, 1, 1, 'submit', 1, '{"underspecified":"2"}', NULL, 't');"#,
        )
        .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        migrations::MIGRATIONS.len() as i64
    );
    let raters = store.list_raters().unwrap();
    assert_eq!((raters[0].name.as_str(), raters[0].active), ("ana", true));
    let events = store.first_submissions().unwrap();
    assert_eq!(events[0].answer["underspecified"], "2");
    // Events written before global ids get ids that keep their order and precede any
    // event made since.
    let mut uids: Vec<String> = store
        .answer_events(1, 1)
        .unwrap()
        .into_iter()
        .map(|e| e.uid)
        .collect();
    assert_eq!(
        uids,
        [
            "00000000-0000-7000-8000-000000000001",
            "00000000-0000-7000-8000-000000000002"
        ]
    );
    uids.push(new_event_uid());
    assert!(uids.is_sorted());
    let project_id = store.meta("project_id").unwrap().unwrap();
    assert_eq!(project_id.len(), 36);
    assert_eq!(&project_id[14..15], "4");
    assert_eq!(store.list_cases().unwrap()[0].instance_id, "a");
    // A revision stored before shapes has none: a dataset export reads the task instead.
    assert_eq!(store.case_shapes().unwrap(), [(1, "a".to_string(), None)]);
    assert!(store.list_adjudicators().unwrap().is_empty());
    assert!(store.reference_sets().unwrap().is_empty());
    // The new schema's parts work on the upgraded file, and its rules still hold.
    assert_eq!(store.set_rater_active(1, false, "t2").unwrap(), 0);
    assert!(!store.list_raters().unwrap()[0].active);
    assert!(
        store
            .conn
            .execute("UPDATE answer_events SET answer = '{}'", [])
            .is_err()
    );
    drop(store);
    assert_eq!(
        Store::open(&path).unwrap().schema_version().unwrap(),
        migrations::MIGRATIONS.len() as i64,
        "reopening an upgraded file changes nothing"
    );
}

#[test]
fn a_full_disk_says_so_and_nothing_of_the_write_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    let mut store = Store::create(&path).unwrap();
    // The file may not grow: SQLite answers as it does on a full disk (SQLITE_FULL).
    let pages: i64 = store
        .conn
        .query_row("PRAGMA page_count", [], |row| row.get(0))
        .unwrap();
    store
        .conn
        .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))
        .unwrap();
    let err = store.set_meta("notes", &"x".repeat(1 << 20)).unwrap_err();
    assert!(matches!(err, StoreError::DiskFull { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "the disk holding the project {} is full: nothing was saved (free some space and try again)",
            path.display()
        )
    );
    assert_eq!(store.meta("notes").unwrap(), None);
}

#[test]
fn an_unfinished_copy_never_opens_as_a_project() {
    let dir = tempfile::tempdir().unwrap();
    let partial = dir.path().join(".copy.verity.migrating");
    let target = dir.path().join("copy.verity");
    drop(Store::create_unfinished(&partial).unwrap());
    let err = Store::open(&partial).unwrap_err();
    assert!(matches!(err, StoreError::Unfinished { .. }), "{err:?}");
    Store::create_unfinished(&partial)
        .map(drop)
        .expect_err("an existing file is never overwritten");
    std::fs::remove_file(&partial).unwrap();
    Store::create_unfinished(&partial)
        .unwrap()
        .finish_copy(&target)
        .unwrap();
    assert!(!partial.exists());
    Store::open(&target).unwrap();
}

#[test]
fn reopening_keeps_the_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    let version = Store::create(&path).unwrap().schema_version().unwrap();
    assert_eq!(version, migrations::MIGRATIONS.len() as i64);
    assert_eq!(
        Store::open(&path).unwrap().schema_version().unwrap(),
        version
    );
}

#[test]
fn a_file_of_schema_13_keeps_its_model_requests_and_records_abandoned_ones_after_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v13.verity");
    {
        let mut conn = Connection::open(&path).unwrap();
        let tx = conn.transaction().unwrap();
        for sql in &migrations::MIGRATIONS[..13] {
            tx.execute_batch(sql).unwrap();
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        tx.pragma_update(None, "user_version", 13).unwrap();
        tx.execute_batch(
            r#"INSERT INTO cases VALUES (1, 'a', 't');
            INSERT INTO raters(id, name, created_at, kind) VALUES (1, 'gpt', 't', 'model');
            INSERT INTO model_attempts(rater_id, case_id, request_hash, outcome, reason,
                input_tokens, output_tokens, latency_ms, cost_usd, at, purpose)
              VALUES (1, 1, 'h1', 'ok', NULL, 10, 2, 5, '0.00001', 't', 'rate'),
                     (1, 1, 'h2', 'failed', 'cut off', 10, 2, 5, NULL, 't', 'sweep');"#,
        )
        .unwrap();
        assert!(
            tx.execute(
                "INSERT INTO model_attempts(rater_id, case_id, request_hash, outcome, input_tokens,
                    output_tokens, latency_ms, at) VALUES (1, 1, 'h3', 'abandoned', 1, 0, 0, 't')",
                []
            )
            .is_err(),
            "schema 13 knows no abandoned request"
        );
        tx.commit().unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    let attempts = store.model_attempts(1).unwrap();
    assert_eq!(
        attempts
            .iter()
            .map(|a| (a.request_hash.as_str(), a.outcome.as_str(), a.purpose))
            .collect::<Vec<_>>(),
        [
            ("h1", "ok", AttemptPurpose::Rate),
            ("h2", "failed", AttemptPurpose::Sweep)
        ]
    );
    assert_eq!(attempts[0].cost_usd, Some(0.00001));
    let abandoned = ModelAttempt {
        rater_id: 1,
        case_id: 1,
        purpose: AttemptPurpose::Rate,
        request_hash: "h3".into(),
        outcome: "abandoned".into(),
        reason: Some("stopped".into()),
        input_tokens: 40,
        output_tokens: 0,
        latency_ms: 0,
        cost_usd: Some(0.00008),
        at: "t2".into(),
    };
    store
        .record_model_exchange(1, &[], Some(&abandoned), "t2")
        .unwrap();
    assert_eq!(store.model_attempts(1).unwrap().len(), 3);
    assert!(
        store
            .conn
            .execute(
                "INSERT INTO model_attempts(rater_id, case_id, request_hash, outcome, input_tokens,
                    output_tokens, latency_ms, at) VALUES (1, 1, 'h4', 'lost', 1, 0, 0, 't')",
                []
            )
            .is_err(),
        "an outcome the schema does not name is refused"
    );
}
