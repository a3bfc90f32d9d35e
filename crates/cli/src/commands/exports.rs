//! Exports: files written from the project, packages out and merged back, migration.

use std::io::Write;

use annotations::ops;
use anyhow::Result;

use crate::output::{cancel_on_ctrl_c, overwrite, print_json, progress_bar};
use crate::schema::exports::{ExportArgs, MergeArgs, MigrateArgs, PackageArgs, PublishArgs};
use crate::session::Session;

pub fn export(s: &Session, args: ExportArgs, out: &mut dyn Write) -> Result<()> {
    let ExportArgs {
        format,
        out: path,
        force,
        history,
        rule,
        reference,
        license,
        split,
        subset,
        rater_names,
    } = args;
    let p = s.open()?;
    let options = ops::ExportOptions {
        rule,
        reference,
        history,
        license,
        split,
        subset: subset.map(Into::into),
        rater_names,
        shard_bytes: None,
    };
    let replaced = |replaced: bool, what: &str| {
        if replaced {
            format!(" (replaced the {what} that was there)")
        } else {
            String::new()
        }
    };
    if format == ops::ExportFormat::Hub {
        let summary = ops::export_dataset(&p, &options, &path, overwrite(force), s.now)?;
        writeln!(
            out,
            "wrote a dataset of {} tasks and {} annotations to {}{}",
            summary.tasks,
            summary.annotations,
            summary.folder,
            replaced(summary.replaced, "folder")
        )?;
        for file in &summary.files {
            writeln!(
                out,
                "{}\t{} rows\t{} bytes",
                file.path, file.rows, file.bytes
            )?;
        }
        if summary.without_fields > 0 {
            writeln!(
                out,
                "left out {} tasks imported without their SWE-bench fields",
                summary.without_fields
            )?;
        }
        return Ok(());
    }
    let summary = ops::export_to_file(&p, format, &options, &path, overwrite(force))?;
    for note in &summary.notes {
        eprintln!("note: {note}");
    }
    writeln!(
        out,
        "wrote {} to {}{}",
        ops::counted(summary.rows, "row"),
        summary.path,
        replaced(summary.replaced, "file")
    )?;
    Ok(())
}

pub fn publish(args: PublishArgs, out: &mut dyn Write) -> Result<()> {
    let PublishArgs {
        repo,
        folder,
        private,
        revision,
        message,
        dry_run,
        json,
    } = args;
    let cancel = cancel_on_ctrl_c();
    let bar = progress_bar(0, "{msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec}");
    let mut progress = |step: &ops::PublishProgress| {
        let Some(bar) = &bar else { return };
        bar.set_length(step.bytes_total);
        bar.set_position(step.bytes_done);
        let stage = match step.stage {
            ops::PublishStage::Hashing => "hashing",
            ops::PublishStage::Checking => "asking the Hub",
            ops::PublishStage::Uploading => "uploading",
            ops::PublishStage::Committing => "committing",
            ops::PublishStage::Waiting => "waiting",
        };
        let file = step.file.as_deref().unwrap_or_default();
        bar.set_message(match &step.waiting {
            Some(why) => format!("{stage}: {why}"),
            None => format!("{stage} {file}"),
        });
    };
    let request = ops::PublishRequest {
        repo,
        folder: folder.display().to_string(),
        private,
        revision: Some(revision),
        message,
        dry_run,
    };
    let settings = ops::HubSettings::from_env();
    let report = ops::publish_dataset(&request, &settings, &mut progress, &cancel)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if json {
        return print_json(out, &report);
    }
    let verb = if report.dry_run { "would" } else { "did" };
    if report.created {
        writeln!(
            out,
            "{verb} create the {} dataset repository {}",
            if report.private { "private" } else { "public" },
            report.repo
        )?;
    }
    if report.branch_created {
        writeln!(
            out,
            "{verb} create the branch {} from main",
            report.revision
        )?;
    }
    for file in &report.files {
        let mode = match file.mode {
            ops::UploadMode::Regular => "regular",
            ops::UploadMode::Lfs => "lfs",
        };
        let action = match (file.action, report.dry_run) {
            (ops::FileAction::Upload, true) => "to upload",
            (ops::FileAction::Upload, false) => "uploaded",
            (ops::FileAction::AlreadyUploaded, _) => "already uploaded",
            (ops::FileAction::Unchanged, _) => "unchanged",
        };
        writeln!(out, "{}\t{mode}\t{} bytes\t{action}", file.path, file.bytes)?;
    }
    if let Some(note) = &report.note {
        writeln!(out, "note: {note}")?;
    }
    match (&report.commit, &report.commit_url, report.dry_run) {
        (_, _, true) => writeln!(out, "dry run: nothing was uploaded to {}", report.url)?,
        (Some(commit), Some(url), false) => writeln!(
            out,
            "committed {commit} to {} on {} ({} bytes sent to LFS): {url}",
            report.repo, report.revision, report.uploaded_bytes
        )?,
        _ => writeln!(
            out,
            "nothing changed: {} on {} already holds every file",
            report.repo, report.revision
        )?,
    }
    Ok(())
}

