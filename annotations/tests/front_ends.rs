//! The front ends (the `verity` command line and the desktop app) reach the core through
//! `annotations::ops` alone: neither names another core module. Their manifests list none of
//! the layers below the core nor git2, rusqlite or tokio_postgres, so Cargo refuses those; this
//! test also fails on them, so that a dependency added to a front end's manifest is caught.

use std::path::{Path, PathBuf};

/// The libraries beneath the core, which a front end may not name either.
const BELOW_OPS: [&str; 3] = ["git2::", "rusqlite::", "tokio_postgres::"];

/// Each line of `text` (from `file`) that names a core module other than `ops`, as
/// `file:line: text`. Comments are skipped: they may name what they explain.
fn reaches_past_ops(file: &Path, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let past_ops = code.match_indices("annotations::").any(|(at, prefix)| {
            let rest = &code[at + prefix.len()..];
            !(rest.starts_with("ops::") || rest.starts_with("ops;"))
        }) || BELOW_OPS.iter().any(|name| {
            code.match_indices(name).any(|(at, _)| {
                // `git2::` alone, not the tail of another path (`my_git2::`).
                !code[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        });
        if past_ops {
            found.push(format!("{}:{}: {}", file.display(), number + 1, code));
        }
    }
    found
}

#[test]
fn the_front_ends_name_no_core_module_but_ops() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files: Vec<PathBuf> = ["crates/cli/src", "src-tauri/src"]
        .iter()
        .flat_map(|dir| verity_testkit::rust_files(&root.join(dir)))
        .collect();
    assert!(
        files.len() > 10,
        "the front ends' sources were not found under {}",
        root.display()
    );
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|err| panic!("cannot read {}: {err}", file.display()));
        let shown = file.strip_prefix(&root).unwrap_or(file);
        found.extend(reaches_past_ops(shown, &text));
    }
    assert!(
        found.is_empty(),
        "front ends reach past annotations::ops (re-export what they need from ops):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_front_end_naming_a_core_module_is_found_with_its_file_and_line() {
    let file = Path::new("src-tauri/src/commands.rs");
    let text = "use annotations::ops::{self, Project};\n\
                // annotations::hub is explained here\n\
                let settings = annotations::hub::HubSettings::from_env();\n\
                use annotations::{evidence, ops};\n\
                unsafe { git2::opts::set_mwindow_size(1) };\n\
                let db: rusqlite::Connection = open();\n\
                let client: tokio_postgres::Client = connect();\n\
                let fine = my_git2::thing();\n";
    assert_eq!(
        reaches_past_ops(file, text),
        [
            "src-tauri/src/commands.rs:3: let settings = annotations::hub::HubSettings::from_env();",
            "src-tauri/src/commands.rs:4: use annotations::{evidence, ops};",
            "src-tauri/src/commands.rs:5: unsafe { git2::opts::set_mwindow_size(1) };",
            "src-tauri/src/commands.rs:6: let db: rusqlite::Connection = open();",
            "src-tauri/src/commands.rs:7: let client: tokio_postgres::Client = connect();",
        ]
    );
}
