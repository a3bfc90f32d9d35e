//! No circles between a crate's modules: each module's file names only modules below it.
//!
//! The graph of each library crate is built from the source text of its `src`. A file is a
//! module, and so is a folder's `mod.rs`; `terms/lexer.rs` is `terms::lexer`. Module `a` has an edge to
//! module `b` when `a`'s file names `b` in a path that starts with `crate::`, `super::` or
//! `self::`, in a `use` declaration (braced groups included) or anywhere in the code: the
//! module a path names is the longest prefix of it that is a module. Comments, doc links and
//! literals do not count, nor do `mod` declarations and paths relative to the current module
//! (`pub use blobs::CacheStats` in the evidence crate's `lib.rs`): a parent that declares and re-exports
//! its children is no circle. Code in an inline `mod tests { ... }` block belongs to the file's
//! module, and its `super::` is that module.
//!
//! Scope: in each library crate of the workspace, every cycle among all of its modules, and
//! every cycle between its top-level modules (a folder counting as one). Between crates, Cargo
//! refuses a cycle itself.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// A module's path below the crate root: `["evidence", "terms", "lexer"]`.
type ModulePath = Vec<String>;

/// Where a module's file names another module: the file and the first line that does.
#[derive(Clone, Debug)]
struct Site {
    file: String,
    line: usize,
}

/// Edges between modules, each with the first place its source names its target.
#[derive(Default)]
struct Graph {
    modules: BTreeSet<ModulePath>,
    edges: BTreeMap<ModulePath, BTreeMap<ModulePath, Site>>,
}

/// One source file: the module it is and its text.
struct Source {
    module: ModulePath,
    file: String,
    text: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Word(String),
    Path,
    Open,
    Close,
    Comma,
    Semicolon,
    Star,
    Other,
}

/// The tokens of a Rust file that matter for paths, each with its line; comments, strings,
/// characters and lifetimes are dropped.
fn tokens(text: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if at(i) == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let hashes = (i..).take_while(|&j| at(j) == '#').count();
            if matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"' {
                i += hashes + 1;
                let closing: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let closing: Vec<char> = closing.chars().collect();
                while i < chars.len() && !chars[i..].starts_with(&closing) {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += closing.len();
            } else {
                out.push((Token::Word(word), line));
            }
        } else {
            let token = match c {
                ':' if at(i + 1) == ':' => {
                    i += 1;
                    Token::Path
                }
                '{' => Token::Open,
                '}' => Token::Close,
                ',' => Token::Comma,
                ';' => Token::Semicolon,
                '*' => Token::Star,
                _ => Token::Other,
            };
            out.push((token, line));
            i += 1;
        }
    }
    out
}

fn word(tokens: &[(Token, usize)], i: usize) -> Option<&str> {
    match tokens.get(i) {
        Some((Token::Word(w), _)) => Some(w),
        _ => None,
    }
}

/// The paths of a `use` tree starting at `i` (after `use`), each as its segments, and the index
/// after the tree.
fn use_tree(
    tokens: &[(Token, usize)],
    mut i: usize,
    prefix: &[String],
) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix.to_vec();
    let mut paths = Vec::new();
    loop {
        match tokens.get(i).map(|(t, _)| t) {
            Some(Token::Word(w)) if w == "as" => i += 2,
            Some(Token::Word(w)) => {
                path.push(w.clone());
                i += 1;
            }
            Some(Token::Path) => i += 1,
            Some(Token::Star) => i += 1,
            Some(Token::Open) => {
                i += 1;
                loop {
                    match tokens.get(i).map(|(t, _)| t) {
                        Some(Token::Close) => {
                            i += 1;
                            break;
                        }
                        Some(Token::Comma) => i += 1,
                        None => break,
                        _ => {
                            let (inner, next) = use_tree(tokens, i, &path);
                            paths.extend(inner);
                            i = next;
                        }
                    }
                }
                return (paths, i);
            }
            _ => {
                paths.push(path);
                return (paths, i);
            }
        }
    }
}

/// The module a path names from module `current`, if it starts with `crate`, `super` or
/// `self`: the longest prefix of it that is a module.
fn resolve(
    modules: &BTreeSet<ModulePath>,
    current: &[String],
    path: &[String],
) -> Option<ModulePath> {
    let (mut base, rest) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (current.to_vec(), &path[1..]),
        Some("super") => {
            let supers = path.iter().take_while(|s| *s == "super").count();
            let keep = current.len().checked_sub(supers)?;
            (current[..keep].to_vec(), &path[supers..])
        }
        _ => return None,
    };
    let mut named = modules.contains(&base).then(|| base.clone());
    for segment in rest {
        base.push(segment.clone());
        if modules.contains(&base) {
            named = Some(base.clone());
        }
    }
    named
}

