//! `verity repo clone` and fetching missing base commits, against a real `git daemon` on
//! loopback serving a repository built here: no test reaches the internet.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use annotations::ops::{self, CloneProgress, CloneRequest, ErrorCode, Project};

use crate::util;
use verity_testkit::git;
use verity_testkit::project::{self, T0};

const REPO: &str = "acme/calc";

/// Deterministic bytes that do not compress, so a pack is big enough to break off mid-way.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn commit_file(work: &Path, file: &str, content: &[u8], message: &str) -> String {
    std::fs::write(work.join(file), content).unwrap();
    verity_testkit::commit_all(work, message)
}

/// A git daemon on 127.0.0.1 serving `acme/calc.git`: five commits on `main` (with a binary
/// file), a tag, and one commit reachable only from `refs/hidden/side`, which a clone does not
/// fetch. Killed when dropped.
struct Server {
    dir: tempfile::TempDir,
    daemon: Child,
    port: u16,
    /// The base commits on `main`, oldest first.
    main: Vec<String>,
    /// The commit only `refs/hidden/side` reaches.
    hidden: String,
}

impl Server {
    fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        git(&work, &["init", "-q", "-b", "main", "."]);
        let mut main = Vec::new();
        for i in 0..5 {
            let content = format!("def add(a, b):\n    return a + b  # {i}\n");
            main.push(commit_file(
                &work,
                "calc.py",
                content.as_bytes(),
                &format!("c{i}"),
            ));
            std::fs::write(work.join(format!("blob{i}.bin")), noise(i, 64 << 10)).unwrap();
        }
        main.push(commit_file(&work, "calc.py", b"done\n", "binaries"));
        git(&work, &["tag", "v1", &main[2]]);
        git(&work, &["checkout", "-q", "-b", "side", &main[0]]);
        let hidden = commit_file(&work, "side.py", b"side = 1\n", "side");
        git(&work, &["checkout", "-q", "main"]);
        let served = dir.path().join("served/acme/calc.git");
        std::fs::create_dir_all(served.parent().unwrap()).unwrap();
        git(
            dir.path(),
            &["clone", "-q", "--bare", "work", served.to_str().unwrap()],
        );
        git(&served, &["update-ref", "refs/hidden/side", &hidden]);
        git(&served, &["update-ref", "-d", "refs/heads/side"]);
        git(
            &served,
            &["config", "uploadpack.allowAnySHA1InWant", "true"],
        );
        let port = free_port();
        let base = dir.path().join("served");
        // `git daemon` runs `git-daemon` as its child, which outlives a kill of `git`: the
        // daemon itself is started, so that the kill on drop stops it.
        let exec_path = Command::new("git")
            .arg("--exec-path")
            .output()
            .expect("git says where its programs are");
        let exec_path = String::from_utf8(exec_path.stdout).expect("git's exec path is UTF-8");
        let daemon = Command::new(Path::new(exec_path.trim()).join("git-daemon"))
            .args([
                "--reuseaddr",
                &format!("--base-path={}", base.display()),
                "--export-all",
                "--enable=upload-pack",
                &format!("--port={port}"),
                "--listen=127.0.0.1",
                base.to_str().unwrap(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("git daemon starts");
        wait_for(port);
        Server {
            dir,
            daemon,
            port,
            main,
            hidden,
        }
    }

    fn url(&self) -> String {
        format!("git://127.0.0.1:{}/acme/calc.git", self.port)
    }

    /// Adds a commit to the served repository after a clone, on a ref no clone fetches.
    fn add_hidden_commit(&self, name: &str) -> String {
        let work = self.dir.path().join("work");
        git(&work, &["checkout", "-q", "-b", name, &self.main[1]]);
        let commit = commit_file(&work, "later.py", name.as_bytes(), name);
        git(&work, &["checkout", "-q", "main"]);
        let served = self.dir.path().join("served/acme/calc.git");
        git(
            &work,
            &[
                "push",
                "-q",
                served.to_str().unwrap(),
                &format!("{name}:refs/hidden/{name}"),
            ],
        );
        commit
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// The server's repositories over https on 127.0.0.1 (`git http-backend` behind Python's TLS
/// server, `tests/fixtures/git_https.py`), with a certificate made for the test that is its own
/// authority: trusted only where `SSL_CERT_FILE` names it. Killed when dropped.
struct HttpsFront {
    child: Child,
    port: u16,
    /// The certificate, to trust.
    cert: PathBuf,
}

impl HttpsFront {
    fn start(server: &Server) -> HttpsFront {
        let dir = server.dir.path();
        let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
        let made = Command::new("openssl")
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            ])
            .args([
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
            ])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .output()
            .expect("openssl runs");
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        let port = free_port();
        let child = Command::new("python3")
            .arg(verity_testkit::fixture("git_https.py"))
            .arg(dir.join("served"))
            .arg(&cert)
            .arg(&key)
            .arg(port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 starts");
        wait_for(port);
        HttpsFront { child, port, cert }
    }

    fn url(&self) -> String {
        format!("https://127.0.0.1:{}/acme/calc.git", self.port)
    }
}

impl Drop for HttpsFront {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for(port: u16) {
    let until = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < until, "nothing listens on port {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A SWE-bench row in repository `acme/calc` at `base`.
fn row(id: &str, base: &str) -> String {
    let line = std::fs::read_to_string(verity_testkit::fixture("swebench.jsonl")).unwrap();
    let mut row: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    row["instance_id"] = id.into();
    row["repo"] = REPO.into();
    row["base_commit"] = base.into();
    row.to_string()
}

/// A project in `dir` with a task at each base commit.
fn project_with_tasks(dir: &Path, bases: &[&str]) -> Project {
    let mut p = project::init(&dir.join("p.verity"), "swe-bench-verified");
    import(&mut p, dir, bases, 0);
    p
}

fn import(p: &mut Project, dir: &Path, bases: &[&str], first: usize) {
    let rows: Vec<String> = bases
        .iter()
        .enumerate()
        .map(|(i, b)| row(&format!("acme__calc-{}", first + i), b))
        .collect();
    let file = dir.join(format!("tasks{first}.jsonl"));
    std::fs::write(&file, rows.join("\n")).unwrap();
    project::import(p, &[file]);
}

fn request(url: &str) -> CloneRequest {
    CloneRequest {
        name: REPO.into(),
        url: Some(url.into()),
        into: None,
    }
}

fn clone(
    p: &mut Project,
    cache: &Path,
    url: &str,
) -> (ops::Result<ops::CloneReport>, Vec<CloneProgress>) {
    let mut seen = Vec::new();
    let report = ops::clone_repository(
        p,
        &request(url),
        cache,
        T0,
        &mut |step| seen.push(step.clone()),
        &AtomicBool::new(false),
    );
    (report, seen)
}

#[test]
fn a_clone_reports_progress_and_holds_every_base_commit_fetching_unbranched_ones_by_id() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut p = project_with_tasks(
        dir.path(),
        &[&server.main[0], &server.main[3], &server.hidden],
    );
    let (report, seen) = clone(&mut p, &cache, &server.url());
    let report = report.unwrap();
    assert!(!report.resumed && !report.reused);
    assert_eq!(
        Path::new(&report.path),
        cache.join("acme/calc.git").canonicalize().unwrap()
    );
    assert!(report.received_bytes > 64 << 10, "{report:?}");
    let last = seen
        .iter()
        .rfind(|s| s.stage == ops::CloneStage::DefaultBranch)
        .expect("the default branch's transfer reports progress");
    assert!(
        last.total_objects > 10 && last.received_objects == last.total_objects,
        "{last:?}"
    );
    assert_eq!(report.commits.base_commits, 3);
    assert_eq!(report.commits.held, 3);
    assert_eq!(
        report.commits.fetched,
        vec![server.hidden.clone()],
        "only the commit no branch reaches is fetched by id"
    );
    assert!(
        seen.iter()
            .any(|s| s.stage == ops::CloneStage::Commit
                && s.commit.as_deref() == Some(&server.hidden))
    );
    let listed = ops::list_repositories(&p).unwrap();
    assert_eq!((listed[0].held, listed[0].base_commits), (3, 3));
    assert_eq!(listed[0].path, report.path, "the clone is registered");
}

#[test]
fn a_cancelled_clone_is_resumed_by_running_it_again() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut p = project_with_tasks(dir.path(), &[&server.main[4]]);
    let cancel = AtomicBool::new(false);
    let err = ops::clone_repository(
        &mut p,
        &request(&server.url()),
        &cache,
        T0,
        &mut |_| cancel.store(true, Ordering::Relaxed),
        &cancel,
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Cancelled, "{err}");
    assert!(
        err.to_string().contains("run the same command again"),
        "{err}"
    );
    assert!(
        cache
            .join("acme/calc.git")
            .join(verity_evidence::clone::PARTIAL_MARKER)
            .exists(),
        "the partial clone is marked"
    );
    assert!(
        ops::list_repositories(&p).unwrap().is_empty(),
        "not yet registered"
    );

    let (report, _) = clone(&mut p, &cache, &server.url());
    let report = report.unwrap();
    assert!(report.resumed, "{report:?}");
    assert_eq!(report.commits.held, 1);
    assert!(
        !cache
            .join("acme/calc.git")
            .join(verity_evidence::clone::PARTIAL_MARKER)
            .exists()
    );
}

#[test]
fn a_second_project_reuses_the_cached_clone_and_fetches_only_what_it_lacks() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let first = dir.path().join("first");
    let second = dir.path().join("second");
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    let mut a = project_with_tasks(&first, &[&server.main[1]]);
    clone(&mut a, &cache, &server.url()).0.unwrap();

    let later = server.add_hidden_commit("later");
    let mut b = project_with_tasks(&second, &[&server.main[2], &later]);
    let (report, seen) = clone(&mut b, &cache, &server.url());
    let report = report.unwrap();
    assert!(report.reused, "{report:?}");
    assert_eq!(report.received_bytes, 0, "no second download");
    assert!(
        seen.iter().all(|s| s.stage == ops::CloneStage::Commit),
        "only a commit was fetched: {seen:?}"
    );
    assert_eq!(report.commits.fetched, vec![later]);
    assert_eq!(report.commits.held, 2);
    assert_eq!(
        ops::list_repositories(&b).unwrap()[0].path,
        ops::list_repositories(&a).unwrap()[0].path,
        "both projects use the one clone"
    );
}

#[test]
fn fetching_missing_commits_brings_a_base_commit_added_after_the_clone() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut p = project_with_tasks(dir.path(), &[&server.main[0]]);
    clone(&mut p, &cache, &server.url()).0.unwrap();
    let later = server.add_hidden_commit("later");
    import(&mut p, dir.path(), &[&later], 10);
    assert_eq!(ops::list_repositories(&p).unwrap()[0].held, 1);

    let report =
        ops::fetch_missing_commits(&mut p, REPO, None, &mut |_| {}, &AtomicBool::new(false))
            .unwrap();
    assert_eq!(report.fetched, vec![later]);
    assert!(report.missing.is_empty());
    assert_eq!(ops::list_repositories(&p).unwrap()[0].held, 2);
}

#[test]
fn a_repository_the_server_does_not_have_is_named() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with_tasks(dir.path(), &[&server.main[0]]);
    let url = format!("git://127.0.0.1:{}/acme/nothing.git", server.port);
    let err = clone(&mut p, &dir.path().join("cache"), &url)
        .0
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "no git repository exists at {url}: check the owner and the name (a private repository looks the same)"
        )
    );
}

