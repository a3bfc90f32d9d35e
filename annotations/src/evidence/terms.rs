//! Terms: what the hidden tests name, taken from the test patch's added lines.
//!
//! Per added line of a source file (Python, JavaScript/TypeScript, Go, Java/Kotlin, Rust,
//! C/C++; other files such as fixtures and data are skipped, since their every word would be a
//! term), a small lexer that knows each language's comments and quotes yields:
//! - **string literals**: the source text between the quotes, escapes left as written (that is
//!   what `git grep` finds in the codebase); Python triple-quoted blocks spanning lines
//!   (docstrings, long expected outputs) are skipped;
//! - **numeric constants** of two characters or more;
//! - **identifiers** that are called (`name(`, `name!(`), read as attributes (`.name`,
//!   `::name`, `->name`) or imported (every name on an import or use line).
//!
//! Noise is dropped: identifiers shorter than 3 characters, language keywords and common
//! builtins, test-framework names (`assert*`, `expect`, `toBe*`...), strings shorter than 3
//! characters, strings without a letter or digit, and strings that are one common word.
//! A term that occurs several times keeps its first origin and counts its occurrences.

use std::collections::HashMap;

use super::noise;
use crate::patch::added_lines;

/// What kind of token a term is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "kebab-case")]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub enum TermKind {
    /// A string literal's content.
    String,
    /// A numeric constant.
    Number,
    /// A called, attribute or imported name.
    Identifier,
}

/// Where a term was first seen in the test patch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(export, export_to = "../../ui/src/lib/api/bindings/")]
pub struct TermOrigin {
    /// The file the patch adds the line to.
    pub file: String,
    /// 1-based line number within the test patch text.
    pub patch_line: usize,
    /// 1-based line number within the patched file.
    pub file_line: usize,
}

/// One term extracted from a test patch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Term {
    /// The term's text.
    pub term: String,
    /// String, number or identifier.
    pub kind: TermKind,
    /// Its first occurrence.
    pub origin: TermOrigin,
    /// How many times the added lines contain it as a term.
    pub occurrences: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    JavaScript,
    Go,
    Java,
    Rust,
    C,
}

fn lang_of(path: &str) -> Option<Lang> {
    let ext = path.rsplit_once('.')?.1;
    Some(match ext {
        "py" | "pyi" => Lang::Python,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => Lang::JavaScript,
        "go" => Lang::Go,
        "java" | "kt" | "kts" | "scala" => Lang::Java,
        "rs" => Lang::Rust,
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Lang::C,
        _ => return None,
    })
}

fn keywords(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Python => noise::PYTHON_KEYWORDS,
        Lang::JavaScript => noise::JS_KEYWORDS,
        Lang::Go => noise::GO_KEYWORDS,
        Lang::Java => noise::JAVA_KEYWORDS,
        Lang::Rust => noise::RUST_KEYWORDS,
        Lang::C => noise::C_KEYWORDS,
    }
}

fn is_noise_identifier(word: &str, lang: Lang) -> bool {
    word.chars().count() < 3
        || keywords(lang).contains(&word)
        || noise::TEST_NOISE.contains(&word)
        || word.starts_with("assert")
        || word.starts_with("Assert")
        || word.starts_with("expect")
        || (word.starts_with("to") && word[2..].starts_with(|c: char| c.is_ascii_uppercase()))
        || word.bytes().all(|b| b == b'_')
}

fn is_noise_string(text: &str) -> bool {
    let trimmed = text.trim();
    trimmed.chars().count() < 3
        || !trimmed.chars().any(char::is_alphanumeric)
        || noise::COMMON_STRINGS.contains(&trimmed.to_ascii_lowercase().as_str())
}

