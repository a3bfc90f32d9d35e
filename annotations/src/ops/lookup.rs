//! Looking up what a use case is given: a task by its id or a unique prefix, a rater by name,
//! and the refusals that go with them (a name that would break the lines it is printed in, a
//! task not assigned to the rater).

use std::collections::HashSet;

use super::{Error, ErrorCode, Project, Result};
use verity_evidence::shell_quote;
use verity_store::CaseRef;

/// How many of the ids a prefix starts a refusal names.
const SHOWN: usize = 5;

/// How many case ids a refusal names before the rest are left out; a rater's lookup reads
/// every id that starts with what they gave, among which only their own count.
const ALL: usize = i64::MAX as usize;

/// The human rater the actor is, with the tasks assigned to them: a rater acting reads and names
/// only those, on a file (`--as`), in their package and over their own login alike (where the
/// server holds the login to them besides). `None` for the coordinator, and for a model rater,
/// which reads the tasks of its run within the project (its answers assign them).
fn bounded(project: &Project) -> Result<Option<(String, HashSet<i64>)>> {
    let Some(name) = project.acting_rater() else {
        return Ok(None);
    };
    let rater = find_rater(project, name)?;
    if model_rater_ids(project)?.contains(&rater.id) {
        return Ok(None);
    }
    let assigned = project
        .store
        .assigned_cases(rater.id)?
        .into_iter()
        .collect();
    Ok(Some((rater.name, assigned)))
}

/// The case among a rater's own tasks that `id` names (its id, or a prefix only one of their
/// tasks' ids starts with); any other is refused as not theirs, whether the project has it or
/// not, so that a rater learns nothing of the tasks of others.
fn bounded_case_ref(
    project: &Project,
    id: &str,
    (rater, assigned): &(String, HashSet<i64>),
) -> Result<CaseRef> {
    let matches: Vec<CaseRef> = if id.is_empty() {
        Vec::new()
    } else {
        project
            .store
            .case_refs_with_prefix(id, ALL)?
            .into_iter()
            .filter(|c| assigned.contains(&c.case_id))
            .take(SHOWN + 1)
            .collect()
    };
    if matches.is_empty() {
        return Err(not_assigned(rater, id));
    }
    named_by_prefix(id, matches, |case| case.instance_id.as_str())
}

/// The full id of the case named by `id`: the id itself, or a prefix that only one case's id
/// starts with (one of the rater's own tasks, when a rater acts). Answered from the id index
/// alone: no case is read.
pub fn resolve_case_id(project: &Project, id: &str) -> Result<String> {
    if let Some(bound) = bounded(project)? {
        return Ok(bounded_case_ref(project, id, &bound)?.instance_id);
    }
    // An id is a prefix of itself and sorts before every longer id that starts with it.
    let matches = if id.is_empty() {
        Vec::new()
    } else {
        project.store.instance_ids_with_prefix(id, SHOWN + 1)?
    };
    named_by_prefix(id, matches, String::as_str)
}

/// The case named by `id` (its id, or a unique prefix) and its current revision, without its
/// content: what an answer refers to, found by one query. A save's own check refuses a task not
/// assigned to its rater; a rater's id that names none, or several, is resolved among their
/// own tasks alone, so that no other task's id is named back.
pub(super) fn find_case_ref(project: &Project, id: &str) -> Result<CaseRef> {
    let matches = if id.is_empty() {
        Vec::new()
    } else {
        project.store.case_refs_with_prefix(id, SHOWN + 1)?
    };
    match named_by_prefix(id, matches, |case| case.instance_id.as_str()) {
        Err(err) if project.acting_rater().is_some() => match bounded(project)? {
            Some(bound) => bounded_case_ref(project, id, &bound),
            None => Err(err),
        },
        found => found,
    }
}

