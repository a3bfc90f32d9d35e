//! The schema of repositories: the clones registered for the tasks.

use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum RepoAction {
    /// Register the local clone (bare or not) of OWNER/NAME.
    Add {
        /// `owner/name`, as the tasks' `repo` field gives it.
        name: String,
        /// The clone's path.
        path: PathBuf,
    },
    /// Forget the clone registered for OWNER/NAME (the clone itself is not touched).
    Remove {
        /// `owner/name`.
        name: String,
    },
    /// List registered clones with how many of the project's base commits each holds.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Clone OWNER/NAME (once, into the cache folder: $VERITY_REPO_CACHE, else
    /// ~/.local/share/verity/repositories), register it, and fetch the base commits it lacks.
    /// Ctrl-C stops it; running it again resumes.
    Clone {
        /// `owner/name`, as the tasks' `repo` field gives it.
        name: String,
        /// Where to clone from (https://, http://, git://, file:// or a local path); by default
        /// https://github.com/OWNER/NAME.
        #[arg(long)]
        url: Option<String>,
        /// The folder to clone into instead of the cache.
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Fetch, by id, the base commits that the registered clone of OWNER/NAME lacks.
    FetchMissing {
        /// `owner/name`.
        name: String,
        /// Where to fetch from; the clone's `origin` by default.
        #[arg(long)]
        url: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}
