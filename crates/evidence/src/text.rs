//! Text helpers the term extractors and the searches share: quoted literals on a line and
//! whole-word containment. A leaf: it names no other module of the engine.

/// Whether `b` can be part of a word: an ASCII letter or digit, `_`, or any byte of a
/// non-ASCII character.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Whether `haystack` contains `word` with no word byte right before or after it; a `word`
/// that does not start with a word byte matches anywhere, and an empty one nowhere.
pub(crate) fn contains_word(haystack: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let bytes = haystack.as_bytes();
    let word_edges = word.as_bytes().first().is_some_and(|b| is_word_byte(*b));
    haystack.match_indices(word).any(|(at, _)| {
        if !word_edges {
            return true;
        }
        let before = at.checked_sub(1).map(|p| bytes[p]);
        let after = bytes.get(at + word.len()).copied();
        !before.is_some_and(is_word_byte) && !after.is_some_and(is_word_byte)
    })
}

/// Where the string literal opened by the quote at `open` closes: the next unescaped byte
/// equal to that quote, on the same line; `None` when the line ends first.
pub(crate) fn closing_quote(bytes: &[u8], open: usize) -> Option<usize> {
    let quote = *bytes.get(open)?;
    let mut j = open + 1;
    while j < bytes.len() {
        if bytes[j] == b'\\' {
            j += 2;
            continue;
        }
        if bytes[j] == quote {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// Quoted literals on one line (any of `'`, `"`, `` ` ``), raw text between the quotes.
pub(crate) fn line_literals(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !matches!(bytes[i], b'"' | b'\'' | b'`') {
            i += 1;
            continue;
        }
        match closing_quote(bytes, i) {
            Some(end) => {
                out.push(&line[i + 1..end]);
                i = end + 1;
            }
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_on_a_line() {
        assert_eq!(
            line_literals(r#"warn('Only show commands, not ' "x\"y" + `t`)"#),
            vec!["Only show commands, not ", "x\\\"y", "t"]
        );
    }
}
