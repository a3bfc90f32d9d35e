//! The IPC surface is the one list in `src/command_list.rs`: the handlers and the build
//! script's permissions expand it; the capability file and the TypeScript client must name
//! exactly its commands, and the client listens to the event the shell emits.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

fn listed() -> BTreeSet<String> {
    verity_desktop::COMMANDS
        .iter()
        .map(|c| c.to_string())
        .collect()
}

#[test]
fn the_capability_file_grants_exactly_the_listed_commands() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/capabilities/default.json"
    ))
    .unwrap();
    let conf: serde_json::Value = serde_json::from_str(&text).unwrap();
    let granted: BTreeSet<String> = conf["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str()?.strip_prefix("allow-"))
        .map(|p| p.replace('-', "_"))
        .collect();
    assert_eq!(granted, listed());
}

#[test]
fn the_typescript_client_calls_exactly_the_listed_commands() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ui/src/lib/api/index.ts"
    ))
    .unwrap();
    // Every call goes through `call<T>('name', …)`.
    let called: BTreeSet<String> = text
        .split("call<")
        .skip(1)
        .filter_map(|rest| {
            let name = rest.split_once(">('")?.1;
            Some(name.split('\'').next()?.to_string())
        })
        .collect();
    assert_eq!(called, listed());
}

#[test]
fn the_typescript_client_listens_to_the_event_the_shell_emits() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ui/src/lib/api/index.ts"
    ))
    .unwrap();
    let name = format!(
        "const ANSWERS_CHANGED = '{}';",
        verity_desktop::feed::ANSWERS_CHANGED
    );
    assert!(text.contains(&name), "index.ts lacks {name}");
    let capabilities = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/capabilities/default.json"
    ))
    .unwrap();
    for permission in ["core:event:allow-listen", "core:event:allow-unlisten"] {
        assert!(capabilities.contains(&format!("\"{permission}\"")));
    }
}
