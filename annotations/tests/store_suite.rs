//! The store test-suite: what every project backend must do, run through the
//! [`ProjectStore`] interface alone. `suite` takes any backend; here it runs against a SQLite
//! project file, and the SQLite schema's own refusal to change or delete an answer event is
//! checked beside it.
#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};
use verity_store::postgres::PgStore;
use verity_store::prelude::*;
use verity_store::transfer::copy_rows;
use verity_store::{
    AnswerSave, AnswerState, EncodedOutcomes, EventKind, EvidenceKey, NewAdjudication,
    NewAnswerEvent, PairScope, PairState, ProjectStore, SampleDraw, Store, StoreError,
    SubmissionFilter, SystemRow, new_event_uid,
};
use verity_task::case::{CaseRecord, Encoded, SourceKind};

use verity_testkit::store::all_rows;

const T0: &str = "2026-01-01T00:00:00Z";
const T1: &str = "2026-01-01T00:01:00Z";

fn record(id: &str, issue: &str) -> Encoded<CaseRecord> {
    Encoded::new(CaseRecord {
        instance_id: id.into(),
        repo: Some("acme/calc".into()),
        base_commit: Some("a".repeat(40)),
        problem_statement: Some(issue.into()),
        gold_patch: Some("diff --git a/x b/x\n".into()),
        test_patch: Some("diff --git a/t b/t\n".into()),
        ..CaseRecord::default()
    })
}

fn answer(value: i64) -> Map<String, Value> {
    json!({ "underspecified": value })
        .as_object()
        .unwrap()
        .clone()
}

/// Whether the task `case` is assigned to `rater`.
fn assigned(store: &dyn ProjectStore, case: i64, rater: i64) -> bool {
    store
        .list_assignments()
        .unwrap()
        .iter()
        .any(|a| (a.case_id, a.rater_id) == (case, rater))
}

