//! Verity's desktop shell: Tauri commands over `annotations::ops`, the app's state, the recent
//! projects (`recent`), the command line (`command_line`), live progress from a shared server
//! (`feed`), logging.
//!
//! Commands hold no logic of their own: they unpack state, call one library function and map
//! its error to `{code, message}` (see [`error::CommandError`]).
#![forbid(unsafe_code)]

include!("command_list.rs");

pub mod command_line;
pub mod commands;
pub mod error;
pub mod feed;
pub mod recent;
pub mod state;

/// Every command the front end may call, as registered below.
pub const COMMANDS: &[&str] = verity_commands!(command_names);

/// The handlers of [`COMMANDS`].
macro_rules! handlers {
    ($($command:ident),* $(,)?) => {
        tauri::generate_handler![$(commands::$command),*]
    };
}

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tauri::Manager;

/// Starts the app, opening `project` (a file or a server's URL, from the command line) or, when
/// `None`, the project open when it last closed.
pub fn run(project: Option<PathBuf>) {
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            let data_dir = app.path().app_data_dir()?;
            std::fs::create_dir_all(&data_dir)?;
            start_logging(&data_dir)?;
            tracing::info!(data_dir = %data_dir.display(), "Verity started");
            app.manage(state::AppState::new(data_dir, project));
            #[cfg(target_os = "linux")]
            lighten_webview(app);
            Ok(())
        })
        .invoke_handler(verity_commands!(handlers))
        .run(tauri::generate_context!());
    if let Err(err) = result {
        eprintln!("Verity could not start: {err}");
        std::process::exit(1);
    }
}

/// Verity shows one page of text and tables and never navigates: WebKit's document-viewer cache
/// model, which keeps no back-forward or page cache, is enough and keeps the web process small.
/// (Turning the compositor off would save more, but WebKitWebDriver's screenshots then hang.) A
/// window that is not there yet simply keeps WebKit's defaults.
#[cfg(target_os = "linux")]
fn lighten_webview(app: &tauri::App) {
    use webkit2gtk::{CacheModel, WebContextExt, WebViewExt};
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let applied = window.with_webview(|webview| {
        if let Some(context) = webview.inner().context() {
            context.set_cache_model(CacheModel::DocumentViewer);
        }
    });
    if let Err(err) = applied {
        tracing::warn!(error = %err, "could not configure the web view");
    }
}

/// Logs to `verity.log` in the app's data folder, so a bug report can attach it.
fn start_logging(data_dir: &Path) -> std::io::Result<()> {
    let file = File::options()
        .create(true)
        .append(true)
        .open(data_dir.join("verity.log"))?;
    let filter = tracing_subscriber::EnvFilter::try_from_env("VERITY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // A second init (tests, a reused process) keeps the first subscriber; that is fine.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
    Ok(())
}
