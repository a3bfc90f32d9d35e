//! Issue text (untrusted markdown with embedded HTML) to HTML that is safe to insert into the
//! desktop app's page, with every word of the text still in it.
//!
//! Issue texts come from public trackers: anyone could have written `<script>`, an `onerror`
//! handler, a `javascript:` link or an SVG payload into them, and web-framework issues quote
//! `<style>`, `<textarea>` or `<math>` as the subject of the bug. Raw HTML never reaches an HTML
//! parser as markup: each tag the markdown parser reports is rendered only when it is one of a
//! few harmless tags, written without attributes and balanced (`<kbd>`, `<sub>`, `<details>`);
//! every other tag, comment or declaration is shown as text, so an unclosed `<style>` cannot
//! swallow the paragraphs after it. Links keep their target only for `http`, `https` and
//! `mailto`; others are shown as text. The result says what was shown as text
//! ([`RenderChanges`]) and carries the stored text for a "Source" view. ammonia's allow-list then
//! checks the HTML once more, and the page's CSP is the last wall.
//!
//! ```
//! let rendered = annotations::markdown::render_markdown("Fix `parse()`<script>alert(1)</script>");
//! assert!(rendered.html.contains("<code>parse()</code>"));
//! assert!(!rendered.html.contains("<script"));
//! assert!(rendered.html.contains("&lt;script&gt;"), "the tag is shown as text");
//! assert!(rendered.html.contains("alert(1)"), "and so is what it held");
//! assert_eq!(rendered.changes.html_as_text, 1);
//! ```

mod raw_html;

use std::collections::{HashMap, HashSet};

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};
use serde::Serialize;
use ts_rs::TS;

use raw_html::{Form, MarkupKind, Piece};

/// A text rendered for the app: the text as stored, its sanitized HTML, and what rendering
/// showed as text instead of rendering it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct RenderedText {
    /// The text exactly as stored, for the "Source" view.
    pub source: String,
    /// Sanitized HTML.
    pub html: String,
    /// What rendering showed as text; all zero when the HTML renders everything as written.
    pub changes: RenderChanges,
}

/// Counts of what rendering showed as text rather than as markup.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct RenderChanges {
    /// HTML elements (a tag with its closing tag, a stray tag, a comment or a declaration)
    /// shown as text.
    pub html_as_text: u32,
    /// Links shown as text because their target is not an `http`, `https` or `mailto` URL.
    pub links_as_text: u32,
}

/// The class of markup shown as text inside a line.
const AS_TEXT: &str = "html-as-text";
/// The class of a raw HTML block that holds markup shown as text; it keeps the block's lines.
const BLOCK_AS_TEXT: &str = "html-block-as-text";

/// Tags that may survive sanitizing: document structure, emphasis, code, tables, lists, links.
/// No `img` (the app loads nothing from the network), no `svg`/`math`, no forms, no `style`.
const ALLOWED_TAGS: &[&str] = &[
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "del",
    "details",
    "div",
    "dl",
    "dt",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "input",
    "kbd",
    "li",
    "ol",
    "p",
    "pre",
    "s",
    "samp",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
];

/// Renders untrusted markdown to sanitized HTML that still holds every word of the text.
///
/// Guarantees, whatever the input: no `<script>`, `<style>`, `<iframe>`, `<object>`, `<svg>`,
/// `<math>` or `<img>` elements; no event-handler or `style` attributes; link targets are only
/// `http`, `https` or `mailto` URLs and every link carries `rel="noopener noreferrer"`. Markup
/// that is not rendered is shown as text, as are links to other targets. Images written in
/// markdown become links to the image, so nothing is fetched without a click.
pub fn render_markdown(text: &str) -> RenderedText {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let events: Vec<Event<'_>> = images_as_links(Parser::new_ext(text, options)).collect();
    let (events, html_as_text) = raw_html_as_text(events);
    let (events, links_as_text) = links_as_text(events);
    let mut raw = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut raw, events.into_iter());
    RenderedText {
        source: text.to_string(),
        html: sanitize_html(&raw),
        changes: RenderChanges {
            html_as_text,
            links_as_text,
        },
    }
}

