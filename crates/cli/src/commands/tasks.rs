//! Tasks: the project, importing and fetching tasks, a rater's queue, cases, the demo,
//! calibration tasks.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use annotations::ops::{self, QuestionnaireChoice};
use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::case_text;
use crate::output::{cancel_on_ctrl_c, print_json, progress_bar, status_word};
use crate::schema::tasks::{
    CalibrationAction, CaseAction, CasesArgs, DemoArgs, FetchArgs, ImportArgs, InitArgs, QueueArgs,
    SortArg, StatusArg,
};
use crate::session::Session;

pub fn init(s: &Session, args: InitArgs, out: &mut dyn Write) -> Result<()> {
    let InitArgs { questionnaire } = args;
    let path = s.path()?;
    let choice = if questionnaire.ends_with(".toml") || Path::new(&questionnaire).is_file() {
        QuestionnaireChoice::File(PathBuf::from(&questionnaire))
    } else {
        QuestionnaireChoice::Builtin(questionnaire)
    };
    let p = ops::init_project(path, &choice, s.now)?;
    let q = p.questionnaire();
    writeln!(
        out,
        "created {} (questionnaire {} {})",
        path.display(),
        q.id,
        q.version
    )?;
    Ok(())
}

pub fn import(s: &Session, args: ImportArgs, out: &mut dyn Write) -> Result<()> {
    let ImportArgs { paths, json } = args;
    let mut p = s.open()?;
    let cancel = AtomicBool::new(false);
    let bar = progress_bar(paths.len() as u64, "{bar:30} {pos}/{len} paths, {msg}");
    let mut progress = |step: &ops::ImportProgress| {
        if let Some(bar) = &bar {
            bar.set_position(step.paths_done as u64);
            bar.set_message(format!("{} records", step.records));
        }
    };
    let report = ops::import_paths(&mut p, &paths, s.now, &mut progress, &cancel)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if json {
        print_json(out, &report)?;
    } else {
        for path in &report.paths {
            writeln!(
                out,
                "{}: {} ({} records)",
                path.path, path.format, path.records
            )?;
            if !path.kept_fields.is_empty() {
                writeln!(
                    out,
                    "  kept but not shown to raters: {}",
                    path.kept_fields.join(", ")
                )?;
            }
        }
        writeln!(
            out,
            "added {}, updated {}, unchanged {}",
            report.added, report.updated, report.unchanged
        )?;
    }
    Ok(())
}

pub fn fetch(s: &Session, args: FetchArgs, out: &mut dyn Write) -> Result<()> {
    let FetchArgs {
        dataset,
        split,
        revision,
        json,
    } = args;
    let mut p = s.open()?;
    let cancel = cancel_on_ctrl_c();
    let bar = progress_bar(0, "{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec}");
    let mut progress = |step: &ops::FetchProgress| {
        let Some(bar) = &bar else { return };
        match step {
            ops::FetchProgress::Download(d) => {
                bar.set_length(d.bytes_total);
                bar.set_position(d.bytes_done);
                let file = d.file.as_deref().unwrap_or("listing files");
                bar.set_message(match &d.waiting {
                    Some(why) => format!("{file}: {why}"),
                    None => format!("{}/{} {file}", d.files_done, d.files_total),
                });
            }
            ops::FetchProgress::Import(i) => {
                bar.set_message(format!("importing: {} records", i.records));
            }
        }
    };
    let request = ops::FetchRequest {
        dataset,
        split: Some(split),
        revision: Some(revision),
    };
    let settings = ops::HubSettings::from_env();
    let report = ops::fetch_dataset(&mut p, &request, &settings, s.now, &mut progress, &cancel)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if json {
        print_json(out, &report)?;
    } else {
        let fetched = &report.fetched;
        let bytes: u64 = fetched.files.iter().map(|f| f.bytes).sum();
        writeln!(
            out,
            "{} {} at {} ({}): {}, {}, {}",
            fetched.dataset,
            fetched.split,
            fetched.revision,
            fetched.commit,
            ops::counted(fetched.files.len(), "file"),
            ops::counted(usize::try_from(bytes).unwrap_or(usize::MAX), "byte"),
            if report.from_cache {
                format!(
                    "served from the cache {}, nothing downloaded",
                    fetched.cache
                )
            } else {
                format!("downloaded into the cache {}", fetched.cache)
            }
        )?;
        for file in &fetched.files {
            writeln!(out, "{}\tsha256 {}", file.path, file.sha256)?;
        }
        writeln!(
            out,
            "added {}, updated {}, unchanged {}",
            report.import.added, report.import.updated, report.import.unchanged
        )?;
    }
    Ok(())
}

