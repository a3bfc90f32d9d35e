//! Raters' own logins on a server project (`verity panel`): the coordinator grants a rater a
//! database role, which the server itself holds to that rater's tasks and answers, and
//! revokes it when they leave.

use serde::Serialize;
use time::OffsetDateTime;

use super::lookup::{find_active_rater, find_rater, refuse_model_rater};
use super::{Error, ErrorCode, Project, Result, stamp};
use verity_evidence::shell_quote;
use verity_store::PanelLogins;

/// A login granted to a rater: shown once, its password stored nowhere in the clear.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PanelLogin {
    /// The rater.
    pub rater: String,
    /// The role to connect as.
    pub role: String,
    /// Its one-time password.
    pub password: String,
    /// True when it replaced the password of a login the rater had, which stops working (said
    /// in words, not in `--json`'s keys).
    #[serde(skip)]
    pub reset: bool,
}

/// A rater's login, as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PanelMember {
    /// The rater.
    pub rater: String,
    /// Their role.
    pub role: String,
}

fn logins<'p>(project: &'p mut Project, what: &str) -> Result<&'p mut dyn PanelLogins> {
    project.require_coordinator(what)?;
    let path = project.path().display().to_string();
    project.store.logins().ok_or_else(|| {
        Error::refused(
            ErrorCode::NotAServer,
            format!(
                "{path} is a project file: raters' logins are for a project on a PostgreSQL server (`verity migrate --to postgres://…` moves it there); a rater away from the server works in a package (`verity package`)"
            ),
        )
    })
}

/// Gives an active rater a login of their own. A rater who has one is refused unless `reset`
/// asks for a new password, which the old one no longer opens.
pub fn panel_grant(
    project: &mut Project,
    rater: &str,
    reset: bool,
    now: OffsetDateTime,
) -> Result<PanelLogin> {
    project.require_coordinator("grants raters' logins")?;
    let found = find_active_rater(project, rater)?;
    refuse_model_rater(project, &found, "a login")?;
    let logins = logins(project, "grants raters' logins")?;
    let had = logins.list()?.into_iter().find(|(id, _)| *id == found.id);
    if let (Some((_, role)), false) = (&had, reset) {
        return Err(Error::refused(
            ErrorCode::AlreadyExists,
            format!(
                "{} has a login already (role {role}); `verity panel grant {} --reset` gives a new password, and the old one stops working",
                found.name,
                shell_quote(&found.name)
            ),
        ));
    }
    let login = logins.grant(found.id, &found.name, &stamp(now))?;
    Ok(PanelLogin {
        rater: found.name,
        role: login.role,
        password: login.password,
        reset: had.is_some(),
    })
}

/// Removes a rater's login; their answers stay. Returns the role removed.
pub fn panel_revoke(project: &mut Project, rater: &str) -> Result<String> {
    project.require_coordinator("revokes raters' logins")?;
    let found = find_rater(project, rater)?;
    logins(project, "revokes raters' logins")?
        .revoke(found.id)?
        .ok_or_else(|| Error::NotFound(format!("rater {rater:?} has no login to revoke")))
}

/// Every rater's login, by role.
pub fn panel_members(project: &mut Project) -> Result<Vec<PanelMember>> {
    let logins = logins(project, "lists raters' logins")?.list()?;
    let raters = project.store.list_raters()?;
    Ok(logins
        .into_iter()
        .map(|(id, role)| PanelMember {
            rater: raters
                .iter()
                .find(|r| r.id == id)
                .map(|r| r.name.clone())
                .unwrap_or_default(),
            role,
        })
        .collect())
}
