//! The sweep: every pattern over every text file of a commit in one pass.
//!
//! Aho-Corasick in overlapping mode finds every occurrence of every pattern, so a term that is
//! part of another term (`connection` in `get_connection`) is still found, which `git grep -F`
//! per term would do too. A pattern without a newline can only match within a line, so "the
//! file contains the pattern" is exactly "`git grep -F -l` lists the file". Files are spread
//! over the engine's threads; each thread opens its own handle on the clone only when a blob
//! is missing from the cache.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::blobs::{BlobCache, BlobText, Memo};
use super::paths::PathClass;
use super::report::Hit;
use super::repository::{FileEntry, RepoAccess, ResolvedCommit};
use super::{Engine, EvidenceError};

/// Longest line text kept in a hit, in characters.
const HIT_TEXT_CHARS: usize = 240;
/// Above this many pattern bytes the full DFA would be large; let the library choose.
const DFA_PATTERN_BYTES: usize = 200_000;

/// One pattern's matches in one blob.
#[derive(Debug, Clone)]
pub(crate) struct PatternScan {
    pattern: u32,
    /// Lines holding at least one match.
    lines: u32,
    /// The first matching lines: 1-based line number and text.
    hits: Vec<(u32, Box<str>)>,
    last_line: u32,
}

/// One blob's scan against one pattern set.
#[derive(Debug, Clone, Default)]
pub(crate) struct BlobScan {
    binary: bool,
    patterns: Vec<PatternScan>,
}

/// One pattern's matches over the commit.
#[derive(Debug, Clone, Default)]
pub(crate) struct PatternResult {
    /// Indexes into the file listing of the text files that contain the pattern.
    pub(crate) files: Vec<usize>,
    /// Per file in `files`, the line of its first match.
    pub(crate) first_lines: Vec<usize>,
    /// Matching lines over all those files.
    pub(crate) lines: usize,
    /// The first hits, live paths first.
    pub(crate) hits: Vec<Hit>,
}

/// The sweep's result.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sweep {
    /// Per pattern, in the order given.
    pub(crate) patterns: Vec<PatternResult>,
    /// Indexes of binary files.
    pub(crate) binary_files: Vec<usize>,
}

/// A stable fingerprint of a pattern set (std's SipHash with fixed keys is deterministic).
fn fingerprint(patterns: &[String], max_hits: usize) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    patterns.hash(&mut hasher);
    max_hits.hash(&mut hasher);
    hasher.finish()
}

fn build_automaton(patterns: &[String]) -> Result<Option<AhoCorasick>, aho_corasick::BuildError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let bytes: usize = patterns.iter().map(String::len).sum();
    let kind = (bytes <= DFA_PATTERN_BYTES).then_some(AhoCorasickKind::DFA);
    AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .kind(kind)
        .build(patterns)
        .map(Some)
}

/// The text of the line around byte `at`, cut to [`HIT_TEXT_CHARS`].
pub(crate) fn line_at(bytes: &[u8], at: usize) -> String {
    let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |p| p + 1);
    let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p);
    let line = String::from_utf8_lossy(&bytes[start..end]);
    let line = line.strip_suffix('\r').unwrap_or(&line);
    // A line of at most that many bytes has at most that many characters: copy it whole
    // instead of counting characters, which was a tenth of a cold sweep's instructions.
    if line.len() <= HIT_TEXT_CHARS {
        return line.to_string();
    }
    line.chars().take(HIT_TEXT_CHARS).collect()
}

