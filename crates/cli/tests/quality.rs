//! Calibration tasks mixed into raters' queues, and each rater's quality against the reference,
//! against the panel, and their pace, through the use cases the CLI and the app call.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use annotations::ops::{self, Actor, AnswerRequest, Project};
use serde_json::{Value, json};

use crate::util;
use verity_testkit::project::{self, T0};

const TASKS: usize = 40;
const REFERENCED: usize = 20;

fn id(i: usize) -> String {
    format!("acme__calc-{}", 1000 + i)
}

/// The reference's 1.1 label of task `i`.
fn truth(i: usize) -> u64 {
    (i % 4) as u64
}

/// A project of 40 tasks, the first 20 labelled by a reference set, and raters ana, bo, cy.
fn panel(dir: &Path) -> Project {
    let row: serde_json::Map<String, Value> = serde_json::from_str(
        std::fs::read_to_string(verity_testkit::fixture("swebench.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let tasks: String = (0..TASKS)
        .map(|i| {
            let mut r = row.clone();
            r.insert("instance_id".into(), json!(id(i)));
            format!("{}\n", Value::Object(r))
        })
        .collect();
    std::fs::write(dir.join("tasks.jsonl"), tasks).unwrap();
    let mut csv = String::from(
        "instance_id,underspecified,underspecified_notes,false_negative,false_negative_notes,other_major_issues,other_notes,difficulty,underspecified_decided_by,false_negative_decided_by,other_major_issues_decided_by,difficulty_decided_by,difficulty_ensemble_decision_procedure,filter_out\n",
    );
    for i in 0..REFERENCED {
        let u = truth(i);
        csv.push_str(&format!(
            "{},{u}.0,notes,0.0,notes,0.0,,<15 min fix,a,a,a,\"[\"\"a\"\"]\",majority,{}\n",
            id(i),
            if u >= 2 { "True" } else { "False" }
        ));
    }
    std::fs::write(dir.join("ensembled_annotations_public.csv"), csv).unwrap();
    let mut p = project::init(&dir.join("p.verity"), "swe-bench-verified");
    project::import(
        &mut p,
        &[
            dir.join("tasks.jsonl"),
            dir.join("ensembled_annotations_public.csv"),
        ],
    );
    for name in ["ana", "bo", "cy"] {
        ops::add_rater(&mut p, name, T0).unwrap();
    }
    p
}

fn submit(p: &mut Project, rater: &str, case: &str, underspecified: u64, seconds: i64) {
    let mut values = verity_testkit::full_answer().as_object().unwrap().clone();
    values.insert("underspecified".into(), json!(underspecified));
    p.act_as(Actor::Rater { name: rater.into() }).unwrap();
    ops::record_time(p, rater, case, seconds * 1000).unwrap();
    ops::submit_answer(
        p,
        &AnswerRequest {
            rater: rater.into(),
            case: case.into(),
            values,
            case_revision: None,
            reason: None,
        },
        T0,
    )
    .unwrap();
    p.act_as(Actor::Coordinator).unwrap();
}

#[test]
fn calibration_tasks_are_mixed_into_every_queue_at_the_rate_and_look_like_any_other() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = panel(dir.path());
    let err = ops::mark_calibration(&mut p, &[id(30)], false, T0).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "task {} has no reference label, so it cannot be a calibration task: import a reference set that labels it",
            id(30)
        )
    );
    let view = ops::mark_calibration(&mut p, &[], true, T0).unwrap();
    assert_eq!(
        (view.tasks.len(), view.with_reference),
        (REFERENCED, REFERENCED)
    );
    assert!(ops::set_calibration_rate(&mut p, 1.0).is_err());
    ops::set_calibration_rate(&mut p, 0.2).unwrap();

    let report = ops::assign(&mut p, 2, 7, &ops::CaseSelection::All, T0).unwrap();
    // 20 ordinary tasks × 2 raters over 3 raters: 13 or 14 each; at one in five, 3 or 4
    // calibration tasks each.
    assert!(report.calibration_assignments >= 9, "{report:?}");
    assert!(report.calibration.iter().all(|t| view.tasks.contains(t)));
    let calibration: HashSet<String> = view.tasks.into_iter().collect();
    for rater in ["ana", "bo", "cy"] {
        p.act_as(Actor::Rater { name: rater.into() }).unwrap();
        let queue = ops::rater_queue(&p, rater).unwrap();
        let mixed = queue
            .iter()
            .filter(|q| calibration.contains(&q.instance_id))
            .count();
        let share = mixed as f64 / queue.len() as f64;
        assert!(
            (0.15..=0.25).contains(&share),
            "{rater}: {mixed} of {}",
            queue.len()
        );
        // Nothing in a queue line or a task's view tells a calibration task apart.
        let line = serde_json::to_value(&queue[0]).unwrap();
        let keys: Vec<&String> = line.as_object().unwrap().keys().collect();
        let other = queue
            .iter()
            .find(|q| {
                calibration.contains(&q.instance_id) != calibration.contains(&queue[0].instance_id)
            })
            .unwrap();
        let other = serde_json::to_value(other).unwrap();
        assert_eq!(keys, other.as_object().unwrap().keys().collect::<Vec<_>>());
        assert!(!line.to_string().contains("calibration"));
        let view = serde_json::to_string(
            &ops::case_view(&p, other["instance_id"].as_str().unwrap()).unwrap(),
        )
        .unwrap();
        assert!(
            !view.contains("calibration") && !view.contains("ensembled"),
            "{view}"
        );
        assert!(
            ops::calibration(&p).is_err(),
            "a rater cannot list calibration tasks"
        );
        assert!(ops::rater_quality(&p, &ops::QualityRequest::default()).is_err());
    }
    p.act_as(Actor::Coordinator).unwrap();
    // Assigning again gives nothing new: every queue is at the rate already.
    let again = ops::assign(&mut p, 2, 7, &ops::CaseSelection::All, T0).unwrap();
    assert_eq!((again.added, again.calibration_assignments), (0, 0));
    assert!(again.why_none.is_some(), "{again:?}");
}

