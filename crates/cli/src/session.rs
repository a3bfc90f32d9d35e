//! The project a command works on, who it acts as, and the time it runs at.

use std::path::Path;

use annotations::ops::{self, Project};
use anyhow::{Context, Result};
use time::OffsetDateTime;

/// The project a command works on and who it acts as: `--as RATER`, or else the coordinator
/// (a rater's package acts for its rater).
pub struct Session<'a> {
    pub path: Option<&'a Path>,
    pub actor: Option<ops::Actor>,
    /// The time the command runs at, for everything it writes.
    pub now: OffsetDateTime,
    /// How many times `-v` was given.
    pub verbose: u8,
    /// Whether model raters' answers count (`--include-models`); humans only without it.
    pub include_models: bool,
}

impl Session<'_> {
    pub fn open(&self) -> Result<Project> {
        let mut project = ops::open_project(self.path()?)?;
        if let Some(actor) = &self.actor {
            project.act_as(actor.clone())?;
        }
        project.include_models(self.include_models);
        Ok(project)
    }

    /// The project's path, which every command but `demo` and `agreement --ratings` needs.
    pub fn path(&self) -> Result<&Path> {
        self.path
            .context("no project given: pass --project FILE or set VERITY_PROJECT")
    }
}
