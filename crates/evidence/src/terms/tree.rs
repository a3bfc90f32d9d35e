//! What the term extractors read in a syntax tree (tree-sitter): the grammars, a walk over a
//! tree's nodes, a node's text, string literals' contents, calls' parts and the node kinds of
//! imports and functions. Both [`super::syntax`] (which terms a file has) and [`super::roles`]
//! (the role each plays) read trees through these.

use tree_sitter::{Language, Node, Tree};

use crate::noise;

/// A language parsed with tree-sitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Grammar {
    Python,
    Go,
    JavaScript,
    TypeScript,
    Tsx,
}

pub(super) fn grammar_of(path: &str) -> Option<Grammar> {
    Some(match super::extension(path)? {
        "py" | "pyi" => Grammar::Python,
        "go" => Grammar::Go,
        "js" | "jsx" | "mjs" | "cjs" => Grammar::JavaScript,
        "ts" | "mts" | "cts" => Grammar::TypeScript,
        "tsx" => Grammar::Tsx,
        _ => return None,
    })
}

impl Grammar {
    pub(super) fn language(self) -> Language {
        match self {
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::Go => tree_sitter_go::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    pub(super) fn keywords(self) -> &'static [&'static str] {
        match self {
            Grammar::Python => noise::PYTHON_KEYWORDS,
            Grammar::Go => noise::GO_KEYWORDS,
            Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => noise::JS_KEYWORDS,
        }
    }
}

/// Visits every node of `tree` in document order, skipping subtrees that `visit` declines,
/// with the node's ancestors (outermost first).
pub(super) fn walk<'t>(tree: &'t Tree, mut visit: impl FnMut(Node<'t>, &[Node<'t>]) -> bool) {
    let mut cursor = tree.walk();
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        if visit(node, &ancestors) && cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            ancestors.pop();
        }
    }
}

pub(super) fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

pub(super) fn same(a: Option<Node<'_>>, b: Node<'_>) -> bool {
    a.is_some_and(|a| a.id() == b.id())
}

pub(super) const IMPORT_KINDS: &[&str] = &[
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "import_spec",
    "import_declaration",
];

pub(super) const FUNCTION_KINDS: &[&str] = &[
    "func_literal",
    "function_declaration",
    "method_declaration",
    "function_definition",
    "lambda",
    "arrow_function",
    "function_expression",
    "function",
    "generator_function",
    "generator_function_declaration",
    "method_definition",
];

/// A string literal's text between its quotes, and whether it is raw (escapes as data).
pub(super) fn string_content<'s>(node: Node<'_>, src: &'s str) -> Option<(&'s str, bool)> {
    let full = text(node, src);
    match node.kind() {
        "interpreted_string_literal" | "template_string" => {
            Some((full.get(1..full.len().checked_sub(1)?)?, false))
        }
        "raw_string_literal" => Some((full.get(1..full.len().checked_sub(1)?)?, true)),
        "string" => {
            let quote_at = full.find(['"', '\''])?;
            let prefix = &full[..quote_at];
            let body = &full[quote_at..];
            let quote_len = if body.starts_with("\"\"\"") || body.starts_with("'''") {
                3
            } else {
                1
            };
            let inner = body.get(quote_len..body.len().checked_sub(quote_len)?)?;
            Some((inner, prefix.contains(['r', 'R'])))
        }
        _ => None,
    }
}

/// A call's callee and its arguments node, for calls and `new` expressions.
pub(super) fn call_parts(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let callee = match node.kind() {
        "call_expression" | "call" => node.child_by_field_name("function")?,
        "new_expression" => node.child_by_field_name("constructor")?,
        _ => return None,
    };
    Some((callee, node.child_by_field_name("arguments")?))
}
