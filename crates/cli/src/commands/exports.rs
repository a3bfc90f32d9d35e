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
    } = args;
    let p = s.open()?;
    let options = ops::ExportOptions {
        rule,
        reference,
        history,
    };
    let summary = ops::export_to_file(&p, format, &options, &path, overwrite(force))?;
    for note in &summary.notes {
        eprintln!("note: {note}");
    }
    writeln!(
        out,
        "wrote {} to {}{}",
        ops::counted(summary.rows, "row"),
        summary.path,
        if summary.replaced {
            " (replaced the file that was there)"
        } else {
            ""
        }
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
