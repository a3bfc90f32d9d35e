//! Raw HTML written inside markdown, split into text and markup so that each piece of markup
//! can be rendered or shown as text on its own.
//!
//! The split only has to find where markup begins and ends: whatever it finds is either one of
//! the few exact forms [`allowed_form`] accepts or shown as text. A mistake here changes how
//! some text looks, never what runs.

/// A piece of raw HTML as the author wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    /// Text between markup.
    Text(String),
    /// A tag, comment, declaration, processing instruction or CDATA section.
    Markup {
        /// Exactly as written.
        raw: String,
        /// What it is.
        kind: MarkupKind,
    },
}

/// What a piece of markup is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum MarkupKind {
    /// `<name ...>`, with the name in lower case.
    Start(String),
    /// `</name>`, with the name in lower case.
    End(String),
    /// A comment, declaration, processing instruction or CDATA section.
    Other,
}

/// An allowed tag in one of the exact forms that may be rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `<br>`, `<br/>`, `<hr>`: no content, nothing to balance.
    Void(&'static str),
    /// An opening tag without attributes (`<details open>` too).
    Open(&'static str),
    /// A closing tag.
    Close(&'static str),
}

/// Tags written in raw HTML that are rendered when they carry no attributes and are balanced.
/// Everything else is shown as text.
const BALANCED: &[&str] = &[
    "b", "code", "del", "details", "em", "i", "kbd", "pre", "s", "samp", "strong", "sub",
    "summary", "sup",
];

/// Tags without content that are rendered when written without attributes.
const VOID: &[&str] = &["br", "hr"];

/// Tags whose opening and closing tags may sit in different markdown blocks (a `<details>`
/// around a fenced traceback); the others must close in the block that opened them.
pub(super) const SPANS_BLOCKS: &[&str] = &["details", "summary", "pre"];

/// The rendered form of a piece of markup, when it is one of the allowed exact forms.
pub(super) fn allowed_form(raw: &str) -> Option<Form> {
    let inner = raw.strip_prefix('<')?.strip_suffix('>')?;
    if let Some(name) = inner.strip_prefix('/') {
        let name = name.trim_end();
        return BALANCED
            .iter()
            .find(|t| t.eq_ignore_ascii_case(name))
            .map(|t| Form::Close(t));
    }
    let name = inner.trim_end_matches('/').trim_end();
    if let Some(t) = VOID.iter().find(|t| t.eq_ignore_ascii_case(name)) {
        return Some(Form::Void(t));
    }
    if inner.ends_with('/') {
        return None;
    }
    if let Some((tag, attr)) = inner.split_once(char::is_whitespace)
        && tag.eq_ignore_ascii_case("details")
        && attr.trim().eq_ignore_ascii_case("open")
    {
        return Some(Form::Open("details"));
    }
    BALANCED
        .iter()
        .find(|t| t.eq_ignore_ascii_case(inner))
        .map(|t| Form::Open(t))
}

/// Splits raw HTML into text and markup.
pub(super) fn split(html: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut at = 0;
    while let Some(offset) = html[at..].find('<') {
        let start = at + offset;
        match markup_at(&html[start..]) {
            Some((len, kind)) => {
                if text_start < start {
                    pieces.push(Piece::Text(html[text_start..start].to_string()));
                }
                pieces.push(Piece::Markup {
                    raw: html[start..start + len].to_string(),
                    kind,
                });
                at = start + len;
                text_start = at;
            }
            None => at = start + 1,
        }
    }
    if text_start < html.len() {
        pieces.push(Piece::Text(html[text_start..].to_string()));
    }
    pieces
}

/// The length and kind of the markup that `s` (which starts with `<`) begins with, if any.
fn markup_at(s: &str) -> Option<(usize, MarkupKind)> {
    let closed_by = |open: &str, close: &str| -> Option<(usize, MarkupKind)> {
        let rest = s.strip_prefix(open)?;
        let end = rest.find(close)?;
        Some((open.len() + end + close.len(), MarkupKind::Other))
    };
    if s.starts_with("<!--") {
        return closed_by("<!--", "-->");
    }
    if s.starts_with("<![CDATA[") {
        return closed_by("<![CDATA[", "]]>");
    }
    if s.starts_with("<?") {
        return closed_by("<?", "?>");
    }
    if s[1..].starts_with('!') && s[2..].starts_with(|c: char| c.is_ascii_alphabetic()) {
        return closed_by("<!", ">");
    }
    if let Some(rest) = s.strip_prefix("</") {
        let name_len = tag_name_len(rest)?;
        let after = &rest[name_len..];
        let trailing = after.len() - after.trim_start().len();
        return after[trailing..].starts_with('>').then(|| {
            (
                2 + name_len + trailing + 1,
                MarkupKind::End(rest[..name_len].to_ascii_lowercase()),
            )
        });
    }
    let rest = &s[1..];
    let name_len = tag_name_len(rest)?;
    let end = attributes_end(&rest[name_len..])?;
    Some((
        1 + name_len + end,
        MarkupKind::Start(rest[..name_len].to_ascii_lowercase()),
    ))
}

/// The length of the tag name `s` begins with: a letter, then letters, digits or `-`.
fn tag_name_len(s: &str) -> Option<usize> {
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    Some(
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(s.len()),
    )
}

/// The length up to and including the `>` that ends a start tag's attributes, skipping quoted
/// values; `None` when a `<` or the end of the text comes first, or when the name runs on into
/// something that is not an attribute.
fn attributes_end(s: &str) -> Option<usize> {
    if !s.starts_with(|c: char| c.is_whitespace() || c == '/' || c == '>') {
        return None;
    }
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '>' => return Some(i + 1),
            None if c == '<' => return None,
            None => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Form, MarkupKind, Piece, allowed_form, split};

    fn markup(raw: &str, kind: MarkupKind) -> Piece {
        Piece::Markup {
            raw: raw.to_string(),
            kind,
        }
    }

    #[test]
    fn splits_tags_comments_and_text() {
        assert_eq!(
            split("<div class=\"a>b\">x</div><!-- c -->y < z <br/>"),
            vec![
                markup("<div class=\"a>b\">", MarkupKind::Start("div".into())),
                Piece::Text("x".into()),
                markup("</div>", MarkupKind::End("div".into())),
                markup("<!-- c -->", MarkupKind::Other),
                Piece::Text("y < z ".into()),
                markup("<br/>", MarkupKind::Start("br".into())),
            ]
        );
    }

    #[test]
    fn unclosed_markup_is_text() {
        assert_eq!(
            split("<!-- never closed <b"),
            vec![Piece::Text("<!-- never closed <b".into())]
        );
        assert_eq!(
            split("<a href='x' <b>"),
            vec![
                Piece::Text("<a href='x' ".into()),
                markup("<b>", MarkupKind::Start("b".into()))
            ]
        );
    }

    #[test]
    fn only_exact_forms_are_allowed() {
        assert_eq!(allowed_form("<B>"), Some(Form::Open("b")));
        assert_eq!(allowed_form("</kbd >"), Some(Form::Close("kbd")));
        assert_eq!(allowed_form("<br />"), Some(Form::Void("br")));
        assert_eq!(allowed_form("<details open>"), Some(Form::Open("details")));
        assert_eq!(allowed_form("<b onclick=x>"), None);
        assert_eq!(allowed_form("<b/>"), None);
        assert_eq!(allowed_form("<details ontoggle=x>"), None);
        assert_eq!(allowed_form("<script>"), None);
        assert_eq!(allowed_form("<style>"), None);
    }
}
