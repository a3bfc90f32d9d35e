//! A rater's answers: drafts, the submission and revisions, each checked against the
//! questionnaire and stored in its questions' canonical types.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use ts_rs::TS;

use super::lookup::{find_active_rater, find_case_ref, find_rater, not_assigned};
use super::seal::{SealedEvent, Sealing};
use super::status::{AnswerStatus, status_of};
use super::{Error, ErrorCode, Project, Result, stamp};
use verity_evidence::shell_quote;
use verity_store::{
    AnswerEvent, AnswerSave, AnswerState, CaseRef, EventKind, NewAnswerEvent, Sealer, StoreError,
    new_event_uid,
};
use verity_task::questionnaire::{Questionnaire, Stage};

/// A rater's current answer on a case.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct AnswerView {
    /// The task's id (`instance_id` in JSON, as everywhere).
    #[serde(rename = "instance_id")]
    pub case: String,
    /// The rater.
    pub rater: String,
    /// How far the rater is.
    pub status: AnswerStatus,
    /// Question id to value.
    #[ts(type = "Record<string, number | string>")]
    pub values: Map<String, Value>,
    /// 0 before the first submission; 1 for it; n+1 after each revision.
    #[ts(type = "number")]
    pub answer_revision: i64,
    /// The case revision the answer was given on.
    #[ts(type = "number | null")]
    pub case_revision: Option<i64>,
    /// When it was last saved.
    pub saved_at: Option<String>,
    /// The questionnaire's id and version it was given under.
    pub questionnaire: String,
    /// Why it was last revised.
    pub reason: Option<String>,
    /// True when a submission or revision repeated the submitted answer, so nothing was saved.
    pub unchanged: bool,
}

/// What a rater saves or submits.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct AnswerRequest {
    /// The rater.
    pub rater: String,
    /// The task's id (`instance_id` in JSON, as everywhere).
    #[serde(rename = "instance_id")]
    pub case: String,
    /// Question id to value.
    #[ts(type = "Record<string, number | string>")]
    pub values: Map<String, Value>,
    /// The case revision the rater saw; the current one when absent.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub case_revision: Option<i64>,
    /// Why a submitted answer is revised (revisions only).
    #[serde(default)]
    pub reason: Option<String>,
}

/// A rater's current answer on a case (their own only).
pub fn current_answer(project: &Project, rater: &str, case: &str) -> Result<AnswerView> {
    project.require_rater(rater)?;
    let r = find_rater(project, rater)?;
    let case = find_case_ref(project, case)?;
    let events = project.store.answer_events(case.case_id, r.id)?;
    answer_view(
        project,
        &r.name,
        &case,
        status_of(&events),
        events.last(),
        false,
    )
}

/// A rater's answer on `case` as its `latest` event left it. The task revision and the
/// questionnaire it was given on are the current ones unless the event says otherwise, and
/// only then are they read.
fn answer_view(
    project: &Project,
    rater: &str,
    case: &CaseRef,
    status: AnswerStatus,
    latest: Option<&AnswerEvent>,
    unchanged: bool,
) -> Result<AnswerView> {
    let case_revision = match latest {
        Some(e) if e.case_revision_id == case.revision_id => Some(case.revision),
        Some(e) => Some(project.store.case_revision(e.case_revision_id)?.revision),
        None => None,
    };
    let questionnaire = match latest {
        Some(e) if e.questionnaire_id != project.questionnaire_row => {
            let (id, version, _) = project.store.questionnaire_source(e.questionnaire_id)?;
            format!("{id} {version}")
        }
        _ => format!(
            "{} {}",
            project.questionnaire.id, project.questionnaire.version
        ),
    };
    Ok(AnswerView {
        case: case.instance_id.clone(),
        rater: rater.to_string(),
        status,
        values: latest
            .map(|e| project.questionnaire.decode_answer(&e.answer))
            .unwrap_or_default(),
        answer_revision: latest.map_or(0, |e| e.answer_revision),
        case_revision,
        saved_at: latest.map(|e| e.at.clone()),
        questionnaire,
        reason: latest.and_then(|e| e.reason.clone()),
        unchanged,
    })
}

/// How many times a save is tried again when another writer moved the history meanwhile: a
/// rater's own login on a server, whose checked function takes the lock after the history is
/// read, or an event that another writer's, made later, came before.
const SAVE_TRIES: usize = 5;

/// An answer's values as the one check of a save left them ([`check_answer_values`]): within
/// the questionnaire's rules for their stage, notes within their size, in their canonical
/// types. A save takes nothing else, so what it stores was checked, and once.
pub(super) struct CheckedAnswer(pub(super) Map<String, Value>);