#[test]
fn a_refused_connection_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with_tasks(dir.path(), &["a".repeat(40).as_str()]);
    let url = format!("git://127.0.0.1:{}/acme/calc.git", free_port());
    let err = clone(&mut p, &dir.path().join("cache"), &url)
        .0
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::CloneFailed, "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("cannot reach the server of {url}: ")),
        "{text}"
    );
}

#[test]
fn an_unknown_host_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with_tasks(dir.path(), &["a".repeat(40).as_str()]);
    // `.invalid` never resolves (RFC 2606), so this asks no real server.
    let url = "git://verity-test.invalid/acme/calc.git";
    let err = clone(&mut p, &dir.path().join("cache"), url).0.unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("cannot reach the server of {url}: ")),
        "{err}"
    );
}

#[test]
fn a_transfer_cut_off_mid_way_says_so_and_running_again_resumes() {
    let server = Server::start();
    let proxy = cutting_proxy(server.port, 96 << 10);
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut p = project_with_tasks(dir.path(), &[&server.main[0]]);
    let url = format!("git://127.0.0.1:{proxy}/acme/calc.git");
    let err = clone(&mut p, &cache, &url).0.unwrap_err();
    assert_eq!(err.code(), ErrorCode::CloneFailed, "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("the transfer from {url} was interrupted (")),
        "{text}"
    );
    assert!(
        text.ends_with("; run the same command again to resume"),
        "{text}"
    );

    let (report, _) = clone(&mut p, &cache, &server.url());
    assert!(report.unwrap().resumed);
}

/// A proxy to `port` on loopback that closes each connection after passing `limit` bytes from
/// the server, as a network that drops mid-transfer does. Returns its port.
fn cutting_proxy(port: u16, limit: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { return };
            let Ok(mut server) = TcpStream::connect(("127.0.0.1", port)) else {
                return;
            };
            let (mut client_in, mut server_out) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || std::io::copy(&mut client_in, &mut server_out));
            std::thread::spawn(move || {
                let mut passed = 0;
                let mut buf = [0u8; 8192];
                while passed < limit {
                    match server.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let n = n.min(limit - passed);
                            if client.write_all(&buf[..n]).is_err() {
                                break;
                            }
                            passed += n;
                        }
                    }
                }
                let _ = client.shutdown(Shutdown::Both);
                let _ = server.shutdown(Shutdown::Both);
            });
        }
    });
    proxy
}

