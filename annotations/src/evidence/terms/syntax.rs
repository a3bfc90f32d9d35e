//! Terms of Python, Go, JavaScript and TypeScript files from their syntax trees (tree-sitter),
//! with the role each plays, and the names a gold patch defines.
//!
//! # Roles
//! A term's role comes from the syntax around it, read from the term outwards:
//! - inside an import (`import`, `from ... import`, Go import specs, `require(...)`):
//!   [`TermRole::Import`];
//! - an argument of a call: an assertion (`assert*`, `require.*`, `expect(...)...`,
//!   `self.assert*`, `pytest.raises`, `cmp.Diff`...) makes it [`TermRole::Asserted`]; the first
//!   argument of a test-naming call (`t.Run`, `describe`, `it`, `test`, `subTest`) makes it
//!   [`TermRole::TestName`]; a file-opening or loading call (`open`, `os.ReadFile`,
//!   `filepath.Join`, `load*`...) makes it [`TermRole::FixturePath`];
//! - a side of a comparison in a Python `assert` or in an `if` condition: asserted;
//! - the value of a field or key (keyed struct fields, positional struct fields by the struct
//!   type's field names, dict and object keys, keyword arguments, declared variables, the
//!   argument names of a `pytest.mark.parametrize` case): names
//!   like `want*`, `expected*`, `exp`, `out*`, `result*`, or a field the test reads inside an
//!   assertion (`tt.namespaces`), make it asserted; `name`, `desc`, `title`, `ids` a test
//!   name; `path`, `file`, `fixture`, `testdata` (and `...Path`, `...File`) a fixture path;
//!   a variable given as an expected value (`expected: jarScanResult`) holds expected values
//!   where it is declared; the key of a Go map literal whose values are struct literals
//!   (`"jar": {...}`) is a test name.
//!
//! The nearest clue wins, with one exception: a role from a field name gives way to an
//! enclosing assertion or expected value (a `Name` inside a `want` struct is asserted). Calls
//! are clues only up to the nearest enclosing function (the body of `t.Run("...", func...)` is
//! not a test name); field names are clues all the way out (`expected: func() *Config {...}`).
//! A term with no clue in the tree takes one from its line: a `key:` or `name :=` before it
//! (and, in a hunk parsed alone, whose tree may have lost the structure the hunk starts
//! inside, a less indented line above that opens an expected value), or a Go import spec's
//! shape. A string with no clue that is a path under a test-data folder is a fixture path;
//! anything else is [`TermRole::Other`].
//!
//! A string passed to a regular-expression or glob call (`re.compile`, `regexp.MustCompile`,
//! `new RegExp`, `toMatch`, `assert.Regexp`, `match=`, `fnmatch`, `filepath.Match`...) and a
//! JavaScript regex literal also give their literal runs ([`super::pattern`]).

use std::collections::{HashMap, HashSet};

use tree_sitter::{Language, Node, Parser, Tree};

use super::clues::{call_clue, expects, fixture_like, line_key, name_role, wants};
use super::newside::NewSide;
use super::{Pattern, Place, Sink, TermKind, TermRole, TermSource};
use super::{is_noise_identifier, is_noise_number};
use crate::evidence::noise;
use crate::patch::patch_lines;

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
    let ext = path.rsplit('/').next()?.rsplit_once('.')?.1;
    Some(match ext {
        "py" | "pyi" => Grammar::Python,
        "go" => Grammar::Go,
        "js" | "jsx" | "mjs" | "cjs" => Grammar::JavaScript,
        "ts" | "mts" | "cts" => Grammar::TypeScript,
        "tsx" => Grammar::Tsx,
        _ => return None,
    })
}

