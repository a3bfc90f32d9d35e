//! Every command, one short function each, grouped by family as `schema/` groups their
//! arguments: each calls one `ops` function and prints what it returns. [`run`] sends a parsed
//! command line to its function.

use std::process::ExitCode;

use annotations::ops;
use anyhow::Result;
use time::OffsetDateTime;

use crate::schema::{Cli, Command};
use crate::session::Session;

mod answers;
mod case_text;
mod estimates;
mod evidence;
mod exports;
mod models;
mod panel;
mod repositories;
mod results;
mod statistics;
mod sweep;
mod tasks;

/// Runs the command; a check that fails (`grep` finding nothing, `precedent` not finding a
/// snippet) exits 1.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let s = Session {
        path: cli.project.as_deref(),
        actor: cli.as_rater.map(|name| ops::Actor::Rater { name }),
        now: OffsetDateTime::now_utc(),
        verbose: cli.verbose,
        include_models: cli.include_models,
    };
    let mut stdout = std::io::stdout().lock();
    let out = &mut stdout;
    match cli.command {
        Command::Init(args) => tasks::init(&s, args, out)?,
        Command::Import(args) => tasks::import(&s, args, out)?,
        Command::Fetch(args) => tasks::fetch(&s, args, out)?,
        Command::Queue(args) => tasks::queue(&s, args, out)?,
        Command::Cases(args) => tasks::cases(&s, args, out)?,
        Command::Case { action } => tasks::case(&s, action, out)?,
        Command::Demo(args) => tasks::demo(&s, args, out)?,
        Command::Calibration { action } => tasks::calibration(&s, action, out)?,
        Command::Raters { action } => panel::raters(&s, action, out)?,
        Command::Assign(args) => panel::assign(&s, args, out)?,
        Command::Panel { action } => panel::panel(&s, action, out)?,
        Command::Answer(args) => answers::answer(&s, args, out)?,
        Command::Questions(args) => answers::questions(&s, args, out)?,
        Command::Adjudicate(args) => answers::adjudicate(&s, args, out)?,
        Command::Adjudicators { action } => answers::adjudicators(&s, action, out)?,
        Command::Conflicts { action } => answers::conflicts(&s, action, out)?,
        Command::Repo { action } => repositories::repo(&s, action, out)?,
        Command::Evidence(args) => evidence::evidence(&s, args, out)?,
        Command::Grep(args) => return evidence::grep(&s, args, out),
        Command::Show(args) => evidence::show(&s, args, out)?,
        Command::Precedent(args) => return evidence::precedent(&s, args, out),
        Command::Sweep(args) => return sweep::sweep(&s, args, out),
        Command::Export(args) => exports::export(&s, args, out)?,
        Command::Publish(args) => exports::publish(args, out)?,
        Command::Package(args) => exports::package(&s, args, out)?,
        Command::Merge(args) => exports::merge(&s, args, out)?,
        Command::Migrate(args) => exports::migrate(&s, args, out)?,
        Command::Agreement(args) => statistics::agreement(&s, args, out)?,
        Command::Ensemble(args) => statistics::ensemble(&s, args, out)?,
        Command::Disagreements(args) => statistics::disagreements(&s, args, out)?,
        Command::Report(args) => statistics::report(&s, args, out)?,
        Command::Results { action } => results::results(&s, action, out)?,
        Command::Scores(args) => results::scores(&s, args, out)?,
        Command::Estimate(args) => estimates::estimate(&s, args, out)?,
        Command::Models { action } => return models::models(&s, action, out),
    }
    Ok(ExitCode::SUCCESS)
}