impl Graph {
    fn build(sources: &[Source]) -> Graph {
        let mut graph = Graph {
            modules: sources.iter().map(|s| s.module.clone()).collect(),
            ..Graph::default()
        };
        for source in sources {
            let tokens = tokens(&source.text);
            // Inline modules open in this file, with the brace depth each opened at.
            let mut inline: Vec<(String, usize)> = Vec::new();
            let mut depth = 0;
            let mut i = 0;
            while i < tokens.len() {
                let current: ModulePath = source
                    .module
                    .iter()
                    .cloned()
                    .chain(inline.iter().map(|(m, _)| m.clone()))
                    .collect();
                let line = tokens[i].1;
                let mut named = Vec::new();
                match &tokens[i].0 {
                    Token::Open => depth += 1,
                    Token::Close => {
                        depth -= 1;
                        if inline.last().is_some_and(|(_, d)| *d == depth) {
                            inline.pop();
                        }
                    }
                    Token::Word(w) if w == "mod" => {
                        if let (Some(name), Some((Token::Open, _))) =
                            (word(&tokens, i + 1), tokens.get(i + 2))
                        {
                            inline.push((name.to_string(), depth));
                            depth += 1;
                            i += 2;
                        }
                    }
                    Token::Word(w) if w == "use" => {
                        let (paths, next) = use_tree(&tokens, i + 1, &[]);
                        named = paths;
                        i = next - 1;
                    }
                    Token::Word(w)
                        if matches!(w.as_str(), "crate" | "super" | "self")
                            && tokens.get(i + 1).map(|(t, _)| t) == Some(&Token::Path) =>
                    {
                        let mut path = vec![w.clone()];
                        while tokens.get(i + 1).map(|(t, _)| t) == Some(&Token::Path) {
                            match word(&tokens, i + 2) {
                                Some(next) => {
                                    path.push(next.to_string());
                                    i += 2;
                                }
                                None => break,
                            }
                        }
                        named.push(path);
                    }
                    _ => {}
                }
                for path in named {
                    if let Some(target) = resolve(&graph.modules, &current, &path)
                        && target != source.module
                    {
                        graph
                            .edges
                            .entry(source.module.clone())
                            .or_default()
                            .entry(target)
                            .or_insert(Site {
                                file: source.file.clone(),
                                line,
                            });
                    }
                }
                i += 1;
            }
        }
        graph
    }

    /// The graph on the modules `keep` maps to a node (several modules may map to one), with an
    /// edge between two nodes when a module of one names a module of the other.
    fn project(&self, keep: impl Fn(&ModulePath) -> Option<ModulePath>) -> Graph {
        let mut out = Graph::default();
        for module in &self.modules {
            out.modules.extend(keep(module));
        }
        for (from, targets) in &self.edges {
            for (to, site) in targets {
                if let (Some(a), Some(b)) = (keep(from), keep(to))
                    && a != b
                {
                    out.edges
                        .entry(a)
                        .or_default()
                        .entry(b)
                        .or_insert_with(|| site.clone());
                }
            }
        }
        out
    }

    fn targets(&self, module: &ModulePath) -> impl Iterator<Item = &ModulePath> {
        self.edges.get(module).into_iter().flat_map(|t| t.keys())
    }

    /// The strongly connected components with more than one module (Tarjan's algorithm).
    fn circles(&self) -> Vec<Vec<ModulePath>> {
        struct State<'g> {
            graph: &'g Graph,
            index: BTreeMap<&'g ModulePath, usize>,
            low: BTreeMap<&'g ModulePath, usize>,
            stack: Vec<&'g ModulePath>,
            on_stack: BTreeSet<&'g ModulePath>,
            found: Vec<Vec<ModulePath>>,
        }
        fn visit<'g>(s: &mut State<'g>, v: &'g ModulePath) {
            let n = s.index.len();
            s.index.insert(v, n);
            s.low.insert(v, n);
            s.stack.push(v);
            s.on_stack.insert(v);
            for w in s.graph.targets(v) {
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.on_stack.contains(w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
            if s.low[v] == s.index[v] {
                let mut component = Vec::new();
                while let Some(w) = s.stack.pop() {
                    s.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    s.found.push(component);
                }
            }
        }
        let mut state = State {
            graph: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            found: Vec::new(),
        };
        for module in &self.modules {
            if !state.index.contains_key(module) {
                visit(&mut state, module);
            }
        }
        state.found.sort();
        state.found
    }

