//! Issue text (untrusted markdown with embedded HTML) to HTML that is safe to insert into the
//! desktop app's page.
//!
//! Issue texts come from public trackers: anyone could have written `<script>`, an `onerror`
//! handler, a `javascript:` link or an SVG payload into them. The text is rendered with
//! pulldown-cmark and the result is passed through ammonia's allow-list, so only plain document
//! markup survives. The page's CSP is the second wall, not the first.
//!
//! ```
//! let html = annotations::markdown::render_markdown("Fix `parse()`<script>alert(1)</script>");
//! assert!(html.contains("<code>parse()</code>"));
//! assert!(!html.contains("script"));
//! ```

use std::collections::HashSet;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

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

/// Renders untrusted markdown to sanitized HTML.
///
/// Guarantees, whatever the input: no `<script>`, `<style>`, `<iframe>`, `<object>`, `<svg>`,
/// `<math>` or `<img>` elements; no event-handler or `style` attributes; link targets are only
/// `http`, `https` or `mailto` URLs and every link carries `rel="noopener noreferrer"`. Images
/// written in markdown become links to the image, so nothing is fetched without a click.
pub fn render_markdown(text: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let events = images_as_links(Parser::new_ext(text, options));
    let mut raw = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut raw, events);
    sanitize_html(&raw)
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
                        link_type: pulldown_cmark::LinkType::Inline,
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

/// Sanitizes HTML with an allow-list: everything not listed is dropped, and the content of
/// `script`, `style` and similar elements is dropped with it.
fn sanitize_html(html: &str) -> String {
    let tags: HashSet<&str> = ALLOWED_TAGS.iter().copied().collect();
    let schemes: HashSet<&str> = ["http", "https", "mailto"].into_iter().collect();
    let mut builder = ammonia::Builder::empty();
    builder
        .tags(tags)
        .url_schemes(schemes)
        .link_rel(Some("noopener noreferrer"))
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
    use super::render_markdown;

    fn assert_inert(html: &str) {
        let lower = html.to_ascii_lowercase();
        for needle in [
            "<script",
            "<svg",
            "<img",
            "<iframe",
            "<object",
            "<style",
            "<math",
            "onerror",
            "onload",
            "onclick",
            "javascript:",
            "vbscript:",
            "data:",
            "style=",
        ] {
            assert!(
                !lower.contains(needle),
                "sanitized HTML must not contain {needle:?}, got: {html}"
            );
        }
    }

    #[test]
    fn renders_common_markdown() {
        let html = render_markdown(
            "# Title\n\nSome *emphasis* and `code`.\n\n```python\nprint(1)\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        );
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<em>emphasis</em>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(
            html.contains("<pre><code>print(1)\n</code></pre>"),
            "{html}"
        );
        assert!(html.contains("<table>"), "{html}");
    }

    #[test]
    fn script_tags_and_their_content_are_removed() {
        let html = render_markdown("before <script>alert('x')</script> after");
        assert_inert(&html);
        assert!(
            !html.contains("alert"),
            "script content must go too: {html}"
        );
        assert!(html.contains("before"), "{html}");
    }

    #[test]
    fn event_handlers_are_removed() {
        let html = render_markdown(
            "<img src=x onerror=alert(1)>\n\n<div onclick=\"alert(2)\" onmouseover=x>hi</div>\n\n<a href=\"https://e.org\" onfocus=alert(3)>l</a>",
        );
        assert_inert(&html);
        assert!(html.contains("hi"), "{html}");
    }

    #[test]
    fn javascript_links_lose_their_target() {
        let html = render_markdown(
            "[click](javascript:alert(1)) <a href=\"JaVaScRiPt:alert(2)\">x</a> <a href=\"  javascript:alert(3)\">y</a> [d](data:text/html;base64,PHNjcmlwdD4=)",
        );
        assert_inert(&html);
        assert!(html.contains("click"), "link text stays: {html}");
    }

    #[test]
    fn svg_payloads_are_removed_with_their_content() {
        let html = render_markdown(
            "<svg onload=alert(1)><script>alert(2)</script><foreignObject><a href=\"javascript:x\">z</a></foreignObject></svg>\n\n<math><mtext><script>alert(3)</script></mtext></math>",
        );
        assert_inert(&html);
        assert!(!html.contains("alert"), "{html}");
    }

    #[test]
    fn styles_iframes_and_forms_are_removed() {
        let html = render_markdown(
            "<style>body{display:none}</style><iframe src=\"https://e.org\"></iframe><form action=\"https://e.org\"><button>go</button></form><p style=\"position:fixed\">p</p>",
        );
        assert_inert(&html);
        assert!(!html.contains("<form"), "{html}");
        assert!(!html.contains("<iframe"), "{html}");
        assert!(html.contains("<p>p</p>"), "{html}");
    }

    #[test]
    fn links_get_noopener_and_keep_http_targets() {
        let html = render_markdown("see [the PR](https://github.com/o/r/pull/1)");
        assert!(
            html.contains(
                "<a href=\"https://github.com/o/r/pull/1\" rel=\"noopener noreferrer\">the PR</a>"
            ),
            "{html}"
        );
    }

    #[test]
    fn relative_links_are_dropped() {
        let html = render_markdown("[x](/etc/passwd) [y](../../index.html)");
        assert!(
            !html.contains("href"),
            "relative links must not resolve in the app: {html}"
        );
    }

    #[test]
    fn markdown_images_become_links_not_loads() {
        let html = render_markdown("![screenshot](https://e.org/a.png)");
        assert_inert(&html);
        assert!(
            html.contains("href=\"https://e.org/a.png\"") && html.contains("image: screenshot"),
            "{html}"
        );
    }

    #[test]
    fn html_entities_in_code_stay_escaped() {
        let html = render_markdown("`<b>not bold</b>`\n\n    <script>x</script>\n");
        assert!(html.contains("&lt;b&gt;not bold&lt;/b&gt;"), "{html}");
        assert!(
            html.contains("&lt;script&gt;"),
            "code shows the text, escaped: {html}"
        );
        assert_inert(&html);
    }
}
