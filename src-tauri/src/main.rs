//! The Verity desktop app's entry point.
// Without this a console window opens next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    verity_desktop::run();
}
