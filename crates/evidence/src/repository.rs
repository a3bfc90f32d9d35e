//! Read-only access to a clone's object database: opening, resolving the base commit, listing
//! a commit's files and reading blobs.
//!
//! Nothing here writes: the clone is opened without searching parent folders, only objects are
//! read, and the working tree, index and refs are never touched.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Once};

use git2::{ErrorCode, ObjectType, Oid, Repository, RepositoryOpenFlags};

use super::blobs::BlobText;
use super::engine::Engine;
use super::error::{CaseContext, EvidenceError};
use super::paths::{FileEntry, TreeEntry, classify_path};
use super::report::MissingObject;

/// Git's `FIRST_FEW_BYTES`: `git grep -I` looks this far for a NUL byte.
const BINARY_PROBE: usize = 8000;

/// A folder's regular files, and the folders below it whose tree the clone lacks.
type Listed = (Vec<FileEntry>, Vec<MissingObject>);

/// One lister's folder listings, by position in the list of folders.
type FolderListings = Result<Vec<(usize, Listed)>, EvidenceError>;

/// A commit's files as far as the clone holds them.
#[derive(Debug, Clone)]
pub(crate) struct CommitFiles {
    /// The regular files whose content the clone holds, in tree order.
    pub(crate) files: Arc<[FileEntry]>,
    /// Files whose blob and folders whose tree the clone lacks, sorted by path.
    pub(crate) missing: Vec<MissingObject>,
    /// Regular files listed, with and without content.
    pub(crate) listed: usize,
}

/// A resolved base commit.
#[derive(Debug, Clone)]
pub(crate) struct ResolvedCommit {
    /// Full hex id, as given.
    pub(crate) id: String,
    /// Its root tree.
    pub(crate) tree: Oid,
}

/// An open clone plus the names needed for error messages.
pub(crate) struct RepoAccess {
    pub(crate) path: PathBuf,
    pub(crate) context: CaseContext,
    repo: Repository,
}

static STARTED: Once = Once::new();
/// Starts libgit2 for reading, once per process: the first call initialises the library (its
/// TLS backend loads the system's certificate authorities, about 18 ms) and turns off hash
/// verification and libgit2's object cache. A program can call it as it starts (`verity` does,
/// with the authorities left out); the engine calls it anyway.
pub fn prepare() {
    // Checking every object's SHA-1 costs 50-100 ms per blob scan and buys nothing for a read-only
    // search: a damaged object still fails to inflate. libgit2's object cache (up to 256 MiB a
    // handle, of commits and trees) would hold every tree a listing reads, outside the engine's
    // bound, while the engine caches listings itself. Both are process-wide libgit2 options.
    STARTED.call_once(|| {
        git2::opts::strict_hash_verification(false);
        git2::opts::enable_caching(false);
    });
}

/// Opens a repository without searching parent folders (bare clones and `.git` folders work).
fn open_repository(path: &Path, context: &CaseContext) -> Result<Repository, EvidenceError> {
    prepare();
    if !path.exists() {
        return Err(EvidenceError::RepositoryMissing {
            context: Box::new(context.clone()),
            path: path.to_path_buf(),
        });
    }
    Repository::open_ext(
        path,
        RepositoryOpenFlags::NO_SEARCH,
        std::iter::empty::<&std::ffi::OsStr>(),
    )
    .map_err(|err| EvidenceError::RepositoryUnreadable {
        context: Box::new(context.clone()),
        path: path.to_path_buf(),
        message: err.message().to_string(),
    })
}

/// Parses a full 40-hex id; anything shorter could be ambiguous and is refused.
fn parse_full_id(commit: &str, context: &CaseContext) -> Result<Oid, EvidenceError> {
    let refuse = || EvidenceError::CommitNotFullId {
        context: Box::new(context.clone()),
        commit: commit.to_string(),
    };
    if commit.len() != 40 || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(refuse());
    }
    Oid::from_str(commit).map_err(|_| refuse())
}

impl RepoAccess {
    pub(crate) fn open(path: &Path, context: &CaseContext) -> Result<RepoAccess, EvidenceError> {
        Ok(RepoAccess {
            path: path.to_path_buf(),
            context: context.clone(),
            repo: open_repository(path, context)?,
        })
    }

