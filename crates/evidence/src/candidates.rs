//! Airtight candidates: string literals the tests use that neither the prose nor live code
//! has, each with the nearest live string literals and a word-level diff against them.
//!
//! Finding the nearest strings: the candidate's distinctive words (lower-cased, three letters
//! or more, minus a short stop list) are searched case-insensitively as whole words over the
//! live text files; on each line holding a third of them (at least two, or one for a
//! one-word candidate) the quoted literals are taken and scored by the Jaccard index of their word
//! sets. The best dozen are then ranked by `similar`'s word-level ratio, which also yields the
//! diff shown to the rater.
//!
//! Translation catalogs (gettext `.po` and `.pot` files) are left out of this search: each of
//! their `msgid` lines repeats a string of the code, which is found there, and their `msgstr`
//! lines are translations, never the string a test was modelled on. In Django they are 8.4 of
//! the 21.8 MB under `django/`, nearly every line quoted.

use std::collections::{HashMap, HashSet};

use aho_corasick::BuildError;
use similar::{ChangeTag, TextDiff};

use super::blob_scan::{Scanned, Scanner, Search, index_blobs};
use super::blobs::NearHits;
use super::engine::Engine;
use super::error::EvidenceError;
use super::paths::FileEntry;
use super::receipt::line_receipt;
use super::report::{AirtightCandidate, ChangeOp, NearString, TermClass, TermEvidence, WordChange};
use super::repository::{RepoAccess, ResolvedCommit};
use super::risk::{absent_near_change, is_airtight, strength};
use super::terms::{TermKind, TermRole, TermSource};
use super::text::line_literals;

const STOP_WORDS: &[&str] = &[
    "the", "and", "not", "are", "was", "were", "for", "with", "when", "this", "that", "from",
    "has", "have", "had", "but", "you", "your", "its", "can", "will", "into", "than", "then",
    "there", "been", "also", "any", "all",
];
/// Words per candidate kept for matching (they live in a 64-bit mask).
const MAX_WORDS: usize = 64;
/// Literals scored with the full diff per candidate.
const SHORTLIST: usize = 12;
/// Literals below this Jaccard index are not kept at all.
const MIN_JACCARD: f32 = 0.15;

/// Lower-cased words of a text, split at anything that is not a letter or digit.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn distinctive_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(text)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 && !STOP_WORDS.contains(&w.as_str()))
        .filter(|w| seen.insert(w.clone()))
        .take(MAX_WORDS)
        .collect()
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f32 {
    let shared = a.intersection(b).count();
    let union = a.len() + b.len() - shared;
    if union == 0 {
        0.0
    } else {
        shared as f32 / union as f32
    }
}

/// A candidate prepared for matching.
struct Prepared {
    words: HashSet<String>,
    needed: u32,
}

/// The search for some candidates' words.
struct NearSearch {
    /// `None` when the candidates have no distinctive words.
    scanner: Option<Scanner>,
    /// Byte length of each word.
    lengths: Vec<usize>,
    /// Per word, the candidates holding it and its bit in their masks.
    owners: Vec<Vec<(u32, u32)>>,
    prepared: Vec<Prepared>,
}

impl NearSearch {
    fn new<'a>(candidates: impl Iterator<Item = &'a str>) -> Result<NearSearch, BuildError> {
        let mut prepared = Vec::new();
        let mut word_ids: HashMap<String, usize> = HashMap::new();
        let mut owners: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut patterns: Vec<String> = Vec::new();
        for (candidate, term) in candidates.enumerate() {
            let list = distinctive_words(term);
            for (bit, word) in list.iter().enumerate() {
                let id = *word_ids.entry(word.clone()).or_insert_with(|| {
                    patterns.push(word.clone());
                    owners.push(Vec::new());
                    patterns.len() - 1
                });
                owners[id].push((candidate as u32, bit as u32));
            }
            // A line must share a third of the candidate's words (at least two, or one for a
            // one-word candidate): lines sharing two common words ("name", "field") are
            // everywhere in a large codebase and are never the nearest string.
            prepared.push(Prepared {
                needed: list.len().min(2).max(list.len().div_ceil(3)) as u32,
                words: list.into_iter().collect(),
            });
        }
        let scanner = if patterns.is_empty() {
            None
        } else {
            let words: Vec<&str> = patterns.iter().map(String::as_str).collect();
            Some(Scanner::new(&words, true)?)
        };
        Ok(NearSearch {
            scanner,
            lengths: patterns.iter().map(String::len).collect(),
            owners,
            prepared,
        })
    }
}

