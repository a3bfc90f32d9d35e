//! The command reference (`docs/commands.md`) and `verity --help` agree: every subcommand and
//! flag the binary has is in the reference's command block, on a line of its command, and every
//! flag the reference gives a command exists.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::process::Command;

/// Flags every command takes, documented once in the command reference's prose.
const GLOBAL: [&str; 6] = [
    "--project",
    "--verbose",
    "--as",
    "--include-models",
    "--help",
    "--version",
];

fn help(path: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_verity"))
        .args(path)
        .arg("-h")
        .output()
        .unwrap();
    assert!(out.status.success(), "verity {path:?} --help failed");
    String::from_utf8(out.stdout).unwrap()
}

/// The lines of a help section (`Commands:` or `Options:`).
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| l.trim() != title)
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect()
}

/// The names in a `Commands:` section: lines indented by exactly two spaces.
fn subcommands(help: &str) -> Vec<String> {
    section(help, "Commands:")
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

fn long_flags(help: &str) -> BTreeSet<String> {
    section(help, "Options:")
        .iter()
        .map(|l| l.trim())
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| {
            l.split([' ', ','])
                .find(|w| w.starts_with("--"))
                .map(|w| w.trim_end_matches('.').to_string())
        })
        .filter(|f| !GLOBAL.contains(&f.as_str()))
        .collect()
}

/// Every command path with its help text, subcommands first-level and second-level.
fn commands() -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    for name in subcommands(&help(&[])) {
        let text = help(&[&name]);
        let subs = subcommands(&text);
        if subs.is_empty() {
            out.push((vec![name], text));
            continue;
        }
        for sub in subs {
            let text = help(&[&name, &sub]);
            out.push((vec![name.clone(), sub], text));
        }
    }
    out
}

fn readme_lines() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/commands.md"
    ))
    .unwrap();
    let block = readme
        .split("## The command line")
        .nth(1)
        .unwrap()
        .split("```sh")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap()
        .to_string();
    block.lines().map(str::to_string).collect()
}

#[test]
fn every_subcommand_and_flag_is_in_the_readme_and_every_readme_flag_exists() {
    let lines = readme_lines();
    let commands = commands();
    assert!(commands.len() > 20, "{commands:?}");
    for (path, text) in &commands {
        let invocation = format!("verity {}", path.join(" "));
        // A command's part of a line runs from its invocation to the next command or the comment.
        let parts: Vec<&str> = lines
            .iter()
            .flat_map(|l| {
                l.match_indices(invocation.as_str())
                    .map(|(at, _)| &l[at + invocation.len()..])
                    .filter(|rest| rest.is_empty() || rest.starts_with(' '))
                    .map(|rest| {
                        let end = [
                            rest.find("; verity "),
                            rest.find(" | verity "),
                            rest.find('#'),
                        ]
                        .into_iter()
                        .flatten()
                        .min()
                        .unwrap_or(rest.len());
                        &rest[..end]
                    })
            })
            .collect();
        assert!(
            !parts.is_empty(),
            "the command reference does not show `{invocation}`"
        );
        let flags = long_flags(text);
        for flag in &flags {
            assert!(
                parts.iter().any(|p| p.contains(flag.as_str())),
                "the command reference shows `{invocation}` without its flag {flag}"
            );
        }
        for part in parts {
            for word in part.split(|c: char| c.is_whitespace() || "[]|;".contains(c)) {
                let flag = word.split('=').next().unwrap_or(word);
                if flag.starts_with("--") && !GLOBAL.contains(&flag) {
                    assert!(
                        flags.contains(flag),
                        "the command reference gives `{invocation}` the flag {flag}, which it does not have"
                    );
                }
            }
        }
    }
}

/// Each flag's default as the help gives it (`[default: 0]`).
fn defaults(help: &str) -> Vec<(String, String)> {
    let lines = section(help, "Options:");
    let mut out = Vec::new();
    let mut flag: Option<String> = None;
    for line in lines {
        let trimmed = line.trim();
        if trimmed.starts_with('-') {
            flag = trimmed
                .split([' ', ','])
                .find(|w| w.starts_with("--"))
                .map(str::to_string);
        }
        if let (Some(f), Some(at)) = (&flag, line.find("[default: ")) {
            let value = &line[at + "[default: ".len()..];
            out.push((f.clone(), value[..value.find(']').unwrap()].to_string()));
        }
    }
    out
}

#[test]
fn the_readme_gives_each_flag_the_default_the_command_has() {
    let lines = readme_lines();
    let mut checked = 0;
    for (path, text) in commands() {
        let invocation = format!("verity {} ", path.join(" "));
        for (flag, default) in defaults(&text) {
            for line in lines.iter().filter(|l| l.contains(invocation.as_str())) {
                let part = &line[line.find(invocation.as_str()).unwrap()..];
                let part = &part[..part.find('#').unwrap_or(part.len())];
                let words: Vec<&str> = part.split_whitespace().collect();
                for pair in words.windows(2) {
                    let value = pair[1].trim_end_matches(']');
                    // A placeholder (N, FILE) names no value.
                    if pair[0].trim_start_matches('[') == flag
                        && value.chars().all(|c| c.is_ascii_digit() || c == '.')
                    {
                        assert_eq!(
                            value, default,
                            "the command reference shows `{invocation}{flag} {value}`, but its default is {default}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(
        checked >= 5,
        "only {checked} defaults found in the command reference"
    );
}
