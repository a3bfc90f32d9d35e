//! The projects opened lately, most recent first, in `recent-projects.json` in the app's data
//! folder: a file by its path, a server project by its URL. The shell records a project's
//! [`ops::Project::path`], which for a server is the URL without any password.
//!
//! A missing file is an empty list; so is one that is not the list Verity writes (a log line
//! says why), and the next project opened replaces it. The file is replaced atomically, so a
//! crash leaves the old list or the new one, never half of one.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use annotations::ops;
use serde::{Deserialize, Serialize};

/// The file in the data folder holding the list.
pub const RECENT_PROJECTS: &str = "recent-projects.json";

/// How many projects the list keeps.
pub const KEEP: usize = 10;

/// A project in the list, as the start screen shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecentProject {
    /// The project file, or the server project's `postgres://` URL.
    pub path: String,
    /// True when the project is on a server: `path` is its URL.
    pub server: bool,
    /// True when the project is a file that is no longer there.
    pub missing: bool,
}

/// The file's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    /// Most recent first.
    projects: Vec<String>,
}

/// The list of recent projects in a data folder.
pub struct RecentProjects {
    file: PathBuf,
    /// Held across each read-change-write, so two projects opened at once are both kept.
    writing: Mutex<()>,
}

impl RecentProjects {
    /// The list kept in `data_dir`.
    pub fn new(data_dir: &Path) -> RecentProjects {
        RecentProjects {
            file: data_dir.join(RECENT_PROJECTS),
            writing: Mutex::new(()),
        }
    }

    /// The projects, most recent first, each marked when it is a server or a missing file.
    pub fn list(&self) -> Vec<RecentProject> {
        self.read()
            .into_iter()
            .map(|path| {
                let server = ops::is_server_url(&path);
                let missing = !server && !Path::new(&path).exists();
                RecentProject {
                    path,
                    server,
                    missing,
                }
            })
            .collect()
    }

    /// Puts `location` first (moving it up when it is listed already), keeping [`KEEP`].
    pub fn add(&self, location: &str) -> ops::Result<()> {
        let _writing = self.writing.lock().map_err(|_| poisoned())?;
        self.write(&pushed(self.read(), location))
    }

    /// Takes `location` off the list.
    pub fn remove(&self, location: &str) -> ops::Result<()> {
        let _writing = self.writing.lock().map_err(|_| poisoned())?;
        let mut list = self.read();
        list.retain(|p| p != location);
        self.write(&list)
    }

    /// The stored list, cleaned of duplicates and cut to [`KEEP`]; empty when there is none or
    /// it cannot be read.
    fn read(&self) -> Vec<String> {
        let bytes = match std::fs::read(&self.file) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(err) => {
                tracing::warn!(file = %self.file.display(), error = %err, "cannot read the recent projects");
                return Vec::new();
            }
        };
        match serde_json::from_slice::<Stored>(&bytes) {
            Ok(stored) => stored
                .projects
                .into_iter()
                .rev()
                .fold(Vec::new(), |list, path| pushed(list, &path)),
            Err(err) => {
                tracing::warn!(file = %self.file.display(), error = %err, "the recent projects file is not Verity's list; starting a new one");
                Vec::new()
            }
        }
    }

    fn write(&self, list: &[String]) -> ops::Result<()> {
        let stored = Stored {
            projects: list.to_vec(),
        };
        ops::write_file(&self.file, ops::Overwrite::Replace, |out| {
            serde_json::to_writer_pretty(&mut *out, &stored)
                .map_err(std::io::Error::other)
                .and_then(|()| out.write_all(b"\n"))
                .map_err(|source| ops::Error::Write {
                    path: self.file.clone(),
                    source,
                })
        })
        .map(|_| ())
    }
}

/// `list` with `location` first, any other mention of it dropped, cut to [`KEEP`]; an empty
/// location is not a project and leaves the list as it is.
pub fn pushed(list: Vec<String>, location: &str) -> Vec<String> {
    if location.is_empty() {
        return list;
    }
    std::iter::once(location.to_owned())
        .chain(list.into_iter().filter(|p| p != location))
        .take(KEEP)
        .collect()
}