pub fn queue(s: &Session, args: QueueArgs, out: &mut dyn Write) -> Result<()> {
    let QueueArgs { json } = args;
    let p = s.open()?;
    let Some(ops::Actor::Rater { name }) = p.actor().cloned() else {
        bail!(
            "`verity queue` lists a rater's own tasks: pass --as RATER, or open the project over a rater's login or package; `verity cases` lists every task"
        );
    };
    let queue = ops::rater_queue(&p, &name)?;
    if json {
        print_json(out, &queue)?;
    } else {
        for item in &queue {
            writeln!(
                out,
                "{}\t{}\t{}\t{}",
                item.instance_id,
                status_word(item.status),
                item.repo,
                item.title
            )?;
        }
        writeln!(out, "{} for {name}", ops::counted(queue.len(), "task"))?;
    }
    Ok(())
}

pub fn cases(s: &Session, args: CasesArgs, out: &mut dyn Write) -> Result<()> {
    let CasesArgs {
        rater,
        status,
        repo,
        sort,
        json,
    } = args;
    let p = s.open()?;
    let filter = ops::CaseFilter {
        rater,
        status: status.map(|s| match s {
            StatusArg::ToDo => ops::AnswerStatus::ToDo,
            StatusArg::InProgress => ops::AnswerStatus::InProgress,
            StatusArg::Submitted => ops::AnswerStatus::Submitted,
        }),
        repo,
        order: match sort {
            SortArg::Id => ops::CaseOrder::Id,
            SortArg::Risk => ops::CaseOrder::Risk,
        },
    };
    let cases = ops::list_cases(&p, &filter)?;
    if json {
        print_json(out, &cases)?;
    } else {
        for case in &cases {
            let status: Vec<String> = case
                .assignments
                .iter()
                .map(|a| format!("{}:{}", a.rater, status_word(a.status)))
                .collect();
            let risk = case
                .risk
                .map_or_else(|| "risk -".to_string(), |r| format!("risk {r:.2}"));
            writeln!(
                out,
                "{}\t{}\trev {}{}\t{risk}\t{}\t{}",
                case.instance_id,
                case.repo,
                case.revision,
                if case.has_materials {
                    ""
                } else {
                    " (no materials)"
                },
                status.join(" "),
                case.title
            )?;
        }
        writeln!(out, "{}", ops::counted(cases.len(), "case"))?;
    }
    Ok(())
}

pub fn case(s: &Session, action: CaseAction, out: &mut dyn Write) -> Result<()> {
    let CaseAction::Show { id, json } = action;
    let p = s.open()?;
    let case = ops::show_case(&p, &id)?;
    let answers = ops::answer_history(&p, &case.instance_id)?;
    if json {
        #[derive(Serialize)]
        struct Shown<'a> {
            #[serde(flatten)]
            case: &'a ops::CaseDetail,
            answers: &'a [ops::RaterAnswerHistory],
        }
        print_json(
            out,
            &Shown {
                case: &case,
                answers: &answers,
            },
        )?;
    } else {
        let order: Vec<&str> = p
            .questionnaire()
            .questions()
            .map(|q| q.id.as_str())
            .collect();
        case_text::write_case(out, &case, &answers, &order)?;
    }
    Ok(())
}

pub fn calibration(s: &Session, action: CalibrationAction, out: &mut dyn Write) -> Result<()> {
    let mut p = s.open()?;
    let (view, json) = match action {
        CalibrationAction::Add { ids, all } => {
            (ops::mark_calibration(&mut p, &ids, all, s.now)?, false)
        }
        CalibrationAction::Remove { ids } => (ops::unmark_calibration(&mut p, &ids, s.now)?, false),
        CalibrationAction::Rate { rate } => (ops::set_calibration_rate(&mut p, rate)?, false),
        CalibrationAction::List { json } => (ops::calibration(&p)?, json),
    };
    if json {
        print_json(out, &view)?;
    } else {
        writeln!(
            out,
            "{} calibration tasks (of {} with reference labels{}); rate {}",
            view.tasks.len(),
            view.with_reference,
            if view.without_materials > 0 {
                format!(
                    "; {} of them lack materials and cannot be, until their instances are imported",
                    view.without_materials
                )
            } else {
                String::new()
            },
            view.rate.map_or_else(
                || "not set: `assign` mixes none in".to_string(),
                |r| format!("{r} of each queue")
            )
        )?;
    }
    Ok(())
}

pub fn demo(s: &Session, args: DemoArgs, out: &mut dyn Write) -> Result<()> {
    let DemoArgs { empty, dir } = args;
    let dir = match dir {
        Some(dir) => dir,
        None => ops::default_demo_dir()
            .context("no home folder is set (HOME): pass --dir DIR for the demo project")?,
    };
    let p = if empty {
        ops::open_empty_demo_project(&dir, s.now)?
    } else {
        ops::open_demo_project(&dir)?
    };
    writeln!(out, "{}", p.path().display())?;
    Ok(())
}