    /// A shortest cycle through the first module of `component`, within it.
    fn shortest_cycle(&self, component: &[ModulePath]) -> Vec<ModulePath> {
        let inside: BTreeSet<&ModulePath> = component.iter().collect();
        let start = &component[0];
        let mut parent: BTreeMap<&ModulePath, &ModulePath> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(v) = queue.pop_front() {
            for w in self.targets(v).filter(|w| inside.contains(w)) {
                if w == start {
                    let mut cycle = vec![v.clone()];
                    let mut at = v;
                    while let Some(p) = parent.get(at) {
                        cycle.push((*p).clone());
                        at = p;
                    }
                    cycle.reverse();
                    cycle.push(start.clone());
                    return cycle;
                }
                if !parent.contains_key(w) && w != start {
                    parent.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        vec![start.clone()]
    }

    /// Each circle: a shortest cycle, then every edge inside it with where it is written.
    fn report(&self) -> String {
        let mut out = String::new();
        for component in self.circles() {
            let cycle: Vec<String> = self.shortest_cycle(&component).iter().map(name).collect();
            out.push_str(&format!(
                "circle of {} modules: {}\n",
                component.len(),
                cycle.join(" -> ")
            ));
            for from in &component {
                for to in self.targets(from).filter(|t| component.contains(t)) {
                    let site = &self.edges[from][to];
                    out.push_str(&format!(
                        "    {} names {} ({}:{})\n",
                        name(from),
                        name(to),
                        site.file,
                        site.line
                    ));
                }
            }
        }
        out
    }
}

fn name(module: &ModulePath) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}

/// Every module of the library crate under `dir`, `src/bin` left out.
fn sources(dir: &Path) -> Vec<Source> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<Source>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap();
            if path.is_dir() {
                if relative != Path::new("bin") {
                    walk(root, &path, out);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let mut module: ModulePath = relative
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                module.pop();
            }
            out.push(Source {
                module,
                file: format!("src/{}", relative.display()),
                text: std::fs::read_to_string(&path).unwrap(),
            });
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

/// Each library crate of the workspace by its folder, with the graph of its modules. Between
/// crates Cargo refuses a circle; within one, this test does.
fn libraries() -> Vec<(&'static str, Graph)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let crates = [
        "crates/task",
        "crates/stats",
        "crates/evidence",
        "crates/store",
        "crates/endpoint",
        "annotations",
        "crates/testkit",
    ];
    crates
        .into_iter()
        .map(|dir| (dir, Graph::build(&sources(&root.join(dir).join("src")))))
        .collect()
}

#[test]
fn no_circle_among_the_modules() {
    for (dir, graph) in libraries() {
        let report = graph.report();
        assert!(
            report.is_empty(),
            "modules of {dir} name each other in a circle:\n{report}"
        );
    }
}

#[test]
fn no_circle_among_the_top_level_modules() {
    for (dir, graph) in libraries() {
        let report = graph
            .project(|m| m.first().map(|top| vec![top.clone()]))
            .report();
        assert!(
            report.is_empty(),
            "top-level modules of {dir} name each other in a circle:\n{report}"
        );
    }
}

fn source(module: &str, text: &str) -> Source {
    Source {
        module: module
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect(),
        file: format!("{module}.rs"),
        text: text.to_string(),
    }
}

#[test]
fn the_graph_finds_circles_through_use_groups_paths_in_code_and_tests_and_ignores_comments_and_literals()
 {
    let sources = [
        source("", "pub mod a;\npub mod b;\npub mod c;\npub mod d;"),
        source("a", "use crate::{b::{self, Thing}, d};\n"),
        source("b", "fn f() { super::c::run(); }\n"),
        source(
            "c",
            "#[cfg(test)]\nmod tests {\n    use super::*;\n    fn g() { crate::a::x(); }\n}\n",
        ),
        source(
            "d",
            "// crate::a::x\n/* super::a */\nconst S: &str = \"crate::a\";\nconst R: &str = r#\"super::a\"#;\nfn h<'a>(c: char) -> bool { c == '\"' }\npub(crate) fn i() {}\n",
        ),
    ];
    let graph = Graph::build(&sources);
    let report = graph.report();
    assert_eq!(graph.circles().len(), 1, "{report}");
    assert!(
        report.contains("circle of 3 modules: a -> b -> c -> a"),
        "{report}"
    );
    assert!(report.contains("c names a (c.rs:4)"), "{report}");
    assert!(
        graph.targets(&vec!["d".to_string()]).next().is_none(),
        "comments and literals name no module: {report}"
    );
}