pub fn package(s: &Session, args: PackageArgs, out: &mut dyn Write) -> Result<()> {
    let PackageArgs {
        rater,
        out: path,
        force,
        json,
    } = args;
    let mut p = s.open()?;
    let report = ops::package_for_rater(&mut p, &rater, &path, overwrite(force), s.now)?;
    if json {
        print_json(out, &report)?;
    } else {
        writeln!(
            out,
            "wrote {}'s package to {}: {}, {} of their answer events, {}{}",
            report.rater,
            report.file,
            ops::counted(report.tasks, "task"),
            report.events,
            ops::counted(report.evidence, "evidence report"),
            if report.replaced {
                " (replaced the file that was there)"
            } else {
                ""
            }
        )?;
    }
    Ok(())
}

pub fn merge(s: &Session, args: MergeArgs, out: &mut dyn Write) -> Result<()> {
    let MergeArgs { files, json } = args;
    let mut p = s.open()?;
    let report = ops::merge_packages(&mut p, &files, s.now)?;
    if json {
        print_json(out, &report)?;
    } else {
        for merged in &report.packages {
            writeln!(
                out,
                "{} ({}): {}, {} added, {} already merged{}{}",
                merged.file,
                merged.rater,
                ops::counted(merged.events, "event"),
                merged.added,
                merged.already,
                match merged.kept_before {
                    0 => String::new(),
                    n => format!(", {} kept by an earlier merge", ops::counted(n, "conflict")),
                },
                match merged.conflicts {
                    0 => String::new(),
                    n => format!(", {} kept", ops::counted(n, "new conflict")),
                }
            )?;
        }
        for c in &report.conflicts {
            writeln!(
                out,
                "conflict {}: event {} from {} ({} on {}, {} revision {} at {}){}: {}",
                c.conflict,
                c.uid,
                c.file,
                c.incoming.rater,
                c.incoming.instance_id,
                c.incoming.kind.as_str(),
                c.incoming.answer_revision,
                c.incoming.at,
                c.stored
                    .as_ref()
                    .map(|s| format!(
                        " against the stored {} revision {} at {}",
                        s.kind.as_str(),
                        s.answer_revision,
                        s.at
                    ))
                    .unwrap_or_default(),
                c.why
            )?;
        }
        for k in &report.kept_before {
            writeln!(
                out,
                "event {} from {} was kept as conflict {} by an earlier merge: {}",
                k.uid,
                k.file,
                k.conflict,
                match (&k.resolved_at, &k.resolution) {
                    (Some(at), Some(how)) => format!("settled at {at} ({how})"),
                    (Some(at), None) => format!("settled at {at}"),
                    _ => "still open (verity conflicts)".into(),
                }
            )?;
        }
        if report.changed_nothing() {
            writeln!(
                out,
                "nothing changed: every event of {} was merged, or kept as a conflict, before",
                if report.packages.len() == 1 {
                    "this package"
                } else {
                    "these packages"
                }
            )?;
        }
    }
    Ok(())
}

pub fn migrate(s: &Session, args: MigrateArgs, out: &mut dyn Write) -> Result<()> {
    let MigrateArgs { to, json } = args;
    let p = s.open()?;
    let report = ops::migrate_project(&p, &to)?;
    if json {
        print_json(out, &report)?;
    } else {
        let rows: usize = report.tables.iter().map(|(_, n)| n).sum();
        writeln!(
            out,
            "copied {} to {}: {} in {}",
            report.from,
            report.to,
            ops::counted(rows, "row"),
            ops::counted(report.tables.len(), "table")
        )?;
    }
    Ok(())
}
