//! Opening projects (files, servers, the demo), the recent list, signing in, and links opened
//! in the browser.

use std::path::{Path, PathBuf};

use annotations::ops::{self, Actor, ErrorCode};
use serde::Serialize;
use tauri::{AppHandle, Manager};
use time::OffsetDateTime;

use crate::error::CommandError;
use crate::recent::RecentProject;
use crate::state::{AppState, replace_project, with_project};

/// The open project, for the window's header.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectInfo {
    /// The project file, or the server project's `postgres://` URL (never with a password).
    pub path: String,
    /// True when the project is on a server: `path` is its URL.
    pub server: bool,
    /// The questionnaire's title.
    pub questionnaire: String,
    /// The one rater the project acts for (a rater's package or a rater's login on a server),
    /// already signed in; `None` when the app asks who is using it.
    pub bound_rater: Option<String>,
}

fn info(project: &ops::Project) -> ProjectInfo {
    let path = project.path().display().to_string();
    ProjectInfo {
        server: ops::is_server_url(&path),
        path,
        questionnaire: project.questionnaire().title.clone(),
        bound_rater: project.bound_rater().map(str::to_owned),
    }
}

/// What the window shows at start.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Startup {
    /// A project is open: the last one, or the demo project on the first start.
    Opened {
        /// The project.
        project: ProjectInfo,
    },
    /// The last project is on a server that Verity could not open without a password (or could
    /// not reach): the window asks for the password, the URL filled in.
    Server {
        /// The server project's URL, as remembered (without a password).
        url: String,
        /// Why opening it without a password failed.
        error: CommandError,
    },
}

