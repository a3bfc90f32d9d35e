//! The folder to publish: its files in path order with their size, SHA-256 and first bytes,
//! the card's loading example given the repository's name, and each file's git blob id.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::super::HubError;

/// The card's file, which the Hub shows as the dataset's page.
pub(super) const CARD: &str = "README.md";

/// One file of the folder.
pub(super) struct LocalFile {
    /// Its path in the repository (`/`-separated).
    pub(super) path: String,
    /// Where it is on disk.
    pub(super) local: PathBuf,
    /// Its content when it is sent from memory (the card, with the repository's name).
    pub(super) content: Option<Vec<u8>>,
    pub(super) size: u64,
    pub(super) sha256: String,
    /// The first 512 bytes, which the Hub's pre-upload judges a file by.
    pub(super) sample: Vec<u8>,
}

impl LocalFile {
    /// Its whole content (for a regular file in the commit, and git's id).
    pub(super) fn read(&self) -> Result<Vec<u8>, HubError> {
        match &self.content {
            Some(bytes) => Ok(bytes.clone()),
            None => std::fs::read(&self.local).map_err(|e| local_error(&self.local, &e)),
        }
    }
}

pub(super) fn local_error(path: &Path, err: &std::io::Error) -> HubError {
    HubError::Local {
        path: path.display().to_string(),
        reason: err.to_string(),
    }
}

/// Every file under `root`, in path order, leaving out hidden files and folders (`.git`, the
/// partial files of an interrupted export).
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<(), HubError> {
    let entries = std::fs::read_dir(dir).map_err(|e| local_error(dir, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| local_error(dir, &e))?;
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(|e| local_error(&path, &e))?;
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else if kind.is_file()
            && let Ok(relative) = path.strip_prefix(root)
        {
            out.push((relative.to_string_lossy().replace('\\', "/"), path));
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The folder's files, hashed; `card` turns the card's text into what is published. `on_file`
/// hears each file's path and the bytes hashed so far, as hashing a large folder takes time.
pub(super) fn folder_files(
    root: &Path,
    card: impl Fn(String) -> String,
    on_file: &mut dyn FnMut(&str, u64, u64),
) -> Result<Vec<LocalFile>, HubError> {
    if !root.is_dir() {
        return Err(HubError::Local {
            path: root.display().to_string(),
            reason:
                "there is no such folder: write one with `verity export --format hub --out FOLDER`"
                    .into(),
        });
    }
    let mut listed = Vec::new();
    walk(root, root, &mut listed)?;
    listed.sort();
    if !listed.iter().any(|(p, _)| p == CARD) {
        return Err(HubError::Local {
            path: root.display().to_string(),
            reason: format!(
                "this is not a dataset folder: it has no {CARD} (the dataset card `verity export --format hub` writes)"
            ),
        });
    }
    let total: u64 = listed
        .iter()
        .filter_map(|(_, p)| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let mut hashed = 0u64;
    let mut files = Vec::with_capacity(listed.len());
    for (path, local) in listed {
        on_file(&path, hashed, total);
        let file = if path == CARD {
            let text = std::fs::read_to_string(&local).map_err(|e| local_error(&local, &e))?;
            let bytes = card(text).into_bytes();
            hashed += bytes.len() as u64;
            LocalFile {
                size: bytes.len() as u64,
                sha256: hex(&Sha256::digest(&bytes)),
                sample: bytes[..bytes.len().min(512)].to_vec(),
                content: Some(bytes),
                path,
                local,
            }
        } else {
            let mut reader = std::fs::File::open(&local).map_err(|e| local_error(&local, &e))?;
            let mut hasher = Sha256::new();
            let mut sample = Vec::new();
            let mut size = 0u64;
            let mut buffer = vec![0u8; 1 << 20];
            loop {
                let n = reader
                    .read(&mut buffer)
                    .map_err(|e| local_error(&local, &e))?;
                if n == 0 {
                    break;
                }
                if sample.len() < 512 {
                    sample.extend_from_slice(&buffer[..n.min(512 - sample.len())]);
                }
                hasher.update(&buffer[..n]);
                size += n as u64;
                hashed += n as u64;
                on_file(&path, hashed, total);
            }
            LocalFile {
                path,
                local,
                content: None,
                size,
                sha256: hex(&hasher.finalize()),
                sample,
            }
        };
        files.push(file);
    }
    Ok(files)
}

/// Git's id of a blob (the SHA-1 of `blob LEN\0` and the content): what the Hub's pre-upload
/// gives for a regular file already in the repository.
pub(super) fn git_blob_id(bytes: &[u8]) -> Result<String, HubError> {
    git2::Oid::hash_object(git2::ObjectType::Blob, bytes)
        .map(|oid| oid.to_string())
        .map_err(|e| HubError::Local {
            path: String::new(),
            reason: format!("cannot hash a file as git does: {e}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            git_blob_id(b"hello\n").expect("hashed"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }

    #[test]
    fn a_folder_is_listed_in_path_order_without_hidden_files_and_needs_a_card() {
        let dir = tempfile::tempdir().expect("a folder");
        std::fs::create_dir_all(dir.path().join("data")).expect("data");
        std::fs::create_dir_all(dir.path().join(".git")).expect("git");
        std::fs::write(dir.path().join("data/test-0.parquet"), b"PAR1").expect("a shard");
        std::fs::write(dir.path().join(".git/HEAD"), b"ref").expect("hidden");
        let err = folder_files(dir.path(), |t| t, &mut |_, _, _| {})
            .err()
            .expect("no card");
        assert!(err.to_string().contains("no README.md"), "{err}");
        std::fs::write(dir.path().join("README.md"), "load(\"OWNER/NAME\")").expect("a card");
        let files = folder_files(
            dir.path(),
            |t| t.replace("OWNER/NAME", "a/b"),
            &mut |_, _, _| {},
        )
        .expect("listed");
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["README.md", "data/test-0.parquet"]);
        assert_eq!(files[0].read().expect("the card"), b"load(\"a/b\")");
        assert_eq!(files[1].size, 4);
        assert_eq!(files[1].sample, b"PAR1");
    }
}
