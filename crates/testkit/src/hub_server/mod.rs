//! A small HTTP server on 127.0.0.1 that answers the Hugging Face Hub's dataset API as `hf-hub`
//! and `huggingface_hub` call it: reading (a revision's description, `resolve` of a file with
//! ranges and ETags, HEAD included) and writing (`write.rs`: creating a repository, validating
//! a card, pre-upload, the LFS batch API with its uploads and verification, branches, and the
//! NDJSON commit with its parent-commit check). It can be told to fail (429 with Retry-After,
//! 5xx, a truncated or corrupted body, a delay; by the test's call or, once, by a request's
//! `X-Test-Fault` header), to accept only some tokens (401 for the others), logs every request, and answers absolute-form requests as an HTTP proxy would
//! forward them.
#![allow(dead_code, clippy::unwrap_used)]

mod write;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use crate::loopback::{Loopback, read_headers};

/// A dataset the server holds at one commit on `main`.
#[derive(Clone, Default)]
pub struct Dataset {
    pub commit: String,
    pub files: BTreeMap<String, Vec<u8>>,
    /// Answer every request for the dataset with this status and `X-Error-Code` (a gated or
    /// private dataset).
    pub refuse: Option<(u16, &'static str)>,
}

/// A failure served once, to the first request whose method, path and range
/// (`METHOD PATH bytes=A-B`) contain the key.
pub enum Fault {
    /// This status, with a Retry-After header when given; the request is not carried out.
    Status(u16, Option<String>),
    /// The full Content-Length, but only this many bytes of the body, then the connection
    /// closes.
    Truncate(usize),
    /// The body with its bytes changed, at its right length.
    Corrupt,
    /// The answer, after this wait.
    Delay(std::time::Duration),
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct Logged {
    pub method: String,
    pub path: String,
    pub range: Option<String>,
    pub authorization: Option<String>,
    /// The request line named a full URL: it came through a proxy.
    pub absolute: bool,
    /// The body's size.
    pub body: usize,
}

/// A file of a commit: its content, and whether it is stored in LFS.
#[derive(Clone)]
pub(crate) struct Blob {
    bytes: Arc<Vec<u8>>,
    lfs: bool,
}

/// A commit: its parent and every file.
#[derive(Clone, Default)]
pub(crate) struct Commit {
    parent: Option<String>,
    summary: String,
    files: BTreeMap<String, Blob>,
}

/// A repository: its branches, commits and visibility.
#[derive(Clone, Default)]
pub(crate) struct Repo {
    private: bool,
    refuse: Option<(u16, &'static str)>,
    branches: BTreeMap<String, String>,
    commits: HashMap<String, Commit>,
}

impl Repo {
    /// The commit a branch name or a commit id names.
    fn resolve(&self, revision: &str) -> Option<(&String, &Commit)> {
        let id = self.branches.get(revision).map_or(revision, String::as_str);
        self.commits.get_key_value(id)
    }
}

#[derive(Default)]
pub(crate) struct State {
    repos: HashMap<String, Repo>,
    /// LFS objects by SHA-256.
    lfs: HashMap<String, Arc<Vec<u8>>>,
    /// The tokens accepted; any token when empty.
    tokens: Vec<String>,
    faults: Vec<(String, Fault)>,
    /// The `X-Test-Fault` headers already served: each is served once.
    header_faults: Vec<String>,
    log: Vec<Logged>,
    commits_made: u64,
}

pub struct HubServer {
    pub port: u16,
    state: Arc<Mutex<State>>,
    _loopback: Loopback,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A file's path and content as a commit in a repository lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFile {
    pub path: String,
    pub bytes: Vec<u8>,
    /// Whether it went through LFS.
    pub lfs: bool,
}

impl HubServer {
    pub fn start() -> HubServer {
        let state = Arc::new(Mutex::new(State::default()));
        let served = state.clone();
        let loopback = Loopback::serve("127.0.0.1:0", move |stream, _| serve(stream, &served));
        HubServer {
            port: loopback.port,
            state,
            _loopback: loopback,
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Holds a dataset at one commit on `main`; its Parquet files as LFS files.
    pub fn add(&self, name: &str, dataset: Dataset) {
        let files = dataset
            .files
            .into_iter()
            .map(|(path, bytes)| {
                let lfs = path.ends_with(".parquet");
                (
                    path,
                    Blob {
                        bytes: Arc::new(bytes),
                        lfs,
                    },
                )
            })
            .collect();
        let repo = Repo {
            private: false,
            refuse: dataset.refuse,
            branches: BTreeMap::from([("main".to_string(), dataset.commit.clone())]),
            commits: HashMap::from([(
                dataset.commit,
                Commit {
                    parent: None,
                    summary: "initial commit".into(),
                    files,
                },
            )]),
        };
        self.state
            .lock()
            .unwrap()
            .repos
            .insert(name.to_string(), repo);
    }

    /// Accepts only these tokens (a request with another gets 401); any token when empty.
    pub fn accept_tokens(&self, tokens: &[&str]) {
        self.state.lock().unwrap().tokens = tokens.iter().map(|t| t.to_string()).collect();
    }

    pub fn fault(&self, key: &str, fault: Fault) {
        self.state
            .lock()
            .unwrap()
            .faults
            .push((key.to_string(), fault));
    }

    pub fn clear_faults(&self) {
        self.state.lock().unwrap().faults.clear();
    }

    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().unwrap().log.clone()
    }

    pub fn clear_log(&self) {
        self.state.lock().unwrap().log.clear();
    }

    /// The commit a repository's branch points at, when both exist.
    pub fn head(&self, repo: &str, branch: &str) -> Option<String> {
        let state = self.state.lock().unwrap();
        state.repos.get(repo)?.branches.get(branch).cloned()
    }

    /// Whether a repository is private, when it exists.
    pub fn private(&self, repo: &str) -> Option<bool> {
        Some(self.state.lock().unwrap().repos.get(repo)?.private)
    }

    /// The files at a revision of a repository, in path order.
    pub fn files(&self, repo: &str, revision: &str) -> Vec<StoredFile> {
        let state = self.state.lock().unwrap();
        let Some((_, commit)) = state.repos.get(repo).and_then(|r| r.resolve(revision)) else {
            return Vec::new();
        };
        commit
            .files
            .iter()
            .map(|(path, blob)| StoredFile {
                path: path.clone(),
                bytes: blob.bytes.to_vec(),
                lfs: blob.lfs,
            })
            .collect()
    }

    /// The commits of a branch, newest first: (id, summary).
    pub fn history(&self, repo: &str, branch: &str) -> Vec<(String, String)> {
        let state = self.state.lock().unwrap();
        let Some(repo) = state.repos.get(repo) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut at = repo.branches.get(branch).cloned();
        while let Some(id) = at {
            let Some(commit) = repo.commits.get(&id) else {
                break;
            };
            out.push((id.clone(), commit.summary.clone()));
            at = commit.parent.clone();
        }
        out
    }

    /// Makes a commit on a branch behind a client's back: its parent moves.
    pub fn push_behind(&self, repo: &str, branch: &str, path: &str, bytes: &[u8]) {
        let mut state = self.state.lock().unwrap();
        write::commit_file(&mut state, repo, branch, path, bytes);
    }

    /// LFS objects held.
    pub fn lfs_objects(&self) -> usize {
        self.state.lock().unwrap().lfs.len()
    }
}

/// A request as read from the connection.
pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) headers: HashMap<String, String>,
    pub(crate) body: Vec<u8>,
}

impl Request {
    /// The bearer token, when one is given.
    pub(crate) fn token(&self) -> Option<&str> {
        self.headers
            .get("authorization")
            .and_then(|a| a.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }

    /// The address clients reach the server at.
    pub(crate) fn origin(&self) -> String {
        format!(
            "http://{}",
            self.headers.get("host").map_or("127.0.0.1", String::as_str)
        )
    }
}

/// An answer: status, extra header lines, body.
pub(crate) type Answer = (u16, String, Vec<u8>);

pub(crate) fn json_answer(status: u16, value: serde_json::Value) -> Answer {
    (
        status,
        "Content-Type: application/json\r\n".into(),
        value.to_string().into_bytes(),
    )
}

pub(crate) fn error_answer(status: u16, code: Option<&str>, message: &str) -> Answer {
    let mut answer = json_answer(status, serde_json::json!({ "error": message }));
    if let Some(code) = code {
        answer.1.push_str(&format!("X-Error-Code: {code}\r\n"));
    }
    answer
}

/// A body sent with `Content-Length` or in chunks.
fn read_body(reader: &mut impl BufRead, headers: &HashMap<String, String>) -> Vec<u8> {
    let mut body = Vec::new();
    if headers
        .get("transfer-encoding")
        .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                break;
            }
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if size == 0 {
                let mut end = String::new();
                let _ = reader.read_line(&mut end);
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            if reader.read_exact(&mut body[start..]).is_err() {
                break;
            }
            let mut crlf = [0u8; 2];
            let _ = reader.read_exact(&mut crlf);
        }
    } else if let Some(len) = headers
        .get("content-length")
        .and_then(|l| l.parse::<usize>().ok())
    {
        body.resize(len, 0);
        if reader.read_exact(&mut body).is_err() {
            body.clear();
        }
    }
    body
}

fn serve(stream: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let headers = read_headers(&mut reader);
    if headers
        .get("expect")
        .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
    {
        let mut out = stream.try_clone().unwrap();
        let _ = out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    let body = read_body(&mut reader, &headers);
    let mut words = line.split_whitespace();
    let method = words.next().unwrap_or("GET").to_string();
    let target = words.next().unwrap_or("/").to_string();
    let absolute = target.starts_with("http://");
    let path = if absolute {
        let rest = &target["http://".len()..];
        rest.find('/')
            .map_or("/".to_string(), |i| rest[i..].to_string())
    } else {
        target
    };
    let path = path.split('?').next().unwrap_or_default().to_string();
    let range = headers.get("range").cloned();
    let request = Request {
        method: method.clone(),
        path: path.clone(),
        headers,
        body,
    };
    let mut state = state.lock().unwrap();
    state.log.push(Logged {
        method: method.clone(),
        path: path.clone(),
        range: range.clone(),
        authorization: request.headers.get("authorization").cloned(),
        absolute,
        body: request.body.len(),
    });
    let seen = format!("{method} {path} {}", range.as_deref().unwrap_or_default());
    let mut fault = state
        .faults
        .iter()
        .position(|(key, _)| seen.contains(key.as_str()))
        .map(|i| state.faults.remove(i).1);
    // A client that cannot reach the server's API (Python's huggingface_hub in
    // bench/hub_check.py) asks for a fault with `X-Test-Fault: STATUS:KEY`, served once, to the
    // first request that `KEY` matches, with a Retry-After of one second.
    if fault.is_none()
        && let Some(asked) = request.headers.get("x-test-fault").cloned()
        && let Some((status, key)) = asked.split_once(':')
        && let Ok(status) = status.trim().parse::<u16>()
        && seen.contains(key.trim())
        && !state.header_faults.contains(&asked)
    {
        state.header_faults.push(asked);
        fault = Some(Fault::Status(status, Some("1".into())));
    }
    let answer = match fault {
        Some(Fault::Status(..)) => (0, String::new(), Vec::new()),
        _ => route(&mut state, &request, range.as_deref()),
    };
    drop(state);
    let head_only = method == "HEAD";
    let mut stream = stream;
    match fault {
        Some(Fault::Status(status, retry_after)) => {
            let extra = retry_after
                .map(|s| format!("Retry-After: {s}\r\n"))
                .unwrap_or_default();
            respond(&mut stream, status, &extra, b"busy", head_only);
        }
        Some(Fault::Truncate(n)) => {
            let (status, headers, body) = answer;
            let head = format!(
                "HTTP/1.1 {status} X\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body[..n.min(body.len())]);
            let _ = stream.flush();
        }
        Some(Fault::Delay(wait)) => {
            std::thread::sleep(wait);
            let (status, headers, body) = answer;
            respond(&mut stream, status, &headers, &body, head_only);
        }
        Some(Fault::Corrupt) => {
            let (status, headers, mut body) = answer;
            for b in body.iter_mut().step_by(7) {
                *b ^= 0x5a;
            }
            respond(&mut stream, status, &headers, &body, head_only);
        }
        None => {
            let (status, headers, body) = answer;
            respond(&mut stream, status, &headers, &body, head_only);
        }
    }
}

fn respond(stream: &mut TcpStream, status: u16, headers: &str, body: &[u8], head_only: bool) {
    let head = format!(
        "HTTP/1.1 {status} X\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    if !head_only {
        let _ = stream.write_all(body);
    }
    let _ = stream.flush();
}

pub(crate) fn decode(part: &str) -> String {
    part.replace("%2F", "/").replace("%2f", "/")
}

/// Answers a request: a write (`write.rs`) or a read.
fn route(state: &mut State, request: &Request, range: Option<&str>) -> Answer {
    if let Some(token) = request.token()
        && !state.tokens.is_empty()
        && !state.tokens.iter().any(|t| t == token)
    {
        return error_answer(401, None, "Invalid credentials in Authorization header");
    }
    match request.method.as_str() {
        "POST" | "PUT" => write::answer(state, request),
        _ => read(state, request, range),
    }
}

/// The status, extra headers and body the Hub would send to a GET or HEAD.
fn read(state: &State, request: &Request, range: Option<&str>) -> Answer {
    let not_found = |code: &str| {
        (
            404,
            format!("X-Error-Code: {code}\r\n"),
            b"not found".to_vec(),
        )
    };
    let parts: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
    let (dataset_name, revision, file) = match parts.as_slice() {
        ["api", "datasets", owner, name, "revision", rev @ ..] => {
            (format!("{owner}/{name}"), decode(&rev.join("/")), None)
        }
        ["api", "datasets", owner, name] => (format!("{owner}/{name}"), "main".into(), None),
        ["datasets", owner, name, "resolve", rev, file @ ..] => {
            (format!("{owner}/{name}"), decode(rev), Some(file.join("/")))
        }
        _ => return not_found("EntryNotFound"),
    };
    let hidden = |repo: &Repo| repo.private && request.token().is_none();
    let Some(repo) = state.repos.get(&dataset_name).filter(|r| !hidden(r)) else {
        return (
            401,
            "X-Error-Code: RepoNotFound\r\n".into(),
            b"Repository not found".to_vec(),
        );
    };
    if let Some((status, code)) = repo.refuse {
        return (
            status,
            format!("X-Error-Code: {code}\r\n"),
            b"refused".to_vec(),
        );
    }
    let Some((commit_id, commit)) = repo.resolve(&revision) else {
        return not_found("RevisionNotFound");
    };
    let Some(file) = file else {
        let siblings: Vec<serde_json::Value> = commit
            .files
            .keys()
            .map(|f| serde_json::json!({ "rfilename": f }))
            .collect();
        let body = serde_json::json!({
            "id": dataset_name,
            "sha": commit_id,
            "private": repo.private,
            "siblings": siblings,
        });
        return json_answer(200, body);
    };
    let Some(blob) = commit.files.get(&file) else {
        return not_found("EntryNotFound");
    };
    let content = &blob.bytes;
    let sha = sha256_hex(content);
    let len = content.len();
    let mut headers =
        format!("ETag: \"{sha}\"\r\nX-Repo-Commit: {commit_id}\r\nAccept-Ranges: bytes\r\n");
    if blob.lfs {
        headers.push_str(&format!(
            "X-Linked-Etag: \"{sha}\"\r\nX-Linked-Size: {len}\r\n"
        ));
    }
    match range.and_then(|r| r.strip_prefix("bytes=")) {
        Some(spec) if len > 0 => {
            let (a, b) = spec.split_once('-').unwrap();
            let start: usize = a.parse().unwrap();
            let end: usize = b.parse::<usize>().map_or(len - 1, |e| e.min(len - 1));
            headers.push_str(&format!("Content-Range: bytes {start}-{end}/{len}\r\n"));
            (206, headers, content[start..=end].to_vec())
        }
        _ => (200, headers, content.to_vec()),
    }
}
