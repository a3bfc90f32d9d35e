//! The one way every output file is written, by the command line and the desktop app alike:
//! into a partial file beside the target, flushed to disk, then renamed over it. A reader never
//! sees half a file, and a failed or interrupted write leaves the old file as it was. A stream
//! of bytes goes through [`write_file`]; a whole project file (a rater's package, the demo
//! project) is built at the partial path by [`write_project_file`].

use std::io::Write;
use std::path::{Path, PathBuf};

use verity_store::Store;

use super::{Error, ErrorCode, Result};

/// What to do when the output file already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    /// Refuse, and change nothing (`init` refuses the same way).
    Refuse,
    /// Replace it whole (the command line's `--force`; the app, after its save dialog asked).
    Replace,
}

/// Where a file was written, and whether it replaced one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written<T> {
    /// What the writer returned.
    pub value: T,
    /// True when a file was already at the path and has been replaced.
    pub replaced: bool,
}

/// Writes `path` atomically through `write`. With [`Overwrite::Refuse`], an existing file is
/// an error that names it and says how to replace it.
pub fn write_file<T>(
    path: &Path,
    overwrite: Overwrite,
    write: impl FnOnce(&mut dyn Write) -> Result<T>,
) -> Result<Written<T>> {
    let write_err = write_error(path);
    replace_atomically(
        path,
        overwrite,
        |partial| {
            let file = std::fs::File::create(partial).map_err(write_err)?;
            let mut out = std::io::BufWriter::new(file);
            let value = write(&mut out)?;
            let file = out.into_inner().map_err(|e| write_err(e.into_error()))?;
            file.sync_all().map_err(write_err)?;
            Ok(value)
        },
        |partial| match std::fs::remove_file(partial) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        },
    )
}

/// Writes the project file `path` atomically: `build` makes it at the partial path it is given
/// (and closes it), then the file is flushed to disk and renamed over `path`. A partial file an
/// interrupted run left behind is removed first, with its SQLite side files. With
/// [`Overwrite::Refuse`], an existing file is an error that names it and says how to replace
/// it.
pub fn write_project_file<T>(
    path: &Path,
    overwrite: Overwrite,
    build: impl FnOnce(&Path) -> Result<T>,
) -> Result<Written<T>> {
    let write_err = write_error(path);
    replace_atomically(
        path,
        overwrite,
        |partial| {
            let value = build(partial)?;
            std::fs::File::open(partial)
                .and_then(|file| file.sync_all())
                .map_err(write_err)?;
            Ok(value)
        },
        Store::remove_files,
    )
}

/// Writes the folder `path` whole or not at all: `build` fills a partial folder beside it,
/// which is then renamed into place (an existing folder is moved aside first and removed
/// after). With [`Overwrite::Refuse`], a folder that holds anything is refused; an empty one is
/// filled.
pub fn write_folder<T>(
    path: &Path,
    overwrite: Overwrite,
    build: impl FnOnce(&Path) -> Result<T>,
) -> Result<Written<T>> {
    let write_err = write_error(path);
    let holds_something = match std::fs::read_dir(path) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => path.exists(),
    };
    if holds_something && overwrite == Overwrite::Refuse {
        return Err(already_exists(path));
    }
    let partial = partial_path(path);
    let remove = |p: &Path| match std::fs::remove_dir_all(p) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if p.is_file() => std::fs::remove_file(p),
        other => other,
    };
    remove(&partial).map_err(write_err)?;
    std::fs::create_dir_all(&partial).map_err(write_err)?;
    let value = match build(&partial) {
        Ok(value) => value,
        Err(err) => {
            if let Err(cleanup) = remove(&partial) {
                tracing::warn!(path = %partial.display(), %cleanup, "cannot remove a partial output folder");
            }
            return Err(err);
        }
    };
    if path.exists() {
        let aside = partial.with_extension("old");
        remove(&aside).map_err(write_err)?;
        std::fs::rename(path, &aside).map_err(write_err)?;
        std::fs::rename(&partial, path).map_err(write_err)?;
        remove(&aside).map_err(write_err)?;
    } else {
        std::fs::rename(&partial, path).map_err(write_err)?;
    }
    Ok(Written {
        value,
        replaced: holds_something,
    })
}