/// Opens (creating on first use) the demo project, a finished round, in the app's data folder.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_demo_project(app: AppHandle) -> Result<ProjectInfo, CommandError> {
    replace_project(app, |state: &AppState| {
        let project = ops::open_demo_project(&state.data_dir.join("demo"))?;
        state.remember_project(project.path());
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// Opens (creating on first use) the empty demo project, nothing answered yet, in the app's
/// data folder.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_empty_demo_project(app: AppHandle) -> Result<ProjectInfo, CommandError> {
    replace_project(app, |state: &AppState| {
        let project =
            ops::open_empty_demo_project(&state.data_dir.join("demo"), OffsetDateTime::now_utc())?;
        state.remember_project(project.path());
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// Opens a project file.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_project(app: AppHandle, path: PathBuf) -> Result<ProjectInfo, CommandError> {
    replace_project(app, move |state| {
        let project = ops::open_project(&path)?;
        state.remember_project(project.path());
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// Opens a project on a server: `url` is `postgres://USER@HOST:PORT/DATABASE`, without a
/// password; `password` connects when given (else libpq's `PGPASSWORD` or `~/.pgpass`). The
/// password stays in the open project's memory: the last-project file keeps the URL only, and
/// no error or log line holds it.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_server_project(
    app: AppHandle,
    url: String,
    password: Option<String>,
) -> Result<ProjectInfo, CommandError> {
    let url = server_address(&url)?.to_owned();
    let password = password.filter(|p| !p.is_empty());
    replace_project(app, move |state| {
        let project = ops::open_project_with_password(Path::new(&url), password.as_deref())?;
        state.remember_project(project.path());
        let shown = info(&project);
        Ok((project, shown))
    })
    .await
}

/// The address typed for a server project, trimmed; anything but a `postgres://` URL is refused
/// (a file opens through [`open_project`]). The refusal does not repeat what was typed, which
/// may hold a password.
fn server_address(url: &str) -> Result<&str, CommandError> {
    let url = url.trim();
    if ops::is_server_url(url) {
        Ok(url)
    } else {
        Err(CommandError::new(
            ErrorCode::NotAServer,
            "A server's address starts with postgres://, as in postgres://USER@HOST:PORT/DATABASE.",
        ))
    }
}

/// The project to show at start: the one named on the command line, else the one open when
/// Verity last closed, or the demo project on the first start. A server project is tried
/// without a password first (`PGPASSWORD`, `~/.pgpass`); when that fails the window asks for
/// one. A URL holding a password is refused before any of that, so the window never shows it.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_startup_project(app: AppHandle) -> Result<Startup, CommandError> {
    let first = app.state::<AppState>().startup_project();
    let project = match first {
        Some(path) => match path.to_str().filter(|p| ops::is_server_url(p)) {
            Some(url) => {
                ops::check_server_url(url)?;
                let url = url.to_owned();
                match open_server_project(app, url.clone(), None).await {
                    Ok(project) => project,
                    Err(error) => return Ok(Startup::Server { url, error }),
                }
            }
            None => open_project(app, path).await?,
        },
        None => open_demo_project(app).await?,
    };
    Ok(Startup::Opened { project })
}

/// The projects opened lately, most recent first: files (marked when missing) and server URLs.
#[tauri::command(rename_all = "snake_case")]
pub async fn recent_projects(app: AppHandle) -> Vec<RecentProject> {
    app.state::<AppState>().recent.list()
}

/// Takes a project off the recent projects; returns the list left.
#[tauri::command(rename_all = "snake_case")]
pub async fn forget_recent_project(
    app: AppHandle,
    path: String,
) -> Result<Vec<RecentProject>, CommandError> {
    let recent = &app.state::<AppState>().recent;
    recent.remove(&path)?;
    Ok(recent.list())
}

/// Signs in as a rater of the project or as the coordinator; opening a project signs out (or
/// in as the rater a package is bound to, who alone may sign in to it). The project's use cases
/// then refuse what that actor may not do.
#[tauri::command(rename_all = "snake_case")]
pub async fn sign_in(app: AppHandle, role: Actor) -> Result<Actor, CommandError> {
    with_project(app, move |p| {
        p.act_as(role.clone())?;
        Ok(role)
    })
    .await
}

/// Signs out ("Switch user"): the project acts for nobody until "who is using Verity?" is
/// answered again. The list of raters the question offers is the whole panel's, which a rater
/// signed in is not shown.
#[tauri::command(rename_all = "snake_case")]
pub async fn sign_out(app: AppHandle) -> Result<(), CommandError> {
    with_project(app, |p| {
        p.sign_out();
        Ok(())
    })
    .await
}

/// Opens a link from a task in the system browser, only for `http`, `https` and `mailto`:
/// the page never navigates itself, and nothing else is handed to the desktop.
#[tauri::command(rename_all = "snake_case")]
pub fn open_external(url: String) -> Result<(), CommandError> {
    let allowed = ["https://", "http://", "mailto:"].iter().any(|scheme| {
        url.get(..scheme.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
    });
    if !allowed {
        return Err(CommandError::new(
            ErrorCode::RefusedUrl,
            format!("Verity opens only http, https and mailto links; {url:?} was not opened."),
        ));
    }
    open::that_detached(&url).map_err(|err| {
        CommandError::new(
            ErrorCode::OpenFailed,
            format!("The system browser could not open {url}: {err}."),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_address_is_a_postgres_url_and_a_refusal_does_not_repeat_it() {
        let url = "postgres://ana@db.example.org:5432/panel";
        assert_eq!(server_address(&format!(" {url}\n")).expect("a URL"), url);
        assert!(server_address("postgresql://ana@db/panel").is_ok());
        for typed in ["/home/ana/panel.verity", "mysql://ana:s3cret@db/panel", ""] {
            let err = server_address(typed).expect_err("not a server's address");
            assert_eq!(err.code, ErrorCode::NotAServer);
            assert!(!err.message.contains("s3cret"));
        }
    }

    #[test]
    fn the_startup_answer_names_its_kind_as_the_window_reads_it() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("panel.verity");
        let choice = ops::QuestionnaireChoice::Builtin("swe-bench-verified".into());
        let project =
            ops::init_project(&path, &choice, OffsetDateTime::UNIX_EPOCH).expect("a new project");
        let opened = serde_json::to_value(Startup::Opened {
            project: info(&project),
        })
        .expect("serializable");
        assert_eq!(opened["kind"], "opened");
        assert_eq!(opened["project"]["path"], path.display().to_string());
        assert_eq!(opened["project"]["server"], false);

        let url = "postgres://ana@db.example.org:5432/panel";
        let asked = serde_json::to_value(Startup::Server {
            url: url.into(),
            error: CommandError::new(ErrorCode::ServerUnavailable, "The server is down."),
        })
        .expect("serializable");
        assert_eq!(
            asked,
            serde_json::json!({
                "kind": "server",
                "url": url,
                "error": { "code": "server_unavailable", "message": "The server is down." },
            })
        );
    }
}
