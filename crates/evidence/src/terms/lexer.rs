//! A small lexer for the languages without a grammar here (Java/Kotlin/Scala, Rust, C/C++):
//! per added line, string literals, numeric constants, and identifiers that are called
//! (`name(`, `name!(`), read as attributes (`.name`, `::name`, `->name`) or imported (every name
//! on an import, use or include line). Roles are [`TermRole::Import`] on import lines and
//! [`TermRole::Other`] elsewhere.

use super::{Pattern, Place, Sink, TermKind, TermRole, TermSource};
use super::{is_noise_identifier, is_noise_number};
use crate::noise;
use crate::text::closing_quote;
use verity_task::patch::{LineKind, PatchLine};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Java,
    Rust,
    C,
}

pub(super) fn lang_of(path: &str) -> Option<Lang> {
    Some(match super::extension(path)? {
        "java" | "kt" | "kts" | "scala" => Lang::Java,
        "rs" => Lang::Rust,
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Lang::C,
        _ => return None,
    })
}

fn keywords(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Java => noise::JAVA_KEYWORDS,
        Lang::Rust => noise::RUST_KEYWORDS,
        Lang::C => noise::C_KEYWORDS,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token<'a> {
    Str(&'a str),
    Num(&'a str),
    Ident(&'a str),
    Punct(char),
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits one line into tokens, skipping comments; `block_comment` carries an open `/* */`
/// from one added line to the next.
fn tokenize<'a>(line: &'a str, block_comment: &mut bool) -> Vec<Token<'a>> {
    let bytes = line.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if *block_comment {
            match line[i..].find("*/") {
                Some(at) => {
                    *block_comment = false;
                    i += at + 2;
                    continue;
                }
                None => return tokens,
            }
        }
        let rest = &line[i..];
        if rest.starts_with("//") {
            break;
        }
        if rest.starts_with("/*") {
            *block_comment = true;
            i += 2;
            continue;
        }
        if bytes[i] == b'"' {
            match closing_quote(bytes, i) {
                Some(end) => {
                    tokens.push(Token::Str(&line[i + 1..end]));
                    i = end + 1;
                }
                // An unterminated string continues on a line we cannot see: drop the rest.
                None => break,
            }
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        if c.is_ascii_digit() {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
                .unwrap_or(rest.len());
            tokens.push(Token::Num(rest[..len].trim_end_matches('.')));
            i += len.max(1);
            continue;
        }
        if is_ident_char(c) {
            let len = rest.find(|ch| !is_ident_char(ch)).unwrap_or(rest.len());
            tokens.push(Token::Ident(&rest[..len]));
            i += len;
            continue;
        }
        if !c.is_whitespace() {
            tokens.push(Token::Punct(c));
        }
        i += c.len_utf8();
    }
    tokens
}

fn is_import_line(tokens: &[Token<'_>], lang: Lang) -> bool {
    let first = tokens.iter().find_map(|t| match t {
        Token::Ident(word) => Some(*word),
        _ => None,
    });
    let Some(first) = first else { return false };
    match lang {
        Lang::Java => first == "import",
        Lang::Rust => {
            first == "use" || (first == "pub" && tokens.get(1) == Some(&Token::Ident("use")))
        }
        Lang::C => first == "include" && matches!(tokens.first(), Some(Token::Punct('#'))),
    }
}

/// The terms of one file's added lines.
pub(super) fn file_terms(lang: Lang, file: &str, lines: &[PatchLine<'_>], sink: &mut Sink) {
    let mut block_comment = false;
    for line in lines.iter().filter(|l| l.kind == LineKind::Added) {
        let place = Place::of(file, line);
        let tokens = tokenize(line.text, &mut block_comment);
        let import = is_import_line(&tokens, lang);
        let role = if import {
            TermRole::Import
        } else {
            TermRole::Other
        };
        for (at, token) in tokens.iter().enumerate() {
            match token {
                Token::Str(text) => sink.add_string(text, role, Pattern::No, false, place),
                Token::Num(text) if !is_noise_number(text) => {
                    sink.add(text, TermKind::Number, role, TermSource::Literal, place);
                }
                Token::Ident(word) if !is_noise_identifier(word, keywords(lang)) => {
                    let next = tokens.get(at + 1);
                    let called = next == Some(&Token::Punct('('))
                        || (next == Some(&Token::Punct('!'))
                            && tokens.get(at + 2) == Some(&Token::Punct('(')));
                    let prev = at.checked_sub(1).and_then(|p| tokens.get(p));
                    let prev2 = at.checked_sub(2).and_then(|p| tokens.get(p));
                    let attribute = prev == Some(&Token::Punct('.'))
                        || (prev == Some(&Token::Punct(':')) && prev2 == Some(&Token::Punct(':')))
                        || (prev == Some(&Token::Punct('>')) && prev2 == Some(&Token::Punct('-')));
                    sink.use_identifier(word, attribute, place);
                    // `fn name(`, `class Name(` define rather than call.
                    let defined = matches!(prev, Some(Token::Ident("fn" | "class")));
                    if import || ((called || attribute) && !defined) {
                        sink.add(word, TermKind::Identifier, role, TermSource::Literal, place);
                    }
                }
                _ => {}
            }
        }
    }
}
