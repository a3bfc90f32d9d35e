//! Terms of Python, Go, JavaScript and TypeScript files from their syntax trees (tree-sitter),
//! with the role each plays ([`super::roles`]), and the names a gold patch defines.
//!
//! Each file's new side is parsed once and walked twice: whole, for what roles need to know
//! (struct types, fields read in assertions), then only into subtrees that hold added lines.

use std::collections::HashMap;

use tree_sitter::{Node, Parser, Tree};

use super::clues::call_clue;
use super::newside::NewSide;
use super::roles::{FileFacts, enclosing_role, line_role, role_of};
use super::tree::{
    FUNCTION_KINDS, Grammar, IMPORT_KINDS, call_parts, grammar_of, same, string_content, text, walk,
};
use super::{Pattern, Place, Sink, TermKind, TermRole, TermSource};
use super::{is_noise_identifier, is_noise_number};
use verity_task::patch::patch_lines;

/// One parser per grammar, made when first needed and reused for every file of a call.
#[derive(Default)]
pub(super) struct Parsers {
    parsers: [Option<Parser>; 5],
}

impl Parsers {
    fn parse(&mut self, grammar: Grammar, text: &str) -> Option<Tree> {
        let slot = &mut self.parsers[grammar as usize];
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&grammar.language()).ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(text, None)
    }
}

/// Which rows of a parsed text are added lines; `any_in` answers for a span of rows at once.
struct AddedRows {
    /// `before[r]`: how many added rows come before row `r`.
    before: Vec<usize>,
}

impl AddedRows {
    fn new(side: &NewSide<'_>) -> AddedRows {
        let mut before = Vec::with_capacity(side.added.len() + 1);
        let mut count = 0;
        before.push(0);
        for by in &side.added {
            count += usize::from(by.is_some());
            before.push(count);
        }
        AddedRows { before }
    }

    fn any_in(&self, first: usize, last: usize) -> bool {
        let last = (last + 1).min(self.before.len() - 1);
        let first = first.min(last);
        self.before[last] > self.before[first]
    }
}

const IDENTIFIER_KINDS: &[&str] = &[
    "identifier",
    "field_identifier",
    "type_identifier",
    "package_identifier",
    "property_identifier",
    "shorthand_property_identifier",
    "private_property_identifier",
];

const NUMBER_KINDS: &[&str] = &[
    "int_literal",
    "float_literal",
    "imaginary_literal",
    "integer",
    "float",
    "number",
];

/// Whether an identifier is a term: called, read as an attribute or imported.
fn identifier_is_term(node: Node<'_>, path: &[Node<'_>]) -> bool {
    let Some(&parent) = path.last() else {
        return false;
    };
    let field = |name: &str| same(parent.child_by_field_name(name), node);
    match parent.kind() {
        "call_expression" | "call" => field("function"),
        "new_expression" => field("constructor"),
        "selector_expression" => field("field"),
        "member_expression" => field("property"),
        "attribute" => field("attribute"),
        "qualified_type" => field("name"),
        _ => path
            .iter()
            .rev()
            .take(4)
            .any(|p| IMPORT_KINDS.contains(&p.kind())),
    }
}

/// Whether an identifier names a member of something: a selected field or method, an
/// attribute, an object's or struct literal's key.
fn is_member(node: Node<'_>, path: &[Node<'_>]) -> bool {
    let Some(&parent) = path.last() else {
        return false;
    };
    let field = |name: &str| same(parent.child_by_field_name(name), node);
    match parent.kind() {
        "selector_expression" => field("field"),
        "member_expression" => field("property"),
        "attribute" => field("attribute"),
        "pair" => field("key"),
        "literal_element" => {
            path.len() >= 2 && {
                let keyed = path[path.len() - 2];
                keyed.kind() == "keyed_element" && same(keyed.child_by_field_name("key"), parent)
            }
        }
        _ => node.kind() == "shorthand_property_identifier",
    }
}