    fn corrupt(&self, commit: &str, object: Oid, err: &git2::Error) -> EvidenceError {
        EvidenceError::CorruptObject {
            context: Box::new(self.context.clone()),
            path: self.path.clone(),
            commit: commit.to_string(),
            object: object.to_string(),
            message: err.message().to_string(),
        }
    }

    /// Resolves a full commit id (a tag object is peeled to its commit).
    pub(crate) fn resolve_commit(&self, commit: &str) -> Result<ResolvedCommit, EvidenceError> {
        let oid = parse_full_id(commit, &self.context)?;
        let object = match self.repo.find_object(oid, None) {
            Ok(object) => object,
            Err(err) if err.code() == ErrorCode::NotFound => {
                return Err(EvidenceError::CommitMissing {
                    context: Box::new(self.context.clone()),
                    path: self.path.clone(),
                    commit: commit.to_string(),
                });
            }
            Err(err) => return Err(self.corrupt(commit, oid, &err)),
        };
        let kind = object.kind();
        let peeled = object
            .peel(ObjectType::Commit)
            .map_err(|_| EvidenceError::NotACommit {
                context: Box::new(self.context.clone()),
                path: self.path.clone(),
                commit: commit.to_string(),
                kind: kind.map_or_else(|| "unknown object".to_string(), |k| k.str().to_string()),
            })?;
        let found = peeled
            .into_commit()
            .map_err(|_| EvidenceError::NotACommit {
                context: Box::new(self.context.clone()),
                path: self.path.clone(),
                commit: commit.to_string(),
                kind: "non-commit".to_string(),
            })?;
        let tree = found.tree_id();
        Ok(ResolvedCommit {
            id: commit.to_ascii_lowercase(),
            tree,
        })
    }

    /// The commit's regular files in tree order (the order `git grep` prints), split into those
    /// the clone holds and the missing objects (files whose blob, folders whose tree is not in
    /// the object database). Each tree's own entries are cached, so a nearby commit re-reads
    /// only the trees that changed. The root's folders are spread over the engine's threads,
    /// each with its own handle on the clone.
    pub(crate) fn list_files(
        &self,
        commit: &ResolvedCommit,
        engine: &Engine,
    ) -> Result<CommitFiles, EvidenceError> {
        let (all, mut missing) = self.list_root(commit, engine)?;
        let all: Arc<[FileEntry]> = all.into();
        let odb = self
            .repo
            .odb()
            .map_err(|err| self.corrupt(&commit.id, commit.tree, &err))?;
        // Without NO_REFRESH, each miss makes libgit2 rescan the pack folder: thousands of
        // scans for a partial clone. A handle is opened anew for each report or search, so it
        // has seen every pack there is.
        let absent: Vec<usize> = (0..all.len())
            .filter(|&at| !odb.exists_ext(all[at].blob, git2::OdbLookupFlags::NO_REFRESH))
            .collect();
        if missing.is_empty() && absent.is_empty() {
            return Ok(CommitFiles {
                listed: all.len(),
                files: all,
                missing,
            });
        }
        missing.extend(absent.iter().map(|&at| MissingObject {
            path: String::from(&*all[at].path),
            id: all[at].blob.to_string(),
        }));
        missing.sort_by(|a, b| a.path.cmp(&b.path));
        let files: Arc<[FileEntry]> = all
            .iter()
            .enumerate()
            .filter(|(at, _)| absent.binary_search(at).is_err())
            .map(|(_, file)| file.clone())
            .collect();
        Ok(CommitFiles {
            files,
            missing,
            listed: all.len(),
        })
    }

    /// A tree's own entries, from the cache or read and cached; `None` when the clone lacks
    /// the tree.
    fn entries(
        &self,
        commit: &ResolvedCommit,
        engine: &Engine,
        tree: Oid,
        prefix: &str,
    ) -> Result<Option<Arc<[TreeEntry]>>, EvidenceError> {
        if let Some(entries) = engine.lock_cache().listing(tree, prefix) {
            return Ok(Some(entries));
        }
        let Some((entries, path_bytes)) = self.tree_entries(commit, tree, prefix)? else {
            return Ok(None);
        };
        let entries: Arc<[TreeEntry]> = entries.into();
        engine
            .lock_cache()
            .insert_listing(tree, prefix, entries.clone(), path_bytes);
        Ok(Some(entries))
    }

