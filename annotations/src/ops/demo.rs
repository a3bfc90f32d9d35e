//! The embedded demo project, kept where the desktop app keeps it.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::access::Actor;
use super::adjudication::{AdjudicationRequest, adjudicate};
use super::answers::{AnswerRequest, submit_answer};
use super::calibration::mark_calibration;
use super::import::import_paths;
use super::raters::{CaseSelection, add_rater, assign, record_time};
use super::{
    Error, ErrorCode, Project, QuestionnaireChoice, Result, init_project, open_project, stamp,
};

/// Where the demo project, with its finished round, lives inside a data folder.
pub const DEMO_PROJECT_FILE: &str = "demo.verity";

/// Where the empty demo project (the same tasks, no answers yet) lives inside a data folder.
pub const EMPTY_DEMO_PROJECT_FILE: &str = "demo-empty.verity";

/// The desktop app's identifier (`tauri.conf.json`), which names its data folder.
pub const APP_IDENTIFIER: &str = "dev.verity.desktop";

/// The folder the desktop app keeps its demo project in, so that `verity demo` opens the same
/// one: `$XDG_DATA_HOME/dev.verity.desktop/demo` (`~/.local/share/…` by default) on Linux,
/// `~/Library/Application Support/dev.verity.desktop/demo` on macOS, `%APPDATA%\…` on
/// Windows. `None` when the environment names no home folder.
pub fn default_demo_dir() -> Option<PathBuf> {
    Some(user_data_dir()?.join(APP_IDENTIFIER).join("demo"))
}

/// The user's data folder: `$XDG_DATA_HOME` (`~/.local/share` by default) on Linux,
/// `~/Library/Application Support` on macOS, `%APPDATA%` on Windows. `None` when the
/// environment names no home folder.
pub(crate) fn user_data_dir() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v: &std::ffi::OsString| !v.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library/Application Support"))
    } else if cfg!(windows) {
        var("APPDATA")
    } else {
        var("XDG_DATA_HOME").or_else(|| var("HOME").map(|home| home.join(".local/share")))
    }
}

/// Opens the embedded demo project in `data_dir`, creating it on first use as a finished round:
/// the demo git repository, a project with the SWE-bench Verified questionnaire, the twelve demo
/// tasks, the three demo raters each assigned every task, and what they did in the round
/// (`assets/demo/round.toml`): their submitted answers and active time, one adjudication, and
/// the reference set `demo-reference` for six tasks, which are the calibration tasks. Every time
/// in it comes from that file, so every creation gives the same project.
pub fn open_demo_project(data_dir: &Path) -> Result<Project> {
    let round = crate::demo::demo_round().map_err(|e| {
        Error::refused(
            ErrorCode::Internal,
            format!("the demo round (assets/demo/round.toml) cannot be read: {e}"),
        )
    })?;
    let started = parse_time(&round.started_at)?;
    open_or_create(data_dir, DEMO_PROJECT_FILE, started, |project, tasks| {
        let reference = data_dir.join(format!("{}.csv", crate::demo::DEMO_REFERENCE_SET));
        super::write_file(&reference, super::Overwrite::Replace, |out| {
            out.write_all(crate::demo::DEMO_REFERENCE_CSV.as_bytes())
                .map_err(|source| Error::Write {
                    path: reference.clone(),
                    source,
                })
        })?;
        set_up(project, &[tasks, reference], started)?;
        assign(
            project,
            crate::demo::DEMO_RATERS.len(),
            0,
            &CaseSelection::All,
            started,
        )?;
        mark_calibration(project, &[], true, started)?;
        play_round(project, &round)
    })
}

/// Opens the empty demo project in `data_dir` (`demo-empty.verity`), creating it on first use:
/// the same repository, tasks and raters as [`open_demo_project`]'s, two raters per task, and
/// nothing answered yet, for trying a rater's first hour.
pub fn open_empty_demo_project(data_dir: &Path, now: OffsetDateTime) -> Result<Project> {
    open_or_create(data_dir, EMPTY_DEMO_PROJECT_FILE, now, |project, tasks| {
        set_up(project, &[tasks], now)?;
        assign(project, 2, 0, &CaseSelection::All, now)?;
        Ok(())
    })
}

fn parse_time(text: &str) -> Result<OffsetDateTime> {
    OffsetDateTime::parse(text, &Rfc3339).map_err(|e| {
        Error::refused(
            ErrorCode::Internal,
            format!("the demo round's time {text:?} is not an RFC 3339 time: {e}"),
        )
    })
}

/// Opens `data_dir/file`, first building it with `build` (given the written tasks file) when
/// it does not exist.
fn open_or_create(
    data_dir: &Path,
    file: &str,
    created: OffsetDateTime,
    build: impl FnOnce(&mut Project, PathBuf) -> Result<()>,
) -> Result<Project> {
    let write = |source| Error::Write {
        path: data_dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(data_dir).map_err(write)?;
    let repository = crate::demo::write_demo_repository(data_dir).map_err(|e| {
        Error::refused(
            ErrorCode::Internal,
            format!("cannot build the demo repository: {e}"),
        )
    })?;
    let path = data_dir.join(file);
    if path.exists() {
        return open_project(&path);
    }
    let tasks = data_dir.join("demo-tasks.jsonl");
    super::write_file(&tasks, super::Overwrite::Replace, |out| {
        out.write_all(crate::demo::DEMO_TASKS_JSONL.as_bytes())
            .map_err(write)
    })?;
    // Built under a partial name and renamed into place, so an interrupted first start never
    // leaves a half-made demo behind.
    super::write_project_file(&path, super::Overwrite::Refuse, |partial| {
        let mut project = init_project(
            partial,
            &QuestionnaireChoice::Builtin("swe-bench-verified".into()),
            created,
        )?;
        project.store.put_repository(
            crate::demo::DEMO_REPO,
            &repository.display().to_string(),
            &stamp(created),
        )?;
        build(&mut project, tasks)
    })?;
    open_project(&path)
}

/// Imports `files` (the tasks, and the reference set when given) and adds the demo raters.
fn set_up(project: &mut Project, files: &[PathBuf], now: OffsetDateTime) -> Result<()> {
    import_paths(project, files, now, &mut |_| {}, &AtomicBool::new(false))?;
    for name in crate::demo::DEMO_RATERS {
        add_rater(project, name, now)?;
    }
    Ok(())
}

/// Replays the round in the order it happened: each rater's active time and submission, each as
/// that rater, then the coordinator's adjudications.
fn play_round(project: &mut Project, round: &crate::demo::DemoRound) -> Result<()> {
    let mut answers: Vec<_> = round.answers.iter().collect();
    answers.sort_by(|a, b| a.submitted_at.cmp(&b.submitted_at));
    for answer in answers {
        project.act_as(Actor::Rater {
            name: answer.rater.clone(),
        })?;
        record_time(
            project,
            &answer.rater,
            &answer.task,
            answer.active_seconds * 1000,
        )?;
        let request = AnswerRequest {
            rater: answer.rater.clone(),
            case: answer.task.clone(),
            values: answer.values.clone(),
            case_revision: None,
            reason: None,
        };
        submit_answer(project, &request, parse_time(&answer.submitted_at)?)?;
    }
    project.act_as(Actor::Coordinator)?;
    for decision in &round.adjudications {
        let request = AdjudicationRequest {
            case: decision.task.clone(),
            question: decision.question.clone(),
            value: decision.value.clone(),
            rationale: decision.rationale.clone(),
            by: decision.by.clone(),
        };
        adjudicate(project, &request, parse_time(&decision.at)?)?;
    }
    Ok(())
}
