//! Issue texts written to attack the page or to lose text: nothing active may survive rendering,
//! and every word of the text must still be in what the rater reads.

use std::collections::HashMap;

use annotations::markdown::{RenderedText, render_markdown};

/// Hostile inputs: the name says what it tries. `verbatim` when the whole payload must appear in
/// the rendered text exactly as written (markdown links and autolinks show their parts instead,
/// and an allowed tag such as `<kbd>` renders as an element).
const HOSTILE: &[(&str, &str, bool)] = &[
    ("script", "<script>alert(1)</script>", true),
    (
        "script src",
        "<SCRIPT SRC=https://e.org/x.js></SCRIPT>",
        true,
    ),
    ("unclosed script", "<script>alert(1)", true),
    ("img onerror", "<img src=x onerror=alert(1)>", true),
    (
        "img onerror quoted",
        "<img src=\"x\" onerror=\"alert(1)\"/>",
        true,
    ),
    ("body onload", "<body onload=alert(1)>", true),
    (
        "cover with handler and style",
        "<div onmouseover=\"alert(1)\" style=\"position:fixed;inset:0\">cover</div>",
        true,
    ),
    (
        "javascript link",
        "<a href=\"javascript:alert(1)\">click</a>",
        true,
    ),
    (
        "mixed case scheme",
        "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
        true,
    ),
    (
        "entity in scheme",
        "<a href=\"&#106;avascript:alert(1)\">entity</a>",
        true,
    ),
    (
        "space before scheme",
        "<a href=\" javascript:alert(1)\">sp</a>",
        true,
    ),
    (
        "markdown javascript link",
        "[md](javascript:alert(1))",
        false,
    ),
    ("markdown vbscript link", "[vb](vbscript:msgbox(1))", false),
    (
        "markdown data link",
        "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        false,
    ),
    (
        "markdown data image",
        "![pic](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
        false,
    ),
    ("javascript autolink", "<javascript:alert(1)>", false),
    (
        "data link in raw html",
        "<a href=\"data:text/html,<script>alert(1)</script>\">d</a>",
        true,
    ),
    ("svg onload", "<svg onload=alert(1)>", true),
    ("svg script", "<svg><script>alert(1)</script></svg>", true),
    (
        "svg xlink",
        "<svg><a xlink:href=\"javascript:alert(1)\"><text x=\"0\" y=\"20\">svg link</text></a></svg>",
        true,
    ),
    (
        "mathml mutation",
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
        true,
    ),
    (
        "mathml href",
        "<math><mi xlink:href=\"javascript:alert(1)\">m</mi></math>",
        true,
    ),
    (
        "form mathml mutation",
        "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>",
        true,
    ),
    (
        "noscript attribute mutation",
        "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
        true,
    ),
    (
        "select style mutation",
        "<select><style></select><img src=x onerror=alert(1)>",
        true,
    ),
    ("style", "<style>body{display:none}</style>", true),
    ("unclosed style", "<style>", true),
    ("unclosed textarea", "<textarea>", true),
    ("unclosed title", "<title>", true),
    ("unclosed xmp", "<xmp>", true),
    ("plaintext", "<plaintext>", true),
    (
        "iframe",
        "<iframe src=\"javascript:alert(1)\"></iframe>",
        true,
    ),
    (
        "iframe srcdoc",
        "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
        true,
    ),
    (
        "object",
        "<object data=\"javascript:alert(1)\"></object>",
        true,
    ),
    (
        "embed",
        "<embed src=\"data:text/html,<script>alert(1)</script>\">",
        true,
    ),
    (
        "details ontoggle",
        "<details open ontoggle=alert(1)>d</details>",
        true,
    ),
    ("input onfocus", "<input autofocus onfocus=alert(1)>", true),
    (
        "button formaction",
        "<button formaction=javascript:alert(1)>b</button>",
        true,
    ),
    (
        "comment hiding a payload",
        "<!--<img src=x onerror=alert(1)>-->",
        true,
    ),
    ("unclosed comment", "<!-- unclosed comment", true),
    ("cdata", "<![CDATA[<script>alert(1)</script>]]>", true),
    (
        "meta refresh",
        "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
        true,
    ),
    ("base href", "<base href=\"javascript:alert(1)//\">", true),
    (
        "stylesheet link",
        "<link rel=stylesheet href=data:text/css,body{display:none}>",
        true,
    ),
    ("bold with handler", "<b onclick=alert(1)>bold</b>", true),
    (
        "script inside kbd",
        "<kbd><script>alert(1)</script></kbd>",
        false,
    ),
    (
        "template",
        "<template><script>alert(1)</script></template>",
        true,
    ),
    (
        "img inside pre",
        "<pre><img src=x onerror=alert(1)></pre>",
        false,
    ),
];

