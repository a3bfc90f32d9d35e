//! The title a case shows in lists, derived from its issue text.
//!
//! Issue texts follow many templates: SWE-bench issues open with the GitHub title on their first
//! line, SWE-bench Pro statements with a heading such as `## Title`, `**Title:** X`,
//! `#title: X` or `# Bug Report: X`, some all on one line (`## Title X ## Description ...`). The
//! title is the first heading or first sentence once those template labels are peeled off.

/// The version of the rule in this file. A project records the version its stored titles were
/// made with and recomputes them on open when it is older, so a better rule reaches old files.
pub const TITLE_RULE: i64 = 2;

/// Titles longer than this many characters are cut at a word boundary and end in "…".
const LIMIT: usize = 100;

/// Words that issue templates use as headings or labels, never as a task's title (compared in
/// lower case, without a trailing colon).
const LABELS: &[&str] = &[
    "title",
    "issue title",
    "description",
    "issue description",
    "bug report",
    "bug description",
    "bug",
    "issue",
    "feature request",
    "feature",
    "enhancement",
    "summary",
    "issue summary",
    "overview",
    "problem",
    "problem statement",
    "problem description",
];

/// The title of an issue text: its first heading or first sentence, without template labels,
/// checkboxes, HTML comments or markdown markup, at most about [`LIMIT`] characters. Empty only
/// when the text holds nothing but labels and markup.
pub(crate) fn derive_title(text: &str) -> String {
    // A source may keep the issue JSON-encoded, quotes and `\n` escapes included (an audit
    // folder's spec.md copies SWE-bench Pro's encoded statements so).
    // Others have the escapes without the quotes (a literal `\n` where a line ends).
    let decoded = decode_json_string(text);
    let text = strip_html_comments(decoded.as_deref().unwrap_or(text)).replace("\\n", "\n");
    let mut in_fence = false;
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.is_empty() || is_checkbox(line) {
            continue;
        }
        let heading = line.starts_with('#');
        let line = line.trim_start_matches(['#', '>']).trim();
        let line = strip_bullet(line);
        let line = strip_leading_tags(line);
        let line = cut_at_inline_heading(line);
        let line = peel_labels(&plain(line));
        if !line.chars().any(char::is_alphanumeric) {
            continue;
        }
        // A heading is a title whatever its punctuation; a paragraph gives its first sentence.
        let line = if heading {
            line.as_str()
        } else {
            first_sentence(&line)
        };
        return shorten(trim_end_punctuation(line));
    }
    String::new()
}

fn decode_json_string(text: &str) -> Option<String> {
    let text = text.trim();
    if text.len() < 2 || !text.starts_with('"') || !text.ends_with('"') {
        return None;
    }
    serde_json::from_str(text).ok()
}

fn strip_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start + 4..].find("-->") {
            Some(end) => rest = &rest[start + 4 + end + 3..],
            // An unclosed comment hides the rest of the text when rendered.
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn is_checkbox(line: &str) -> bool {
    let rest = line.trim_start_matches(['-', '*', '+']).trim_start();
    rest.len() < line.len()
        && (rest.starts_with("[ ]") || rest.starts_with("[x]") || rest.starts_with("[X]"))
}

fn strip_bullet(line: &str) -> &str {
    ["- ", "* ", "+ "]
        .iter()
        .find_map(|bullet| line.strip_prefix(bullet))
        .map_or(line, str::trim_start)
}

/// Drops HTML tags at the start of a line (`<details><summary>Title</summary>`).
fn strip_leading_tags(mut line: &str) -> &str {
    while let Some(rest) = line.strip_prefix('<') {
        let opens_tag = rest
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/');
        match rest.find('>') {
            Some(end) if opens_tag => line = rest[end + 1..].trim_start(),
            _ => break,
        }
    }
    line
}

/// Cuts a one-line statement where its next section starts: a heading mark after a space
/// (`Title ## Description ...`) or a bold label (`... **Description:** ...`).
fn cut_at_inline_heading(line: &str) -> &str {
    for (at, c) in line.char_indices().skip(1) {
        let rest = &line[at..];
        if c.is_whitespace() {
            let after = &rest[c.len_utf8()..];
            let unmarked = after.trim_start_matches('#');
            let marks = after.len() - unmarked.len();
            if (1..=6).contains(&marks) && unmarked.starts_with(char::is_whitespace) {
                return &line[..at];
            }
        }
        if let Some(inner) = rest.strip_prefix("**")
            && let Some(end) = inner.find("**")
            && is_label(&inner[..end])
        {
            return &line[..at];
        }
    }
    line
}

fn is_label(text: &str) -> bool {
    let text = text.trim().trim_end_matches(':').trim();
    LABELS.iter().any(|label| text.eq_ignore_ascii_case(label))
}

/// Removes markdown markup that is not text: emphasis, code spans, link targets, escapes.
/// Underscores stay: `__init__` and `_pytest` are names, not emphasis.
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        match c {
            '\\' if after.starts_with(|n: char| n.is_ascii_punctuation()) => {
                out.push_str(&after[..1]);
                rest = &after[1..];
                continue;
            }
            '*' if after.starts_with('*') => rest = &after[1..],
            '`' => rest = after,
            '!' if after.starts_with('[') => rest = after,
            '[' => match link_text(after) {
                // `[text](url)`: the text stays, the target goes.
                Some((text, tail)) => {
                    out.push_str(text);
                    rest = tail;
                }
                None => {
                    out.push('[');
                    rest = after;
                }
            },
            _ => {
                out.push(c);
                rest = after;
            }
        }
    }
    out.trim().trim_matches('*').trim().to_string()
}

