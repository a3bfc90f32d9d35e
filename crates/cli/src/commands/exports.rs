//! Exports: files written from the project, packages out and merged back, migration.

use std::io::Write;

use annotations::ops;
use anyhow::Result;

use crate::output::{overwrite, print_json};
use crate::schema::exports::{ExportArgs, MergeArgs, MigrateArgs, PackageArgs};
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
    writeln!(
        out,
        "wrote {} rows to {}{}",
        summary.rows,
        summary.path,
        replaced(summary.replaced, "file")
    )?;
    Ok(())
}

pub fn package(s: &Session, args: PackageArgs, out: &mut dyn Write) -> Result<()> {
    let PackageArgs {
        rater,
        out: path,
        force,
        json,
    } = args;
    let p = s.open()?;
    let report = ops::package_for_rater(&p, &rater, &path, overwrite(force), s.now)?;
    if json {
        print_json(out, &report)?;
    } else {
        writeln!(
            out,
            "wrote {}'s package to {}: {} tasks, {} of their answer events, {} evidence reports{}",
            report.rater,
            report.file,
            report.tasks,
            report.events,
            report.evidence,
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
                "{} ({}): {} events, {} added, {} already merged",
                merged.file, merged.rater, merged.events, merged.added, merged.already
            )?;
        }
        for c in &report.conflicts {
            writeln!(
                out,
                "conflict{}: event {} from {} ({} on {}, {} revision {} at {}){}: {}",
                c.conflict.map(|n| format!(" {n}")).unwrap_or_default(),
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
            "copied {} to {}: {rows} rows in {} tables",
            report.from,
            report.to,
            report.tables.len()
        )?;
    }
    Ok(())
}