/// Every behaviour `ops` relies on, through the interface.
fn suite(store: &mut dyn ProjectStore) {
    // The project's questionnaire and metadata.
    let q = store.put_questionnaire("q", "1", "source").unwrap();
    assert_eq!(store.put_questionnaire("q", "1", "source").unwrap(), q);
    assert_eq!(
        store.questionnaire_source(q).unwrap(),
        ("q".into(), "1".into(), "source".into())
    );
    store.set_meta("questionnaire", &q.to_string()).unwrap();
    assert_eq!(store.meta("questionnaire").unwrap(), Some(q.to_string()));

    // An import is all or nothing, and the same content again changes nothing.
    {
        let mut batch = store.begin_import(T0).unwrap();
        batch
            .put_record(SourceKind::Dataset, "f:line 1", &record("calc-9", "Never"))
            .unwrap();
    }
    assert!(
        store.list_cases().unwrap().is_empty(),
        "an unfinished import stores nothing"
    );
    let mut batch = store.begin_import(T0).unwrap();
    for (id, issue) in [("calc-2", "Two"), ("calc-10", "Ten")] {
        batch
            .put_record(SourceKind::Dataset, "f:line 1", &record(id, issue))
            .unwrap();
    }
    let summary = batch.finish().unwrap();
    assert_eq!(
        (summary.added, summary.updated, summary.unchanged),
        (2, 0, 0)
    );
    let mut batch = store.begin_import(T1).unwrap();
    batch
        .put_record(
            SourceKind::Dataset,
            "g:line 1",
            &record("calc-2", "Two, changed"),
        )
        .unwrap();
    batch
        .put_record(SourceKind::Dataset, "g:line 2", &record("calc-10", "Ten"))
        .unwrap();
    let summary = batch.finish().unwrap();
    assert_eq!(
        (summary.added, summary.updated, summary.unchanged),
        (0, 1, 1)
    );
    let two = store.case_by_instance("calc-2").unwrap().unwrap();
    assert_eq!(two.revision, 2);
    assert_eq!(two.case.problem_statement, "Two, changed");
    assert_eq!(store.case_revisions(two.case_id).unwrap().len(), 2);
    assert_eq!(
        store
            .case_revision(store.case_revisions(two.case_id).unwrap()[0].0)
            .unwrap()
            .case
            .problem_statement,
        "Two",
        "the old revision stays"
    );
    assert_eq!(
        store.instance_ids_with_prefix("calc-1", 5).unwrap(),
        ["calc-10"]
    );
    assert!(store.case_by_instance("calc-3").unwrap().is_none());
    // The current revision's JSON as stored, which parses as the case does.
    let json = store.case_json("calc-2").unwrap().unwrap();
    let parsed: verity_task::case::Case = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed, two.case);
    assert!(store.case_json("calc-3").unwrap().is_none());
    // Each case's current revision's shape, stored beside it, in instance-id order.
    let shapes = store.case_shapes().unwrap();
    let ten = store.case_by_instance("calc-10").unwrap().unwrap();
    assert_eq!(
        shapes,
        [
            (ten.case_id, "calc-10".into(), Some(ten.case.shape())),
            (two.case_id, "calc-2".into(), Some(two.case.shape())),
        ]
    );
    assert!(shapes[0].2.as_ref().is_some_and(|s| s.dataset && !s.pro));

    // Raters: unique regardless of case, deactivated rather than deleted once they answer.
    let ana = store.add_rater("ana", T0).unwrap();
    let bo = store.add_rater("bo", T0).unwrap();
    assert!(matches!(
        store.add_rater("Ana", T0),
        Err(StoreError::NameTaken(_))
    ));
    assert_eq!(
        store
            .list_raters()
            .unwrap()
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>(),
        ["ana", "bo"]
    );
    assert_eq!(store.rater_by_name("bo").unwrap().unwrap().id, bo.id);

    // Assignments and active time.
    let ten = store.case_by_instance("calc-10").unwrap().unwrap();
    let pairs = [
        (two.case_id, ana.id),
        (ten.case_id, ana.id),
        (two.case_id, bo.id),
    ];
    assert_eq!(store.add_assignments(&pairs, T0).unwrap(), 3);
    assert_eq!(
        store.add_assignments(&pairs, T0).unwrap(),
        0,
        "existing pairs stay"
    );
    assert!(assigned(store, ten.case_id, ana.id));
    assert!(!assigned(store, ten.case_id, bo.id));
    assert!(store.add_active_time(two.case_id, ana.id, 1500).unwrap());
    assert!(!store.add_active_time(ten.case_id, bo.id, 1500).unwrap());
    assert_eq!(store.list_assignments().unwrap().len(), 3);

    // Answer events: appended, never changed; the current answer is derived.
    let event = |kind, revision, value, at| {
        let values = answer(value);
        (kind, revision, values, at)
    };
    for (kind, revision, values, at) in [
        event(EventKind::Draft, 0, 1, T0),
        event(EventKind::Submit, 1, 2, T0),
        event(EventKind::Revise, 2, 3, T1),
    ] {
        store
            .append_answer_event(&NewAnswerEvent {
                uid: &new_event_uid(),
                case_id: two.case_id,
                rater_id: ana.id,
                case_revision_id: two.revision_id,
                questionnaire_id: q,
                kind,
                answer_revision: revision,
                answer: &values,
                reason: (kind == EventKind::Revise).then_some("read the test again"),
                at,
            })
            .unwrap();
    }
    let events = store.answer_events(two.case_id, ana.id).unwrap();
    let kinds: Vec<EventKind> = events.iter().map(|e| e.kind).collect();
    // An event is found by its global id, and stored once however often it is appended.
    let last = events.last().unwrap();
    assert_eq!(
        store.answer_event_by_uid(&last.uid).unwrap().as_ref(),
        Some(last)
    );
    assert_eq!(store.answer_event_by_uid("no such id").unwrap(), None);
    let retried = NewAnswerEvent {
        uid: &last.uid,
        case_id: last.case_id,
        rater_id: last.rater_id,
        case_revision_id: last.case_revision_id,
        questionnaire_id: last.questionnaire_id,
        kind: last.kind,
        answer_revision: last.answer_revision,
        answer: &last.answer,
        reason: last.reason.as_deref(),
        at: &last.at,
    };
    assert_eq!(store.append_answer_event(&retried).unwrap(), last.id);
    let other = answer(0);
    let err = store
        .append_answer_event(&NewAnswerEvent {
            answer: &other,
            ..retried
        })
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("stored already with different content")
    );
    assert_eq!(store.answer_events(two.case_id, ana.id).unwrap().len(), 3);
    assert_eq!(
        kinds,
        [EventKind::Draft, EventKind::Submit, EventKind::Revise]
    );
    assert_eq!(
        events[0].answer,
        answer(1),
        "earlier events are never changed"
    );
    assert_eq!(store.first_submissions().unwrap()[0].answer, answer(2));

    // Progress per pair, from assignments and answer events alone.
    let progress = |scope| {
        let mut pairs: Vec<(i64, i64, PairState, i64)> = store
            .pair_progress(scope)
            .unwrap()
            .into_iter()
            .map(|p| (p.case_id, p.rater_id, p.state, p.active_ms))
            .collect();
        pairs.sort();
        pairs
    };
    let mut expected = vec![
        (two.case_id, ana.id, PairState::Submitted, 1500),
        (ten.case_id, ana.id, PairState::Open, 0),
    ];
    expected.sort();
    assert_eq!(
        progress(PairScope::Rater(ana.id)),
        expected,
        "a rater's progress is their assignments' states and active time"
    );
    let mut expected = vec![
        (two.case_id, ana.id, PairState::Submitted, 1500),
        (two.case_id, bo.id, PairState::Open, 0),
    ];
    expected.sort();
    let just_two = [two.case_id];
    assert_eq!(progress(PairScope::Cases(&just_two)), expected);
    assert!(progress(PairScope::Cases(&just_two[..0])).is_empty());
    assert!(store.listing_version().unwrap() >= two.revision_id);
    assert_eq!(store.latest_submissions().unwrap()[0].answer, answer(3));
    assert_eq!(store.latest_answer_events().unwrap().len(), 1);
    assert_eq!(store.all_answer_events().unwrap().len(), 3);
    assert_eq!(store.rater_event_count(ana.id).unwrap(), 3);
    assert_eq!(
        store.answer_event_span().unwrap()[&(two.case_id, ana.id)],
        (T0.to_string(), T1.to_string())
    );

    // Deactivating releases unfinished assignments; removing needs a rater without answers.
    assert_eq!(
        store.set_rater_active(ana.id, false, T1).unwrap(),
        1,
        "calc-10 was unfinished"
    );
    assert!(!store.rater_by_name("ana").unwrap().unwrap().active);
    assert!(
        assigned(store, two.case_id, ana.id),
        "the submitted one stays"
    );
    store.set_rater_active(ana.id, true, T1).unwrap();
    assert_eq!(
        store.remove_rater(bo.id).unwrap(),
        1,
        "with their one assignment"
    );
    assert!(store.rater_by_name("bo").unwrap().is_none());
    assert!(
        store.remove_rater(ana.id).is_err(),
        "a rater who answered is never deleted"
    );

    // Imported answers, reference labels, adjudications.
    let mut batch = store.begin_import(T1).unwrap();
    batch.ensure_case("calc-77", "openai.csv").unwrap();
    let (stub, stub_revision) = batch.revision_for_answers("calc-77").unwrap();
    let cy = batch.ensure_rater("cy", T1).unwrap();
    assert_eq!(batch.ensure_rater("cy", T1).unwrap(), cy);
    let fields = json!({"submitted_at": "2024-06-12 10:31:05"})
        .as_object()
        .unwrap()
        .clone();
    let imported = answer(0);
    let id = batch
        .append_imported_answer(
            &NewAnswerEvent {
                uid: &new_event_uid(),
                case_id: stub,
                rater_id: cy,
                case_revision_id: stub_revision,
                questionnaire_id: q,
                kind: EventKind::Submit,
                answer_revision: 1,
                answer: &imported,
                reason: None,
                at: T1,
            },
            "openai.csv:line 2",
            &fields,
        )
        .unwrap();
    assert_eq!(batch.submission_of(stub, cy).unwrap().unwrap().0, imported);
    let stub_id = batch.case_row_id("calc-77").unwrap().unwrap();
    batch
        .put_reference_label(
            "ensembled",
            stub_id,
            &json!({"underspecified": 1}),
            "e.csv:line 2",
            T1,
        )
        .unwrap();
    batch.finish().unwrap();
    assert_eq!(store.answer_event_fields().unwrap()[&id], fields);
    assert_eq!(
        store.reference_sets().unwrap(),
        [("ensembled".to_string(), 1)]
    );
    assert_eq!(
        store.reference_labels("ensembled").unwrap()[0].instance_id,
        "calc-77"
    );
    store.add_adjudicator("lead", T0).unwrap();
    assert_eq!(store.list_adjudicators().unwrap(), ["lead"]);
    for (value, at) in [(json!(1), T0), (json!(2), T1)] {
        store
            .add_adjudication(&NewAdjudication {
                case_id: two.case_id,
                question: "underspecified",
                value: &value,
                rationale: "why",
                decided_by: "lead",
                rule: "adjudicated",
                at,
            })
            .unwrap();
    }
    let latest = store.latest_adjudications().unwrap();
    assert_eq!(
        (latest.len(), latest[0].value.clone()),
        (1, json!(2)),
        "the latest applies"
    );
    assert!(store.remove_adjudicator("lead").unwrap());
    assert!(!store.remove_adjudicator("lead").unwrap());

    // Calibration tasks: marked once, listed by id, unmarked.
    let ten = store.case_by_instance("calc-10").unwrap().unwrap();
    assert_eq!(
        store
            .set_calibration(&[two.case_id, ten.case_id, two.case_id], true, T0)
            .unwrap(),
        2
    );
    assert_eq!(store.calibration_tasks().unwrap(), ["calc-10", "calc-2"]);
    assert_eq!(store.set_calibration(&[ten.case_id], false, T1).unwrap(), 1);
    assert_eq!(store.calibration_tasks().unwrap(), ["calc-2"]);

    // Repositories and the evidence cache.
    let commit = "a".repeat(40);
    let key = EvidenceKey {
        case_revision_id: two.revision_id,
        base_commit: &commit,
        engine_version: "evidence-2",
    };
    store
        .put_repository("acme/calc", "/clones/calc", T0)
        .unwrap();
    store
        .put_repository("acme/calc", "/clones/calc-2", T1)
        .unwrap();
    assert_eq!(
        store.repository("acme/calc").unwrap().unwrap().path,
        "/clones/calc-2"
    );
    assert!(store.case_risks("evidence-2", None).unwrap().is_empty());
    store.put_evidence(&key, "{}", 0.4567, T1).unwrap();
    assert_eq!(store.cached_evidence(&key).unwrap().unwrap().report, "{}");
    assert_eq!(
        store.case_risks("evidence-2", None).unwrap(),
        [(two.case_id, 0.457)],
        "the risk of the case's latest revision, in thousandths"
    );
    assert_eq!(
        store
            .case_risks("evidence-2", Some(&[ten.case_id, two.case_id]))
            .unwrap(),
        [(two.case_id, 0.457)],
        "a page's risks"
    );
    assert!(
        store
            .case_risks("evidence-2", Some(&[ten.case_id]))
            .unwrap()
            .is_empty(),
        "only the page's cases"
    );
    assert!(store.case_risks("evidence-1", None).unwrap().is_empty());
    let other = EvidenceKey {
        base_commit: "b",
        ..key
    };
    store.put_evidence(&other, "{}", 0.9, T1).unwrap();
    assert_eq!(
        store.case_risks("evidence-2", None).unwrap(),
        [(two.case_id, 0.457)],
        "a report at another commit than the revision's is not its risk"
    );

    // Sweeps: one a case, replaced whole, every one read back in case order.
    assert!(store.sweeps(None).unwrap().is_empty());
    store
        .put_sweep(ten.case_id, "a", r#"[{"tier":"unsettled"}]"#, T1)
        .unwrap();
    store
        .put_sweep(two.case_id, "a", r#"[{"tier":"airtight"}]"#, T1)
        .unwrap();
    store
        .put_sweep(ten.case_id, "b", r#"[{"tier":"codebase-plural"}]"#, T1)
        .unwrap();
    let mut expected = vec![
        (two.case_id, r#"[{"tier":"airtight"}]"#.to_string()),
        (ten.case_id, r#"[{"tier":"codebase-plural"}]"#.to_string()),
    ];
    expected.sort();
    assert_eq!(store.sweeps(None).unwrap(), expected);
    assert_eq!(
        store.sweeps(Some(&[ten.case_id])).unwrap(),
        [(ten.case_id, r#"[{"tier":"codebase-plural"}]"#.to_string())],
        "a page reads its own cases' sweeps"
    );
    assert!(store.sweeps(Some(&[])).unwrap().is_empty());
    assert_eq!(
        store.sweep(ten.case_id).unwrap().map(|s| s.base_commit),
        Some("b".to_string())
    );
    assert!(store.remove_repository("acme/calc").unwrap());
    assert!(store.list_repositories().unwrap().is_empty());

    // Systems' results: stored whole, replaced by name, read back in case order.
    let system = |name: &str, resolved: i64| SystemRow {
        name: name.into(),
        format: "csv".into(),
        origin: "runs/x.csv".into(),
        submitted: 2,
        resolved,
        imported_at: T0.into(),
    };
    let outcomes = vec![(ten.case_id, true), (two.case_id, false)];
    assert_eq!(
        store
            .put_system_results(&[
                (system("b", 1), EncodedOutcomes::new(&outcomes)),
                (system("a", 1), EncodedOutcomes::new(&[])),
            ])
            .unwrap(),
        [false, false]
    );
    assert_eq!(
        store
            .put_system_results(&[(
                system("a", 0),
                EncodedOutcomes::new(&[(two.case_id, false)])
            )])
            .unwrap(),
        [true]
    );
    let rows = store.system_rows().unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| (r.name.as_str(), r.resolved))
            .collect::<Vec<_>>(),
        [("a", 0), ("b", 1)]
    );
    let mut read = Vec::new();
    store
        .system_outcomes(&mut |name, o| read.push((name, o)))
        .unwrap();
    let mut sorted = outcomes;
    sorted.sort_unstable();
    assert_eq!(
        read,
        [
            ("a".to_string(), vec![(two.case_id, false)]),
            ("b".to_string(), sorted)
        ]
    );
    assert!(store.remove_system_results("a").unwrap());
    assert!(!store.remove_system_results("a").unwrap());

    // A sample's draw: recorded with every task it offered and its assignments in one
    // transaction, read back with each probability as it was (shortest decimal text).
    assert!(store.sample_draws().unwrap().is_empty());
    let draw = SampleDraw {
        id: 0,
        method: "uncertainty".into(),
        seed: -3,
        size: 1,
        per_case: 1,
        predictor: Some("models".into()),
        label: Some("underdetermined".into()),
        floor: Some(0.5),
        drawn_at: T1.into(),
    };
    let third = 1.0 / 3.0;
    let rater = store.list_raters().unwrap()[0].id;
    let before = assigned(store, ten.case_id, rater);
    let (id, added) = store
        .put_sample_draw(
            &draw,
            &[
                (ten.case_id, third, true),
                (two.case_id, 1.0 - third, false),
            ],
            &[(ten.case_id, rater)],
        )
        .unwrap();
    assert_eq!(added, usize::from(!before));
    let draws = store.sample_draws().unwrap();
    assert_eq!(draws, vec![SampleDraw { id, ..draw }]);
    let frame = store.sample_frame().unwrap();
    assert_eq!(frame.len(), 2);
    let of = |case: i64| frame.iter().find(|r| r.case_id == case).unwrap();
    assert_eq!(
        (of(ten.case_id).probability, of(ten.case_id).drawn),
        (third, true)
    );
    assert_eq!(
        (of(two.case_id).probability, of(two.case_id).drawn),
        (1.0 - third, false)
    );
    assert!(assigned(store, ten.case_id, rater));
}

/// A project copied into a new one reads back cell for cell, and a copy into a project that
/// holds anything is refused whole.
fn copy_is_lossless(from: &dyn ProjectStore, to: &mut dyn ProjectStore) {
    let counts = copy_rows(from, to, &mut |_, _| Ok(true)).unwrap();
    let before = all_rows(from);
    assert_eq!(before, all_rows(to));
    let events = counts.iter().find(|(t, _)| *t == "answer_events").unwrap();
    assert_eq!(events.1, 4);
    let err = copy_rows(from, to, &mut |_, _| Ok(true)).unwrap_err();
    assert!(
        err.to_string()
            .contains("a project is copied only into a new one")
    );
    assert_eq!(before, all_rows(to));
}

/// Reading parts of the submitted answers: a few values of each (exactly as stored, a question
/// not answered left out, the notes left in the store), the answers on some cases, and the
/// cases' instance ids; the same on every backend.
fn submission_filters(store: &mut dyn ProjectStore) {
    let q = store.put_questionnaire("q", "1", "source").unwrap();
    let mut batch = store.begin_import(T0).unwrap();
    for id in ["calc-2", "calc-10", "calc-3"] {
        batch
            .put_record(SourceKind::Dataset, "f:line 1", &record(id, "Issue"))
            .unwrap();
    }
    batch.finish().unwrap();
    let ana = store.add_rater("ana", T0).unwrap();
    let bo = store.add_rater("bo", T0).unwrap();
    let two = store.case_by_instance("calc-2").unwrap().unwrap();
    let ten = store.case_by_instance("calc-10").unwrap().unwrap();
    let given = json!({
        "underspecified": 1.0,
        "difficulty": "1-4 hours",
        "underspecified_notes": "a long justification",
        "blank": null,
        "odd \"id\"": [2, 2.50],
    });
    let revised = json!({ "underspecified": 3, "underspecified_notes": "revised" });
    for (case, rater, kind, revision, values) in [
        (&two, &ana, EventKind::Submit, 1, &given),
        (&two, &bo, EventKind::Submit, 1, &given),
        (&ten, &ana, EventKind::Submit, 1, &given),
        (&two, &ana, EventKind::Revise, 2, &revised),
    ] {
        store
            .append_answer_event(&NewAnswerEvent {
                uid: &new_event_uid(),
                case_id: case.case_id,
                rater_id: rater.id,
                case_revision_id: case.revision_id,
                questionnaire_id: q,
                kind,
                answer_revision: revision,
                answer: values.as_object().unwrap(),
                reason: None,
                at: T1,
            })
            .unwrap();
    }
    let questions = ["underspecified", "blank", "odd \"id\"", "never asked"];
    let some = SubmissionFilter {
        cases: None,
        questions: Some(&questions),
    };
    let first = store.first_submissions_by(&some).unwrap();
    assert_eq!(first.len(), 3);
    let expected = json!({ "underspecified": 1.0, "blank": null, "odd \"id\"": [2, 2.50] });
    for event in &first {
        assert_eq!(
            Value::Object(event.answer.clone()),
            expected,
            "only the asked values, exactly as stored; an unanswered question is absent"
        );
        assert_eq!(
            serde_json::to_string(&event.answer["odd \"id\""]).unwrap(),
            "[2,2.5]"
        );
    }
    let whole = store.first_submissions().unwrap();
    assert_eq!(
        first
            .iter()
            .map(|e| (&e.uid, e.case_id, e.rater_id, &e.at))
            .collect::<Vec<_>>(),
        whole
            .iter()
            .map(|e| (&e.uid, e.case_id, e.rater_id, &e.at))
            .collect::<Vec<_>>(),
        "the same events as the whole answers, in the same order"
    );
    let latest = store.latest_submissions_by(&some).unwrap();
    let anas = latest
        .iter()
        .find(|e| e.case_id == two.case_id && e.rater_id == ana.id)
        .unwrap();
    assert_eq!(
        Value::Object(anas.answer.clone()),
        json!({ "underspecified": 3 })
    );
    let on_two = store
        .latest_submissions_by(&SubmissionFilter {
            cases: Some(&[two.case_id]),
            questions: None,
        })
        .unwrap();
    assert_eq!(on_two.len(), 2);
    assert_eq!(
        on_two,
        store
            .latest_submissions()
            .unwrap()
            .into_iter()
            .filter(|e| e.case_id == two.case_id)
            .collect::<Vec<_>>(),
        "whole answers on the cases asked for"
    );
    assert!(
        store
            .first_submissions_by(&SubmissionFilter {
                cases: Some(&[]),
                questions: None,
            })
            .unwrap()
            .is_empty()
    );
    let ids: Vec<String> = store
        .case_instance_ids()
        .unwrap()
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    assert_eq!(ids, ["calc-10", "calc-2", "calc-3"], "in byte order");
}

/// How many rows `table` holds, read through the transfer interface.
fn rows(store: &dyn ProjectStore, table: &str) -> usize {
    all_rows(store)
        .into_iter()
        .find(|(name, _)| *name == table)
        .map_or(0, |(_, rows)| rows.len())
}

/// A save through `save_answer`: where the answer stands read and the event, its assignment and
/// its provenance written in one transaction, all or nothing.
fn answer_saves(store: &mut dyn ProjectStore) {
    let q = store.put_questionnaire("q", "1", "source").unwrap();
    let mut batch = store.begin_import(T0).unwrap();
    batch
        .put_record(SourceKind::Dataset, "f:line 1", &record("calc-2", "Two"))
        .unwrap();
    batch.finish().unwrap();
    let two = store.case_by_instance("calc-2").unwrap().unwrap();
    let gpt = store.add_rater("gpt", T0).unwrap();
    let (uid, values) = (new_event_uid(), answer(2));
    let save = AnswerSave {
        event: NewAnswerEvent {
            uid: &uid,
            case_id: two.case_id,
            rater_id: gpt.id,
            case_revision_id: two.revision_id,
            questionnaire_id: q,
            kind: EventKind::Submit,
            answer_revision: 0,
            answer: &values,
            reason: None,
            at: T0,
        },
        assign_at: Some(T0),
        provenance: Some(r#"{"model": "test-model"}"#),
        seal: None,
    };
    let nothing_stored = |store: &dyn ProjectStore| {
        for table in ["answer_events", "assignments", "answer_provenance"] {
            assert_eq!(rows(store, table), 0, "{table}");
        }
    };
    // Nothing decided, nothing stored.
    let saved = store
        .save_answer(&save, &mut |before| {
            assert!(!before.assigned && before.submitted.is_none());
            None
        })
        .unwrap();
    assert_eq!(saved.stored, None);
    nothing_stored(store);
    // A revision the history does not allow is refused before anything is written.
    let err = store.save_answer(&save, &mut |_| Some(2)).unwrap_err();
    assert!(matches!(err, StoreError::HistoryMoved(_)), "{err}");
    nothing_stored(store);
    // An event the schema refuses (no such questionnaire) after the assignment and the
    // provenance were written takes them back with it.
    let orphan = AnswerSave {
        event: NewAnswerEvent {
            questionnaire_id: q + 1000,
            ..save.event.clone()
        },
        ..save.clone()
    };
    store.save_answer(&orphan, &mut |_| Some(1)).unwrap_err();
    nothing_stored(store);
    // Decided: the three together.
    let stored = store
        .save_answer(&save, &mut |_| Some(1))
        .unwrap()
        .stored
        .unwrap();
    assert_eq!(
        (stored.uid.as_str(), stored.answer_revision),
        (uid.as_str(), 1)
    );
    assert_eq!(
        store.answer_events(two.case_id, gpt.id).unwrap(),
        std::slice::from_ref(&stored)
    );
    assert_eq!(store.list_assignments().unwrap().len(), 1);
    assert_eq!(store.provenance().unwrap()[0].0, uid);
    // The same save again (a try whose answer was lost) is the stored event: nothing to decide.
    let mut landed = |_: &AnswerState| -> Option<i64> { panic!("a landed save decides nothing") };
    let again = store.save_answer(&save, &mut landed).unwrap();
    assert_eq!(again.stored.as_ref(), Some(&stored));
    // Another event under its global id is refused.
    let other = answer(3);
    let err = store
        .save_answer(
            &AnswerSave {
                event: NewAnswerEvent {
                    answer: &other,
                    ..save.event.clone()
                },
                ..save.clone()
            },
            &mut |_| Some(1),
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("stored already with different content")
    );
    // The next save reads where the answer stands: assigned, its submission whole.
    let next = new_event_uid();
    let revise = AnswerSave {
        event: NewAnswerEvent {
            uid: &next,
            kind: EventKind::Revise,
            reason: Some("read the test again"),
            ..save.event.clone()
        },
        assign_at: None,
        provenance: None,
        seal: None,
    };
    let revised = store
        .save_answer(&revise, &mut |before| {
            assert!(before.assigned);
            assert_eq!(before.submitted.as_ref(), Some(&stored));
            Some(2)
        })
        .unwrap();
    assert_eq!(revised.stored.unwrap().answer_revision, 2);
    assert_eq!(rows(store, "answer_events"), 2);
}

#[test]
fn a_sqlite_project_saves_an_answer_with_what_goes_with_it_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::create(&dir.path().join("p.verity")).unwrap();
    answer_saves(&mut store);
}

#[test]
fn a_postgres_project_saves_an_answer_with_what_goes_with_it_or_nothing() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let mut store = PgStore::create(&db.url(), None).unwrap();
    answer_saves(&mut store);
}

#[test]
fn a_sqlite_project_reads_parts_of_submissions() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::create(&dir.path().join("p.verity")).unwrap();
    submission_filters(&mut store);
}

#[test]
fn a_postgres_project_reads_parts_of_submissions() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let mut store = PgStore::create(&db.url(), None).unwrap();
    submission_filters(&mut store);
}

#[test]
fn a_sqlite_project_file_passes_the_store_suite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.verity");
    let mut store = Store::create(&path).unwrap();
    suite(&mut store);
    drop(store);

    // The schema refuses to change or delete an answer event, whoever connects to the file.
    let conn = rusqlite::Connection::open(&path).unwrap();
    assert!(
        conn.execute("UPDATE answer_events SET answer = '{}'", [])
            .is_err()
    );
    assert!(conn.execute("DELETE FROM answer_events", []).is_err());
    let count: i64 = conn
        .query_row("SELECT COUNT(*) FROM answer_events", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 4);

    let from = Store::open(&path).unwrap();
    let mut to = Store::create(&dir.path().join("copy.verity")).unwrap();
    copy_is_lossless(&from, &mut to);
}

