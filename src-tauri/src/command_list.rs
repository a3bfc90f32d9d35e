// The app's IPC surface in one list. `lib.rs` registers these handlers and `build.rs` declares
// them to Tauri (which generates an `allow-<command>` permission for each), both by expanding
// this macro; `tests/ipc_surface.rs` checks the capability file and the TypeScript client
// against it. Adding a command: its function in its family's module under `commands/`, its
// name here.
macro_rules! verity_commands {
    ($expand:ident) => {
        $expand!(
            open_demo_project,
            open_empty_demo_project,
            open_project,
            open_server_project,
            open_startup_project,
            recent_projects,
            forget_recent_project,
            sign_in,
            sign_out,
            list_raters,
            add_rater,
            assign_raters,
            draw_sample,
            sample_status,
            queue_page,
            next_task,
            progress_page,
            case_view,
            project_questionnaire,
            current_answer,
            save_draft,
            submit_answer,
            revise_answer,
            record_time,
            import_paths,
            fetch_dataset,
            cancel_job,
            export_formats,
            export_project,
            prepare_publication,
            publish_dataset,
            project_agreement,
            rater_quality,
            calibration,
            mark_all_calibration,
            set_calibration_rate,
            ensemble_labels,
            import_results,
            list_results,
            remove_results,
            project_scores,
            project_estimate,
            disagreement_page,
            adjudicate,
            case_evidence,
            grep_case,
            show_file,
            list_repositories,
            add_repository,
            list_needed_repositories,
            clone_repository,
            evidence_all,
            list_models,
            add_model,
            remove_model,
            rate_model,
            compare_models,
            include_models,
            sweeps_for_raters,
            open_external,
        )
    };
}

/// The names of [`verity_commands`], as Tauri and the front end spell them.
macro_rules! command_names {
    ($($command:ident),* $(,)?) => {
        &[$(stringify!($command)),*]
    };
}
