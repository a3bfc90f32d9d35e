//! Declares the app's own commands so that `capabilities/` can grant exactly these and nothing
//! else (Tauri generates an `allow-<command>` permission for each).

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(verity_commands())),
    )
    .expect("the Tauri build script failed to read tauri.conf.json or the capabilities");
}

include!("src/command_list.rs");

/// Every command the front end may call, from the list `src/lib.rs` registers.
fn verity_commands() -> &'static [&'static str] {
    verity_commands!(command_names)
}