/// The one check of what a save stores, on every path (a rater's save on a file or a server, a
/// package's event at merge, a model rater's reply): the values at `stage` and a revision's
/// `reason` against the questionnaire's rules ([`Questionnaire::check_save`]), each note and the
/// reason within [`verity_task::questionnaire::NOTE_MAX_CHARS`]. A server checks the same
/// again in `save_my_answer` for a rater's login.
pub(super) fn check_answer_values(
    project: &Project,
    values: &Map<String, Value>,
    reason: Option<&str>,
    stage: Stage,
) -> Result<CheckedAnswer> {
    project
        .questionnaire
        .check_save(values, reason, stage)
        .map(CheckedAnswer)
        .map_err(|violations| Error::Invalid { violations })
}

/// Whose answer a save stores, on which task, and what goes with it.
struct Target<'a> {
    /// The rater's name.
    rater: &'a str,
    /// The task's id or a unique prefix.
    case: &'a str,
    /// The task revision the rater saw; the current one when absent.
    case_revision: Option<i64>,
    /// Why a submitted answer is revised (revisions only).
    reason: Option<&'a str>,
    /// A model rater's answer's provenance. A model's tasks are assigned as its answers are
    /// stored, so with it the save assigns the task too, in the same transaction.
    provenance: Option<&'a str>,
}

impl<'a> Target<'a> {
    /// What a rater's request names.
    fn of(req: &'a AnswerRequest) -> Target<'a> {
        Target {
            rater: &req.rater,
            case: &req.case,
            case_revision: req.case_revision,
            reason: req.reason.as_deref(),
            provenance: None,
        }
    }
}

/// Why a save stored nothing.
enum NotSaved {
    /// It was refused.
    Refused(Error),
    /// It repeats the submitted answer.
    Unchanged,
}

/// Checks a rater's request once and stores it as an event of `kind` ([`write_answer`]).
fn write_request(
    project: &mut Project,
    req: &AnswerRequest,
    kind: EventKind,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    let stage = if kind == EventKind::Draft {
        Stage::Draft
    } else {
        Stage::Submit
    };
    let values = check_answer_values(project, &req.values, req.reason.as_deref(), stage)?;
    write_answer(project, &Target::of(req), &values, kind, now)
}

/// Stores checked `values` as the target rater's draft, submission or revision (`kind`). The
/// store reads where the answer stands and writes the event, with the assignment and the
/// provenance a model's answer brings, in one transaction, under the lock every writer of that
/// answer takes; [`decide`] settles the event from what it read (the assignment, the submitted
/// answer, the revision), and what is stored is known without reading it back.
fn write_answer(
    project: &mut Project,
    target: &Target<'_>,
    values: &CheckedAnswer,
    kind: EventKind,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    let rater = find_active_rater(project, target.rater)?;
    let mut case = find_case_ref(project, target.case)?;
    if let Some(n) = target.case_revision
        && n != case.revision
    {
        case.revision_id = project
            .store
            .case_revisions(case.case_id)?
            .into_iter()
            .find(|(_, rev)| *rev == n)
            .map(|(id, _)| id)
            .ok_or_else(|| {
                Error::NotFound(format!("case {:?} has no revision {n}", case.instance_id))
            })?;
        case.revision = n;
    }
    let key = match &project.sealing {
        Sealing::NotPackage => None,
        Sealing::Package(key) => Some(key),
        Sealing::Unsealed => {
            return Err(Error::refused(
                ErrorCode::BadPackage,
                format!(
                    "{} is a package made by a Verity that did not seal packages: what is saved in it could not be merged. Ask the coordinator for a new package (`verity package --rater {}`); nothing was saved",
                    project.path().display(),
                    shell_quote(&rater.name)
                ),
            ));
        }
    };
    let questionnaire = &project.questionnaire;
    // In a rater's package each event is sealed as it is stored, with its revision.
    let seal = key.map(|key| {
        |e: &NewAnswerEvent<'_>| {
            key.seal(&SealedEvent {
                uid: e.uid,
                rater: &rater.name,
                instance_id: &case.instance_id,
                case_revision: case.revision,
                questionnaire: (&questionnaire.id, &questionnaire.version),
                kind: e.kind,
                answer_revision: e.answer_revision,
                answer: e.answer,
                reason: e.reason,
                at: e.at,
            })
        }
    });
    let at = stamp(now);
    let reason = target.reason.filter(|_| kind == EventKind::Revise);
    let mut tries = 0;
    loop {
        tries += 1;
        let uid = new_event_uid();
        let save = AnswerSave {
            event: NewAnswerEvent {
                uid: &uid,
                case_id: case.case_id,
                rater_id: rater.id,
                case_revision_id: case.revision_id,
                questionnaire_id: project.questionnaire_row,
                kind,
                answer_revision: 0,
                answer: &values.0,
                reason,
                at: &at,
            },
            assign_at: target.provenance.map(|_| at.as_str()),
            provenance: target.provenance,
            seal: seal.as_ref().map(|seal| Sealer(seal)),
        };
        let mut not_saved = None;
        let mut decided = |before: &AnswerState| {
            let decided = decide(questionnaire, kind, before, values, target, &case);
            decided.map_err(|why| not_saved = Some(why)).ok()
        };
        let saved = project.store.save_answer(&save, &mut decided);
        let saved = match saved {
            Err(StoreError::HistoryMoved(_)) if tries < SAVE_TRIES => continue,
            saved => saved?,
        };
        return match (&saved.stored, not_saved) {
            (Some(event), _) => {
                let status = if event.kind == EventKind::Draft {
                    AnswerStatus::InProgress
                } else {
                    AnswerStatus::Submitted
                };
                answer_view(project, &rater.name, &case, status, Some(event), false)
            }
            (None, Some(NotSaved::Refused(e))) => Err(e),
            (None, Some(NotSaved::Unchanged)) => {
                let last = saved.before.submitted.as_ref();
                answer_view(
                    project,
                    &rater.name,
                    &case,
                    AnswerStatus::Submitted,
                    last,
                    true,
                )
            }
            (None, None) => Err(Error::refused(
                ErrorCode::Internal,
                "the store saved no answer and gave no reason",
            )),
        };
    }
}