#[test]
fn a_url_git_cannot_fetch_from_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut p = project_with_tasks(dir.path(), &["a".repeat(40).as_str()]);
    for url in [
        "ftp://example.org/acme/calc",
        "git@example.org:acme/calc.git",
    ] {
        let err = clone(&mut p, &cache, url).0.unwrap_err();
        assert_eq!(err.code(), ErrorCode::BadInput, "{err}");
        assert!(
            err.to_string()
                .starts_with(&format!("{url} is not a git URL Verity can clone from")),
            "{err}"
        );
    }
    assert!(!cache.exists());
}

/// A project holding one task on the server's third commit, and `verity repo clone` run on it
/// with `args` and `env` into the cache `h.path("cache")`; returns its JSON report.
fn cli_clone(
    server: &Server,
    h: &util::Harness,
    args: &[&str],
    env: &[(&str, &Path)],
) -> serde_json::Value {
    let tasks = h.write("tasks.jsonl", row("acme__calc-1", &server.main[2]));
    h.ok(&["import", &tasks]);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_verity"));
    cmd.args(["repo", "clone", REPO, "--json"])
        .args(args)
        .env("VERITY_PROJECT", h.project())
        .env("VERITY_REPO_CACHE", h.path("cache"));
    for (name, value) in env {
        cmd.env(name, value);
    }
    let out = cmd.output().unwrap();
    verity_testkit::assert_success(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_cli_clones_into_the_cache_named_by_verity_repo_cache_and_prints_json() {
    let server = Server::start();
    let h = util::Harness::new();
    let report = cli_clone(&server, &h, &["--url", &server.url()], &[]);
    assert_eq!(report["name"], REPO);
    assert_eq!(report["commits"]["held"], 1);
    assert_eq!(report["commits"]["base_commits"], 1);
    let path = PathBuf::from(report["path"].as_str().unwrap());
    assert_eq!(
        path,
        h.path("cache")
            .join("acme/calc.git")
            .canonicalize()
            .unwrap()
    );
    let listed = h.json(&["repo", "list", "--json"]);
    assert_eq!(listed[0]["held"], 1);
}

/// A project with tasks `acme__calc-1` (at a commit of `main`) and `acme__calc-2` (at a
/// commit pushed after cloning), and a registered bare clone of the server that lacks the
/// second's base commit; returns the harness, the clone's path and that commit.
fn clone_lacking_a_base_commit(server: &Server) -> (util::Harness, PathBuf, String) {
    let h = util::Harness::new();
    let tasks = h.write("tasks.jsonl", row("acme__calc-1", &server.main[1]));
    h.ok(&["import", &tasks]);
    let clone = h.path("calc.git");
    git(
        h.path("").as_path(),
        &[
            "clone",
            "-q",
            "--bare",
            &server.url(),
            clone.to_str().unwrap(),
        ],
    );
    let later = server.add_hidden_commit("later");
    let more = h.write("more.jsonl", row("acme__calc-2", &later));
    h.ok(&["import", &more]);
    h.ok(&["repo", "add", REPO, clone.to_str().unwrap()]);
    (h, clone, later)
}

#[test]
fn evidence_on_a_missing_base_commit_names_the_command_and_fetch_missing_fetches_it() {
    let server = Server::start();
    let (h, _, later) = clone_lacking_a_base_commit(&server);

    let err = h.fails(&["evidence", "acme__calc-2"]);
    assert!(
        err.contains(&format!("does not hold base commit {later}"))
            && err
                .trim_end()
                .ends_with("(run `verity repo fetch-missing acme/calc`, or pass --fetch-missing)"),
        "{err}"
    );
    let report = h.json(&["evidence", "acme__calc-2", "--fetch-missing", "--json"]);
    assert_eq!(report["base_commit"], later.as_str());
    assert_eq!(h.json(&["repo", "list", "--json"])[0]["held"], 2);
}

#[test]
fn evidence_fetches_a_missing_commit_over_https_with_the_authorities_it_loads_only_then() {
    let server = Server::start();
    let https = HttpsFront::start(&server);
    let (h, clone, later) = clone_lacking_a_base_commit(&server);
    git(&clone, &["remote", "set-url", "origin", &https.url()]);
    // `verity evidence` starts libgit2 without any authority and loads them before it
    // connects: the system's, or those SSL_CERT_FILE names.
    let evidence = |trusted: Option<&Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_verity"));
        cmd.args(["evidence", "acme__calc-2", "--fetch-missing", "--json"])
            .env("VERITY_PROJECT", h.project())
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR");
        if let Some(cert) = trusted {
            cmd.env("SSL_CERT_FILE", cert);
        }
        cmd.output().unwrap()
    };

    let refused = evidence(None);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success()
            && err.contains(&format!(
                "the server of {} presented a TLS certificate this machine does not trust (",
                https.url()
            ))
            && err.contains("name the authority that signed it with SSL_CERT_FILE"),
        "the system's authorities do not vouch for the test's server: {err}"
    );
    let fetched = evidence(Some(&https.cert));
    assert!(
        fetched.status.success(),
        "{}",
        String::from_utf8_lossy(&fetched.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&fetched.stdout).unwrap();
    assert_eq!(report["base_commit"], later.as_str());
    assert_eq!(h.json(&["repo", "list", "--json"])[0]["held"], 2);
}

#[test]
fn the_needed_repositories_include_those_without_a_clone() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with_tasks(dir.path(), &[&server.main[0], &server.main[1]]);
    let needed = ops::list_needed_repositories(&p).unwrap();
    assert_eq!(needed.len(), 1);
    assert_eq!(
        (needed[0].tasks, needed[0].base_commits, needed[0].held),
        (2, 2, 0)
    );
    assert!(needed[0].path.is_none());
    clone(&mut p, &dir.path().join("cache"), &server.url())
        .0
        .unwrap();
    let needed = ops::list_needed_repositories(&p).unwrap();
    assert_eq!(needed[0].held, 2);
    assert!(needed[0].path.is_some());
}