#[test]
fn a_postgres_project_passes_the_store_suite() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let mut store = PgStore::create(&db.url(), None).unwrap();
    suite(&mut store);
    drop(store);

    // The schema refuses to change or delete an answer event, whoever connects, the
    // superuser included.
    for sql in [
        "UPDATE verity.answer_events SET answer = '{}'",
        "DELETE FROM verity.answer_events",
        "TRUNCATE verity.answer_events CASCADE",
    ] {
        let err = db.try_sql(None, sql).unwrap_err();
        assert!(
            err.contains("answer events are append-only"),
            "{sql}: {err}"
        );
    }
    let count = db
        .try_sql(None, "SELECT COUNT(*) FROM verity.answer_events")
        .unwrap();
    assert_eq!(count[0][0].as_deref(), Some("4"));

    // A project copies from the server into a file and from a file onto the server, cell for
    // cell.
    let dir = tempfile::tempdir().unwrap();
    let from = PgStore::open(&db.url(), None).unwrap();
    let mut file = Store::create(&dir.path().join("copy.verity")).unwrap();
    copy_is_lossless(&from, &mut file);
    let second = verity_testkit::server::Database::fresh().unwrap();
    let mut to = PgStore::create(&second.url(), None).unwrap();
    copy_is_lossless(&file, &mut to);
    // Ids carry on after the copied ones.
    let raters = to.list_raters().unwrap();
    let next = to.add_rater("after-the-copy", T1).unwrap();
    assert!(raters.iter().all(|r| r.id < next.id));
}