/// Elements that must never be in the output as elements.
const FORBIDDEN: &[&str] = &[
    "script",
    "svg",
    "math",
    "style",
    "iframe",
    "object",
    "embed",
    "img",
    "textarea",
    "template",
    "form",
    "button",
    "select",
    "noscript",
    "meta",
    "base",
    "link",
    "body",
    "title",
    "xmp",
    "plaintext",
    "mglyph",
    "mtext",
    "mi",
    "frame",
    "frameset",
    "audio",
    "video",
    "source",
];

/// Elements whose boundaries separate words.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "pre",
    "blockquote",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "tr",
    "td",
    "th",
    "details",
    "summary",
];

/// One tag of the output (opening or closing): its name and attributes (name, value).
struct OutputTag {
    name: String,
    attributes: Vec<(String, String)>,
}

/// Splits sanitized HTML into tags and decoded text. Sanitized HTML escapes every `<` in text,
/// so each `<` starts a tag; attribute values are quoted.
fn parse_output(html: &str) -> (Vec<OutputTag>, String) {
    let mut tags = Vec::new();
    let mut text = String::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        text.push_str(&rest[..start]);
        let tag = &rest[start + 1..];
        let mut in_quote = false;
        let end = tag
            .char_indices()
            .find(|&(_, c)| {
                if c == '"' {
                    in_quote = !in_quote;
                }
                c == '>' && !in_quote
            })
            .map(|(i, _)| i)
            .unwrap_or_else(|| panic!("a tag in the output is not closed: {html}"));
        let inner = &tag[..end];
        rest = &tag[end + 1..];
        let name = inner.trim_start_matches('/');
        let name_end = name.find([' ', '/']).unwrap_or(name.len());
        if BLOCKS.contains(&&name[..name_end]) {
            text.push(' ');
        }
        let mut attributes = Vec::new();
        let mut attrs = &name[name_end..];
        loop {
            attrs = attrs.trim_start_matches([' ', '/']);
            if attrs.is_empty() {
                break;
            }
            let name_len = attrs.find(['=', ' ']).unwrap_or(attrs.len());
            let name = attrs[..name_len].to_ascii_lowercase();
            attrs = &attrs[name_len..];
            let value = match attrs.strip_prefix("=\"") {
                Some(quoted) => {
                    let close = quoted.find('"').expect("attribute values are quoted");
                    attrs = &quoted[close + 1..];
                    decode(&quoted[..close])
                }
                None => String::new(),
            };
            attributes.push((name, value));
        }
        tags.push(OutputTag {
            name: name[..name_end].to_ascii_lowercase(),
            attributes,
        });
    }
    text.push_str(rest);
    (tags, decode(&text))
}

fn decode(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

fn words(s: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        *counts.entry(word.to_string()).or_default() += 1;
    }
    counts
}