/// The answer revision a save of `kind` takes after the answer as it stood (`before`), or why
/// it stores nothing: the task is not the rater's (and the save does not assign it), the
/// submitted answer is repeated, or the answer is not where `kind` can follow it
/// ([`next_revision`]).
fn decide(
    questionnaire: &Questionnaire,
    kind: EventKind,
    before: &AnswerState,
    values: &CheckedAnswer,
    target: &Target<'_>,
    case: &CaseRef,
) -> std::result::Result<i64, NotSaved> {
    if !before.assigned && target.provenance.is_none() {
        return Err(NotSaved::Refused(not_assigned(
            target.rater,
            &case.instance_id,
        )));
    }
    let submitted = before.submitted.as_ref();
    // Submitting again what is already submitted changes nothing, so a retried submission or
    // a revision that revises nothing makes no new revision.
    if kind != EventKind::Draft
        && submitted.is_some_and(|last| questionnaire.decode_answer(&last.answer) == values.0)
    {
        return Err(NotSaved::Unchanged);
    }
    next_revision(kind, submitted, target, &case.instance_id).map_err(NotSaved::Refused)
}

/// The answer revision a new event of `kind` takes after the rater's last submitted event, or
/// why it cannot be made.
fn next_revision(
    kind: EventKind,
    submitted: Option<&AnswerEvent>,
    target: &Target<'_>,
    case: &str,
) -> Result<i64> {
    let rater = target.rater;
    match (kind, submitted) {
        (EventKind::Draft, Some(_)) => Err(Error::refused(
            ErrorCode::AlreadySubmitted,
            format!(
                "{rater} already submitted case {case}; a submitted answer is never overwritten: revise it with a reason"
            ),
        )),
        (EventKind::Draft, None) => Ok(0),
        (EventKind::Submit, Some(_)) => Err(Error::refused(
            ErrorCode::NeedsReason,
            format!(
                "{rater} already submitted case {case}; a change after submission is a revision and needs a reason"
            ),
        )),
        (EventKind::Submit, None) => Ok(1),
        (EventKind::Revise, None) => Err(Error::refused(
            ErrorCode::NothingToRevise,
            format!("{rater} has not submitted case {case} yet: there is nothing to revise"),
        )),
        (EventKind::Revise, Some(last)) => {
            if target.reason.is_none_or(|r| r.trim().is_empty()) {
                return Err(Error::refused(
                    ErrorCode::NeedsReason,
                    "a revision of a submitted answer needs its reason",
                ));
            }
            Ok(last.answer_revision + 1)
        }
    }
}

/// Saves a draft (values present must be on their scale; nothing is required yet).
pub fn save_draft(
    project: &mut Project,
    req: &AnswerRequest,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    project.require_rater(&req.rater)?;
    write_request(project, req, EventKind::Draft, now)
}

/// Submits an answer, checked against every rule of the questionnaire. Refused when the rater
/// already submitted: use [`revise_answer`].
pub fn submit_answer(
    project: &mut Project,
    req: &AnswerRequest,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    project.require_rater(&req.rater)?;
    write_request(project, req, EventKind::Submit, now)
}

/// Submits a model rater's answer on `case`, checked once as its reply came in, through the
/// path a human's submission takes: with its provenance and the task's assignment, in one
/// transaction, so a refused answer leaves neither.
pub(super) fn submit_model_answer(
    project: &mut Project,
    rater: &str,
    case: &str,
    values: &CheckedAnswer,
    provenance: &str,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    project.require_rater(rater)?;
    let target = Target {
        rater,
        case,
        case_revision: None,
        reason: None,
        provenance: Some(provenance),
    };
    write_answer(project, &target, values, EventKind::Submit, now)
}

/// Records a new revision of a submitted answer, with its reason; the earlier submission stays.
pub fn revise_answer(
    project: &mut Project,
    req: &AnswerRequest,
    now: OffsetDateTime,
) -> Result<AnswerView> {
    project.require_rater(&req.rater)?;
    write_request(project, req, EventKind::Revise, now)
}
