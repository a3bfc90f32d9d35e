//! Declares the app's own commands so that `capabilities/` can grant exactly these and nothing
//! else (Tauri generates an `allow-<command>` permission for each).

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(verity_commands())),
    )
    .expect("the Tauri build script failed to read tauri.conf.json or the capabilities");
}

/// Every command the front end may call; the same list is registered in `src/lib.rs`.
fn verity_commands() -> &'static [&'static str] {
    &[
        "open_demo_project",
        "open_project",
        "open_startup_project",
        "sign_in",
        "list_raters",
        "add_rater",
        "assign_raters",
        "rater_queue",
        "list_cases",
        "case_view",
        "project_questionnaire",
        "current_answer",
        "save_draft",
        "submit_answer",
        "revise_answer",
        "record_time",
        "import_paths",
        "cancel_job",
        "export_project",
        "project_agreement",
        "ensemble_labels",
        "list_disagreements",
        "adjudicate",
        "case_evidence",
        "grep_case",
        "show_file",
        "list_repositories",
        "add_repository",
        "evidence_all",
        "open_external",
    ]
}
