//! The Hub's write API as `huggingface_hub` calls it (`create_repo`, `upload_folder`,
//! `create_branch`): `POST /api/repos/create`, `POST /api/validate-yaml`,
//! `POST /api/datasets/O/N/preupload/REV`, `POST /datasets/O/N.git/info/lfs/objects/batch` with
//! the uploads (`PUT /lfs/OID`) and verifications it hands out, `POST
//! /api/datasets/O/N/branch/BRANCH`, and the NDJSON `POST /api/datasets/O/N/commit/REV`, which
//! refuses a `parentCommit` that is no longer the branch's head with 409.

use std::collections::BTreeMap;
use std::sync::Arc;

use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{
    Answer, Blob, Commit, Repo, Request, State, decode, error_answer, json_answer, sha256_hex,
};

/// The `.gitattributes` a new repository starts with: the patterns the Hub stores in LFS.
const GITATTRIBUTES: &str = "*.parquet filter=lfs diff=lfs merge=lfs -text\n*.arrow filter=lfs diff=lfs merge=lfs -text\n*.bin filter=lfs diff=lfs merge=lfs -text\n*.zst filter=lfs diff=lfs merge=lfs -text\n";

/// Files from this size go through LFS whatever their name, as on the Hub.
const LFS_FROM: u64 = 10 << 20;

/// Git's id of a blob: the SHA-1 of `blob LEN\0` and the content (what `preupload` reports for
/// a regular file). Written out here so that the kit needs no SHA-1 crate for one use.
fn git_blob_id(bytes: &[u8]) -> String {
    sha1::hex(&[format!("blob {}\0", bytes.len()).as_bytes(), bytes].concat())
}

/// A commit id for new content: 40 hex digits, unique to the parent and the content.
fn commit_id(state: &mut State, parent: Option<&str>, content: &[u8]) -> String {
    state.commits_made += 1;
    let mut hasher = Sha256::new();
    hasher.update(parent.unwrap_or_default().as_bytes());
    hasher.update(state.commits_made.to_le_bytes());
    hasher.update(content);
    sha256_hex(&hasher.finalize())[..40].to_string()
}

pub(super) fn answer(state: &mut State, request: &Request) -> Answer {
    let parts: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
    let needs_token = || error_answer(401, None, "Invalid credentials in Authorization header");
    match (request.method.as_str(), parts.as_slice()) {
        ("POST", ["api", "validate-yaml"]) => validate_yaml(request),
        ("PUT", ["lfs", oid]) => upload(state, oid, &request.body),
        ("POST", ["lfs", oid, "verify"]) => match state.lfs.get(*oid) {
            Some(_) => json_answer(200, json!({"success": true})),
            None => error_answer(404, None, "the object was not uploaded"),
        },
        _ if request.token().is_none() => needs_token(),
        ("POST", ["api", "repos", "create"]) => create(state, request),
        ("POST", ["api", "datasets", owner, name, action, rev @ ..]) => {
            let repo = format!("{owner}/{name}");
            let revision = decode(&rev.join("/"));
            match *action {
                "preupload" => preupload(state, &repo, &revision, request),
                "commit" => commit(state, &repo, &revision, request),
                "branch" => branch(state, &repo, &revision, request),
                _ => error_answer(404, Some("EntryNotFound"), "no such route"),
            }
        }
        ("POST", ["datasets", owner, git, "info", "lfs", "objects", "batch"]) => {
            match git.strip_suffix(".git") {
                Some(name) => batch(state, &format!("{owner}/{name}"), request),
                None => error_answer(404, Some("EntryNotFound"), "no such route"),
            }
        }
        _ => error_answer(404, Some("EntryNotFound"), "no such route"),
    }
}

fn body_json(request: &Request) -> Result<Value, Answer> {
    serde_json::from_slice(&request.body)
        .map_err(|e| error_answer(400, None, &format!("the body is not JSON: {e}")))
}

/// The repository a write names, or the Hub's 404 for it.
fn repo_mut<'a>(state: &'a mut State, repo: &str) -> Result<&'a mut Repo, Answer> {
    state.repos.get_mut(repo).ok_or_else(|| {
        error_answer(
            404,
            Some("RepoNotFound"),
            &format!("Repository {repo} not found"),
        )
    })
}