#[test]
fn a_server_project_is_created_once_and_a_newer_one_is_refused_untouched() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let store = PgStore::create(&db.url(), None).unwrap();
    assert_eq!(store.schema_version().unwrap(), 14);
    drop(store);
    let err = PgStore::create(&db.url(), None).unwrap_err();
    assert!(matches!(err, StoreError::AlreadyExists { .. }), "{err}");
    db.sql("UPDATE verity.schema_version SET version = 99");
    let err = PgStore::open(&db.url(), None).unwrap_err();
    assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{err}");
    assert!(err.to_string().contains("left untouched"), "{err}");
    let version = db
        .try_sql(None, "SELECT version FROM verity.schema_version")
        .unwrap();
    assert_eq!(version[0][0].as_deref(), Some("99"));

    let empty = verity_testkit::server::Database::fresh().unwrap();
    let err = PgStore::open(&empty.url(), None).unwrap_err();
    assert!(err.to_string().contains("verity init --project"), "{err}");
}

#[test]
fn the_store_works_from_a_blocking_thread_of_an_async_runtime() {
    // The desktop app calls the store from tokio's blocking threads.
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let url = db.url();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let raters = rt
        .block_on(async move {
            tokio::task::spawn_blocking(move || {
                let mut store = PgStore::create(&url, None).unwrap();
                store.add_rater("ana", T0).unwrap();
                store.list_raters().unwrap()
            })
            .await
        })
        .unwrap();
    assert_eq!(raters.len(), 1);
}