fn is_noise_number(text: &str) -> bool {
    text.len() < 2
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token<'a> {
    Str(&'a str),
    Num(&'a str),
    Ident(&'a str),
    Punct(char),
}

/// Lexer state carried from one added line to the next in the same file.
#[derive(Debug, Default, Clone, Copy)]
struct Carry {
    block_comment: bool,
    triple_quote: Option<u8>,
}

fn is_ident_char(c: char, lang: Lang) -> bool {
    c.is_alphanumeric() || c == '_' || (c == '$' && lang == Lang::JavaScript)
}

/// Splits one line into tokens, skipping comments.
fn tokenize<'a>(line: &'a str, lang: Lang, carry: &mut Carry) -> Vec<Token<'a>> {
    let bytes = line.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    if let Some(quote) = carry.triple_quote {
        let closing = [quote; 3];
        match line.find(std::str::from_utf8(&closing).unwrap_or("\"\"\"")) {
            Some(at) => {
                carry.triple_quote = None;
                i = at + 3;
            }
            None => return tokens,
        }
    }
    while i < bytes.len() {
        if carry.block_comment {
            match line[i..].find("*/") {
                Some(at) => {
                    carry.block_comment = false;
                    i += at + 2;
                    continue;
                }
                None => return tokens,
            }
        }
        let b = bytes[i];
        let rest = &line[i..];
        // Comments.
        if lang == Lang::Python && b == b'#' {
            break;
        }
        if lang != Lang::Python && rest.starts_with("//") {
            break;
        }
        if lang != Lang::Python && rest.starts_with("/*") {
            carry.block_comment = true;
            i += 2;
            continue;
        }
        // Strings.
        let string_quote = match b {
            b'"' => true,
            b'\'' => matches!(lang, Lang::Python | Lang::JavaScript),
            b'`' => matches!(lang, Lang::JavaScript | Lang::Go),
            _ => false,
        };
        if string_quote {
            if lang == Lang::Python && (rest.starts_with("\"\"\"") || rest.starts_with("'''")) {
                let closing = &rest[..3];
                match rest[3..].find(closing) {
                    Some(at) => {
                        tokens.push(Token::Str(&rest[3..3 + at]));
                        i += 3 + at + 3;
                    }
                    None => {
                        carry.triple_quote = Some(b);
                        return tokens;
                    }
                }
                continue;
            }
            let raw = b == b'`';
            let mut j = i + 1;
            let mut closed = None;
            while j < bytes.len() {
                if bytes[j] == b'\\' && !raw {
                    j += 2;
                    continue;
                }
                if bytes[j] == b {
                    closed = Some(j);
                    break;
                }
                j += 1;
            }
            match closed {
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
            let number = rest[..len].trim_end_matches('.');
            tokens.push(Token::Num(number));
            i += len.max(1);
            continue;
        }
        if is_ident_char(c, lang) {
            let len = rest
                .find(|ch: char| !is_ident_char(ch, lang))
                .unwrap_or(rest.len());
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
        Lang::Python => first == "import" || first == "from",
        Lang::JavaScript => {
            first == "import" || (first == "export" && tokens.contains(&Token::Ident("from")))
        }
        Lang::Go | Lang::Java => first == "import",
        Lang::Rust => {
            first == "use" || (first == "pub" && tokens.get(1) == Some(&Token::Ident("use")))
        }
        Lang::C => first == "include" && matches!(tokens.first(), Some(Token::Punct('#'))),
    }
}

/// The terms of one line, in order, before de-duplication.
fn line_terms<'a>(line: &'a str, lang: Lang, carry: &mut Carry) -> Vec<(&'a str, TermKind)> {
    let tokens = tokenize(line, lang, carry);
    let import = is_import_line(&tokens, lang);
    let mut out = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        match token {
            Token::Str(text) if !is_noise_string(text) => out.push((*text, TermKind::String)),
            Token::Num(text) if !is_noise_number(text) => out.push((*text, TermKind::Number)),
            Token::Ident(word) if !is_noise_identifier(word, lang) => {
                let next = tokens.get(at + 1);
                let called = next == Some(&Token::Punct('('))
                    || (next == Some(&Token::Punct('!'))
                        && tokens.get(at + 2) == Some(&Token::Punct('(')));
                let prev = at.checked_sub(1).and_then(|p| tokens.get(p));
                let prev2 = at.checked_sub(2).and_then(|p| tokens.get(p));
                let attribute = prev == Some(&Token::Punct('.'))
                    || (prev == Some(&Token::Punct(':')) && prev2 == Some(&Token::Punct(':')))
                    || (prev == Some(&Token::Punct('>')) && prev2 == Some(&Token::Punct('-')));
                // `def name(`, `function name(`, `func name(` define rather than call.
                let defined = matches!(
                    prev,
                    Some(Token::Ident("def" | "function" | "func" | "fn" | "class"))
                );
                if import || ((called || attribute) && !defined) {
                    out.push((*word, TermKind::Identifier));
                }
            }
            _ => {}
        }
    }
    out
}

/// Extracts the terms of a test patch's added lines, in order of first occurrence.
pub fn extract_terms(test_patch: &str) -> Vec<Term> {
    let mut terms: Vec<Term> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut carry = Carry::default();
    let mut current_file = "";
    for added in added_lines(test_patch) {
        let Some(lang) = lang_of(added.file) else {
            continue;
        };
        if added.file != current_file {
            current_file = added.file;
            carry = Carry::default();
        }
        for (text, kind) in line_terms(added.text, lang, &mut carry) {
            match index.get(text) {
                Some(&at) => terms[at].occurrences += 1,
                None => {
                    index.insert(text.to_string(), terms.len());
                    terms.push(Term {
                        term: text.to_string(),
                        kind,
                        origin: TermOrigin {
                            file: added.file.to_string(),
                            patch_line: added.patch_line,
                            file_line: added.file_line,
                        },
                        occurrences: 1,
                    });
                }
            }
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(patch: &str) -> Vec<(String, TermKind)> {
        extract_terms(patch)
            .into_iter()
            .map(|t| (t.term, t.kind))
            .collect()
    }

    fn s(text: &str) -> (String, TermKind) {
        (text.to_string(), TermKind::String)
    }
    fn id(text: &str) -> (String, TermKind) {
        (text.to_string(), TermKind::Identifier)
    }
    fn n(text: &str) -> (String, TermKind) {
        (text.to_string(), TermKind::Number)
    }

    #[test]
    fn python_terms_skip_comments_keywords_and_docstrings() {
        let patch = "diff --git a/test/test_x.py b/test/test_x.py\n--- /dev/null\n+++ b/test/test_x.py\n@@ -0,0 +1,9 @@\n+from ansible.modules.network.eric_eccli import eric_eccli_command\n+# a comment with 'quoted words'\n+def test_it(self):\n+    \"\"\"Docstring\n+    continues 'here'\"\"\"\n+    result = self.execute_module(retries=10)\n+    self.assertEqual(result['warnings'], ['only non-config commands are supported'])\n+    x = obj.parse_output(\"it's\", 7)\n+    print(len(x))\n";
        assert_eq!(
            kinds(patch),
            vec![
                id("ansible"),
                id("modules"),
                id("network"),
                id("eric_eccli"),
                id("eric_eccli_command"),
                id("execute_module"),
                n("10"),
                s("warnings"),
                s("only non-config commands are supported"),
                id("parse_output"),
                s("it's"),
            ]
        );
    }

    #[test]
    fn go_and_typescript_terms() {
        let go = "diff --git a/pkg/a_test.go b/pkg/a_test.go\n--- a/pkg/a_test.go\n+++ b/pkg/a_test.go\n@@ -1,0 +1,3 @@\n+\tgot := config.Default().Authentication.Session.CSRF\n+\trequire.Equal(t, \"csrf-key\", got) // trailing \"comment\"\n+\tr := 'x'\n";
        assert_eq!(
            kinds(go),
            vec![
                id("Default"),
                id("Authentication"),
                id("Session"),
                id("CSRF"),
                s("csrf-key"),
            ]
        );
        let ts = "diff --git a/src/a.test.ts b/src/a.test.ts\n--- a/src/a.test.ts\n+++ b/src/a.test.ts\n@@ -1,0 +1,3 @@\n+import { renderRoom, RoomView } from '../src/RoomView';\n+expect(screen.getByText(`Invite to ${room}`)).toBeInTheDocument();\n+/* block 'comment' */ const n = 0x1F;\n";
        assert_eq!(
            kinds(ts),
            vec![
                id("renderRoom"),
                id("RoomView"),
                s("../src/RoomView"),
                id("getByText"),
                s("Invite to ${room}"),
                n("0x1F"),
            ]
        );
    }

    #[test]
    fn rust_and_c_terms() {
        let rust = "diff --git a/tests/a.rs b/tests/a.rs\n--- a/tests/a.rs\n+++ b/tests/a.rs\n@@ -1,0 +1,2 @@\n+use crate::evidence::extract_terms;\n+let v: &'static str = format_error!(\"bad thing\", 'c');\n";
        assert_eq!(
            kinds(rust),
            vec![
                id("evidence"),
                id("extract_terms"),
                id("format_error"),
                s("bad thing")
            ]
        );
        let c = "diff --git a/t/x_test.c b/t/x_test.c\n--- a/t/x_test.c\n+++ b/t/x_test.c\n@@ -1,0 +1,2 @@\n+#include \"buffer.h\"\n+ptr->grow_buffer(buf, 4096); /* multi\n";
        assert_eq!(kinds(c), vec![s("buffer.h"), id("grow_buffer"), n("4096")]);
    }

    #[test]
    fn fixture_files_and_repeats() {
        let patch = "diff --git a/t/fixtures/out.txt b/t/fixtures/out.txt\n--- /dev/null\n+++ b/t/fixtures/out.txt\n@@ -0,0 +1 @@\n+call_me(\"ignored\")\ndiff --git a/t/test_a.py b/t/test_a.py\n--- a/t/test_a.py\n+++ b/t/test_a.py\n@@ -1,0 +1,2 @@\n+run_task('deploy now')\n+run_task('deploy now')\n";
        let terms = extract_terms(patch);
        assert_eq!(terms.len(), 2, "fixture files give no terms: {terms:?}");
        assert_eq!(terms[0].term, "run_task");
        assert_eq!(terms[0].occurrences, 2);
        assert_eq!(terms[1].origin.file, "t/test_a.py");
        assert_eq!(terms[1].origin.patch_line, 10);
        assert_eq!(terms[1].origin.file_line, 1);
    }
}
