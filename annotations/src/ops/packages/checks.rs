//! The rules a package's new event is held to at a merge: those a live save of its rater would
//! apply (the rater, the assignment, the questionnaire's rules, the revision order), and its
//! seal, id and time.

use std::collections::HashSet;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::super::answers::check_answer_values;
use super::super::seal::{PackageSeal, SealedEvent};
use super::read::{MergedEvent, PackageEvent};
use crate::ops::{Error, Project, Result};
use verity_store::{EventKind, PackageKey};
use verity_task::questionnaire::Stage;

/// How far an event's time may lie before its package was made or after the merge: the rater's
/// clock is not the coordinator's.
const CLOCK_LEEWAY: time::Duration = time::Duration::days(1);

/// Refuses a package whose new events a live save of its rater would refuse whatever they say:
/// a model rater, a rater deactivated. Gives the tasks assigned to the rater.
pub(super) fn check_rater(
    project: &Project,
    models: &HashSet<i64>,
    rater: &verity_store::Rater,
    refuse: &dyn Fn(String) -> Error,
) -> Result<HashSet<i64>> {
    if models.contains(&rater.id) {
        return Err(refuse(format!(
            "is for {:?}, a model rater, who answers within the project only",
            rater.name
        )));
    }
    if !rater.active {
        return Err(refuse(format!(
            "holds new answers of {:?}, who is deactivated and saves no answers (reactivate them to merge: `verity raters reactivate {}`)",
            rater.name,
            verity_evidence::shell_quote(&rater.name)
        )));
    }
    Ok(project
        .store
        .assigned_cases(rater.id)?
        .into_iter()
        .collect())
}

/// The rule a new event breaks, as the end of a sentence; `Ok` when it keeps them all: its seal,
/// its id, its time, its task's assignment, its reason and the questionnaire's rules.
pub(super) fn check_new(
    project: &Project,
    now: OffsetDateTime,
    key: Option<&PackageKey>,
    e: &PackageEvent,
    assigned: bool,
) -> std::result::Result<(), String> {
    let event = &e.event;
    let Some(key) = key else {
        return Err("carries no seal: the package was made by a Verity that did not seal packages, so its new events cannot be told from forged ones".into());
    };
    let seal = PackageSeal {
        package_id: key.package_id.clone(),
        secret: key.secret.clone(),
    };
    let sealed = SealedEvent {
        uid: &e.uid,
        rater: &event.rater,
        instance_id: &event.instance_id,
        case_revision: event.revision,
        questionnaire: (&e.questionnaire.0, &e.questionnaire.1),
        kind: event.kind,
        answer_revision: event.answer_revision,
        answer: &event.answer,
        reason: event.reason.as_deref(),
        at: &event.at,
    };
    match &e.seal {
        None => return Err("carries no seal: it was not saved in this package by Verity".into()),
        Some(s) if !seal.verifies(&sealed, s) => {
            return Err(
                "is not sealed with its package's secret: it was changed, or made, outside the package's Verity"
                    .into(),
            );
        }
        Some(_) => {}
    }
    if !is_uuid_v7(&e.uid) {
        return Err("has a global id that is not a UUID v7".into());
    }
    let made = OffsetDateTime::parse(&key.made_at, &Rfc3339).ok();
    match OffsetDateTime::parse(&event.at, &Rfc3339) {
        Err(_) => {
            return Err(format!(
                "is dated {:?}, which is not an RFC 3339 time",
                event.at
            ));
        }
        Ok(at) if made.is_some_and(|made| at < made - CLOCK_LEEWAY) => {
            return Err(format!(
                "is dated before its package was made ({}), by more than a day",
                key.made_at
            ));
        }
        Ok(at) if at > now + CLOCK_LEEWAY => {
            return Err("is dated after this merge, by more than a day".into());
        }
        Ok(_) => {}
    }
    if !assigned {
        return Err(format!(
            "is on a task not assigned to {}: a rater answers only their assigned tasks",
            event.rater
        ));
    }
    match (event.kind, event.reason.as_deref()) {
        (EventKind::Revise, None) => {
            return Err("is a revision without its reason".into());
        }
        (EventKind::Revise, Some(reason)) if reason.trim().is_empty() => {
            return Err("is a revision without its reason".into());
        }
        (EventKind::Draft | EventKind::Submit, Some(_)) => {
            return Err(format!(
                "is a {} with a reason: only a revision has one",
                if event.kind == EventKind::Draft {
                    "draft"
                } else {
                    "submission"
                }
            ));
        }
        _ => {}
    }
    let stage = if event.kind == EventKind::Draft {
        Stage::Draft
    } else {
        Stage::Submit
    };
    match check_answer_values(project, &event.answer, event.reason.as_deref(), stage) {
        Err(Error::Invalid { violations }) => Err(format!(
            "breaks the questionnaire's rules: {}",
            violations
                .iter()
                .map(|v| v.message.trim_end_matches('.'))
                .collect::<Vec<_>>()
                .join("; ")
        )),
        Err(other) => Err(format!("cannot be checked: {other}")),
        Ok(checked) if checked.0 != event.answer => {
            Err("holds values in another form than a save stores them".into())
        }
        Ok(_) => Ok(()),
    }
}

/// Whether an event follows its package's own history on the task, as a save makes it: a
/// draft before the submission, the submission as revision 1, each revision after the last
/// (`last` is the last submitted revision before it, in global-id order).
pub(super) fn follows_in_package(
    event: &MergedEvent,
    last: Option<i64>,
) -> std::result::Result<(), String> {
    let follows = match event.kind {
        EventKind::Draft => event.answer_revision == 0 && last.is_none(),
        EventKind::Submit => event.answer_revision == 1 && last.is_none(),
        EventKind::Revise => last.is_some_and(|n| event.answer_revision == n + 1),
    };
    if follows {
        return Ok(());
    }
    Err(format!(
        "breaks the order of the package's own answer on the task: it follows {}",
        match last {
            None => "no submission".to_string(),
            Some(n) => format!("submitted revision {n}"),
        }
    ))
}

/// Whether `uid` is a UUID v7 as Verity writes it (lower-case hex, version 7, RFC variant).
fn is_uuid_v7(uid: &str) -> bool {
    let b = uid.as_bytes();
    let hex = |range: std::ops::Range<usize>| {
        b[range]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
    };
    b.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && hex(0..8)
        && hex(9..13)
        && b[14] == b'7'
        && hex(15..18)
        && matches!(b[19], b'8' | b'9' | b'a' | b'b')
        && hex(20..23)
        && hex(24..36)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uuid_v7_is_told_from_other_ids() {
        assert!(is_uuid_v7(&verity_store::new_event_uid()));
        for bad in [
            "",
            "01900000-0000-4000-8000-000000000001",
            "01900000-0000-7000-c000-000000000001",
            "01900000-0000-7000-8000-00000000000G",
            "01900000000070008000000000000001",
            "01900000-0000-7000-8000-0000000000011",
        ] {
            assert!(!is_uuid_v7(bad), "{bad}");
        }
    }
}
