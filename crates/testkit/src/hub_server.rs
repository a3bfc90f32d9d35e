//! A small HTTP server on 127.0.0.1 that answers the Hugging Face Hub's dataset API as
//! `hf-hub` calls it: a revision's description, and `resolve` of a file with ranges and ETags.
//! It can be told to fail (429 with Retry-After, 5xx, a truncated or corrupted body), logs every
//! request, and answers absolute-form requests as an HTTP proxy would forward them.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use crate::loopback::{Loopback, read_headers};

/// A dataset the server holds at one commit.
#[derive(Clone, Default)]
pub struct Dataset {
    pub commit: String,
    pub files: BTreeMap<String, Vec<u8>>,
    /// Answer every request for the dataset with this status and `X-Error-Code` (a gated or
    /// private dataset).
    pub refuse: Option<(u16, &'static str)>,
}

/// A failure served once, to the first request whose path and range (`PATH bytes=A-B`) contain
/// the key.
pub enum Fault {
    /// This status, with a Retry-After header when given.
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
    pub path: String,
    pub range: Option<String>,
    pub authorization: Option<String>,
    /// The request line named a full URL: it came through a proxy.
    pub absolute: bool,
}

#[derive(Default)]
struct State {
    datasets: HashMap<String, Dataset>,
    faults: Vec<(String, Fault)>,
    log: Vec<Logged>,
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

    pub fn add(&self, name: &str, dataset: Dataset) {
        self.state
            .lock()
            .unwrap()
            .datasets
            .insert(name.to_string(), dataset);
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
}

fn serve(stream: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let headers = read_headers(&mut reader);
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
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
    let mut state = state.lock().unwrap();
    state.log.push(Logged {
        path: path.clone(),
        range: range.clone(),
        authorization: headers.get("authorization").cloned(),
        absolute,
    });
    let seen = format!("{path} {}", range.as_deref().unwrap_or_default());
    let fault = state
        .faults
        .iter()
        .position(|(key, _)| seen.contains(key.as_str()))
        .map(|i| state.faults.remove(i).1);
    let answer = answer(&state, &path, range.as_deref());
    drop(state);
    let mut stream = stream;
    match fault {
        Some(Fault::Status(status, retry_after)) => {
            let extra = retry_after
                .map(|s| format!("Retry-After: {s}\r\n"))
                .unwrap_or_default();
            respond(&mut stream, status, &extra, b"busy");
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
            respond(&mut stream, status, &headers, &body);
        }
        Some(Fault::Corrupt) => {
            let (status, headers, mut body) = answer;
            for b in body.iter_mut().step_by(7) {
                *b ^= 0x5a;
            }
            respond(&mut stream, status, &headers, &body);
        }
        None => {
            let (status, headers, body) = answer;
            respond(&mut stream, status, &headers, &body);
        }
    }
}

fn respond(stream: &mut TcpStream, status: u16, headers: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status} X\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

fn decode(part: &str) -> String {
    part.replace("%2F", "/").replace("%2f", "/")
}

/// The status, extra headers and body the Hub would send.
fn answer(state: &State, path: &str, range: Option<&str>) -> (u16, String, Vec<u8>) {
    let not_found = |code: &str| {
        (
            404,
            format!("X-Error-Code: {code}\r\n"),
            b"not found".to_vec(),
        )
    };
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (dataset_name, revision, file) = match parts.as_slice() {
        ["api", "datasets", owner, name, "revision", rev @ ..] => {
            (format!("{owner}/{name}"), decode(&rev.join("/")), None)
        }
        ["datasets", owner, name, "resolve", rev, file @ ..] => {
            (format!("{owner}/{name}"), decode(rev), Some(file.join("/")))
        }
        _ => return not_found("EntryNotFound"),
    };
    let Some(dataset) = state.datasets.get(&dataset_name) else {
        return (
            401,
            "X-Error-Code: RepoNotFound\r\n".into(),
            b"Repository not found".to_vec(),
        );
    };
    if let Some((status, code)) = dataset.refuse {
        return (
            status,
            format!("X-Error-Code: {code}\r\n"),
            b"refused".to_vec(),
        );
    }
    if revision != "main" && revision != dataset.commit {
        return not_found("RevisionNotFound");
    }
    let Some(file) = file else {
        let siblings: Vec<serde_json::Value> = dataset
            .files
            .keys()
            .map(|f| serde_json::json!({ "rfilename": f }))
            .chain(std::iter::once(
                serde_json::json!({"rfilename": "README.md"}),
            ))
            .collect();
        let body = serde_json::json!({
            "id": dataset_name,
            "sha": dataset.commit,
            "siblings": siblings,
        });
        return (
            200,
            "Content-Type: application/json\r\n".into(),
            body.to_string().into_bytes(),
        );
    };
    let Some(content) = dataset.files.get(&file) else {
        return not_found("EntryNotFound");
    };
    let sha = sha256_hex(content);
    let mut headers = format!(
        "ETag: \"{sha}\"\r\nX-Linked-Etag: \"{sha}\"\r\nX-Repo-Commit: {}\r\nAccept-Ranges: bytes\r\n",
        dataset.commit
    );
    let len = content.len();
    match range.and_then(|r| r.strip_prefix("bytes=")) {
        Some(spec) => {
            let (a, b) = spec.split_once('-').unwrap();
            let start: usize = a.parse().unwrap();
            let end: usize = b.parse::<usize>().map_or(len - 1, |e| e.min(len - 1));
            headers.push_str(&format!("Content-Range: bytes {start}-{end}/{len}\r\n"));
            (206, headers, content[start..=end].to_vec())
        }
        None => (200, headers, content.clone()),
    }
}