/// For the text after a `[`: the link text and what follows `(target)`, when this is a link.
fn link_text(after: &str) -> Option<(&str, &str)> {
    let (text, tail) = after.split_once("](")?;
    if text.contains('[') {
        return None;
    }
    let (_, tail) = tail.split_once(')')?;
    Some((text, tail))
}

/// Peels template labels off the start: `Title: X`, `Issue Title: X`, `[Bug]: X`,
/// `Bug Report: X`, `Title X` (a heading `## Title` with the title on the same line). A line
/// that is only a label becomes empty.
fn peel_labels(line: &str) -> String {
    let mut line = line.trim();
    loop {
        if is_label(line) {
            return String::new();
        }
        let next = peel_bracketed(line)
            .or_else(|| peel_colon(line))
            .or_else(|| peel_bare_title(line));
        match next {
            Some(rest) => line = rest.trim().trim_matches('*').trim(),
            None => return line.split_whitespace().collect::<Vec<_>>().join(" "),
        }
    }
}

/// `[Bug]: X` or `[Bug] X`.
fn peel_bracketed(line: &str) -> Option<&str> {
    let inner = line.strip_prefix('[')?;
    let end = inner.find(']')?;
    if !is_label(&inner[..end]) {
        return None;
    }
    let rest = inner[end + 1..].trim_start();
    Some(rest.strip_prefix(':').unwrap_or(rest))
}

/// `Title: X`, `title: X`, `Bug Report: X`.
fn peel_colon(line: &str) -> Option<&str> {
    let (head, rest) = line.split_once(':')?;
    is_label(head).then_some(rest)
}

/// `Title X` where X starts with a capital: `## Title Sign in with QR lacks ...`. A lower-case
/// word after "Title" may be the title itself ("Title bar flickers").
fn peel_bare_title(line: &str) -> Option<&str> {
    let rest = ["Issue Title", "Title"]
        .iter()
        .find_map(|label| line.strip_prefix(label))?;
    let trimmed = rest.trim_start();
    let starts_capital = trimmed
        .trim_start_matches('*')
        .chars()
        .next()
        .is_some_and(char::is_uppercase);
    (trimmed.len() < rest.len() && starts_capital).then_some(trimmed)
}

/// The text up to the first sentence end: ". ", "? " or "! " before a capital letter, so a
/// GitHub title such as "Strange/wrong? behaviour of subs" stays whole.
fn first_sentence(text: &str) -> &str {
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if matches!(c, '.' | '?' | '!') && chars.peek().is_some_and(|(_, n)| n.is_whitespace()) {
            let after = text[at + 1..].trim_start();
            if after.chars().next().is_some_and(char::is_uppercase) {
                return &text[..at + c.len_utf8()];
            }
        }
    }
    text
}

/// Drops a trailing colon, comma or single full stop; an ellipsis or "2.2+" stays.
fn trim_end_punctuation(text: &str) -> &str {
    let text = text.trim_end_matches([':', ';', ',']).trim_end();
    match text.strip_suffix('.') {
        Some(rest) if !rest.ends_with('.') => rest.trim_end(),
        _ => text,
    }
}