/// Turns each markdown image into a link labelled "image: <alt text>", so a rater can still
/// follow it on purpose while the page itself never loads a remote resource.
fn images_as_links<'a>(events: impl Iterator<Item = Event<'a>>) -> impl Iterator<Item = Event<'a>> {
    let mut in_image = false;
    events.flat_map(move |event| {
        let replaced: Vec<Event<'a>> = match event {
            Event::Start(Tag::Image {
                dest_url, title, ..
            }) => {
                in_image = true;
                vec![
                    Event::Start(Tag::Link {
                        link_type: LinkType::Inline,
                        dest_url,
                        title,
                        id: CowStr::Borrowed(""),
                    }),
                    Event::Text(CowStr::Borrowed("image: ")),
                ]
            }
            Event::End(TagEnd::Image) if in_image => {
                in_image = false;
                vec![Event::End(TagEnd::Link)]
            }
            other => vec![other],
        };
        replaced
    })
}

/// Raw HTML as the markdown parser reported it: one inline tag, or a whole HTML block.
struct RawHtml {
    pieces: Vec<Piece>,
    block: bool,
    /// Which markdown block it stands in: inline tags must close in the block that opened them.
    scope: usize,
}

enum Item<'a> {
    Markdown(Event<'a>),
    Raw(RawHtml),
}

/// Whether a markdown tag lives inside a line (emphasis, links) rather than being a block.
fn is_inline(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

/// Replaces the raw HTML events by HTML in which only allowed, balanced tags are markup and
/// everything else written as HTML is escaped text; returns the number of elements shown as
/// text.
fn raw_html_as_text(events: Vec<Event<'_>>) -> (Vec<Event<'_>>, u32) {
    let raw = |html: &str, block: bool, scope: usize| {
        Item::Raw(RawHtml {
            pieces: raw_html::split(html),
            block,
            scope,
        })
    };
    let mut items = Vec::with_capacity(events.len());
    let mut scope = 0;
    let mut block_html: Option<String> = None;
    for event in events {
        match event {
            Event::Start(Tag::HtmlBlock) => {
                scope += 1;
                block_html = Some(String::new());
            }
            Event::End(TagEnd::HtmlBlock) => {
                if let Some(html) = block_html.take() {
                    items.push(raw(&html, true, scope));
                }
                scope += 1;
            }
            Event::Html(html) => match block_html.as_mut() {
                Some(block) => block.push_str(&html),
                None => items.push(raw(&html, true, scope)),
            },
            Event::InlineHtml(html) => items.push(raw(&html, false, scope)),
            other => {
                match &other {
                    Event::Start(tag) if !is_inline(&tag.to_end()) => scope += 1,
                    Event::End(tag) if !is_inline(tag) => scope += 1,
                    _ => {}
                }
                items.push(Item::Markdown(other));
            }
        }
    }
    if let Some(html) = block_html {
        items.push(raw(&html, true, scope));
    }

    let keep = balanced_tags(&items);
    let mut kept = keep.into_iter();
    let mut escaped_starts: HashMap<String, u32> = HashMap::new();
    let mut count = 0;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let raw = match item {
            Item::Markdown(event) => {
                out.push(event);
                continue;
            }
            Item::Raw(raw) => raw,
        };
        let mut html = String::new();
        let mut any_as_text = false;
        for piece in raw.pieces {
            match piece {
                Piece::Text(text) => push_text(&mut html, &text),
                Piece::Markup { raw, kind } => match kept.next().flatten() {
                    Some(form) => push_form(&mut html, form),
                    None => {
                        any_as_text = true;
                        count += elements_counted(&kind, &mut escaped_starts);
                        push_as_text(&mut html, &raw);
                    }
                },
            }
        }
        out.push(if !raw.block {
            Event::InlineHtml(html.into())
        } else if any_as_text {
            Event::Html(format!("<div class=\"{BLOCK_AS_TEXT}\">{html}</div>").into())
        } else {
            Event::Html(html.into())
        });
    }
    (out, count)
}

