//! `verity demo` and the app open the same demo project: the CLI derives the app's data folder
//! from the identifier that Tauri names it after.
#![allow(clippy::unwrap_used)]

#[test]
fn the_cli_knows_the_apps_identifier() {
    let conf: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tauri.conf.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(conf["identifier"], annotations::ops::APP_IDENTIFIER);
}

#[cfg(target_os = "linux")]
#[test]
fn the_demo_folder_is_inside_the_apps_data_folder() {
    // Tauri's app_data_dir on Linux is $XDG_DATA_HOME/<identifier>; the app keeps its demo in
    // the `demo` folder there (commands::open_demo_project).
    let dir = annotations::ops::default_demo_dir().unwrap();
    let data_home = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").unwrap()).join(".local/share")
        });
    assert_eq!(
        dir,
        data_home
            .join(annotations::ops::APP_IDENTIFIER)
            .join("demo")
    );
}