/// A gettext catalog: `.po` or `.pot`.
fn is_translation_catalog(path: &str) -> bool {
    path.ends_with(".po") || path.ends_with(".pot")
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// The near strings of one blob, by candidate. Only lines with a quote character can hold a
/// literal, so only those are searched for words.
fn scan_blob(search: &NearSearch, bytes: &[u8]) -> Vec<(usize, NearHits)> {
    let mut out: Vec<(usize, NearHits)> = Vec::new();
    let Some(scanner) = &search.scanner else {
        return out;
    };
    let mut masks: Vec<u64> = vec![0; search.prepared.len()];
    let mut touched: Vec<u32> = Vec::new();
    let (mut from, mut line_no) = (0usize, 1u32);
    while let Some(quote) = memchr::memchr3(b'"', b'\'', b'`', &bytes[from..]) {
        let quote = from + quote;
        let start = memchr::memrchr(b'\n', &bytes[from..quote]).map_or(from, |p| from + p + 1);
        let end = memchr::memchr(b'\n', &bytes[quote..]).map_or(bytes.len(), |p| quote + p);
        line_no += memchr::memchr_iter(b'\n', &bytes[from..start]).count() as u32;
        let line = &bytes[start..end];
        scanner.for_each_match(line, |word, at| {
            let after = at + search.lengths[word as usize];
            let before = at.checked_sub(1).map(|p| line[p]);
            if before.is_some_and(is_word_byte)
                || line.get(after).copied().is_some_and(is_word_byte)
            {
                return;
            }
            for &(candidate, bit) in &search.owners[word as usize] {
                if masks[candidate as usize] == 0 {
                    touched.push(candidate);
                }
                masks[candidate as usize] |= 1u64 << bit;
            }
        });
        if !touched.is_empty() {
            let text = String::from_utf8_lossy(line);
            let mut literals: Option<Vec<(&str, HashSet<String>)>> = None;
            for candidate in touched.drain(..) {
                let mask = std::mem::take(&mut masks[candidate as usize]);
                let target = &search.prepared[candidate as usize];
                if mask.count_ones() < target.needed {
                    continue;
                }
                let literals = literals.get_or_insert_with(|| {
                    line_literals(&text)
                        .into_iter()
                        .map(|l| (l, distinctive_words(l).into_iter().collect()))
                        .collect()
                });
                for (literal, literal_words) in literals.iter() {
                    let score = jaccard(&target.words, literal_words);
                    if score >= MIN_JACCARD {
                        let at = match out.iter().position(|(c, _)| *c == candidate as usize) {
                            Some(at) => at,
                            None => {
                                out.push((candidate as usize, NearHits::default()));
                                out.len() - 1
                            }
                        };
                        out[at].1.finds.push(((*literal).into(), line_no, score));
                    }
                }
            }
        }
        if end >= bytes.len() {
            break;
        }
        line_no += 1;
        from = end + 1;
    }
    out
}

/// A literal's best Jaccard index, live files holding it, and its first file and line.
type NearGroup = (f32, usize, usize, u32);

/// Word-level diff from a codebase literal to the tested literal.
fn word_diff(old: &str, new: &str) -> (f64, Vec<WordChange>, String) {
    let diff = TextDiff::configure().diff_words(old, new);
    let mut changes: Vec<WordChange> = Vec::new();
    for change in diff.iter_all_changes() {
        let op = match change.tag() {
            ChangeTag::Equal => ChangeOp::Equal,
            ChangeTag::Delete => ChangeOp::Delete,
            ChangeTag::Insert => ChangeOp::Insert,
        };
        match changes.last_mut() {
            Some(last) if last.op == op => last.text.push_str(change.value()),
            _ => changes.push(WordChange {
                op,
                text: change.value().to_string(),
            }),
        }
    }
    let inline = changes
        .iter()
        .map(|c| match c.op {
            ChangeOp::Equal => c.text.clone(),
            ChangeOp::Delete => format!("[-{}-]", c.text),
            ChangeOp::Insert => format!("{{+{}+}}", c.text),
        })
        .collect();
    let ratio = (f64::from(diff.ratio()) * 1000.0).round() / 1000.0;
    (ratio, changes, inline)
}

/// The airtight candidates among a report's terms, with their nearest live strings.
pub(crate) fn find(
    engine: &Engine,
    repo: &RepoAccess,
    commit: &ResolvedCommit,
    files: &[FileEntry],
    terms: &[TermEvidence],
    missing_objects: usize,
) -> Result<Vec<AirtightCandidate>, EvidenceError> {
    let complete = missing_objects == 0;
    let mut chosen: Vec<(&TermEvidence, f64, String)> = terms
        .iter()
        .filter(|t| is_candidate(t))
        .map(|t| {
            let (strength, reason) = strength(t);
            (t, strength, reason)
        })
        .collect();
    chosen.sort_by(|a, b| b.1.total_cmp(&a.1));
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    let queries: Vec<String> = chosen.iter().map(|(t, ..)| t.term.clone()).collect();
    let compile = |subset: &[usize]| {
        NearSearch::new(subset.iter().map(|&p| queries[p].as_str())).map_err(|err| {
            EvidenceError::InvalidPattern {
                context: Box::new(repo.context.clone()),
                pattern: subset
                    .iter()
                    .map(|&p| queries[p].as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                message: err.to_string(),
            }
        })
    };
    let search = Search {
        queries: &queries,
        select: &|entry: &FileEntry| entry.class.is_live() && !is_translation_catalog(&entry.path),
        compile: &compile,
        scan: &|search: &NearSearch, bytes: &[u8]| scan_blob(search, bytes),
    };
    let (ids, scanned) = index_blobs(engine, repo, commit, files, &search)?;

    let mut nearest: Vec<HashMap<Box<str>, NearGroup>> = vec![HashMap::new(); chosen.len()];
    for (index, scan) in scanned.iter().enumerate() {
        let Scanned::Text(found) = scan else {
            continue;
        };
        for (candidate, id) in ids.iter().enumerate() {
            let Some(hits) = found.get(*id) else {
                continue;
            };
            let mut counted: HashSet<&str> = HashSet::new();
            for (literal, line, score) in &hits.finds {
                let group = nearest[candidate]
                    .entry(literal.clone())
                    .or_insert((*score, 0, index, *line));
                if counted.insert(literal) {
                    group.1 += 1;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(chosen.len());
    for ((term, strength, reason), groups) in chosen.into_iter().zip(nearest) {
        let mut shortlist: Vec<_> = groups.into_iter().collect();
        shortlist.sort_by(|a, b| {
            b.1.0
                .total_cmp(&a.1.0)
                .then(b.1.1.cmp(&a.1.1))
                .then(a.0.cmp(&b.0))
        });
        shortlist.truncate(SHORTLIST);
        let mut near: Vec<NearString> = shortlist
            .into_iter()
            .map(|(literal, (_, paths, index, line))| {
                let (similarity, diff, diff_text) = word_diff(&literal, &term.term);
                NearString {
                    receipt: line_receipt(&literal, &commit.id, None),
                    text: literal.into_string(),
                    similarity,
                    paths,
                    path: String::from(&*files[index].path),
                    line: line as usize,
                    diff,
                    diff_text,
                }
            })
            .collect();
        near.sort_by(|a, b| {
            b.similarity
                .total_cmp(&a.similarity)
                .then(b.paths.cmp(&a.paths))
                .then(a.text.cmp(&b.text))
        });
        near.truncate(engine.max_nearest);
        out.push(AirtightCandidate {
            term: term.term.clone(),
            kind: term.kind,
            source: term.source,
            class: term.class,
            origin: term.origin.clone(),
            strength,
            airtight: is_airtight(term, strength, complete),
            reason,
            receipt: if complete {
                term.live_receipt.clone()
            } else {
                format!(
                    "{}  # not airtight: {missing_objects} objects missing",
                    term.live_receipt
                )
            },
            nearest: near,
        });
    }
    debug_assert!(out.iter().all(|c| c.class != TermClass::Stated));
    Ok(out)
}

/// Whether a term is a candidate: the prose does not state it, no live file near the change
/// has it, and either the tests assert it, or it is a value the gold patch brings too (a setup
/// value or fixture path both sides share, never airtight), or it is a name only the gold
/// patch defines. Identifiers are candidates only as gold-defined names: any other name a
/// test calls is code it runs. Imports and test names never are.
fn is_candidate(term: &TermEvidence) -> bool {
    let wanted = match (term.kind, term.role) {
        (TermKind::Identifier, _) => term.source == TermSource::GoldDefined,
        (_, TermRole::Asserted) => true,
        (_, TermRole::Other | TermRole::FixturePath) => term.in_gold,
        (_, TermRole::Import | TermRole::TestName) => false,
    };
    wanted && absent_near_change(term)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn word_diff_marks_changed_words() {
        let (ratio, changes, inline) = word_diff(
            "Only show commands are supported",
            "only non-config commands are supported",
        );
        assert!(ratio > 0.5 && ratio < 1.0, "ratio {ratio}");
        assert!(
            changes
                .iter()
                .any(|c| c.op == ChangeOp::Delete && c.text.contains("show")),
            "{changes:?}"
        );
        assert!(
            changes
                .iter()
                .any(|c| c.op == ChangeOp::Insert && c.text.contains("non-config")),
            "{changes:?}"
        );
        assert!(inline.contains("{+") && inline.contains("[-"), "{inline}");
    }
}