fn normalize_space(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Tags an author may write that render as elements; their names count as kept words.
const RENDERED_AS_WRITTEN: &[&str] = &[
    "b", "code", "del", "details", "em", "i", "kbd", "pre", "s", "samp", "strong", "sub",
    "summary", "sup", "br", "hr",
];

/// Asserts that nothing in the output can run or load, and returns its decoded text plus the
/// targets of its links (a link's target is part of what the author wrote) and the names of
/// the tags the author wrote that render as elements.
fn assert_inert(name: &str, rendered: &RenderedText) -> String {
    let (tags, mut text) = parse_output(&rendered.html);
    for tag in &tags {
        if RENDERED_AS_WRITTEN.contains(&tag.name.as_str()) {
            text.push(' ');
            text.push_str(&tag.name);
        }
        assert!(
            !FORBIDDEN.contains(&tag.name.as_str()),
            "{name}: a <{}> element survived: {}",
            tag.name,
            rendered.html
        );
        for (attr, value) in &tag.attributes {
            assert!(
                !attr.starts_with("on")
                    && ![
                        "style",
                        "src",
                        "srcdoc",
                        "formaction",
                        "action",
                        "xlink:href",
                        "data"
                    ]
                    .contains(&attr.as_str()),
                "{name}: attribute {attr} survived: {}",
                rendered.html
            );
            if attr == "href" {
                let target = value.trim_start().to_ascii_lowercase();
                assert!(
                    ["http:", "https:", "mailto:"]
                        .iter()
                        .any(|s| target.starts_with(s)),
                    "{name}: link target {value:?} survived: {}",
                    rendered.html
                );
                text.push(' ');
                text.push_str(value);
            }
        }
    }
    text
}

/// Asserts that every word of `input` is in `text` at least as often as in the input.
fn assert_every_word(name: &str, input: &str, text: &str, html: &str) {
    let have = words(text);
    for (word, count) in words(input) {
        let found = have.get(&word).copied().unwrap_or(0);
        assert!(
            found >= count,
            "{name}: {word:?} is in the input {count} times, in the output {found} times: {html}"
        );
    }
}

#[test]
fn hostile_inputs_render_inert_and_keep_every_word() {
    assert!(HOSTILE.len() >= 30);
    for (n, &(name, payload, verbatim)) in HOSTILE.iter().enumerate() {
        let inline = format!("alpha {n} {payload} omega {n}");
        let blocks = format!("alpha {n}\n\n{payload}\n\nomega {n}");
        for (layout, input) in [("inline", inline), ("blocks", blocks)] {
            let name = format!("{name} ({layout})");
            let rendered = render_markdown(&input);
            assert_eq!(rendered.source, input, "{name}: the source is the input");
            let text = assert_inert(&name, &rendered);
            assert_every_word(&name, &input, &text, &rendered.html);
            for sentinel in [format!("alpha {n}"), format!("omega {n}")] {
                assert!(
                    normalize_space(&text).contains(&sentinel),
                    "{name}: {sentinel:?} is missing: {}",
                    rendered.html
                );
            }
            if verbatim {
                assert!(
                    normalize_space(&text).contains(&normalize_space(payload)),
                    "{name}: the markup must be shown as written: {}",
                    rendered.html
                );
            }
            let changes = rendered.changes.html_as_text + rendered.changes.links_as_text;
            assert!(
                changes > 0 || name.starts_with("unclosed comment"),
                "{name}: the notice must say something was shown as text"
            );
        }
    }
}

#[test]
fn a_mathml_mutation_in_paragraph_12_keeps_paragraphs_13_to_32() {
    let paragraphs: Vec<String> = (1..=32)
        .map(|i| {
            if i == 12 {
                format!(
                    "Paragraph word{i} holds <math><mtext><table><mglyph><style><img src=x onerror=alert(1)> and more."
                )
            } else {
                format!("Paragraph word{i} is *plain* markdown.")
            }
        })
        .collect();
    let input = paragraphs.join("\n\n");
    let rendered = render_markdown(&input);
    let text = assert_inert("32 paragraphs", &rendered);
    assert_every_word("32 paragraphs", &input, &text, &rendered.html);
    assert_eq!(
        rendered.html.matches("<p>").count(),
        32,
        "every paragraph is still a paragraph: {}",
        rendered.html
    );
    assert_eq!(
        rendered.html.matches("<em>plain</em>").count(),
        31,
        "markdown after the mutation still renders: {}",
        rendered.html
    );
    assert_eq!(rendered.changes.html_as_text, 6);
}

#[test]
fn a_paragraph_of_only_a_script_is_not_empty() {
    let input = "First.\n\n<script>document.title = 'owned'</script>\n\nLast.";
    let rendered = render_markdown(input);
    let text = assert_inert("script paragraph", &rendered);
    assert!(
        text.contains("<script>document.title = 'owned'</script>"),
        "{}",
        rendered.html
    );
    assert_every_word("script paragraph", input, &text, &rendered.html);
    assert_eq!(rendered.changes.html_as_text, 1);
}

#[test]
fn unclosed_raw_text_elements_keep_the_paragraphs_after_them() {
    for tag in [
        "script", "style", "textarea", "title", "xmp", "pre", "iframe", "noembed",
    ] {
        for opening in [format!("<{tag}>"), format!("Before <{tag}> inline.")] {
            let input = format!("{opening}\n\nsecond paragraph\n\n- a list item\n\n**last** words");
            let rendered = render_markdown(&input);
            let text = assert_inert(tag, &rendered);
            assert_every_word(tag, &input, &text, &rendered.html);
            assert!(
                text.contains(&format!("<{tag}>")),
                "{tag}: the tag is shown as text: {}",
                rendered.html
            );
        }
    }
}