fn create(state: &mut State, request: &Request) -> Answer {
    let body = match body_json(request) {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    if body.get("type").and_then(Value::as_str) != Some("dataset") {
        return error_answer(400, None, "this server holds datasets only");
    }
    let (Some(owner), Some(name)) = (
        body.get("organization").and_then(Value::as_str),
        body.get("name").and_then(Value::as_str),
    ) else {
        return error_answer(400, None, "name and organization are required");
    };
    let id = format!("{owner}/{name}");
    let url = format!("{}/datasets/{id}", request.origin());
    if state.repos.contains_key(&id) {
        return json_answer(
            409,
            json!({"error": "You already created this dataset repo", "url": url}),
        );
    }
    let private = body.get("private").and_then(Value::as_bool) == Some(true)
        || body.get("visibility").and_then(Value::as_str) == Some("private");
    let first = commit_id(state, None, GITATTRIBUTES.as_bytes());
    let files = BTreeMap::from([(
        ".gitattributes".to_string(),
        Blob {
            bytes: Arc::new(GITATTRIBUTES.as_bytes().to_vec()),
            lfs: false,
        },
    )]);
    state.repos.insert(
        id.clone(),
        Repo {
            private,
            refuse: None,
            branches: BTreeMap::from([("main".to_string(), first.clone())]),
            commits: std::collections::HashMap::from([(
                first,
                Commit {
                    parent: None,
                    summary: "initial commit".into(),
                    files,
                },
            )]),
        },
    );
    json_answer(200, json!({"url": url, "name": id, "id": id}))
}

/// A card's YAML must be one block between `---` lines.
fn validate_yaml(request: &Request) -> Answer {
    let body = match body_json(request) {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    let content = body.get("content").and_then(Value::as_str).unwrap_or("");
    let closed = content
        .strip_prefix("---\n")
        .is_some_and(|rest| rest.contains("\n---\n"));
    if content.starts_with("---") && !closed {
        return json_answer(
            400,
            json!({"errors": [{"message": "the YAML block is not closed"}], "warnings": []}),
        );
    }
    json_answer(200, json!({"errors": [], "warnings": []}))
}

/// Whether a path matches one of `.gitattributes`' LFS patterns (`*.ext` or a path).
fn lfs_pattern(gitattributes: &[u8], path: &str) -> bool {
    String::from_utf8_lossy(gitattributes)
        .lines()
        .filter(|l| l.contains("filter=lfs"))
        .filter_map(|l| l.split_whitespace().next())
        .any(|pattern| match pattern.strip_prefix('*') {
            Some(suffix) => path.ends_with(suffix),
            None => pattern == path,
        })
}

fn preupload(state: &mut State, repo: &str, revision: &str, request: &Request) -> Answer {
    let body = match body_json(request) {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    let repo = match repo_mut(state, repo) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let Some((commit_id, commit)) = repo.resolve(revision) else {
        return error_answer(404, Some("RevisionNotFound"), "Invalid rev id");
    };
    let gitattributes = commit
        .files
        .get(".gitattributes")
        .map(|b| b.bytes.to_vec())
        .unwrap_or_default();
    let mut files = Vec::new();
    for file in body
        .get("files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let path = file.get("path").and_then(Value::as_str).unwrap_or_default();
        let size = file.get("size").and_then(Value::as_u64).unwrap_or(0);
        let sample = file
            .get("sample")
            .and_then(Value::as_str)
            .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
            .unwrap_or_default();
        let lfs = size >= LFS_FROM || lfs_pattern(&gitattributes, path) || sample.contains(&0);
        let oid = commit.files.get(path).map(|blob| {
            if blob.lfs {
                sha256_hex(&blob.bytes)
            } else {
                git_blob_id(&blob.bytes)
            }
        });
        files.push(json!({
            "path": path,
            "uploadMode": if lfs { "lfs" } else { "regular" },
            "shouldIgnore": false,
            "oid": oid,
        }));
    }
    json_answer(200, json!({"files": files, "commitOid": commit_id}))
}

fn batch(state: &mut State, repo: &str, request: &Request) -> Answer {
    if !state.repos.contains_key(repo) {
        return error_answer(
            404,
            Some("RepoNotFound"),
            &format!("Repository {repo} not found"),
        );
    }
    let body = match body_json(request) {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    if body.get("operation").and_then(Value::as_str) != Some("upload") {
        return error_answer(400, None, "only uploads are handled");
    }
    let origin = request.origin();
    let objects: Vec<Value> = body
        .get("objects")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|object| {
            let oid = object
                .get("oid")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let size = object.get("size").and_then(Value::as_u64).unwrap_or(0);
            if state.lfs.get(oid).is_some_and(|b| b.len() as u64 == size) {
                json!({"oid": oid, "size": size})
            } else {
                json!({
                    "oid": oid,
                    "size": size,
                    "authenticated": true,
                    "actions": {
                        "upload": {"href": format!("{origin}/lfs/{oid}")},
                        "verify": {"href": format!("{origin}/lfs/{oid}/verify")},
                    },
                })
            }
        })
        .collect();
    json_answer(200, json!({"transfer": "basic", "objects": objects}))
}

fn upload(state: &mut State, oid: &str, body: &[u8]) -> Answer {
    let actual = sha256_hex(body);
    if actual != oid {
        return error_answer(
            400,
            None,
            &format!("the content's SHA-256 is {actual}, not {oid}"),
        );
    }
    state.lfs.insert(oid.to_string(), Arc::new(body.to_vec()));
    (200, String::new(), Vec::new())
}

fn branch(state: &mut State, repo: &str, branch: &str, request: &Request) -> Answer {
    let start = body_json(request).ok().and_then(|b| {
        b.get("startingPoint")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let repo = match repo_mut(state, repo) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    if repo.branches.contains_key(branch) {
        return error_answer(409, None, &format!("Reference already exists: {branch}"));
    }
    let Some((from, _)) = repo.resolve(start.as_deref().unwrap_or("main")) else {
        return error_answer(404, Some("RevisionNotFound"), "Invalid rev id");
    };
    let from = from.clone();
    repo.branches.insert(branch.to_string(), from);
    json_answer(200, json!({}))
}

fn commit(state: &mut State, repo_name: &str, revision: &str, request: &Request) -> Answer {
    let text = String::from_utf8_lossy(&request.body).into_owned();
    let mut lines = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Value>(line) {
            Ok(v) => lines.push(v),
            Err(e) => return error_answer(400, None, &format!("a line is not JSON: {e}")),
        }
    }
    let Some(header) = lines
        .first()
        .filter(|l| l.get("key").and_then(Value::as_str) == Some("header"))
        .and_then(|l| l.get("value"))
    else {
        return error_answer(400, None, "the first line must be the header");
    };
    let summary = header
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let parent_asked = header
        .get("parentCommit")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let lfs = state.lfs.clone();
    let repo = match repo_mut(state, repo_name) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let Some(head) = repo.branches.get(revision).cloned() else {
        return error_answer(
            404,
            Some("RevisionNotFound"),
            &format!("Invalid rev id: {revision}"),
        );
    };
    if parent_asked.as_ref().is_some_and(|p| *p != head) {
        return error_answer(
            409,
            None,
            "A commit has happened since. Please refresh and try again.",
        );
    }
    let mut files = repo
        .commits
        .get(&head)
        .map(|c| c.files.clone())
        .unwrap_or_default();
    for line in &lines[1..] {
        let key = line.get("key").and_then(Value::as_str).unwrap_or_default();
        let value = line.get("value").cloned().unwrap_or(Value::Null);
        let path = value
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        match key {
            "file" => {
                let content = value
                    .get("content")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let bytes = match value.get("encoding").and_then(Value::as_str) {
                    Some("base64") => {
                        match base64::engine::general_purpose::STANDARD.decode(content) {
                            Ok(bytes) => bytes,
                            Err(e) => {
                                return error_answer(400, None, &format!("{path}: {e}"));
                            }
                        }
                    }
                    _ => content.as_bytes().to_vec(),
                };
                files.insert(
                    path,
                    Blob {
                        bytes: Arc::new(bytes),
                        lfs: false,
                    },
                );
            }
            "lfsFile" => {
                let oid = value.get("oid").and_then(Value::as_str).unwrap_or_default();
                let Some(bytes) = lfs.get(oid) else {
                    return error_answer(
                        422,
                        None,
                        &format!("{path}: the LFS object {oid} was not uploaded"),
                    );
                };
                files.insert(
                    path,
                    Blob {
                        bytes: bytes.clone(),
                        lfs: true,
                    },
                );
            }
            "deletedFile" => {
                files.remove(&path);
            }
            other => return error_answer(400, None, &format!("unknown operation {other:?}")),
        }
    }
    let id = commit_id(state, Some(&head), &request.body);
    let origin = request.origin();
    let Ok(repo) = repo_mut(state, repo_name) else {
        return error_answer(404, Some("RepoNotFound"), "the repository went away");
    };
    repo.commits.insert(
        id.clone(),
        Commit {
            parent: Some(head),
            summary,
            files,
        },
    );
    repo.branches.insert(revision.to_string(), id.clone());
    json_answer(
        200,
        json!({
            "success": true,
            "commitOid": id,
            "commitUrl": format!("{origin}/datasets/{repo_name}/commit/{id}"),
            "hookOutput": "",
        }),
    )
}

/// A commit of one file on a branch, as another client would make it.
pub(super) fn commit_file(state: &mut State, repo: &str, branch: &str, path: &str, bytes: &[u8]) {
    let id = commit_id(state, None, bytes);
    let Some(repo) = state.repos.get_mut(repo) else {
        return;
    };
    let head = repo.branches.get(branch).cloned();
    let mut files = head
        .as_ref()
        .and_then(|h| repo.commits.get(h))
        .map(|c| c.files.clone())
        .unwrap_or_default();
    files.insert(
        path.to_string(),
        Blob {
            bytes: Arc::new(bytes.to_vec()),
            lfs: false,
        },
    );
    repo.commits.insert(
        id.clone(),
        Commit {
            parent: head,
            summary: format!("Update {path}"),
            files,
        },
    );
    repo.branches.insert(branch.to_string(), id);
}

/// SHA-1, for git's blob ids: the one place the test kit needs it.
mod sha1 {
    /// The SHA-1 of `data`, in hex (FIPS 180-4).
    pub(super) fn hex(data: &[u8]) -> String {
        let mut h: [u32; 5] = [
            0x6745_2301,
            0xEFCD_AB89,
            0x98BA_DCFE,
            0x1032_5476,
            0xC3D2_E1F0,
        ];
        let mut message = data.to_vec();
        let bits = (data.len() as u64).wrapping_mul(8);
        message.push(0x80);
        while message.len() % 64 != 56 {
            message.push(0);
        }
        message.extend_from_slice(&bits.to_be_bytes());
        for block in message.chunks(64) {
            let mut w = [0u32; 80];
            for (i, word) in block.chunks(4).enumerate() {
                w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
            }
            for i in 16..80 {
                w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
            }
            let [mut a, mut b, mut c, mut d, mut e] = h;
            for (i, word) in w.iter().enumerate() {
                let (f, k) = match i {
                    0..20 => ((b & c) | (!b & d), 0x5A82_7999),
                    20..40 => (b ^ c ^ d, 0x6ED9_EBA1),
                    40..60 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                    _ => (b ^ c ^ d, 0xCA62_C1D6),
                };
                let t = a
                    .rotate_left(5)
                    .wrapping_add(f)
                    .wrapping_add(e)
                    .wrapping_add(k)
                    .wrapping_add(*word);
                e = d;
                d = c;
                c = b.rotate_left(30);
                b = a;
                a = t;
            }
            for (slot, v) in h.iter_mut().zip([a, b, c, d, e]) {
                *slot = slot.wrapping_add(v);
            }
        }
        h.iter().map(|v| format!("{v:08x}")).collect()
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn git_blob_ids_are_gits() {
            // `printf 'hello\n' | git hash-object --stdin`
            assert_eq!(
                super::super::git_blob_id(b"hello\n"),
                "ce013625030ba8dba906f756967f9e9ca394464a"
            );
            assert_eq!(super::hex(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        }
    }
}