/// For each piece of markup in order, its form when it is rendered: allowed void tags, and
/// allowed tags whose opening and closing tags pair up (in the same markdown block unless the
/// tag may span blocks). Everything else is `None`: shown as text.
fn balanced_tags(items: &[Item<'_>]) -> Vec<Option<Form>> {
    let mut keep = Vec::new();
    let mut open: Vec<(usize, &'static str, usize)> = Vec::new();
    let markup = items.iter().flat_map(|item| match item {
        Item::Raw(raw) => raw
            .pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Markup { raw: text, .. } => Some((raw_html::allowed_form(text), raw.scope)),
                Piece::Text(_) => None,
            })
            .collect(),
        Item::Markdown(_) => Vec::new(),
    });
    for (form, scope) in markup {
        let index = keep.len();
        keep.push(None);
        match form {
            Some(Form::Void(_)) => keep[index] = form,
            Some(Form::Open(name)) => open.push((index, name, scope)),
            Some(Form::Close(name)) => {
                let spans_blocks = raw_html::SPANS_BLOCKS.contains(&name);
                if let Some(at) = open
                    .iter()
                    .rposition(|&(_, n, s)| n == name && (spans_blocks || s == scope))
                {
                    keep[open[at].0] = Some(Form::Open(name));
                    keep[index] = form;
                    open.truncate(at);
                }
            }
            None => {}
        }
    }
    keep
}

/// How many elements a piece of markup shown as text adds to the count: a closing tag adds
/// none when its opening tag was already counted.
fn elements_counted(kind: &MarkupKind, escaped_starts: &mut HashMap<String, u32>) -> u32 {
    match kind {
        MarkupKind::Start(name) => {
            *escaped_starts.entry(name.clone()).or_default() += 1;
            1
        }
        MarkupKind::End(name) => match escaped_starts.get_mut(name) {
            Some(open) if *open > 0 => {
                *open -= 1;
                0
            }
            _ => 1,
        },
        MarkupKind::Other => 1,
    }
}

/// Writes an allowed tag in its canonical form; a `<details>` is always open, so nothing the
/// author wrote starts out hidden.
fn push_form(html: &mut String, form: Form) {
    match form {
        Form::Open("details") => html.push_str("<details open>"),
        Form::Open(name) | Form::Void(name) => {
            html.push('<');
            html.push_str(name);
            html.push('>');
        }
        Form::Close(name) => {
            html.push_str("</");
            html.push_str(name);
            html.push('>');
        }
    }
}

/// Writes markup as visible text, marked so the page can set it apart.
fn push_as_text(html: &mut String, raw: &str) {
    html.push_str("<span class=\"");
    html.push_str(AS_TEXT);
    html.push_str("\">");
    for c in raw.chars() {
        match c {
            '&' => html.push_str("&amp;"),
            _ => push_escaped_char(html, c),
        }
    }
    html.push_str("</span>");
}

/// Writes the text between raw tags: `<` and `>` escaped, entity references (`&amp;`,
/// `&#8212;`) kept so they show as the character they name, any other `&` escaped.
fn push_text(html: &mut String, text: &str) {
    for (i, c) in text.char_indices() {
        match c {
            '&' if !starts_entity(&text[i..]) => html.push_str("&amp;"),
            _ => push_escaped_char(html, c),
        }
    }
}

fn push_escaped_char(html: &mut String, c: char) {
    match c {
        '<' => html.push_str("&lt;"),
        '>' => html.push_str("&gt;"),
        '"' => html.push_str("&quot;"),
        _ => html.push(c),
    }
}

/// Whether `s` (which starts with `&`) begins a character reference: `&name;`, `&#123;` or
/// `&#x1F;`.
fn starts_entity(s: &str) -> bool {
    let body = &s[1..];
    let Some(end) = body.find(';') else {
        return false;
    };
    let name = &body[..end];
    if let Some(hex) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
        (1..=6).contains(&hex.len()) && hex.chars().all(|c| c.is_ascii_hexdigit())
    } else if let Some(dec) = name.strip_prefix('#') {
        (1..=7).contains(&dec.len()) && dec.chars().all(|c| c.is_ascii_digit())
    } else {
        (1..=32).contains(&name.len())
            && name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric())
    }
}

/// Whether a link target may stay a link: an `http`, `https` or `mailto` URL.
fn is_web_url(url: &str) -> bool {
    url.split_once(':').is_some_and(|(scheme, _)| {
        ["http", "https", "mailto"]
            .iter()
            .any(|allowed| allowed.eq_ignore_ascii_case(scheme))
    })
}

