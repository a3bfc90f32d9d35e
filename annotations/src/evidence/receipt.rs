//! Receipts: the `git grep` and `git show` commands that reproduce a finding, quoted for a
//! POSIX shell so that a rater can paste them into a terminal inside the clone.

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
