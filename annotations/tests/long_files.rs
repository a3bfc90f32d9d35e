//! Files a newcomer can hold: no Rust source of the workspace's crates (the core, the layers
//! below it, the `verity` binary, the test kit) or the desktop app runs past 700 lines before its
//! tests (an inline `#[cfg(test)]` module, or a `tests.rs`
//! of its own, which does not count).

use std::path::{Path, PathBuf};

/// The most lines a source file may have before its tests.
const MOST_LINES: usize = 700;

/// The lines of `text` before its first `#[cfg(test)]` line.
fn lines_before_tests(text: &str) -> usize {
    text.lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .count()
}

#[test]
fn no_source_file_runs_past_700_lines_before_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files: Vec<PathBuf> = [
        "crates/task/src",
        "crates/stats/src",
        "crates/evidence/src",
        "crates/store/src",
        "crates/endpoint/src",
        "annotations/src",
        "crates/cli/src",
        "crates/testkit/src",
        "src-tauri/src",
    ]
    .iter()
    .flat_map(|dir| verity_testkit::rust_files(&root.join(dir)))
    .filter(|path| path.file_name().is_some_and(|n| n != "tests.rs"))
    .collect();
    assert!(files.len() > 100, "the sources were not found");
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(file)
                .unwrap_or_else(|err| panic!("cannot read {}: {err}", file.display()));
            let lines = lines_before_tests(&text);
            let shown = file.strip_prefix(&root).unwrap_or(file).display();
            (lines > MOST_LINES).then(|| format!("{shown}: {lines} lines"))
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "split these by concern (at most {MOST_LINES} lines before the tests):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_count_stops_at_the_tests() {
    let text = "fn a() {}\nfn b() {}\n\n#[cfg(test)]\nmod tests {\n    fn c() {}\n}\n";
    assert_eq!(lines_before_tests(text), 3);
    assert_eq!(lines_before_tests("fn a() {}\n"), 1);
}