fn scan_text(
    automaton: &AhoCorasick,
    bytes: &[u8],
    max_hits: usize,
    slots: &mut [u32],
) -> BlobScan {
    let mut scans: Vec<PatternScan> = Vec::new();
    let (mut cursor, mut line) = (0usize, 1u32);
    for found in automaton.find_overlapping_iter(bytes) {
        let start = found.start();
        // Overlapping matches arrive by end position, so a start can move back a little.
        if start >= cursor {
            line += memchr::memchr_iter(b'\n', &bytes[cursor..start]).count() as u32;
        } else {
            line -= memchr::memchr_iter(b'\n', &bytes[start..cursor]).count() as u32;
        }
        cursor = start;
        let pattern = found.pattern().as_u32();
        let slot = &mut slots[pattern as usize];
        if *slot == u32::MAX {
            *slot = scans.len() as u32;
            scans.push(PatternScan {
                pattern,
                lines: 0,
                hits: Vec::new(),
                last_line: 0,
            });
        }
        let scan = &mut scans[*slot as usize];
        if scan.last_line != line {
            scan.last_line = line;
            scan.lines += 1;
            // At least one hit per file: precedents report where each file first has it.
            if scan.hits.len() < max_hits.max(1) {
                scan.hits
                    .push((line, line_at(bytes, start).into_boxed_str()));
            }
        }
    }
    for scan in &scans {
        slots[scan.pattern as usize] = u32::MAX;
    }
    BlobScan {
        binary: false,
        patterns: scans,
    }
}

/// Searches every regular file of `files` for every pattern.
pub(crate) fn run_patterns(
    engine: &Engine,
    repo: &RepoAccess,
    commit: &ResolvedCommit,
    files: &[FileEntry],
    patterns: &[String],
) -> Result<Sweep, EvidenceError> {
    let automaton = build_automaton(patterns).map_err(|err| EvidenceError::InvalidPattern {
        context: Box::new(repo.context.clone()),
        pattern: patterns.first().cloned().unwrap_or_default(),
        message: err.to_string(),
    })?;
    let print = fingerprint(patterns, engine.max_hits);
    let pattern_count = patterns.len();
    let scans = scan_blobs(
        engine,
        repo,
        commit,
        files,
        print,
        &|_| true,
        &|| vec![u32::MAX; pattern_count],
        &|text, slots| match (text, automaton.as_ref()) {
            (BlobText::Binary { .. }, _) => BlobScan {
                binary: true,
                patterns: Vec::new(),
            },
            (BlobText::Text(bytes), Some(automaton)) => {
                scan_text(automaton, bytes, engine.max_hits, slots)
            }
            (BlobText::Text(_), None) => BlobScan::default(),
        },
    )?;
    Ok(merge(engine.max_hits, files, pattern_count, &scans))
}

/// Scan results with their files' indexes in the listing.
pub(crate) type Indexed<T> = Vec<(usize, Arc<T>)>;

/// A per-blob scan result that the engine's cache memoizes per pattern set.
pub(crate) trait Memoized: Send + Sync + Sized + 'static {
    /// The memo that holds this kind of result.
    fn memo(cache: &mut BlobCache) -> &mut Memo<Self>;
}

impl Memoized for BlobScan {
    fn memo(cache: &mut BlobCache) -> &mut Memo<BlobScan> {
        &mut cache.term_scans
    }
}

/// Runs `scan` over the blob of every selected file, spread over the engine's threads, with
/// blob contents and results taken from the cache when it has them. Results come back in
/// listing order. `scratch` makes each worker's reusable state.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan_blobs<T: Memoized, S>(
    engine: &Engine,
    repo: &RepoAccess,
    commit: &ResolvedCommit,
    files: &[FileEntry],
    print: u64,
    select: &(dyn Fn(&FileEntry) -> bool + Sync),
    scratch: &(dyn Fn() -> S + Sync),
    scan: &(dyn Fn(&BlobText, &mut S) -> T + Sync),
) -> Result<Indexed<T>, EvidenceError> {
    let next = AtomicUsize::new(0);
    // git2 handles are not `Sync`: workers get the clone's path and open their own, and only
    // when a blob is missing from the cache.
    let (path, context) = (repo.path.as_path(), &repo.context);
    let threads = if files.len() < 64 { 1 } else { engine.threads };
    let worker = || -> Result<Indexed<T>, EvidenceError> {
        let mut handle: Option<RepoAccess> = None;
        let mut state = scratch();
        let mut out = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(entry) = files.get(index) else { break };
            if !select(entry) {
                continue;
            }
            let (memo, cached) = {
                let mut cache = engine.lock_cache();
                match T::memo(&mut cache).get(print, entry.blob) {
                    Some(found) => (Some(found), None),
                    None => (None, cache.get(entry.blob)),
                }
            };
            if let Some(found) = memo {
                out.push((index, found));
                continue;
            }
            let text = match cached {
                Some(text) => text,
                None => {
                    let reader = match &handle {
                        Some(reader) => reader,
                        None => handle.insert(RepoAccess::open(path, context)?),
                    };
                    let text = reader.read_blob(&commit.id, entry.blob)?;
                    engine.lock_cache().insert(entry.blob, text.clone());
                    text
                }
            };
            let result = Arc::new(scan(&text, &mut state));
            let mut cache = engine.lock_cache();
            if cache.enabled() {
                T::memo(&mut cache).insert(print, entry.blob, result.clone());
            }
            drop(cache);
            out.push((index, result));
        }
        Ok(out)
    };
    let results: Vec<Result<Indexed<T>, EvidenceError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
        workers
            .into_iter()
            .map(|handle| {
                handle.join().unwrap_or_else(|_| {
                    Err(EvidenceError::WorkerPanicked {
                        context: Box::new(context.clone()),
                    })
                })
            })
            .collect()
    });
    let mut scans = Vec::with_capacity(files.len());
    for result in results {
        scans.extend(result?);
    }
    scans.sort_unstable_by_key(|(index, _)| *index);
    Ok(scans)
}

