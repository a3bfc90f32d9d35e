//! Who may do what. Every open [`Project`] acts for one actor: the coordinator (the command
//! line's default), a rater by name, or nobody yet (the desktop app before "who is using
//! Verity?" is answered). Each use case checks its actor here and refuses what that actor may
//! not do, whichever front end asked.
//!
//! - The coordinator changes the panel (imports, raters, assignments, repositories,
//!   adjudications) and reads everyone's answers (progress, agreement, ensembles,
//!   disagreements, exports, the report).
//! - A rater reads and writes only their own answers and queue; they never see another
//!   rater's. The coordinator does not answer for a rater.
//! - Anyone who has said who they are reads the tasks and their evidence.
//! - A project bound to one rater (their package, or their own login on a server) acts for
//!   that rater alone.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::lookup::find_active_rater;
use super::{Error, ErrorCode, Project, Result};

/// Who is acting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum Actor {
    /// The panel's coordinator.
    Coordinator,
    /// A rater, by name.
    Rater {
        /// The rater's name.
        name: String,
    },
}

impl Project {
    /// Acts for `actor` from now on. A rater must be in the project and active; a project
    /// bound to one rater acts for nobody else.
    pub fn act_as(&mut self, actor: Actor) -> Result<()> {
        if let Some(bound) = &self.bound
            && actor
                != (Actor::Rater {
                    name: bound.clone(),
                })
        {
            return Err(Error::refused(
                ErrorCode::IdentityFixed,
                format!(
                    "{} is open as {bound}'s (their package or their login) and acts for {bound} only",
                    self.path().display()
                ),
            ));
        }
        if let Actor::Rater { name } = &actor {
            find_active_rater(self, name)?;
        }
        self.actor = Some(actor);
        Ok(())
    }

    /// Acts for nobody until [`Project::act_as`] is called again.
    pub fn sign_out(&mut self) {
        self.actor = None;
    }

    /// Who the project acts for.
    pub fn actor(&self) -> Option<&Actor> {
        self.actor.as_ref()
    }

    /// The rater the project acts for, when a rater acts.
    pub(super) fn acting_rater(&self) -> Option<&str> {
        match &self.actor {
            Some(Actor::Rater { name }) => Some(name),
            _ => None,
        }
    }

    /// The one rater the project acts for, when it is bound to one (a rater's package, or a
    /// rater's login on a server).
    pub fn bound_rater(&self) -> Option<&str> {
        self.bound.as_deref()
    }

    /// Refuses anyone but the coordinator; `what` completes "only the coordinator …".
    pub(super) fn require_coordinator(&self, what: &str) -> Result<()> {
        match &self.actor {
            Some(Actor::Coordinator) => Ok(()),
            Some(Actor::Rater { name }) => Err(Error::refused(
                ErrorCode::CoordinatorOnly,
                format!("{name} acts as a rater here; only the coordinator {what}"),
            )),
            None => Err(no_role()),
        }
    }

    /// Refuses anyone but the rater `rater` (the coordinator does not answer for raters).
    pub(super) fn require_rater(&self, rater: &str) -> Result<()> {
        match &self.actor {
            Some(Actor::Rater { name }) if name == rater => Ok(()),
            Some(Actor::Rater { name }) => Err(Error::refused(
                ErrorCode::NotYourAnswers,
                format!(
                    "{name} acts as a rater here and cannot read or change the answers of {rater}"
                ),
            )),
            Some(Actor::Coordinator) => Err(Error::refused(
                ErrorCode::RaterOnly,
                format!("the coordinator cannot answer for {rater}; act as that rater"),
            )),
            None => Err(no_role()),
        }
    }

    /// Refuses nobody but an actor not yet chosen.
    pub(super) fn require_actor(&self) -> Result<()> {
        self.actor.as_ref().map(|_| ()).ok_or_else(no_role)
    }
}

fn no_role() -> Error {
    Error::refused(
        ErrorCode::NoRole,
        "choose who you are (a rater or the coordinator) first",
    )
}