#[test]
fn a_server_project_is_reached_over_tls_as_sslmode_asks() {
    let Some(db) = verity_testkit::server::Database::fresh() else {
        return;
    };
    let Some(root) = std::env::var("VERITY_TEST_POSTGRES_ROOT_CERT")
        .ok()
        .filter(|r| !r.is_empty())
    else {
        return;
    };
    PgStore::create(&db.url(), None).unwrap();
    let tls_sessions = || {
        db.try_sql(
            None,
            &format!(
                "SELECT COUNT(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                 WHERE a.datname = '{}' AND s.ssl",
                db.name
            ),
        )
        .unwrap()[0][0]
            .clone()
    };
    // Checked against the server's root certificate, for the host name connected to.
    let checked = PgStore::open(
        &format!("{}?sslmode=verify-full&sslrootcert={root}", db.url()),
        None,
    )
    .unwrap();
    assert_eq!(checked.schema_version().unwrap(), 14);
    assert_eq!(tls_sessions().as_deref(), Some("1"));
    drop(checked);
    // Encrypted, unchecked.
    let required = PgStore::open(&format!("{}?sslmode=require", db.url()), None).unwrap();
    required.schema_version().unwrap();
    drop(required);
    // A certificate no trusted root signed is refused, with the reason.
    let err = PgStore::open(&format!("{}?sslmode=verify-full", db.url()), None).unwrap_err();
    assert!(
        err.to_string().to_lowercase().contains("certificate"),
        "{err}"
    );
    // And without TLS when asked.
    let plain = PgStore::open(&format!("{}?sslmode=disable", db.url()), None).unwrap();
    plain.schema_version().unwrap();
}