/// Shows links to other targets (`javascript:`, `data:`, relative paths) as their label
/// followed by the target as text; returns how many.
fn links_as_text(events: Vec<Event<'_>>) -> (Vec<Event<'_>>, u32) {
    // Per open link: the target to show after its label when the link is shown as text.
    let mut open: Vec<Option<String>> = Vec::new();
    let mut count = 0;
    let mut out = Vec::with_capacity(events.len());
    for event in events {
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                if link_type == LinkType::Email || is_web_url(&dest_url) {
                    open.push(None);
                    out.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }));
                } else {
                    count += 1;
                    // An autolink's label is its target already.
                    let shown = if link_type == LinkType::Autolink {
                        String::new()
                    } else {
                        dest_url.to_string()
                    };
                    open.push(Some(shown));
                }
            }
            Event::End(TagEnd::Link) => match open.pop().flatten() {
                None => out.push(Event::End(TagEnd::Link)),
                Some(target) if target.is_empty() => {}
                Some(target) => {
                    let mut html = String::from(" ");
                    push_as_text(&mut html, &format!("({target})"));
                    out.push(Event::InlineHtml(html.into()));
                }
            },
            other => out.push(other),
        }
    }
    (out, count)
}

/// Sanitizes HTML with an allow-list: everything not listed is dropped, and the content of
/// `script`, `style` and similar elements is dropped with it. After [`raw_html_as_text`] none
/// of those can be left; this is the second wall.
fn sanitize_html(html: &str) -> String {
    let tags: HashSet<&str> = ALLOWED_TAGS.iter().copied().collect();
    let schemes: HashSet<&str> = ["http", "https", "mailto"].into_iter().collect();
    let classes: HashMap<&str, HashSet<&str>> = HashMap::from([
        ("span", HashSet::from([AS_TEXT])),
        ("div", HashSet::from([BLOCK_AS_TEXT])),
    ]);
    let mut builder = ammonia::Builder::empty();
    builder
        .tags(tags)
        .url_schemes(schemes)
        .link_rel(Some("noopener noreferrer"))
        .allowed_classes(classes)
        .add_tag_attributes("a", ["href", "title"])
        .add_tag_attributes("abbr", ["title"])
        .add_tag_attributes("td", ["align", "colspan", "rowspan"])
        .add_tag_attributes("th", ["align", "colspan", "rowspan"])
        .add_tag_attributes("ol", ["start"])
        .add_tag_attributes("details", ["open"])
        .add_tag_attributes("input", ["type", "checked", "disabled"])
        .clean_content_tags(
            [
                "script", "style", "svg", "math", "iframe", "object", "template",
            ]
            .into_iter()
            .collect(),
        )
        // Relative links in an issue point at the tracker, not at the app: drop them rather
        // than let them resolve against the app's own origin.
        .url_relative(ammonia::UrlRelative::Deny)
        .strip_comments(true);
    builder.clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::{RenderChanges, render_markdown};

    #[test]
    fn renders_common_markdown() {
        let rendered = render_markdown(
            "# Title\n\nSome *emphasis* and `code`.\n\n```python\nprint(1)\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        );
        let html = &rendered.html;
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<em>emphasis</em>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(
            html.contains("<pre><code>print(1)\n</code></pre>"),
            "{html}"
        );
        assert!(html.contains("<table>"), "{html}");
        assert_eq!(
            rendered.changes,
            RenderChanges::default(),
            "plain markdown changes nothing"
        );
    }

    #[test]
    fn the_source_is_the_text_as_stored() {
        let text = "a <script>x</script>\r\n\r\n* b\0";
        assert_eq!(render_markdown(text).source, text);
    }

    #[test]
    fn links_get_noopener_and_keep_http_targets() {
        let html = render_markdown("see [the PR](https://github.com/o/r/pull/1)").html;
        assert!(
            html.contains(
                "<a href=\"https://github.com/o/r/pull/1\" rel=\"noopener noreferrer\">the PR</a>"
            ),
            "{html}"
        );
    }

    #[test]
    fn relative_links_are_shown_as_text() {
        let rendered = render_markdown("[x](/etc/passwd) [y](../../index.html)");
        assert!(
            !rendered.html.contains("href"),
            "relative links must not resolve in the app: {}",
            rendered.html
        );
        assert!(
            rendered.html.contains("(/etc/passwd)") && rendered.html.contains("(../../index.html)"),
            "{}",
            rendered.html
        );
        assert_eq!(rendered.changes.links_as_text, 2);
    }

    #[test]
    fn markdown_images_become_links_not_loads() {
        let html = render_markdown("![screenshot](https://e.org/a.png)").html;
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("href=\"https://e.org/a.png\"") && html.contains("image: screenshot"),
            "{html}"
        );
    }

    #[test]
    fn html_in_code_stays_escaped_and_is_no_change() {
        let rendered = render_markdown("`<b>not bold</b>`\n\n    <script>x</script>\n");
        assert!(
            rendered.html.contains("&lt;b&gt;not bold&lt;/b&gt;"),
            "{}",
            rendered.html
        );
        assert!(!rendered.html.contains("<script"), "{}", rendered.html);
        assert_eq!(rendered.changes, RenderChanges::default());
    }

    #[test]
    fn harmless_balanced_tags_render() {
        let rendered =
            render_markdown("Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, H<sub>2</sub>O<br>next");
        assert!(
            rendered.html.contains("<kbd>Ctrl</kbd>+<kbd>C</kbd>"),
            "{}",
            rendered.html
        );
        assert!(
            rendered.html.contains("H<sub>2</sub>O<br>next"),
            "{}",
            rendered.html
        );
        assert_eq!(rendered.changes, RenderChanges::default());
    }

    #[test]
    fn details_around_markdown_render_open() {
        let rendered = render_markdown(
            "<details>\n<summary>Traceback</summary>\n\n```\nValueError\n```\n\n</details>\n\nAfter.",
        );
        assert!(
            rendered.html.contains("<details open=\"\">")
                || rendered.html.contains("<details open>"),
            "a details block starts open, so nothing starts hidden: {}",
            rendered.html
        );
        assert!(
            rendered.html.contains("<summary>Traceback</summary>"),
            "{}",
            rendered.html
        );
        assert!(rendered.html.contains("ValueError"), "{}", rendered.html);
        assert_eq!(rendered.changes, RenderChanges::default());
    }

    #[test]
    fn unbalanced_or_attributed_tags_are_shown_as_text() {
        let rendered = render_markdown("<details>\n\nnever closed\n\na <b class=\"x\">b</b> <i>c");
        assert!(!rendered.html.contains("<details"), "{}", rendered.html);
        assert!(
            rendered.html.contains("&lt;details&gt;"),
            "{}",
            rendered.html
        );
        assert!(
            rendered.html.contains("&lt;b class=\"x\"&gt;") && rendered.html.contains("&lt;/b&gt;"),
            "{}",
            rendered.html
        );
        assert!(
            rendered.html.contains("&lt;i&gt;</span>c"),
            "{}",
            rendered.html
        );
        assert_eq!(
            rendered.changes.html_as_text, 3,
            "details, b (with its closing tag), i"
        );
    }

    #[test]
    fn inline_tags_close_in_their_own_paragraph() {
        let rendered = render_markdown("one <code>\n\ntwo </code>");
        assert!(!rendered.html.contains("<code>"), "{}", rendered.html);
        assert_eq!(
            rendered.changes.html_as_text, 1,
            "one element, its opening and closing tags shown as text"
        );
    }

    #[test]
    fn comments_and_entities_in_html_blocks_show_as_written() {
        let rendered =
            render_markdown("<!-- Please describe the bug -->\n\n<p>Fish &amp; chips</p>");
        assert!(
            rendered
                .html
                .contains("&lt;!-- Please describe the bug --&gt;"),
            "{}",
            rendered.html
        );
        assert!(
            rendered.html.contains("Fish &amp; chips"),
            "{}",
            rendered.html
        );
        assert!(rendered.html.contains("&lt;p&gt;"), "{}", rendered.html);
        assert_eq!(rendered.changes.html_as_text, 2, "the comment and the p");
    }

    #[test]
    fn an_unclosed_raw_text_element_keeps_what_follows() {
        let rendered = render_markdown("one <style>\n\ntwo\n\n<textarea>\n\nthree\n\n*four*");
        for word in [
            "one",
            "two",
            "three",
            "four",
            "&lt;style&gt;",
            "&lt;textarea&gt;",
        ] {
            assert!(
                rendered.html.contains(word),
                "{word} is missing: {}",
                rendered.html
            );
        }
        assert!(!rendered.html.contains("<style"), "{}", rendered.html);
        assert!(!rendered.html.contains("<textarea"), "{}", rendered.html);
        assert_eq!(rendered.changes.html_as_text, 2);
    }
}