    fn list_root(&self, commit: &ResolvedCommit, engine: &Engine) -> Result<Listed, EvidenceError> {
        let root = commit.tree;
        let Some(entries) = self.entries(commit, engine, root, "")? else {
            let missing = MissingObject {
                path: ".".to_string(),
                id: root.to_string(),
            };
            return Ok((Vec::new(), vec![missing]));
        };
        let folders: Vec<(Oid, &str)> = entries
            .iter()
            .filter_map(|entry| match entry {
                TreeEntry::Folder(tree, prefix) => Some((*tree, &**prefix)),
                TreeEntry::File(_) => None,
            })
            .collect();
        let mut listed = self.list_folders(commit, engine, &folders)?.into_iter();
        let mut files = Vec::new();
        let mut missing = Vec::new();
        for entry in entries.iter() {
            match entry {
                TreeEntry::File(file) => files.push(file.clone()),
                TreeEntry::Folder(..) => {
                    if let Some((below, lacking)) = listed.next() {
                        files.extend(below);
                        missing.extend(lacking);
                    }
                }
            }
        }
        Ok((files, missing))
    }

    /// The listings of `folders`, in order, by the engine's threads when some folder's tree
    /// is not cached (a nearby commit's mostly are: assembling them takes no second thread).
    fn list_folders(
        &self,
        commit: &ResolvedCommit,
        engine: &Engine,
        folders: &[(Oid, &str)],
    ) -> Result<Vec<Listed>, EvidenceError> {
        let cold = || {
            let cache = engine.lock_cache();
            folders
                .iter()
                .any(|&(tree, prefix)| !cache.has_listing(tree, prefix))
        };
        if engine.threads == 1 || folders.len() < 2 || !cold() {
            return folders
                .iter()
                .map(|&(tree, prefix)| self.list_tree(commit, engine, tree, prefix))
                .collect();
        }
        let next = AtomicUsize::new(0);
        let (path, context) = (self.path.as_path(), &self.context);
        // git2 handles are not `Sync`: this thread lists with its own handle, helpers open theirs.
        let work = |reader: Option<&RepoAccess>| -> FolderListings {
            let opened;
            let reader = match reader {
                Some(reader) => reader,
                None => {
                    opened = RepoAccess::open(path, context)?;
                    &opened
                }
            };
            let mut done = Vec::new();
            loop {
                let at = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(tree, prefix)) = folders.get(at) else {
                    return Ok(done);
                };
                done.push((at, reader.list_tree(commit, engine, tree, prefix)?));
            }
        };
        let results: Vec<FolderListings> = std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..engine.threads)
                .map(|_| scope.spawn(|| work(None)))
                .collect();
            let mut results = vec![work(Some(self))];
            results.extend(helpers.into_iter().map(|helper| {
                helper.join().unwrap_or_else(|_| {
                    Err(EvidenceError::WorkerPanicked {
                        context: Box::new(context.clone()),
                    })
                })
            }));
            results
        });
        let mut listed: Vec<Listed> = vec![(Vec::new(), Vec::new()); folders.len()];
        for result in results {
            for (at, files) in result? {
                listed[at] = files;
            }
        }
        Ok(listed)
    }

    /// A folder's files; a folder whose tree is missing lists nothing and is itself listed as
    /// missing.
    fn list_tree(
        &self,
        commit: &ResolvedCommit,
        engine: &Engine,
        tree: Oid,
        prefix: &str,
    ) -> Result<Listed, EvidenceError> {
        let (mut files, mut missing) = (Vec::new(), Vec::new());
        self.collect(commit, engine, tree, prefix, &mut files, &mut missing)?;
        Ok((files, missing))
    }

    fn collect(
        &self,
        commit: &ResolvedCommit,
        engine: &Engine,
        tree: Oid,
        prefix: &str,
        files: &mut Vec<FileEntry>,
        missing: &mut Vec<MissingObject>,
    ) -> Result<(), EvidenceError> {
        let Some(entries) = self.entries(commit, engine, tree, prefix)? else {
            missing.push(MissingObject {
                path: prefix.trim_end_matches('/').to_string(),
                id: tree.to_string(),
            });
            return Ok(());
        };
        for entry in entries.iter() {
            match entry {
                TreeEntry::File(file) => files.push(file.clone()),
                TreeEntry::Folder(below, prefix) => {
                    self.collect(commit, engine, *below, prefix, files, missing)?;
                }
            }
        }
        Ok(())
    }

    /// One tree's regular files and folders, in order, and the bytes of the files' paths;
    /// `None` when the clone lacks the tree.
    fn tree_entries(
        &self,
        commit: &ResolvedCommit,
        tree: Oid,
        prefix: &str,
    ) -> Result<Option<(Vec<TreeEntry>, usize)>, EvidenceError> {
        let found = match self.repo.find_tree(tree) {
            Ok(found) => found,
            Err(err) if err.code() == ErrorCode::NotFound => return Ok(None),
            Err(err) => return Err(self.corrupt(&commit.id, tree, &err)),
        };
        let mut entries = Vec::with_capacity(found.len());
        let mut path_bytes = 0;
        for entry in found.iter() {
            let name = String::from_utf8_lossy(entry.name_bytes());
            match entry.kind() {
                // Only regular files (100644, 100755): `git grep <commit>` skips symbolic links
                // (120000) and submodules (160000).
                Some(ObjectType::Blob) if matches!(entry.filemode(), 0o100644 | 0o100755) => {
                    let path = format!("{prefix}{name}");
                    path_bytes += path.len();
                    entries.push(TreeEntry::File(FileEntry {
                        class: classify_path(&path),
                        path: path.into(),
                        blob: entry.id(),
                    }));
                }
                Some(ObjectType::Tree) => {
                    let below = format!("{prefix}{name}/");
                    path_bytes += below.len();
                    entries.push(TreeEntry::Folder(entry.id(), below.into()));
                }
                _ => {}
            }
        }
        Ok(Some((entries, path_bytes)))
    }

    /// Reads one blob from the object database and sorts it into text or binary.
    pub(crate) fn read_blob(&self, commit: &str, blob: Oid) -> Result<BlobText, EvidenceError> {
        let found = self
            .repo
            .find_blob(blob)
            .map_err(|err| self.corrupt(commit, blob, &err))?;
        let content = found.content();
        let probe = &content[..content.len().min(BINARY_PROBE)];
        if memchr::memchr(0, probe).is_some() {
            Ok(BlobText::Binary {
                size: content.len(),
            })
        } else {
            Ok(BlobText::Text(Arc::from(content)))
        }
    }

    /// A blob's content through the engine's cache.
    pub(crate) fn blob_text(
        &self,
        engine: &Engine,
        commit: &str,
        blob: Oid,
    ) -> Result<BlobText, EvidenceError> {
        if let Some(text) = engine.lock_cache().get(blob) {
            return Ok(text);
        }
        let text = self.read_blob(commit, blob)?;
        engine.lock_cache().insert(blob, text.clone());
        Ok(text)
    }
}

/// Whether the clone at `repo_path` holds `commit` (a full 40-hex id) as a commit.
///
/// An abbreviated id is an error, not `false`, so that `verity repo list` never miscounts.
pub fn has_commit(
    repo_path: &Path,
    context: &CaseContext,
    commit: &str,
) -> Result<bool, EvidenceError> {
    Ok(held_commits(repo_path, context, &[commit])?
        .first()
        .copied()
        .unwrap_or(false))
}

/// For each commit id, whether the clone holds it; opens the clone once.
pub fn held_commits<S: AsRef<str>>(
    repo_path: &Path,
    context: &CaseContext,
    commits: &[S],
) -> Result<Vec<bool>, EvidenceError> {
    let repo = open_repository(repo_path, context)?;
    commits
        .iter()
        .map(|commit| {
            let oid = parse_full_id(commit.as_ref(), context)?;
            Ok(repo.find_commit(oid).is_ok())
        })
        .collect()
}
