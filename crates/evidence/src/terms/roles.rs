//! The role a term plays, from the syntax around it in a parsed file.
//!
//! A term's role comes from the syntax around it, read from the term outwards:
//! - inside an import (`import`, `from ... import`, Go import specs, `require(...)`):
//!   [`TermRole::Import`];
//! - an argument of a call: an assertion (`assert*`, `require.*`, `expect(...)...`,
//!   `self.assert*`, `pytest.raises`, `cmp.Diff`...) makes it [`TermRole::Asserted`]; the first
//!   argument of a test-naming call (`t.Run`, `describe`, `it`, `test`, `subTest`) makes it
//!   [`TermRole::TestName`]; a file-opening or loading call (`open`, `os.ReadFile`,
//!   `filepath.Join`, `load*`...) makes it [`TermRole::FixturePath`];
//! - an argument of any other call whose name is lower-case (the code under test, not a value
//!   builder such as `dict(...)`, `mock.call(...)` or a capitalised constructor): an input,
//!   [`TermRole::Other`], even inside an assertion (`assertEqual(f("in"), "out")`);
//! - a side of a comparison in a Python `assert` or in an `if` condition: asserted;
//! - the value of a field or key (keyed struct fields, positional struct fields by the struct
//!   type's field names, dict and object keys, keyword arguments, the argument names of a
//!   `pytest.mark.parametrize` case): names like `want*`, `expected*`, `exp`, `out*`,
//!   `result*`, or a field the test reads inside an assertion (`tt.namespaces`), make it
//!   asserted; `name`, `desc`, `title`, `ids` a test name; `path`, `file`, `fixture`,
//!   `testdata` (and `...Path`, `...File`) a fixture path;
//! - the value a variable is declared or set to: `want*`, `expected*`, `exp`, or a variable
//!   given as an expected value elsewhere (`expected: jarScanResult`), make it asserted
//!   (`result` and `out` variables hold what the code returns, so they do not); a path-named
//!   variable a fixture path;
//! - the key of a Go map literal whose values are struct literals (`"jar": {...}`): a test
//!   name.
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

use tree_sitter::{Node, Tree};

use super::clues::{call_clue, expects, fixture_like, line_key, name_role, wants};
use super::tree::{
    FUNCTION_KINDS, Grammar, IMPORT_KINDS, call_parts, same, string_content, text, walk,
};
use super::{Pattern, TermRole};

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
pub(super) fn line_role(
    line: &str,
    content: &str,
    grammar: Grammar,
    facts: &FileFacts,
) -> TermRole {
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
pub(super) fn enclosing_role(texts: &[&str], row: usize, facts: &FileFacts) -> TermRole {
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
pub(super) struct FileFacts {
    /// Go struct types declared in the file: their field names in order.
    structs: HashMap<String, Vec<String>>,
    /// Fields and keys read inside assertions (`tt.namespaces`, `case["expected"]`).
    asserted_fields: HashSet<String>,
    /// Variables given as expected values (`expected: golang112ScanResult`): their
    /// declarations hold expected values too.
    expected_vars: HashSet<String>,
    /// Python variables handed straight to an assertion method or compared in an `assert`
    /// (`msg = "..."; self.assertRaisesMessage(ValueError, msg)`): a literal set to one is
    /// what the assertion checks. Go and JavaScript name their expected values (`want`,
    /// `expected`) and hand the value under test to the same calls.
    checked_vars: HashSet<String>,
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
    pub(super) fn gather(tree: &Tree, src: &str) -> FileFacts {
        let mut facts = FileFacts {
            structs: HashMap::new(),
            asserted_fields: HashSet::new(),
            expected_vars: HashSet::new(),
            checked_vars: HashSet::new(),
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
                "assert_statement" => {
                    assertions.push(node);
                    // `assert msg in caplog.text`: a variable compared in an assertion.
                    let mut cursor = node.walk();
                    for check in node.named_children(&mut cursor) {
                        if check.kind() == "comparison_operator" {
                            facts.check_identifiers(check, src);
                        }
                    }
                }
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
                        if node.kind() == "call" {
                            facts.check_identifiers(arguments, src);
                        }
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

    /// Records the identifiers among `node`'s children as variables an assertion checks.
    fn check_identifiers(&mut self, node: Node<'_>, src: &str) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "identifier" {
                self.checked_vars.insert(text(child, src).to_string());
            }
        }
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
pub(super) fn role_of(
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
                } else if clue.role.is_none()
                    && clue.pattern == Pattern::No
                    && feeds_code(text(callee, src))
                {
                    // The nearest call is the code under test: what it is given is an input,
                    // even inside an assertion (`assertEqual(f("in"), "out")`).
                    note(TermRole::Other, false);
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
                    // A Python keyword argument `name=`, `title=` or `description=` is data
                    // (`Model.objects.create(name="widget")`); of the test-name keys, only
                    // parametrize's `ids=` names tests there.
                    let role = facts.key_role(key).filter(|role| {
                        kind != "keyword_argument" || *role != TermRole::TestName || key == "ids"
                    });
                    if let Some(role) = role {
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
                    } else if facts.checked_vars.contains(name)
                        && same(parent.child_by_field_name("right"), child)
                        && child.kind() == "string"
                    {
                        note(TermRole::Asserted, true);
                    }
                }
            }
            _ => {}
        }
    }
    (found.map_or(TermRole::Other, |(role, _)| role), pattern)
}

/// Calls that build a value rather than run the code under test: what they are given is
/// part of the value (`dict(...)`, `mock.call(...)`, `textwrap.dedent(...)`).
const VALUE_BUILDERS: &[&str] = &[
    "dict",
    "list",
    "set",
    "tuple",
    "frozenset",
    "str",
    "int",
    "float",
    "bytes",
    "bool",
    "sorted",
    "call",
    "dedent",
    "ptr",
    "any",
];

/// Methods that test a value against what they are given: inside an assertion, that is an
/// expected value (`assert err.startswith("warning: slow")`, `assert.ok(out.includes("done"))`).
const PREDICATES: &[&str] = &[
    "startswith",
    "endswith",
    "startsWith",
    "endsWith",
    "includes",
    "contains",
    "__contains__",
    "find",
    "rfind",
    "index",
    "indexOf",
    "lastIndexOf",
    "count",
    "has",
    "hasattr",
];

/// Whether a call runs code rather than build or test a value: a lower-case name (a function
/// or method of the code; capitalised names build values: classes, Go constructors,
/// `time.Date`, `errors.New`) that is neither a value builder nor a predicate.
fn feeds_code(callee: &str) -> bool {
    let last = callee.rsplit(['.', ':']).next().unwrap_or(callee).trim();
    last.starts_with(|c: char| c.is_ascii_lowercase())
        && !VALUE_BUILDERS.contains(&last)
        && !PREDICATES.contains(&last)
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