#[test]
fn a_commit_the_server_will_not_give_is_listed_as_missing_with_the_reason() {
    let server = Server::start();
    let served = server.dir.path().join("served/acme/calc.git");
    git(
        &served,
        &["config", "uploadpack.allowAnySHA1InWant", "false"],
    );
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with_tasks(dir.path(), &[&server.main[0], &server.hidden]);
    let report = clone(&mut p, &dir.path().join("cache"), &server.url())
        .0
        .unwrap();
    assert_eq!(report.commits.held, 1);
    assert_eq!(report.commits.missing.len(), 1, "{report:?}");
    let missing = &report.commits.missing[0];
    assert_eq!(missing.commit, server.hidden);
    assert!(
        missing.reason.starts_with(&format!(
            "the server at {} does not give out commit {}: ",
            server.url(),
            server.hidden
        )),
        "{}",
        missing.reason
    );
}

#[test]
fn a_mirror_named_by_git_url_insteadof_serves_the_default_github_url() {
    let server = Server::start();
    let h = util::Harness::new();
    let config = h.path("config");
    std::fs::create_dir_all(config.join("git")).unwrap();
    std::fs::write(
        config.join("git/config"),
        format!(
            "[url \"git://127.0.0.1:{}/\"]\n\tinsteadOf = https://github.com/\n",
            server.port
        ),
    )
    .unwrap();
    let home = h.path("home");
    let report = cli_clone(
        &server,
        &h,
        &[],
        &[("XDG_CONFIG_HOME", &config), ("HOME", &home)],
    );
    assert_eq!(report["commits"]["held"], 1);
}
