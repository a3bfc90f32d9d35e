//! Literal runs of a regular expression or glob: the text a match must contain as written.
//!
//! `flipt_client_token=.*Max-Age=0` gives `flipt_client_token=` and `Max-Age=0`. A run ends at
//! a metacharacter; an escaped punctuation character (`\.`) is literal, an escaped letter
//! (`\d`, `\b`) is a class or an anchor; a character class `[...]`, a counted repeat `{m,n}`
//! and a group's `(?:`/`(?P<name>` opener are skipped whole; a character made optional or
//! repeatable by `?`, `*` or `{` leaves the run. Only runs of 3 characters or more with a
//! letter or digit are kept.

/// Whether a string looks like a regular expression: `.*`, `.+`, `\d`, `\w`, `\s`, `\b` or
/// `^...$`.
pub(super) fn looks_like_regex(text: &str) -> bool {
    [".*", ".+", "\\d", "\\w", "\\s", "\\b"]
        .iter()
        .any(|meta| text.contains(meta))
        || (text.len() > 2 && text.starts_with('^') && text.ends_with('$'))
}

/// The literal runs of `pattern`, a glob when `glob` is set, else a regular expression.
/// Unless `raw`, the host language's escapes are undone first (`\\.` is `\.`).
pub(super) fn literal_runs(pattern: &str, glob: bool, raw: bool) -> Vec<String> {
    let text = if raw {
        pattern.to_string()
    } else {
        pattern.replace("\\\\", "\\")
    };
    let mut runs = Vec::new();
    let mut run = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) if next.is_ascii_alphanumeric() => end_run(&mut run, &mut runs),
                Some(next) => run.push(next),
                None => {}
            },
            '[' => {
                end_run(&mut run, &mut runs);
                let mut escaped = false;
                for inner in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if inner == '\\' {
                        escaped = true;
                    } else if inner == ']' {
                        break;
                    }
                }
            }
            '{' if glob => end_run(&mut run, &mut runs),
            '{' => {
                run.pop();
                end_run(&mut run, &mut runs);
                for inner in chars.by_ref() {
                    if inner == '}' {
                        break;
                    }
                }
            }
            '?' | '*' if !glob => {
                run.pop();
                end_run(&mut run, &mut runs);
            }
            '(' if !glob => {
                end_run(&mut run, &mut runs);
                if chars.peek() == Some(&'?') {
                    chars.next();
                    match chars.peek() {
                        Some('P') | Some('<') => {
                            for inner in chars.by_ref() {
                                if inner == '>' {
                                    break;
                                }
                            }
                        }
                        Some(_) => {
                            chars.next();
                        }
                        None => {}
                    }
                }
            }
            '?' | '*' | '}' | ',' if glob => end_run(&mut run, &mut runs),
            '.' | '^' | '$' | '+' | ')' | '|' if !glob => end_run(&mut run, &mut runs),
            _ => run.push(c),
        }
    }
    end_run(&mut run, &mut runs);
    runs
}

fn end_run(run: &mut String, runs: &mut Vec<String>) {
    if run.chars().count() >= 3 && run.chars().any(char::is_alphanumeric) {
        runs.push(std::mem::take(run));
    } else {
        run.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_runs_split_at_metacharacters() {
        assert_eq!(
            literal_runs("flipt_client_token=.*Max-Age=0", false, true),
            ["flipt_client_token=", "Max-Age=0"]
        );
        assert_eq!(
            literal_runs(r"^v\d+\.\d+ (?:beta|rc)[0-9]{2} build\.log$", false, true),
            ["beta", " build.log"]
        );
        assert_eq!(
            literal_runs("colou?r name", false, true),
            ["colo", "r name"]
        );
        assert_eq!(
            literal_runs("error: \\\\w+ not found", false, false),
            ["error: ", " not found"]
        );
        assert_eq!(
            literal_runs("(?P<id>[a-z]+)-suffix", false, true),
            ["-suffix"]
        );
    }

    #[test]
    fn glob_runs_split_at_wildcards() {
        assert_eq!(
            literal_runs("testdata/*.golden", true, true),
            ["testdata/", ".golden"]
        );
        assert_eq!(
            literal_runs("src/{api,web}/x?y", true, true),
            ["src/", "api", "web"]
        );
    }

    #[test]
    fn regex_look() {
        assert!(looks_like_regex("flipt_client_token=.*Max-Age=0"));
        assert!(looks_like_regex("^ok$"));
        assert!(!looks_like_regex("plain text."));
    }
}