/// Cuts to [`LIMIT`] characters at a word boundary, ending in "…".
fn shorten(text: &str) -> String {
    if text.chars().count() <= LIMIT {
        return text.to_string();
    }
    let head: String = text.chars().take(LIMIT).collect();
    let head = match head.rfind(' ') {
        Some(space) if head[..space].chars().count() > LIMIT / 2 => &head[..space],
        _ => head.as_str(),
    };
    format!("{}…", head.trim_end_matches([' ', ',', ';', ':', '-', '(']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn title_of(text: &str, want: &str) {
        assert_eq!(derive_title(text), want, "title of {text:?}");
    }

    #[test]
    fn a_template_heading_gives_way_to_the_line_under_it() {
        title_of(
            "## Title\n\nHost blocking ignores subdomains\n\n## Description\n\nx",
            "Host blocking ignores subdomains",
        );
        title_of(
            "# Title:\n\nCollection Name Validation Accepts Python Keywords\n",
            "Collection Name Validation Accepts Python Keywords",
        );
        title_of(
            "Problem Statement\n\nThe cache is never cleared. It grows.",
            "The cache is never cleared",
        );
        title_of(
            "## Description\n\nLogin fails when the password has a colon.",
            "Login fails when the password has a colon",
        );
    }

    #[test]
    fn labels_before_the_title_are_peeled() {
        title_of(
            "**Title: Email Validation Status**\n\nbody",
            "Email Validation Status",
        );
        title_of(
            "**Title:** Server host configuration lacks CIDR expansion\n",
            "Server host configuration lacks CIDR expansion",
        );
        title_of(
            "**Issue Title**: Load MIME types from a file\n",
            "Load MIME types from a file",
        );
        title_of(
            "#title: Move .well-known assets to a router file \n",
            "Move .well-known assets to a router file",
        );
        title_of(
            "# Title: Bug Report: `parse_duration` accepts invalid formats\n",
            "parse_duration accepts invalid formats",
        );
        title_of(
            "# [Bug]: BatchEvaluate fails when encountering disabled flags \n",
            "BatchEvaluate fails when encountering disabled flags",
        );
        title_of(
            "## Title Sign in with QR lacks a feature flag\n",
            "Sign in with QR lacks a feature flag",
        );
        title_of(
            "# Feature Request: Add caching for rollouts\n",
            "Add caching for rollouts",
        );
    }

    #[test]
    fn a_statement_on_one_line_is_cut_where_its_next_section_starts() {
        title_of(
            "## Title: Default font size for UI fonts ## Description: Qutebrowser lets users...",
            "Default font size for UI fonts",
        );
        title_of(
            "# Feature Request: Add a TOTP input **Description** The current input is plain.",
            "Add a TOTP input",
        );
        title_of(
            "## Title: Incorrect rendering after blockquotes. ## Problem Description: x",
            "Incorrect rendering after blockquotes",
        );
    }

    #[test]
    fn checkboxes_comments_fences_and_empty_headings_are_skipped() {
        title_of(
            "<!-- Please fill in the template -->\n- [ ] I searched the issues\n- [x] I read the docs\n##\n\nCrash on start",
            "Crash on start",
        );
        title_of(
            "<!--\nmulti-line\ncomment\n-->\n# Real title\n",
            "Real title",
        );
        title_of("```\ncode first\n```\nAfter the code", "After the code");
        title_of(
            "<details><summary>Slow import</summary>",
            "Slow import</summary>",
        );
    }

    #[test]
    fn markup_goes_and_names_stay() {
        title_of(
            "`Permutation` constructor fails with non-disjoint cycles",
            "Permutation constructor fails with non-disjoint cycles",
        );
        title_of(
            "Pipeline should implement __len__",
            "Pipeline should implement __len__",
        );
        title_of(
            "_pytest.capture.EncodedFile mode should not include `b`",
            "_pytest.capture.EncodedFile mode should not include b",
        );
        title_of(
            "Case() crashes with ~Q(pk__in=[]).",
            "Case() crashes with ~Q(pk__in=[])",
        );
        title_of(
            "See [the docs](https://example.com/x) for alternate\\_names",
            "See the docs for alternate_names",
        );
        title_of(
            "Cannot override get_FOO_display() in Django 2.2+.",
            "Cannot override get_FOO_display() in Django 2.2+",
        );
    }

    #[test]
    fn an_encoded_statement_is_read_as_its_text() {
        title_of(
            "\"## Title\\n\\nHost blocking ignores subdomains\\n\"",
            "Host blocking ignores subdomains",
        );
        title_of(
            "# Feature Request: Add a graph\\n\\n## Description\\n\\nRight now",
            "Add a graph",
        );
    }

    #[test]
    fn a_github_title_keeps_its_question_mark() {
        title_of(
            "Strange/wrong? behaviour of subs with ConditionSet / ImageSet\nbody",
            "Strange/wrong? behaviour of subs with ConditionSet / ImageSet",
        );
    }

    #[test]
    fn a_long_paragraph_gives_its_first_sentence_and_a_long_title_is_cut_at_a_word() {
        let sentence = "When users upgrade the root cluster the leaf clusters lose their connection and every session fails. More text follows here.";
        title_of(
            sentence,
            "When users upgrade the root cluster the leaf clusters lose their connection and every session fails",
        );
        let heading = format!("# {}", "word ".repeat(40));
        let title = derive_title(&heading);
        assert!(title.ends_with("word…"), "{title}");
        assert!(title.chars().count() <= LIMIT + 1, "{title}");
    }

    #[test]
    fn a_text_of_labels_only_has_no_title() {
        title_of("## Title\n\n## Description\n\n**Summary:**\n", "");
        title_of("", "");
    }
}