#[test]
fn each_rater_is_measured_against_the_reference_the_panel_and_their_own_pace() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = panel(dir.path());
    ops::assign_to(
        &mut p,
        &["ana".into(), "bo".into(), "cy".into()],
        &ops::CaseSelection::All,
        T0,
    )
    .unwrap();
    // Ana gives the reference's label; bo one more (up to 3); cy the reference's on 15 and
    // then 0. Everyone takes about ten minutes a task; bo rushes two tasks.
    for i in 0..30 {
        let t = if i < REFERENCED { truth(i) } else { 1 };
        submit(&mut p, "ana", &id(i), t, 600 + i as i64);
        let rushed = i == 3 || i == 25;
        submit(
            &mut p,
            "bo",
            &id(i),
            (t + 1).min(3),
            if rushed { 40 } else { 560 },
        );
        submit(&mut p, "cy", &id(i), if i < 15 { t } else { 0 }, 640);
    }
    let report = ops::rater_quality(
        &p,
        &ops::QualityRequest {
            question: Some("1.1".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        report.reference.as_deref(),
        Some("ensembled_annotations_public")
    );
    assert!(!report.calibration_marked);
    let by: HashMap<&str, &ops::RaterQuality> = report
        .raters
        .iter()
        .map(|r| (r.rater.as_str(), r))
        .collect();
    let ana = by["ana"];
    assert_eq!((ana.tasks, ana.calibration_tasks), (30, REFERENCED));
    assert_eq!(ana.accuracy["underspecified"], Some(1.0));
    assert_eq!(ana.weighted_kappa["underspecified"], Some(1.0));
    assert_eq!(ana.bias["underspecified"].mean, Some(0.0));
    assert_eq!(ana.bias["underspecified"].ci95, Some([0.0, 0.0]));
    // Bo is one above the reference wherever he can be: 15 of 20 (the five 3s stay 3).
    let bo = by["bo"];
    assert_eq!(bo.accuracy["underspecified"], Some(0.25));
    assert_eq!(bo.bias["underspecified"].mean, Some(0.75));
    let [low, high] = bo.bias["underspecified"].ci95.unwrap();
    assert!(low > 0.4 && high <= 1.0, "{low} {high}");
    let confusion = &bo.questions["underspecified"].confusion;
    assert_eq!(confusion[1][0], 5, "bo said 1 where the reference says 0");
    assert_eq!(confusion[3][3], 5);
    assert_eq!(bo.fast_submissions, [id(3), id(25)]);
    assert!(ana.fast_submissions.is_empty());
    assert_eq!(ana.median_active_seconds, Some(614.5));
    // Cy drifts: right on the first block of 20 answers... which holds all 20 reference
    // tasks; the second block holds none.
    let cy = &by["cy"].questions["underspecified"];
    assert_eq!(cy.drift.len(), 1);
    assert_eq!(cy.drift[0].tasks, REFERENCED);
    // Against the panel: ana agrees best with the others' consensus.
    let kappa = |r: &str| {
        by[r].questions["underspecified"]
            .kappa_vs_consensus
            .unwrap()
    };
    assert!(
        kappa("ana") > kappa("bo"),
        "{} {}",
        kappa("ana"),
        kappa("bo")
    );
    assert_eq!(by["ana"].questions["underspecified"].shared_tasks, 30);
    let detail = &by["bo"].questions["underspecified"];
    assert!(detail.alpha_without.unwrap() > detail.panel_alpha.unwrap());

    // The JSON is a list of raters with the figures keyed by question id, null with a reason.
    let json = serde_json::to_value(&report.raters).unwrap();
    let first = &json[0];
    for key in [
        "rater",
        "tasks",
        "calibration_tasks",
        "accuracy",
        "weighted_kappa",
        "bias",
        "median_active_seconds",
        "fast_submissions",
    ] {
        assert!(first.get(key).is_some(), "{key} missing from {first}");
    }
    assert_eq!(first["bias"]["underspecified"]["ci95"], json!([0.0, 0.0]));

    // The report has a page per rater, linked from its Raters table.
    let out = dir.path().join("report");
    ops::write_report(&p, &out, 200, 1, ops::Overwrite::Refuse).unwrap();
    let main = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        main.contains("| [ana](rater-ana.md) | 30 | 20 | 614.500 | 0 |"),
        "{main}"
    );
    assert!(
        main.contains("| [bo](rater-bo.md) | 30 | 20 | 560.000 | 2 |"),
        "{main}"
    );
    let page = std::fs::read_to_string(out.join("rater-bo.md")).unwrap();
    assert!(page.contains("| `underspecified` | 0.250 |"), "{page}");
    assert!(page.contains(&format!("{}, {}", id(3), id(25))), "{page}");
    assert!(
        page.contains("## `underspecified` against the reference"),
        "{page}"
    );

    // Calibration marked: only those tasks count against the reference.
    ops::mark_calibration(&mut p, &[id(0), id(1), id(2), id(3)], false, T0).unwrap();
    let report = ops::rater_quality(&p, &ops::QualityRequest::default()).unwrap();
    assert!(report.calibration_marked);
    let ana = report.raters.iter().find(|r| r.rater == "ana").unwrap();
    assert_eq!(ana.calibration_tasks, 4);
    // 3.3 (other major issues) is a yes/no question the reference labels 0 everywhere.
    let reasons: BTreeMap<&String, &String> = ana.reasons.iter().collect();
    assert!(
        reasons.keys().any(|k| k.starts_with("weighted_kappa.")),
        "{reasons:?}"
    );
}

#[test]
fn without_a_reference_the_figures_are_null_with_the_reason_and_the_cli_prints_json() {
    let h = util::Harness::new();
    h.ok(&["import", &verity_testkit::fixture("swebench.jsonl")]);
    h.submit_full_answer("ana", "acme__calc-101");
    let json = h.json(&["raters", "quality", "--json"]);
    let ana = &json[0];
    assert_eq!(ana["rater"], "ana");
    assert!(ana["accuracy"]["underspecified"].is_null());
    assert_eq!(
        ana["reasons"]["accuracy.underspecified"],
        "the project holds no reference labels: import a reference set (OpenAI's ensembled file, say)"
    );
    assert!(ana["median_active_seconds"].is_null());
    assert_eq!(
        ana["reasons"]["median_active_seconds"],
        "no active time is recorded on the rater's submitted tasks"
    );
    let text = h.ok(&["raters", "quality", "--question", "2.1"]);
    assert!(text.contains("false_negative"), "{text}");
    let err = h.fails(&["calibration", "rate", "2"]);
    assert!(err.contains("0.1 for one task in ten"), "{err}");
    assert!(
        h.ok(&["calibration", "list"])
            .starts_with("0 calibration tasks")
    );
}
