//! Receipts: the `git grep` and `git show` commands that reproduce a finding, quoted for a
//! POSIX shell so that a rater can paste them into a terminal inside the clone.
//!
//! Each receipt backs one claim, and running it prints exactly what the claim says:
//! - [`term_receipt`]: every text file holding a term, live or not (a term's `receipt`).
//! - [`live_term_receipt`]: the live text files holding a term (a term's `live_receipt`, an
//!   airtight candidate's `receipt`): the same command with each non-live path that holds the
//!   term excluded by a literal pathspec, so that for an absence it prints nothing.
//! - [`line_receipt`]: the lines holding a text (a near string's receipt).
//! - [`precedent_receipt`]: the live places where a snippet starts, one `PATH:LINE` each.
//! - [`show_receipt`]: one file.
//!
//! The grep receipt of an interactive search is built in `grep.rs` with [`exclude_pathspec`].

/// Whitespace a precedent's lines may differ by at their ends: space, tab, carriage return,
/// vertical tab, form feed (not newline, which separates the lines).
pub(crate) const LINE_END_SPACE: &[char] = &[' ', '\t', '\r', '\x0b', '\x0c'];

/// Quotes a string for a POSIX shell: wrapped in single quotes, each `'` written as `'\''`.
/// Strings made only of safe characters are returned as they are.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b));
    if safe && !text.starts_with('-') {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// `git grep` listing the text files at `commit` that contain `term`.
pub(crate) fn term_receipt(term: &str, commit: &str) -> String {
    format!("git grep -F -l -I -e {} {commit}", shell_quote(term))
}

/// `git grep` listing the live text files at `commit` that contain `term`: `excluded` are the
/// non-live paths that hold it.
pub(crate) fn live_term_receipt(term: &str, commit: &str, excluded: &[String]) -> String {
    format!(
        "{}{}",
        term_receipt(term, commit),
        exclude_pathspec(excluded)
    )
}

/// A pathspec that keeps every path but `excluded`: ` -- . ':(exclude,literal)PATH' ...`, or
/// nothing when there is nothing to exclude. `literal` keeps `*`, `?` and `[` in a path from
/// acting as wildcards.
pub(crate) fn exclude_pathspec(excluded: &[String]) -> String {
    if excluded.is_empty() {
        return String::new();
    }
    let mut out = String::from(" -- .");
    for path in excluded {
        out.push(' ');
        out.push_str(&shell_quote(&format!(":(exclude,literal){path}")));
    }
    out
}

/// A Perl regular expression for `text` taken literally: every ASCII character other than a
/// letter, digit or `_` is escaped (a backslash before such a character always means the
/// character, and `$` or `@` escaped are never interpolated); other bytes stand for themselves.
fn perl_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if c.is_ascii() && !(c.is_ascii_alphanumeric() || c == '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The command printing, for each live file at `commit` where the snippet whose trimmed lines
/// are `lines` occurs (see `precedents.rs` for the matching rule), the line where it first
/// starts, in tree order.
///
/// A single-line snippet is `git grep -n -m 1` for its text: `COMMIT:PATH:LINE:TEXT`, the first
/// matching line of each file. A
/// longer one lists the files holding its longest line (`prefilter`) with `git grep -l -z`, and
/// Perl reads each with `git show` and matches the whole snippet, its lines joined by
/// whitespace-newline-whitespace, then prints `PATH:LINE` where the first match starts. `excluded` are the
/// non-live paths the first stage would list.
pub(crate) fn precedent_receipt(
    lines: &[&str],
    prefilter: &str,
    commit: &str,
    excluded: &[String],
) -> String {
    let pathspec = exclude_pathspec(excluded);
    if let [line] = lines {
        return format!(
            "git grep -n -m 1 -F -I -e {} {commit}{pathspec}",
            shell_quote(line)
        );
    }
    let between = "[ \\t\\r\\f\\x0b]*\\n[ \\t\\r\\f\\x0b]*";
    let regex: Vec<String> = lines.iter().map(|line| perl_literal(line)).collect();
    let script = format!(
        "chomp; open(my $f, \"-|\", \"git\", \"show\", $_) or die; local $/; my $t = <$f>; \
         if ($t =~ m/{}/) {{ my $n = 1 + (substr($t, 0, $-[0]) =~ tr/\\n//); \
         s/^[0-9a-f]+://; print \"$_:$n\\n\" }}",
        regex.join(between)
    );
    format!(
        "git grep -l -z -F -I -e {} {commit}{pathspec} | perl -0 -ne {}",
        shell_quote(prefilter),
        shell_quote(&script)
    )
}

/// `git grep` printing the lines at `commit` that contain `text`, optionally in one path.
pub(crate) fn line_receipt(text: &str, commit: &str, path: Option<&str>) -> String {
    match path {
        Some(path) => format!(
            "git grep -n -F -I -e {} {commit} -- {}",
            shell_quote(text),
            shell_quote(path)
        ),
        None => format!("git grep -n -F -I -e {} {commit}", shell_quote(text)),
    }
}

/// `git show` printing one file at `commit`.
pub(crate) fn show_receipt(path: &str, commit: &str) -> String {
    shell_quote_show(&format!("{commit}:{path}"))
}

fn shell_quote_show(spec: &str) -> String {
    format!("git show {}", shell_quote(spec))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_a_real_shell() {
        for text in [
            "plain",
            "it's",
            "two words",
            "$HOME `id` \"q\" \\ !",
            "-starts-with-dash",
            "",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", shell_quote(text)))
                .output()
                .expect("sh runs");
            assert_eq!(
                String::from_utf8(out.stdout).unwrap(),
                text,
                "round trip of {text:?}"
            );
        }
    }

    #[test]
    fn term_receipt_names_the_commit_and_quotes_the_term() {
        assert_eq!(
            term_receipt("don't", "abc"),
            "git grep -F -l -I -e 'don'\\''t' abc"
        );
    }
}
