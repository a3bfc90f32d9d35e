//! Building blocks for the tests that call `ops` directly: one time, the fixtures' paths, a
//! project on a built-in questionnaire with files imported into it, a rater, and an answer on
//! the swe-bench-verified questionnaire that every rule accepts.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use annotations::ops::{self, Actor, AnswerRequest, CaseSelection, Project, QuestionnaireChoice};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

/// The time every event of these tests is stamped with, unless a test needs them apart.
pub const T0: OffsetDateTime = OffsetDateTime::UNIX_EPOCH;

/// Notes long enough for every rule of the swe-bench-verified questionnaire.
const NOTES: &str = "The issue names the failing call but not the message the test pins; a reader of the issue cannot know it.";

/// `T0` and `seconds` later.
pub fn at(seconds: i64) -> OffsetDateTime {
    T0 + time::Duration::seconds(seconds)
}

/// A new project at `location` (a file or a server URL) on the built-in `questionnaire`.
pub fn init(location: &Path, questionnaire: &str) -> Project {
    ops::init_project(
        location,
        &QuestionnaireChoice::Builtin(questionnaire.into()),
        T0,
    )
    .unwrap()
}

/// Imports `paths` into `p` at `T0`, uncancelled.
pub fn import(p: &mut Project, paths: &[PathBuf]) {
    ops::import_paths(p, paths, T0, &mut |_| {}, &AtomicBool::new(false)).unwrap();
}

/// Assigns the tasks `ids` to `raters` at `T0`.
pub fn assign_tasks(p: &mut Project, raters: &[&str], ids: &[&str]) {
    let raters: Vec<String> = raters.iter().map(|r| r.to_string()).collect();
    let ids = ids.iter().map(|id| id.to_string()).collect();
    ops::assign_to(p, &raters, &CaseSelection::Ids(ids), T0).unwrap();
}

/// Submits `answer` as its rater at `now`, then acts as the coordinator again.
pub fn submit_as(p: &mut Project, answer: &AnswerRequest, now: OffsetDateTime) {
    p.act_as(rater(&answer.rater)).unwrap();
    ops::submit_answer(p, answer, now).unwrap();
    p.act_as(Actor::Coordinator).unwrap();
}

pub fn rater(name: &str) -> Actor {
    Actor::Rater { name: name.into() }
}

/// The answer's values: `underspecified` and `false_negative` as given, the rest fixed.
pub fn answer_values(underspecified: i64, false_negative: i64) -> Map<String, Value> {
    json!({
        "underspecified": underspecified, "underspecified_notes": NOTES,
        "false_negative": false_negative, "false_negative_notes": NOTES,
        "difficulty": "<15 min fix", "difficulty_notes": "One guard.",
        "other_major_issues": 0, "annotator_confidence": 4
    })
    .as_object()
    .unwrap()
    .clone()
}

/// `rater`'s answer on `case` with `underspecified` and a false negative of 1, on the case's
/// current revision, with no reason given.
pub fn answer(rater: &str, case: &str, underspecified: i64) -> AnswerRequest {
    AnswerRequest {
        rater: rater.into(),
        case: case.into(),
        values: answer_values(underspecified, 1),
        case_revision: None,
        reason: None,
    }
}
