//! Tauri commands. Each has the name of the `ops` function it wraps: it unpacks state, calls
//! that one function on a blocking thread and maps the error to `{code, message}`.
//!
//! Every command takes its arguments by their snake_case Rust names (`rename_all =
//! "snake_case"`) instead of Tauri's camelCase default, so the IPC spells keys the way every
//! `--json` output and the generated bindings do.
//!
//! One module per family of commands; `command_list.rs` names every command.

mod evidence;
mod figures;
mod jobs;
mod models;
mod panel;
mod project;

pub use evidence::*;
pub use figures::*;
pub use jobs::*;
pub use models::*;
pub use panel::*;
pub use project::*;