impl Grammar {
    fn language(self) -> Language {
        match self {
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::Go => tree_sitter_go::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    fn keywords(self) -> &'static [&'static str] {
        match self {
            Grammar::Python => noise::PYTHON_KEYWORDS,
            Grammar::Go => noise::GO_KEYWORDS,
            Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => noise::JS_KEYWORDS,
        }
    }
}

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

/// Visits every node of `tree` in document order, skipping subtrees that `visit` declines,
/// with the node's ancestors (outermost first).
fn walk<'t>(tree: &'t Tree, mut visit: impl FnMut(Node<'t>, &[Node<'t>]) -> bool) {
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

fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

fn same(a: Option<Node<'_>>, b: Node<'_>) -> bool {
    a.is_some_and(|a| a.id() == b.id())
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

const IMPORT_KINDS: &[&str] = &[
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "import_spec",
    "import_declaration",
];

const FUNCTION_KINDS: &[&str] = &[
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
fn string_content<'s>(node: Node<'_>, src: &'s str) -> Option<(&'s str, bool)> {
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
fn call_parts(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let callee = match node.kind() {
        "call_expression" | "call" => node.child_by_field_name("function")?,
        "new_expression" => node.child_by_field_name("constructor")?,
        _ => return None,
    };
    Some((callee, node.child_by_field_name("arguments")?))
}

/// Whether an `if` statement is a test's check: its body reports a failure.
fn is_check(if_statement: Node<'_>, src: &str) -> bool {
    if_statement
        .child_by_field_name("consequence")
        .is_some_and(|body| {
            let body = text(body, src);
            ["Error", "Fatal", "fail", "throw", "panic", "raise"]
                .iter()
                .any(|word| body.contains(word))
        })
}

/// The role of a term the syntax tree gave no clue for, from its line alone: a field's or
/// variable's name before it, or a Go import spec's shape (`"path"`, `alias "path"`) when the
/// hunk shows the spec without its `import (`.
fn line_role(line: &str, content: &str, grammar: Grammar, facts: &FileFacts) -> TermRole {
    if let Some((key, field)) = line_key(line) {
        let role = if field {
            facts.key_role(key)
        } else {
            facts.variable_role(key)
        };
        if let Some(role) = role {
            return role;
        }
    }
    let trimmed = line.trim();
    let quoted = format!("\"{content}\"");
    let spec = trimmed == quoted
        || trimmed
            .split_once(' ')
            .is_some_and(|(alias, path)| path == quoted && !alias.contains('('));
    if grammar == Grammar::Go && spec && !content.contains(char::is_whitespace) {
        TermRole::Import
    } else if fixture_like(content) {
        TermRole::FixturePath
    } else {
        TermRole::Other
    }
}

/// How many rows above a term [`enclosing_role`] looks.
const ENCLOSING_ROWS: usize = 60;

/// The role of a term with no clue in a hunk parsed alone, where the syntax tree may have lost
/// the structure the hunk starts inside: an enclosing line (less indented, above) that opens
/// an expected value (`expected: &Config{`, `want := []string{`) makes it asserted.
fn enclosing_role(texts: &[&str], row: usize, facts: &FileFacts) -> TermRole {
    let indent = |line: &str| line.len() - line.trim_start().len();
    let Some(mut limit) = texts.get(row).map(|line| indent(line)) else {
        return TermRole::Other;
    };
    for line in texts[..row].iter().rev().take(ENCLOSING_ROWS) {
        if line.trim().is_empty() || indent(line) >= limit {
            continue;
        }
        limit = indent(line);
        let opens = line.trim_end().ends_with(['{', '[', '(']);
        if let Some((key, field)) = line_key(line)
            && opens
        {
            let role = if field {
                facts.key_role(key)
            } else {
                facts.variable_role(key)
            };
            if role == Some(TermRole::Asserted) {
                return TermRole::Asserted;
            }
        }
        if limit == 0 {
            break;
        }
    }
    TermRole::Other
}

/// What one file's syntax tree knows beyond a node's ancestors.
struct FileFacts {
    /// Go struct types declared in the file: their field names in order.
    structs: HashMap<String, Vec<String>>,
    /// Fields and keys read inside assertions (`tt.namespaces`, `case["expected"]`).
    asserted_fields: HashSet<String>,
    /// Variables given as expected values (`expected: golang112ScanResult`): their
    /// declarations hold expected values too.
    expected_vars: HashSet<String>,
}

fn struct_fields(struct_type: Node<'_>, src: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cursor = struct_type.walk();
    for list in struct_type.named_children(&mut cursor) {
        let mut inner = list.walk();
        for field in list.named_children(&mut inner) {
            if field.kind() != "field_declaration" {
                continue;
            }
            let mut names = field.walk();
            let before = fields.len();
            for name in field.children_by_field_name("name", &mut names) {
                fields.push(text(name, src).to_string());
            }
            if fields.len() == before
                && let Some(ty) = field.child_by_field_name("type")
            {
                // An embedded field is named after its type.
                let ty = text(ty, src).trim_start_matches('*');
                fields.push(ty.rsplit('.').next().unwrap_or(ty).to_string());
            }
        }
    }
    fields
}

impl FileFacts {
    fn gather(tree: &Tree, src: &str) -> FileFacts {
        let mut facts = FileFacts {
            structs: HashMap::new(),
            asserted_fields: HashSet::new(),
            expected_vars: HashSet::new(),
        };
        let mut assertions = Vec::new();
        walk(tree, |node, _| {
            match node.kind() {
                "type_spec" => {
                    if let (Some(name), Some(ty)) = (
                        node.child_by_field_name("name"),
                        node.child_by_field_name("type"),
                    ) && ty.kind() == "struct_type"
                    {
                        facts
                            .structs
                            .insert(text(name, src).to_string(), struct_fields(ty, src));
                    }
                }
                "keyed_element" | "pair" | "keyword_argument" => {
                    let key = node
                        .child_by_field_name("key")
                        .or_else(|| node.child_by_field_name("name"));
                    let mut value = node.child_by_field_name("value");
                    while let Some(inner) = value.filter(|v| v.kind() == "literal_element") {
                        value = inner.named_child(0);
                    }
                    if let (Some(key), Some(value)) = (key, value)
                        && value.kind() == "identifier"
                        && wants(text(key, src).trim_matches(['"', '\'']))
                    {
                        facts.expected_vars.insert(text(value, src).to_string());
                    }
                }
                "assert_statement" => assertions.push(node),
                "if_statement" if is_check(node, src) => {
                    if let Some(condition) = node.child_by_field_name("condition") {
                        assertions.push(condition);
                    }
                }
                _ => {
                    if let Some((callee, arguments)) = call_parts(node)
                        && call_clue(text(callee, src)).role == Some(TermRole::Asserted)
                    {
                        assertions.push(arguments);
                    }
                }
            }
            true
        });
        for scope in assertions {
            let mut cursor = scope.walk();
            let mut stack = vec![scope];
            while let Some(node) = stack.pop() {
                let field = match node.kind() {
                    "selector_expression" => node.child_by_field_name("field"),
                    "member_expression" => node.child_by_field_name("property"),
                    "attribute" => node.child_by_field_name("attribute"),
                    "subscript" | "subscript_expression" => node
                        .child_by_field_name("subscript")
                        .or_else(|| node.child_by_field_name("index")),
                    _ => None,
                };
                if let Some(field) = field {
                    let name = text(field, src).trim_matches(['"', '\'']);
                    facts.asserted_fields.insert(name.to_string());
                }
                stack.extend(node.named_children(&mut cursor));
            }
        }
        facts
    }

    /// The role a variable's name gives the value it is declared or set to: asserted for an
    /// expected value (`want`, `expected`, `exp`, or a variable given as one), a fixture path
    /// for a path; a variable named `result` or `out` holds what the code under test returns,
    /// so its inputs are not asserted.
    fn variable_role(&self, name: &str) -> Option<TermRole> {
        if self.expected_vars.contains(name) || expects(name) {
            Some(TermRole::Asserted)
        } else {
            name_role(name).filter(|role| *role == TermRole::FixturePath)
        }
    }

    /// The role a field or key name gives its value.
    fn key_role(&self, name: &str) -> Option<TermRole> {
        let name = name.trim().trim_matches(['"', '\'', '`']);
        if name.is_empty() {
            return None;
        }
        if self.asserted_fields.contains(name) {
            Some(TermRole::Asserted)
        } else {
            name_role(name)
        }
    }
}

/// The role of the term at `node` (whose ancestors are `path`, outermost first), and whether
/// it is read as a pattern.
fn role_of(
    node: Node<'_>,
    path: &[Node<'_>],
    src: &str,
    facts: &FileFacts,
    inline_structs: &mut HashMap<usize, Vec<String>>,
) -> (TermRole, Pattern) {
    let mut found: Option<(TermRole, bool)> = None;
    let mut note = |role: TermRole, from_key: bool| match found {
        None => found = Some((role, from_key)),
        Some((_, true)) if role == TermRole::Asserted => found = Some((role, from_key)),
        Some(_) => {}
    };
    let mut pattern = Pattern::No;
    let mut crossed = false;
    let mut comparison = false;
    for at in (0..path.len()).rev() {
        let parent = path[at];
        let child = path.get(at + 1).copied().unwrap_or(node);
        let grandchild = path.get(at + 2).copied().unwrap_or(node);
        let kind = parent.kind();
        if IMPORT_KINDS.contains(&kind)
            || (kind == "export_statement" && same(parent.child_by_field_name("source"), child))
        {
            return (TermRole::Import, Pattern::No);
        }
        if FUNCTION_KINDS.contains(&kind) {
            crossed = true;
        }
        if !crossed && let Some((callee, arguments)) = call_parts(parent) {
            if arguments.id() == child.id() {
                let clue = call_clue(text(callee, src));
                if pattern == Pattern::No {
                    pattern = clue.pattern;
                }
                if let Some(role) = clue.role
                    && (!clue.first_only || same(arguments.named_child(0), grandchild))
                {
                    note(role, false);
                }
            }
            continue;
        }
        match kind {
            "assert_statement" if !crossed => note(TermRole::Asserted, false),
            "if_statement"
                if !crossed
                    && comparison
                    && same(parent.child_by_field_name("condition"), child)
                    && is_check(parent, src) =>
            {
                note(TermRole::Asserted, false);
            }
            "binary_expression" | "comparison_operator" if !crossed => {
                let op = parent
                    .child_by_field_name("operator")
                    .map(|op| text(op, src))
                    .unwrap_or_else(|| {
                        let mut cursor = parent.walk();
                        parent
                            .children(&mut cursor)
                            .find(|c| !c.is_named())
                            .map_or("", |c| text(c, src))
                    });
                if matches!(op, "==" | "!=" | "===" | "!==" | "in" | "not in") {
                    comparison = true;
                }
            }
            "keyed_element" | "pair" | "keyword_argument" => {
                let (key, value) = if kind == "keyword_argument" {
                    ("name", "value")
                } else {
                    ("key", "value")
                };
                if same(parent.child_by_field_name(value), child)
                    && let Some(key) = parent.child_by_field_name(key)
                {
                    let key = text(key, src);
                    if kind == "keyword_argument"
                        && matches!(key, "match" | "pattern" | "regex")
                        && pattern == Pattern::No
                    {
                        pattern = Pattern::Regex;
                    }
                    if let Some(role) = facts.key_role(key) {
                        note(role, true);
                    }
                } else if kind == "keyed_element"
                    && same(parent.child_by_field_name("key"), child)
                    && parent
                        .child_by_field_name("value")
                        .and_then(|value| value.named_child(0))
                        .is_some_and(|value| value.kind() == "literal_value")
                {
                    // A Go table keyed by case name: `"jar": {...}`.
                    note(TermRole::TestName, true);
                }
            }
            "tuple" if at >= 3 => {
                if let Some(name) = parametrized_name(&path[at - 3..=at], child, src)
                    && let Some(role) = facts.key_role(&name)
                {
                    note(role, true);
                }
            }
            "literal_value" if child.kind() == "literal_element" => {
                if let Some(field) =
                    positional_field(&path[..=at], child, src, facts, inline_structs)
                    && let Some(role) = facts.key_role(&field)
                {
                    note(role, true);
                }
            }
            "short_var_declaration"
            | "assignment_statement"
            | "assignment"
            | "assignment_expression"
            | "var_spec"
            | "const_spec"
            | "variable_declarator" => {
                let left = ["left", "name"]
                    .iter()
                    .find_map(|field| parent.child_by_field_name(field));
                if let Some(left) = left
                    && left.id() != child.id()
                {
                    let name = text(left, src);
                    let name = name.rsplit(['.', ',']).next().unwrap_or(name).trim();
                    if let Some(role) = facts.variable_role(name) {
                        note(role, true);
                    }
                }
            }
            _ => {}
        }
    }
    (found.map_or(TermRole::Other, |(role, _)| role), pattern)
}

/// The argument name of a value in a `pytest.mark.parametrize("value,expected", [(...)])`
/// case: `path` runs from the call to the case's tuple, `child` is the tuple's element.
fn parametrized_name(path: &[Node<'_>], child: Node<'_>, src: &str) -> Option<String> {
    let [call, arguments, cases, tuple] = path else {
        return None;
    };
    let (callee, args) = call_parts(*call)?;
    if !text(callee, src).ends_with("parametrize")
        || args.id() != arguments.id()
        || cases.kind() != "list"
        || !same(arguments.named_child(1), *cases)
    {
        return None;
    }
    let names = arguments.named_child(0)?;
    let names: Vec<&str> = match names.kind() {
        "string" => string_content(names, src)?
            .0
            .split(',')
            .map(str::trim)
            .collect(),
        "list" | "tuple" => {
            let mut cursor = names.walk();
            names
                .named_children(&mut cursor)
                .filter_map(|name| string_content(name, src).map(|(text, _)| text))
                .collect()
        }
        _ => return None,
    };
    let mut cursor = tuple.walk();
    let index = tuple
        .named_children(&mut cursor)
        .position(|element| element.id() == child.id())?;
    names.get(index).map(|name| name.to_string())
}

/// The struct type a Go literal value `{...}` builds, from the composite literal around it
/// (`[]struct{...}{{...}}`, `[]testCase{{...}}`, `T{...}`); `path` ends with the literal value.
fn literal_struct_type<'t>(path: &[Node<'t>]) -> Option<Node<'t>> {
    let mut at = path.len().checked_sub(2)?;
    let mut element = false;
    while path[at].kind() != "composite_literal" {
        match path[at].kind() {
            "literal_element" | "keyed_element" => {}
            "literal_value" => element = true,
            _ => return None,
        }
        at = at.checked_sub(1)?;
    }
    let mut ty = path[at].child_by_field_name("type")?;
    if element {
        ty = match ty.kind() {
            "slice_type" | "array_type" | "implicit_length_array_type" => {
                ty.child_by_field_name("element")?
            }
            "map_type" => ty.child_by_field_name("value")?,
            _ => return None,
        };
    }
    while ty.kind() == "pointer_type" {
        ty = ty.named_child(0)?;
    }
    Some(ty)
}

/// The name of the field that `element`, a positional element of the Go struct literal value
/// that ends `path`, sets.
fn positional_field(
    path: &[Node<'_>],
    element: Node<'_>,
    src: &str,
    facts: &FileFacts,
    inline_structs: &mut HashMap<usize, Vec<String>>,
) -> Option<String> {
    // The type first: a slice or map literal's long list of elements is never scanned.
    let ty = literal_struct_type(path)?;
    let fields = match ty.kind() {
        "struct_type" => inline_structs
            .entry(ty.id())
            .or_insert_with(|| struct_fields(ty, src)),
        "type_identifier" => facts.structs.get(text(ty, src))?,
        _ => return None,
    };
    let value = path.last()?;
    let mut cursor = value.walk();
    let mut index = None;
    let items = value
        .named_children(&mut cursor)
        .filter(|item| item.kind() != "comment");
    for (at, item) in items.enumerate() {
        match item.kind() {
            "keyed_element" => return None,
            _ if item.id() == element.id() => index = Some(at),
            _ => {}
        }
    }
    fields.get(index?).cloned()
}

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
        .is_some_and(|(callee, _)| {
            matches!(text(callee, src), "require" | "import" | "__import__")
                || text(callee, src).ends_with("import_module")
        })
}

/// The names the gold patch defines on its added lines (functions, methods, types, classes,
/// struct fields, module- and class-level variables and constants), read from each Python,
/// Go, JavaScript or TypeScript file's hunks; each with whether it can be used bare rather than
/// only as a member (fields, methods, and anything defined in a Python class body).
pub(super) fn gold_definitions(parsers: &mut Parsers, gold_patch: &str) -> HashMap<String, bool> {
    let lines = patch_lines(gold_patch);
    let mut names: HashMap<String, bool> = HashMap::new();
    let mut start = 0;
    while start < lines.len() {
        let file = lines[start].file;
        let end = lines[start..]
            .iter()
            .position(|l| l.file != file)
            .map_or(lines.len(), |n| start + n);
        let file_lines = &lines[start..end];
        start = end;
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