fn merge(
    max_hits: usize,
    files: &[FileEntry],
    pattern_count: usize,
    scans: &[(usize, Arc<BlobScan>)],
) -> Sweep {
    let mut sweep = Sweep {
        patterns: vec![PatternResult::default(); pattern_count],
        binary_files: Vec::new(),
    };
    let mut other_hits: Vec<Vec<Hit>> = vec![Vec::new(); pattern_count];
    for (index, scan) in scans {
        let entry = &files[*index];
        if scan.binary {
            sweep.binary_files.push(*index);
            continue;
        }
        for found in &scan.patterns {
            let result = &mut sweep.patterns[found.pattern as usize];
            result.files.push(*index);
            result
                .first_lines
                .push(found.hits.first().map_or(0, |(line, _)| *line as usize));
            result.lines += found.lines as usize;
            let bucket = if entry.class == PathClass::Live {
                &mut result.hits
            } else {
                &mut other_hits[found.pattern as usize]
            };
            for (line, text) in &found.hits {
                if bucket.len() >= max_hits {
                    break;
                }
                bucket.push(Hit {
                    path: entry.path.clone(),
                    line: *line as usize,
                    text: text.to_string(),
                    path_class: entry.class,
                });
            }
        }
    }
    for (result, others) in sweep.patterns.iter_mut().zip(other_hits) {
        let room = max_hits.saturating_sub(result.hits.len());
        result.hits.extend(others.into_iter().take(room));
    }
    sweep
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_terms_and_line_numbers() {
        let patterns = vec!["connection".to_string(), "get_connection".to_string()];
        let automaton = build_automaton(&patterns).unwrap().unwrap();
        let text = b"a\nget_connection()\nb\nconnection connection\n";
        let mut slots = vec![u32::MAX; 2];
        let scan = scan_text(&automaton, text, 5, &mut slots);
        let short = scan.patterns.iter().find(|p| p.pattern == 0).unwrap();
        let long = scan.patterns.iter().find(|p| p.pattern == 1).unwrap();
        assert_eq!(short.lines, 2, "two lines hold 'connection'");
        assert_eq!(
            short.hits.iter().map(|h| h.0).collect::<Vec<_>>(),
            vec![2, 4]
        );
        assert_eq!(long.lines, 1);
        assert_eq!(&*long.hits[0].1, "get_connection()");
        assert!(
            slots.iter().all(|s| *s == u32::MAX),
            "scratch slots are reset"
        );
    }

    #[test]
    fn hit_text_is_cut_to_its_character_limit() {
        let short = "é".repeat(HIT_TEXT_CHARS / 2);
        assert_eq!(line_at(format!("a\n{short}\r\nb").as_bytes(), 3), short);
        let long = "é".repeat(HIT_TEXT_CHARS + 7);
        let cut = line_at(long.as_bytes(), 0);
        assert_eq!(cut.chars().count(), HIT_TEXT_CHARS);
        assert!(long.starts_with(&cut));
    }
}