/// The one of `matches` (up to `SHOWN + 1` cases whose id starts with `id`, in order) that `id`
/// names: the case whose id it is, or the only one it starts.
fn named_by_prefix<T>(id: &str, mut matches: Vec<T>, name: impl Fn(&T) -> &str) -> Result<T> {
    let Some(first) = matches.first() else {
        return Err(Error::NotFound(format!(
            "the project has no case {id:?}, and no case id starts with it"
        )));
    };
    if name(first) == id || matches.len() == 1 {
        return Ok(matches.swap_remove(0));
    }
    Err(Error::refused(
        ErrorCode::Ambiguous,
        format!(
            "{id:?} is the start of more than one case id ({}{}); give more of it",
            matches
                .iter()
                .take(SHOWN)
                .map(&name)
                .collect::<Vec<_>>()
                .join(", "),
            if matches.len() > SHOWN { ", …" } else { "" }
        ),
    ))
}

/// The case named by `id` (its id, or a unique prefix), as stored; when a rater acts, one of
/// the tasks assigned to them.
pub(super) fn find_case(project: &Project, id: &str) -> Result<verity_store::StoredCase> {
    let full = resolve_case_id(project, id)?;
    project
        .store
        .case_by_instance(&full)?
        .ok_or_else(|| Error::NotFound(format!("the project has no case {id:?}")))
}

/// The rater named `name`, active or not.
pub(super) fn find_rater(project: &Project, name: &str) -> Result<verity_store::Rater> {
    project
        .store
        .rater_by_name(name)?
        .ok_or_else(|| Error::NotFound(format!("the project has no rater named {name:?}")))
}

/// The rater, refused when deactivated: a rater who left the panel answers nothing more.
pub(super) fn find_active_rater(project: &Project, name: &str) -> Result<verity_store::Rater> {
    let rater = find_rater(project, name)?;
    if !rater.active {
        return Err(Error::refused(
            ErrorCode::RaterInactive,
            format!(
                "rater {name:?} is deactivated and has no queue; the coordinator can reactivate them"
            ),
        ));
    }
    Ok(rater)
}

/// Refuses a name that would break the lines and columns it is printed in: control
/// characters (a newline, a tab), and `|`, which joins two raters' names in a pair's key
/// (`ana|bo`).
pub(super) fn check_name(name: &str, what: &str) -> Result<()> {
    if let Some(c) = name.chars().find(|c| c.is_control() || *c == '|') {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "{what} may not hold {}: {name:?}",
                match c {
                    '\n' | '\r' => "a line break".to_string(),
                    '\t' => "a tab".to_string(),
                    '|' => "'|', which joins two raters' names in a pair's key".to_string(),
                    other => format!("the control character U+{:04X}", u32::from(other)),
                }
            ),
        ));
    }
    Ok(())
}

/// The refusal of a task not assigned to the rater who names it: to read, answer or time. The
/// same whether the project has the task or not, so that it tells a rater nothing of others'.
pub(super) fn not_assigned(rater: &str, case: &str) -> Error {
    Error::refused(
        ErrorCode::NotAssigned,
        format!(
            "task {case} is not assigned to {rater}: a rater reads and answers only the tasks assigned to them (the coordinator can assign it: `verity assign --case {} --rater {}`)",
            shell_quote(case),
            shell_quote(rater)
        ),
    )
}

/// The ids of the project's model raters.
pub(super) fn model_rater_ids(project: &Project) -> Result<std::collections::HashSet<i64>> {
    Ok(project
        .store
        .model_raters()?
        .into_iter()
        .map(|m| m.rater.id)
        .collect())
}

/// Refuses a model rater where only a person takes part: a login of their own, a package to
/// rate away from the project. `what` names it (`a login`, `a package`).
pub(super) fn refuse_model_rater(
    project: &Project,
    rater: &verity_store::Rater,
    what: &str,
) -> Result<()> {
    if model_rater_ids(project)?.contains(&rater.id) {
        return Err(Error::refused(
            ErrorCode::BadInput,
            format!(
                "{:?} is a model rater, and {what} is for a human rater only: a model rates through `verity models rate`, within the project",
                rater.name
            ),
        ));
    }
    Ok(())
}