/// Makes the file at a partial path beside `path` with `make` (which leaves it on disk), then
/// renames it over `path`. `discard` removes a partial file: a stale one first, and the new
/// one when making it failed (whose error is the one returned; a failed clean-up is logged).
fn replace_atomically<T>(
    path: &Path,
    overwrite: Overwrite,
    make: impl FnOnce(&Path) -> Result<T>,
    discard: impl Fn(&Path) -> std::io::Result<()>,
) -> Result<Written<T>> {
    let existed = path.exists();
    if existed && overwrite == Overwrite::Refuse {
        return Err(already_exists(path));
    }
    let partial = partial_path(path);
    discard(&partial).map_err(write_error(path))?;
    let result = make(&partial).and_then(|value| match std::fs::rename(&partial, path) {
        Ok(()) => Ok(value),
        Err(source) => Err(write_error(path)(source)),
    });
    match result {
        Ok(value) => Ok(Written {
            value,
            replaced: existed,
        }),
        Err(err) => {
            // The partial file is ours and incomplete; the error says what went wrong.
            if let Err(cleanup) = discard(&partial) {
                tracing::warn!(path = %partial.display(), %cleanup, "cannot remove a partial output file");
            }
            Err(err)
        }
    }
}

/// The error of a failed write of `path`.
fn write_error(path: &Path) -> impl Fn(std::io::Error) -> Error + Copy + '_ {
    move |source| Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// The refusal to overwrite an existing file.
fn already_exists(path: &Path) -> Error {
    Error::refused(
        ErrorCode::AlreadyExists,
        format!(
            "{} already exists; Verity will not overwrite it (pass --force to replace it)",
            path.display()
        ),
    )
}

/// `dir/.name.partial`: in the target's folder, so the rename stays on one file system.
fn partial_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!(".{name}.partial"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_existing_file_is_refused_unless_replacing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        std::fs::write(&path, "old").unwrap();
        let err = write_file(&path, Overwrite::Refuse, |w| {
            w.write_all(b"new").map_err(|source| Error::Write {
                path: path.clone(),
                source,
            })
        })
        .unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let written = write_file(&path, Overwrite::Replace, |w| {
            w.write_all(b"new").map_err(|source| Error::Write {
                path: path.clone(),
                source,
            })
        })
        .unwrap();
        assert!(written.replaced);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    }

    #[test]
    fn a_folder_is_written_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dataset");
        let fill = |text: &'static str| {
            move |partial: &Path| {
                std::fs::write(partial.join("README.md"), text).map_err(|source| Error::Write {
                    path: partial.to_path_buf(),
                    source,
                })
            }
        };
        let written = write_folder(&path, Overwrite::Refuse, fill("first")).unwrap();
        assert!(!written.replaced);
        let err = write_folder(&path, Overwrite::Refuse, fill("second")).unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        let err = write_folder(&path, Overwrite::Replace, |_| {
            Err::<(), _>(Error::refused(ErrorCode::Internal, "the writer failed"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "the writer failed");
        assert_eq!(
            std::fs::read_to_string(path.join("README.md")).unwrap(),
            "first"
        );
        assert!(
            write_folder(&path, Overwrite::Replace, fill("second"))
                .unwrap()
                .replaced
        );
        assert_eq!(
            std::fs::read_to_string(path.join("README.md")).unwrap(),
            "second"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            [std::ffi::OsString::from("dataset")],
            "no partial or old folder"
        );
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_partial() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl");
        std::fs::write(&path, "old").unwrap();
        let err = write_file(&path, Overwrite::Replace, |w| {
            w.write_all(b"half").map_err(|source| Error::Write {
                path: path.clone(),
                source,
            })?;
            Err::<(), _>(Error::refused(ErrorCode::Internal, "the writer failed"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "the writer failed");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [std::ffi::OsString::from("out.jsonl")]);
    }
}
