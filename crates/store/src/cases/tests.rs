//! Cases, revisions and imports in the project file.
#![allow(clippy::unwrap_used)]

use super::*;

fn record(id: &str, text: &str) -> CaseRecord {
    CaseRecord {
        instance_id: id.into(),
        repo: Some("o/r".into()),
        problem_statement: Some(text.into()),
        gold_patch: Some("diff".into()),
        ..CaseRecord::default()
    }
}

fn import(store: &mut Store, records: &[CaseRecord]) -> ImportSummary {
    let mut session = store.begin_import("2026-01-01T00:00:00Z").unwrap();
    for r in records {
        session
            .put_record(SourceKind::Dataset, "f", &Encoded::new(r.clone()))
            .unwrap();
    }
    session.finish().unwrap()
}

#[test]
fn titles_made_by_an_older_rule_are_recomputed_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    let mut store = Store::create(&path).unwrap();
    assert_eq!(
        store.meta(TITLE_RULE_KEY).unwrap(),
        Some(TITLE_RULE.to_string()),
        "a new project records the title rule it was made with"
    );
    import(
        &mut store,
        &[record("a", "## Title\n\nHost blocking ignores subdomains")],
    );
    // What a project written before the versioned rule holds.
    store
        .conn
        .execute_batch(
            "UPDATE case_revisions SET title = 'Title'; DELETE FROM meta WHERE key = 'title_rule';",
        )
        .unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.list_cases().unwrap()[0].title,
        "Host blocking ignores subdomains",
        "an old project's titles follow the current rule once opened"
    );
    assert_eq!(
        store.meta(TITLE_RULE_KEY).unwrap(),
        Some(TITLE_RULE.to_string())
    );
}

#[test]
fn importing_the_same_content_again_changes_nothing() {
    let mut store = Store::open_in_memory().unwrap();
    let first = import(&mut store, &[record("a", "x"), record("b", "y")]);
    assert_eq!((first.added, first.updated, first.unchanged), (2, 0, 0));
    let again = import(&mut store, &[record("a", "x"), record("b", "y")]);
    assert_eq!((again.added, again.updated, again.unchanged), (0, 0, 2));
    assert_eq!(store.case_by_instance("a").unwrap().unwrap().revision, 1);
}

#[test]
fn reading_task_after_task_keeps_the_statement_as_prepared() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    let mut store = Store::create(&path).unwrap();
    import(
        &mut store,
        &[record("a", "x"), record("b", "y"), record("c", "z")],
    );
    drop(store);
    let store = Store::open(&path).unwrap();
    for id in ["a", "b", "c", "a"] {
        assert_eq!(
            store
                .case_by_instance(id)
                .unwrap()
                .unwrap()
                .case
                .instance_id,
            id
        );
    }
    let statement = store.conn.prepare_cached(CASE_BY_INSTANCE).unwrap();
    assert_eq!(
        statement.get_status(rusqlite::StatementStatus::RePrepare),
        0,
        "a new id bound is no reason to plan the lookup again"
    );
}

#[test]
fn changed_content_makes_a_new_revision_and_keeps_the_old_one() {
    let mut store = Store::open_in_memory().unwrap();
    import(&mut store, &[record("a", "x")]);
    let old = store.case_by_instance("a").unwrap().unwrap();
    let summary = import(&mut store, &[record("a", "changed")]);
    assert_eq!(summary.updated, 1);
    let new = store.case_by_instance("a").unwrap().unwrap();
    assert_eq!(new.revision, 2);
    assert_eq!(new.case.problem_statement, "changed");
    let kept = store.case_revision(old.revision_id).unwrap();
    assert_eq!(kept.case.problem_statement, "x", "old revisions are kept");
}

#[test]
fn contents_are_stored_compressed_and_plain_ones_still_read() {
    let mut store = Store::open_in_memory().unwrap();
    let issue = "The parser drops the last token. ".repeat(200);
    import(&mut store, &[record("a", &issue), record("b", &issue)]);
    let kinds: Vec<(String, String, i64)> = store
        .conn
        .prepare(
            "SELECT (SELECT typeof(content) FROM case_sources WHERE case_id = r.case_id),
                    typeof(r.content), length(r.content) FROM case_revisions r",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (source, revision, length) in &kinds {
        assert_eq!((source.as_str(), revision.as_str()), ("blob", "blob"));
        assert!(
            *length < issue.len() as i64 / 10,
            "{length} bytes for {}",
            issue.len()
        );
    }
    // What a file written before compression holds: the JSON as TEXT.
    let plain = serde_json::to_string(&store.case_by_instance("b").unwrap().unwrap().case).unwrap();
    store
        .conn
        .execute(
            "UPDATE case_revisions SET content = ?1
             WHERE case_id = (SELECT id FROM cases WHERE instance_id = 'b')",
            [&plain],
        )
        .unwrap();
    assert_eq!(
        store
            .case_by_instance("b")
            .unwrap()
            .unwrap()
            .case
            .problem_statement,
        issue
    );
}

#[test]
fn two_sources_of_a_case_in_one_import_make_one_merged_revision() {
    let mut store = Store::open_in_memory().unwrap();
    let folder = CaseRecord {
        instance_id: "a".into(),
        requirements: Some("from the folder".into()),
        ..CaseRecord::default()
    };
    let mut session = store.begin_import("t").unwrap();
    session
        .put_record(SourceKind::Dataset, "f", &Encoded::new(record("a", "x")))
        .unwrap();
    session
        .put_record(SourceKind::AuditFolder, "d", &Encoded::new(folder))
        .unwrap();
    assert_eq!(session.finish().unwrap().added, 1);
    let case = store.case_by_instance("a").unwrap().unwrap();
    assert_eq!(case.revision, 1, "one import, one revision");
    assert_eq!(case.case.problem_statement, "x");
    assert_eq!(case.case.requirements.as_deref(), Some("from the folder"));
    assert_eq!(store.case_revisions(case.case_id).unwrap().len(), 1);
}

#[test]
fn an_unfinished_import_stores_nothing() {
    let mut store = Store::open_in_memory().unwrap();
    {
        let mut session = store.begin_import("t").unwrap();
        session
            .put_record(SourceKind::Dataset, "f", &Encoded::new(record("a", "x")))
            .unwrap();
    }
    assert!(store.list_cases().unwrap().is_empty());
}

#[test]
fn a_stub_gives_way_to_real_materials() {
    let mut store = Store::open_in_memory().unwrap();
    let mut session = store.begin_import("t").unwrap();
    assert!(session.ensure_case("a", "ann.csv").unwrap());
    session.finish().unwrap();
    assert!(!store.list_cases().unwrap()[0].has_materials);
    import(&mut store, &[record("a", "x")]);
    let rows = store.list_cases().unwrap();
    assert!(rows[0].has_materials);
    assert_eq!(rows[0].revision, 2);
}