/// The terms of one parsed file's added lines.
pub(super) fn file_terms(
    parsers: &mut Parsers,
    grammar: Grammar,
    side: &NewSide<'_>,
    file: &str,
    sink: &mut Sink,
) {
    let Some(tree) = parsers.parse(grammar, &side.text) else {
        return;
    };
    let src = side.text.as_str();
    let rows = AddedRows::new(side);
    let facts = FileFacts::gather(&tree, src);
    let mut inline_structs = HashMap::new();
    let keywords = grammar.keywords();
    let texts: Vec<&str> = src.lines().collect();
    let unclued = |row: usize, content: &str| {
        let role = line_role(
            texts.get(row).copied().unwrap_or(""),
            content,
            grammar,
            &facts,
        );
        if role == TermRole::Other && !side.whole {
            enclosing_role(&texts, row, &facts)
        } else {
            role
        }
    };
    walk(&tree, |node, path| {
        let (start, end) = (node.start_position().row, node.end_position().row);
        if !rows.any_in(start, end) {
            return false;
        }
        let Some(line) = side.added_at(start) else {
            return true;
        };
        let place = Place::of(file, line);
        let kind = node.kind();
        if let Some((content, raw)) = string_content(node, src) {
            if start == end {
                let (role, pattern) = role_of(node, path, src, &facts, &mut inline_structs);
                let role = if role == TermRole::Other {
                    unclued(start, content)
                } else {
                    role
                };
                sink.add_string(content, role, pattern, raw, place);
            }
            return false;
        }
        if kind == "regex" {
            if let Some(pattern) = node.child_by_field_name("pattern") {
                let (role, _) = role_of(node, path, src, &facts, &mut inline_structs);
                sink.add_string(text(pattern, src), role, Pattern::Regex, true, place);
            }
            return false;
        }
        if NUMBER_KINDS.contains(&kind) {
            let number = text(node, src);
            if !is_noise_number(number) {
                let role = match role_of(node, path, src, &facts, &mut inline_structs).0 {
                    TermRole::Other => unclued(start, number),
                    role => role,
                };
                sink.add(number, TermKind::Number, role, TermSource::Literal, place);
            }
            return false;
        }
        if IDENTIFIER_KINDS.contains(&kind) {
            let name = text(node, src);
            if !is_noise_identifier(name, keywords) {
                sink.use_identifier(name, is_member(node, path), place);
                if identifier_is_term(node, path) {
                    let role = match role_of(node, path, src, &facts, &mut inline_structs).0 {
                        TermRole::Other => unclued(start, name),
                        role => role,
                    };
                    sink.add(name, TermKind::Identifier, role, TermSource::Literal, place);
                }
            }
            return false;
        }
        true
    });
}

/// Definitions by a name field: functions, types, classes, methods and fields.
const DEFINITION_KINDS: &[&str] = &[
    "function_declaration",
    "method_declaration",
    "type_spec",
    "type_alias",
    "function_definition",
    "class_definition",
    "class_declaration",
    "abstract_class_declaration",
    "generator_function_declaration",
    "method_definition",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "public_field_definition",
    "field_definition",
    "field_declaration",
];

/// Definitions of members, which tests name as `x.name` (or as a key).
const MEMBER_KINDS: &[&str] = &[
    "method_declaration",
    "method_definition",
    "public_field_definition",
    "field_definition",
    "field_declaration",
];

/// Variables and constants, defined when outside any function.
const VARIABLE_KINDS: &[&str] = &[
    "var_spec",
    "const_spec",
    "variable_declarator",
    "assignment",
];

/// Whether a variable binds a module (`const nconf = require('nconf')`): an import, not a
/// definition.
fn binds_module(node: Node<'_>, src: &str) -> bool {
    node.child_by_field_name("value")
        .or_else(|| node.child_by_field_name("right"))
        .and_then(call_parts)
        .is_some_and(|(callee, _)| call_clue(text(callee, src)).role == Some(TermRole::Import))
}

/// The names the gold patch defines on its added lines (functions, methods, types, classes,
/// struct fields, module- and class-level variables and constants), read from each Python,
/// Go, JavaScript or TypeScript file's hunks; each with whether it can be used bare rather than
/// only as a member (fields, methods, and anything defined in a Python class body).
pub(super) fn gold_definitions(parsers: &mut Parsers, gold_patch: &str) -> HashMap<String, bool> {
    let lines = patch_lines(gold_patch);
    let mut names: HashMap<String, bool> = HashMap::new();
    for (file, file_lines) in super::by_file(&lines) {
        let Some(grammar) = grammar_of(file) else {
            continue;
        };
        let side = NewSide::build(file_lines, None);
        let Some(tree) = parsers.parse(grammar, &side.text) else {
            continue;
        };
        let src = side.text.as_str();
        let rows = AddedRows::new(&side);
        walk(&tree, |node, path| {
            let (first, last) = (node.start_position().row, node.end_position().row);
            if !rows.any_in(first, last) {
                return false;
            }
            let kind = node.kind();
            let variable = VARIABLE_KINDS.contains(&kind);
            if !variable && !DEFINITION_KINDS.contains(&kind) {
                return true;
            }
            if variable
                && (path.iter().any(|p| FUNCTION_KINDS.contains(&p.kind()))
                    || binds_module(node, src))
            {
                return true;
            }
            let member = MEMBER_KINDS.contains(&kind)
                || (grammar == Grammar::Python
                    && path
                        .iter()
                        .rev()
                        .find(|p| matches!(p.kind(), "class_definition" | "function_definition"))
                        .is_some_and(|p| p.kind() == "class_definition"));
            let field = if kind == "assignment" { "left" } else { "name" };
            let mut cursor = node.walk();
            for name in node.children_by_field_name(field, &mut cursor) {
                let added = side.added_at(name.start_position().row).is_some();
                if added && IDENTIFIER_KINDS.contains(&name.kind()) {
                    *names.entry(text(name, src).to_string()).or_default() |= !member;
                }
            }
            true
        });
    }
    names
}
