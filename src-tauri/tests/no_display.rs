//! Started without a display, the app says how to run it instead of panicking inside GTK.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use std::process::Command;

#[test]
fn without_a_display_the_app_says_to_use_xvfb_run() {
    let out = Command::new(env!("CARGO_BIN_EXE_verity-desktop"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "one sentence: {err}");
    assert!(err.contains("xvfb-run verity-desktop"), "{err}");
}
