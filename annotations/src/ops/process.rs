//! Process-wide setup a front end runs as it starts: the allocator's tuning, libgit2 started
//! without the TLS certificate authorities and with bounded pack windows, and the trust store
//! loaded before a fetch. These set C globals and the environment, so they are `unsafe` to
//! call: the caller promises that no other thread exists yet (or, for
//! [`load_trust_store`], that no other thread uses libgit2).
#![allow(unsafe_code)]

/// What a command needs of the process before it starts any thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessSetup {
    /// The command reads clones (evidence, grep, show, precedents): libgit2 starts at once,
    /// offline (see [`set_up_process`]).
    pub reads_clones: bool,
    /// The command reads commit after commit (`evidence --all`): the allocator and libgit2's
    /// pack windows hold its memory near the engine's cache bound, at some cost in speed (a
    /// fifth of a single task's time on flipt and NodeBB); one task needs no bound.
    pub bounded_memory: bool,
}

/// Sets the process up for a command: with `bounded_memory`, tunes the allocator; with
/// `reads_clones`, starts libgit2 offline (bounding its pack windows too when
/// `bounded_memory`).
///
/// # Safety
///
/// Call it before the process starts any other thread: it changes the environment and
/// process-wide allocator and libgit2 options, which nothing may read meanwhile.
pub unsafe fn set_up_process(setup: ProcessSetup) {
    if setup.bounded_memory {
        // SAFETY: the caller runs this before any other thread exists.
        unsafe { tune_malloc() };
    }
    if setup.reads_clones {
        // SAFETY: as above.
        unsafe { start_git_offline(setup.bounded_memory) };
    }
}

/// Tunes glibc's malloc for `evidence --all`, whose cache reads and evicts blobs of every size
/// over thousands of commits: with its default, a freed large block raises the threshold above
/// which blocks are mapped on their own, so later large blobs come from the heaps and what the
/// cache evicts stays resident as fragments. Over 418 SWE-bench Pro tasks this kept the peak
/// at 1.7 times the cache's bound. A fixed threshold returns every large block to the system
/// when freed, and two arenas are enough for the engine's two threads.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe fn tune_malloc() {
    // SAFETY: `mallopt` only sets allocator parameters; [`set_up_process`] runs it before any
    // other thread exists. A parameter it refuses leaves the default in place.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
unsafe fn tune_malloc() {}

/// libgit2 maps pack files in windows of 1 GiB, up to 8 GiB in all, and every page the
/// evidence engine reads stays resident while mapped: `evidence --all` over Ansible's 500 MB
/// pack peaked at 330 MB. Windows of 8 MiB, 32 MiB mapped at most, keep the pages that count
/// near the engine's own cache bound; libgit2 unmaps the least recently used window first.
/// Set for `evidence --all` only, by [`start_git_offline`] before libgit2 starts.
unsafe fn bound_pack_windows() {
    // SAFETY: these only set libgit2's global window options; `start_git_offline` runs them
    // once, before any repository is opened. An option refused keeps its default.
    unsafe {
        let _ = git2::opts::set_mwindow_size(8 << 20);
        let _ = git2::opts::set_mwindow_mapped_limit(32 << 20);
    }
}

/// Starts libgit2 for the commands that read clones, before any other thread exists, without
/// the TLS certificate authorities; `bound` bounds its pack windows first.
///
/// As it starts, libgit2 loads the system's certificate authorities into the context it would
/// use for https: about 18 ms, more than the whole evidence of a small repository. These
/// commands connect only to fetch a missing base commit, after [`load_trust_store`]. libgit2
/// starts with `SSL_CERT_FILE` pointing at an empty file; then that variable and
/// `SSL_CERT_DIR` (which git2 sets as it starts) are put back as they were, since the
/// PostgreSQL client reads them for its own TLS roots.
unsafe fn start_git_offline(bound: bool) {
    let prior = ["SSL_CERT_FILE", "SSL_CERT_DIR"].map(|name| (name, std::env::var_os(name)));
    // SAFETY: [`set_up_process`]'s caller runs it before starting any thread, so nothing reads
    // the environment while it changes.
    unsafe { std::env::set_var("SSL_CERT_FILE", "/dev/null") };
    if bound {
        // SAFETY: libgit2 has not started, and no repository is open.
        unsafe { bound_pack_windows() };
    }
    verity_evidence::prepare();
    for (name, value) in prior {
        // SAFETY: as above; libgit2's start has returned and started no thread.
        unsafe {
            match value {
                Some(value) => std::env::set_var(name, value),
                None => std::env::remove_var(name),
            }
        }
    }
}

/// Loads the certificate authorities that [`set_up_process`] left out, before a fetch.
///
/// # Safety
///
/// Call it on the command's one thread before its fetch opens any connection: libgit2 reads
/// these locations, process-wide and unsynchronised, as it opens a TLS connection.
pub unsafe fn load_trust_store() {
    let found = openssl_probe::probe();
    let loaded = (|| -> Result<(), git2::Error> {
        // SAFETY: libgit2 reads these locations only as it opens a TLS connection, and the
        // caller runs this on the command's one thread before its fetch opens any.
        unsafe {
            if let Some(file) = &found.cert_file {
                git2::opts::set_ssl_cert_file(file)?;
            }
            if let Some(dir) = &found.cert_dir {
                git2::opts::set_ssl_cert_dir(dir)?;
            }
        }
        Ok(())
    })();
    if let Err(err) = loaded {
        tracing::warn!(
            "the TLS certificate authorities ({:?}, {:?}) did not load: {}",
            found.cert_file,
            found.cert_dir,
            err.message()
        );
    }
}
