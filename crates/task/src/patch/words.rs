//! Word-level highlights on changed line pairs.

use similar::{Algorithm, DiffOp};

use super::{DiffLine, LineKind, Span};

/// Lines longer than this (in bytes) are not word-diffed: minified files and data blobs make
/// the diff slow and the highlight useless.
const MAX_WORD_DIFF_LINE: usize = 2_000;

/// Pairs each run of removed lines with the run of added lines right after it, line by line,
/// and marks the words that differ.
pub(super) fn highlight_changed_pairs(lines: &mut [DiffLine]) {
    let mut i = 0;
    while i < lines.len() {
        if lines[i].kind != LineKind::Removed {
            i += 1;
            continue;
        }
        let removed_start = i;
        while i < lines.len() && lines[i].kind == LineKind::Removed {
            i += 1;
        }
        let added_start = i;
        while i < lines.len() && lines[i].kind == LineKind::Added {
            i += 1;
        }
        let pairs = (added_start - removed_start).min(i - added_start);
        for k in 0..pairs {
            let (left, right) = lines.split_at_mut(added_start + k);
            let old = &mut left[removed_start + k];
            let new = &mut right[0];
            if let Some((old_spans, new_spans)) = word_diff(&old.text, &new.text) {
                old.highlights = old_spans;
                new.highlights = new_spans;
            }
        }
    }
}

/// The changed words of two lines as UTF-16 spans, or `None` when the lines are too long or
/// share too little for a word highlight to help (then the whole line is the change).
fn word_diff(old: &str, new: &str) -> Option<(Vec<Span>, Vec<Span>)> {
    if old.len() > MAX_WORD_DIFF_LINE || new.len() > MAX_WORD_DIFF_LINE {
        return None;
    }
    let old_tokens = tokenize(old);
    let new_tokens = tokenize(new);
    let old_words: Vec<&str> = old_tokens.iter().map(|t| t.text).collect();
    let new_words: Vec<&str> = new_tokens.iter().map(|t| t.text).collect();
    let ops = similar::capture_diff_slices(Algorithm::Myers, &old_words, &new_words);

    let mut old_spans = Vec::new();
    let mut new_spans = Vec::new();
    let mut equal_units = 0u32;
    for op in ops {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                equal_units += old_tokens[old_index..old_index + len]
                    .iter()
                    .filter(|t| !t.text.trim().is_empty())
                    .map(|t| t.end - t.start)
                    .sum::<u32>();
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => push_span(&mut old_spans, &old_tokens[old_index..old_index + old_len]),
            DiffOp::Insert {
                new_index, new_len, ..
            } => push_span(&mut new_spans, &new_tokens[new_index..new_index + new_len]),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                push_span(&mut old_spans, &old_tokens[old_index..old_index + old_len]);
                push_span(&mut new_spans, &new_tokens[new_index..new_index + new_len]);
            }
        }
    }
    let longest = old_tokens
        .last()
        .map_or(0, |t| t.end)
        .max(new_tokens.last().map_or(0, |t| t.end));
    // Below a third in common the highlight would cover nearly everything: show none.
    if longest == 0 || equal_units * 3 < longest {
        return None;
    }
    Some((old_spans, new_spans))
}

/// Appends the span covering `tokens`, merging with the previous span when they touch.
fn push_span(spans: &mut Vec<Span>, tokens: &[Token<'_>]) {
    let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
        return;
    };
    match spans.last_mut() {
        Some(prev) if prev.end == first.start => prev.end = last.end,
        _ => spans.push(Span {
            start: first.start,
            end: last.end,
        }),
    }
}

/// A word, a run of whitespace, or one punctuation character, with its UTF-16 range.
struct Token<'a> {
    text: &'a str,
    start: u32,
    end: u32,
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum CharClass {
    Word,
    Space,
    Punct,
}

fn classify(c: char) -> CharClass {
    if c.is_alphanumeric() || c == '_' {
        CharClass::Word
    } else if c.is_whitespace() {
        CharClass::Space
    } else {
        CharClass::Punct
    }
}

fn tokenize(line: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut start_byte = 0;
    let mut start_unit = 0u32;
    let mut unit = 0u32;
    let mut class: Option<CharClass> = None;
    for (byte, c) in line.char_indices() {
        let this = classify(c);
        let continues = class == Some(this) && this != CharClass::Punct;
        if !continues && byte > 0 {
            tokens.push(Token {
                text: &line[start_byte..byte],
                start: start_unit,
                end: unit,
            });
            start_byte = byte;
            start_unit = unit;
        }
        class = Some(this);
        unit += c.len_utf16() as u32;
    }
    if !line.is_empty() {
        tokens.push(Token {
            text: &line[start_byte..],
            start: start_unit,
            end: unit,
        });
    }
    tokens
}