fn poisoned() -> ops::Error {
    ops::Error::refused(
        ops::ErrorCode::Internal,
        "an earlier change to the recent projects failed half-way; restart Verity",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("/p/{i}.verity")).collect()
    }

    fn paths(recent: &RecentProjects) -> Vec<String> {
        recent.list().into_iter().map(|p| p.path).collect()
    }

    #[test]
    fn the_project_opened_last_comes_first_and_appears_once() {
        let list = pushed(Vec::new(), "/p/a.verity");
        let list = pushed(list, "/p/b.verity");
        assert_eq!(list, ["/p/b.verity", "/p/a.verity"], "most recent first");
        let list = pushed(list, "/p/a.verity");
        assert_eq!(
            list,
            ["/p/a.verity", "/p/b.verity"],
            "opening a listed project moves it up instead of listing it twice"
        );
        assert_eq!(
            pushed(list.clone(), ""),
            list,
            "an empty location is no project"
        );
    }

    #[test]
    fn the_list_keeps_the_ten_most_recent() {
        let list = names(KEEP + 3)
            .iter()
            .fold(Vec::new(), |list, p| pushed(list, p));
        assert_eq!(list.len(), KEEP);
        assert_eq!(list[0], format!("/p/{}.verity", KEEP + 2));
        assert_eq!(list[KEEP - 1], "/p/3.verity", "the oldest three fell off");
    }

    #[test]
    fn the_list_survives_a_restart_and_marks_servers_and_missing_files() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let here = dir.path().join("here.verity");
        std::fs::write(&here, b"").expect("a file");
        let gone = dir.path().join("gone.verity");
        let url = "postgres://ana@db.example:5432/panel";
        let recent = RecentProjects::new(dir.path());
        for location in [gone.to_str(), Some(url), here.to_str()] {
            recent
                .add(location.expect("a UTF-8 path"))
                .expect("the list is written");
        }

        let again = RecentProjects::new(dir.path());
        let here = here.display().to_string();
        let gone = gone.display().to_string();
        assert_eq!(
            again.list(),
            [
                RecentProject {
                    path: here,
                    server: false,
                    missing: false
                },
                RecentProject {
                    path: url.into(),
                    server: true,
                    missing: false
                },
                RecentProject {
                    path: gone.clone(),
                    server: false,
                    missing: true
                },
            ]
        );

        again.remove(&gone).expect("the list is written");
        assert_eq!(paths(&again).len(), 2, "a removed project is gone");
        assert!(!paths(&again).contains(&gone));
    }

    #[test]
    fn a_missing_or_corrupt_file_is_an_empty_list_that_the_next_opening_replaces() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let recent = RecentProjects::new(dir.path());
        assert!(recent.list().is_empty(), "no file yet: no recent project");

        let file = dir.path().join(RECENT_PROJECTS);
        for corrupt in [&b"{\"projects\": [\"/p/a.ver"[..], b"\xff\xfe", b"[1, 2]"] {
            std::fs::write(&file, corrupt).expect("a file");
            assert!(recent.list().is_empty(), "{corrupt:?} is no list");
            recent.add("/p/b.verity").expect("the list is written");
            assert_eq!(paths(&recent), ["/p/b.verity"]);
        }
    }

    #[test]
    fn a_hand_edited_list_is_read_without_duplicates_and_cut_to_ten() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut listed = names(KEEP + 2);
        listed.insert(1, listed[0].clone());
        let text = serde_json::json!({ "projects": listed }).to_string();
        std::fs::write(dir.path().join(RECENT_PROJECTS), text).expect("a file");
        let recent = paths(&RecentProjects::new(dir.path()));
        assert_eq!(recent.len(), KEEP);
        assert_eq!(recent[..2], ["/p/0.verity", "/p/1.verity"]);
    }
}
