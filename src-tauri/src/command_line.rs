//! `verity-desktop [FILE | URL]`: the project to open at start, instead of the last one.

use std::ffi::OsString;
use std::path::PathBuf;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Start the app, opening this project (a file's absolute path, or a `postgres://` URL) or,
    /// when `None`, the last one.
    Start(Option<PathBuf>),
    /// Print [`USAGE`] and exit.
    Help,
}

/// The usage line and what it does.
pub const USAGE: &str = "usage: verity-desktop [FILE | postgres://USER@HOST:PORT/DATABASE]
Opens that Verity project (a server's password is asked for, never taken from the URL); without
one, the project open when Verity last closed, or the demo project on the first start.";

/// Reads the arguments after the program's name. A relative file path is made absolute, so the
/// recent projects name it wherever Verity starts next; `--` ends the options, so a file whose
/// name starts with `-` opens too. The error is a sentence for stderr.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Invocation, String> {
    let mut project: Option<OsString> = None;
    let mut options = true;
    for arg in args {
        if options && arg == "--" {
            options = false;
            continue;
        }
        if options && (arg == "-h" || arg == "--help") {
            return Ok(Invocation::Help);
        }
        if options && arg.as_encoded_bytes().starts_with(b"-") {
            return Err(format!(
                "verity-desktop takes no option {}; it takes the project to open: verity-desktop [FILE | postgres://USER@HOST:PORT/DATABASE]",
                arg.to_string_lossy()
            ));
        }
        if project.is_some() {
            return Err(
                "verity-desktop opens one project at a time; name one file or server URL".into(),
            );
        }
        project = Some(arg);
    }
    let Some(project) = project else {
        return Ok(Invocation::Start(None));
    };
    if project.is_empty() {
        return Err(
            "the project to open is an empty path; name a project file or a postgres:// URL".into(),
        );
    }
    if project
        .to_str()
        .is_some_and(annotations::ops::is_server_url)
    {
        return Ok(Invocation::Start(Some(PathBuf::from(project))));
    }
    std::path::absolute(&project)
        .map(|path| Invocation::Start(Some(path)))
        .map_err(|err| {
            format!(
                "cannot tell where {} is: {err}",
                PathBuf::from(&project).display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Invocation, String> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn no_argument_opens_the_last_project() {
        assert_eq!(parsed(&[]), Ok(Invocation::Start(None)));
    }

    #[test]
    fn a_file_opens_by_its_absolute_path() {
        assert_eq!(
            parsed(&["/p/panel.verity"]),
            Ok(Invocation::Start(Some("/p/panel.verity".into())))
        );
        let Ok(Invocation::Start(Some(path))) = parsed(&["panel.verity"]) else {
            panic!("a relative path opens");
        };
        let cwd = std::env::current_dir().expect("a current folder");
        assert_eq!(path, cwd.join("panel.verity"));
        assert_eq!(
            parsed(&["--", "-odd.verity"]),
            Ok(Invocation::Start(Some(cwd.join("-odd.verity")))),
            "after --, a name starting with - is a file"
        );
    }

    #[test]
    fn a_server_url_is_kept_as_written() {
        let url = "postgres://ana@db.example:5432/panel";
        assert_eq!(parsed(&[url]), Ok(Invocation::Start(Some(url.into()))));
    }

    #[test]
    fn help_and_mistakes() {
        assert_eq!(parsed(&["--help"]), Ok(Invocation::Help));
        assert_eq!(parsed(&["-h"]), Ok(Invocation::Help));
        let two = parsed(&["a.verity", "b.verity"]).expect_err("two projects");
        assert!(two.contains("one project at a time"), "{two}");
        let option = parsed(&["--project", "a.verity"]).expect_err("an unknown option");
        assert!(option.contains("no option --project"), "{option}");
        let empty = parsed(&[""]).expect_err("an empty path");
        assert!(empty.contains("empty path"), "{empty}");
    }
}
