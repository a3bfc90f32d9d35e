//! The use cases: the one API the `verity` command line and the desktop app call.
//!
//! Every function takes the open [`Project`], its arguments and, where it writes, the current
//! time as `now`: there are no hidden clocks. Requests and responses are plain serde types with
//! TypeScript bindings generated for the desktop app. Their keys are snake_case on the wire, like
//! the field's files (OpenAI's CSV columns, SWE-bench's fields), in `--json` and over IPC alike.
//!
//! Blindness: the coordinator's use cases ([`project_agreement`], [`ensemble_labels`],
//! [`list_disagreements`], the exports and the report) show every rater's answers; a rater's
//! view calls only [`current_answer`] and [`rater_queue`], which never show another rater's.

// What the front ends need of the lower layers, so that they import `ops` alone.
pub use crate::hub::{
    FileAction, HubSettings, PublishProgress, PublishReport, PublishStage, PublishedFile,
    UploadMode,
};
pub use verity_endpoint::Halt;
pub use verity_evidence::{
    Engine, GrepQuery, GrepReport, MissingObject, Proposal, ShownFile, Snippet, SweepResult, Tier,
    render_text as render_evidence_text, shell_quote,
};
pub use verity_stats::agreement::{
    AgreementReport, BootstrapOptions, Level, render_text as render_agreement_text,
};
pub use verity_stats::natural::{counted, natural_cmp};
pub use verity_store::{
    AnswersChanged, EventKind, ModelConfig, ModelSettings, postgres::is_server_url,
};
pub use verity_task::patch::parse_patch;
pub use verity_task::questionnaire::{NOTE_MAX_CHARS, Questionnaire};

// One module per use case; each re-exports its requests, responses and functions here.
pub mod access;
pub use access::Actor;
mod adjudication;
pub use adjudication::{
    AdjudicationRequest, AdjudicationView, COORDINATOR, Disagreement, RaterValue, add_adjudicator,
    adjudicate, disagreements_on, list_adjudicators, list_disagreements, remove_adjudicator,
};
mod agreement;
pub use agreement::{
    AgreementRequest, AgreementView, Among, CategoryCount, CoefficientRow, GroupAgreement,
    GroupQuestion, MIN_SHARED_CASES, PairConfusion, PairMatrix, ProjectAgreement,
    QuestionAgreement, ReferenceAgreement, agreement_on_ratings, agreement_view, project_agreement,
};
mod answers;
pub use answers::{
    AnswerRequest, AnswerView, current_answer, revise_answer, save_draft, submit_answer,
};
mod calibration;
pub use calibration::{
    CalibrationView, calibration, mark_calibration, set_calibration_rate, unmark_calibration,
};
mod case_view;
pub use case_view::{CaseView, PatchDisplay, TestLink, case_view};
mod cases;
pub use cases::{CaseDetail, CaseFilter, list_cases, show_case};
mod clone;
pub use clone::{
    CloneProgress, CloneReport, CloneRequest, CloneStage, CommitsReport, MissingCommit,
    NeededRepository, REPOSITORY_CACHE_VAR, clone_repository, default_repository_cache,
    fetch_missing_commits, list_needed_repositories,
};
mod conflicts;
pub use conflicts::{ConflictView, Keep, list_conflicts, resolve_conflict};
mod dataset;
pub use dataset::{
    CARD_FILE, DatasetFile, DatasetSubset, DatasetSummary, FOOTER_KEY, export_dataset,
};
mod demo;
pub use demo::{
    APP_IDENTIFIER, DEMO_PROJECT_FILE, EMPTY_DEMO_PROJECT_FILE, default_demo_dir,
    open_demo_project, open_empty_demo_project,
};
mod ensemble;
pub use ensemble::{CaseLabels, EnsembleReport, Label, ensemble_labels};
mod evidence;
pub use evidence::{
    EvidenceAllReport, EvidenceProgress, EvidenceView, RepositoryStatus, SkipKind, SkippedCase,
    add_repository, case_evidence, check_precedents, evidence_all, grep_case, list_repositories,
    remove_repository, show_file,
};
mod error;
pub use error::{Error, ErrorCode, Result};
mod export;
pub use export::{
    ExportOptions, ExportSummary, ExportedAnswer, export_jsonl, export_project, export_to_file,
};
mod export_formats;
pub use export_formats::{ExportFormat, ExportFormatInfo, export_formats};
mod history;
pub use history::{AnswerEventView, RaterAnswerHistory, answer_history};
mod hub;
pub use hub::{FetchProgress, FetchReport, FetchRequest, fetch_dataset, hub_origin};
mod import;
pub use import::{ImportProgress, ImportReport, ImportedPath, import_paths};
mod listing;
mod lookup;
pub use lookup::resolve_case_id;
mod migrate;
pub use migrate::{MigrateReport, migrate_project};
mod model_prompt;
pub use model_prompt::{
    PromptTemplate, SWEEP_PROMPT, build_prompt, build_sweep_prompt, prompt_sha256,
    proposal_from_reply, proposal_schema,
};
mod models;
pub use models::{
    AgreementFigure, CompareRequest, HumanResult, ModelAddRequest, ModelComparison, ModelSummary,
    RateFailure, RateProgress, RateReport, RateRequest, add_model, compare_models, list_models,
    rate_model, remove_model,
};
mod output;
pub use output::{Overwrite, Written, write_file, write_folder, write_project_file};
mod packages;
pub use packages::{
    MergeConflict, MergeReport, MergedEvent, PACKAGE_RATER, PROJECT_ID, PackageMerge,
    PackageReport, SettledBefore, merge_packages, package_for_rater,
};
mod ppi;
pub use ppi::{
    DrawSummary, Estimate, EstimateRequest, SampleMethod, SampleReport, SampleRequest,
    SampleStatus, Sampling, Target, draw_sample, estimate, sample_status,
};
mod process;
pub use process::{ProcessSetup, load_trust_store, set_up_process};
mod panel;
pub use panel::{PanelLogin, PanelMember, panel_grant, panel_members, panel_revoke};
mod progress;
pub use progress::{
    CaseListItem, CaseOrder, DisagreedQuestion, DisagreementPage, DisagreementQuery, ProgressPage,
    ProgressQuery, QueueItem, QueuePage, QueueQuery, StatusCounts, disagreement_page, next_task,
    progress_page, queue_page, rater_queue,
};
mod quality;
pub use quality::{
    BiasFigure, BlockFigures, QualityReport, QualityRequest, QuestionDetail, RaterQuality,
    rater_quality,
};
mod questions;
pub use questions::{QuestionSummary, list_questions};
mod raters;
pub use raters::{
    AssignReport, CaseSelection, RaterChange, RaterKind, RaterSummary, add_rater, assign,
    assign_to, deactivate_rater, list_raters, reactivate_rater, record_time, remove_rater,
};
mod report;
pub use report::{ReportSummary, write_report};
mod scores;
pub use scores::{
    Coverage, Determinacy, LabelSource, LeftOutTask, PairComparison, ResultsImport, ResultsSource,
    ScoresOptions, ScoresPpi, ScoresReport, SourceCount, SystemResults, SystemScore, UnreadLabels,
    import_results, left_out_tasks, list_results, remove_results, scores,
};
mod status;
pub use status::{AnswerStatus, AssignmentStatus};
mod sweep;
mod sweep_access;
mod verdict;
pub use sweep::{
    ModelSweepReport, ModelSweepRequest, SweepChange, SweepRun, SweepSelection, SweepStanding,
    read_proposals, sweep_proposals, sweep_with_model,
};
pub use sweep_access::{
    ProposedSweep, Proposer, SWEEP_FOR_RATERS, set_sweep_for_raters, sweep_for_raters,
};
mod publish;
pub use publish::{
    DEFAULT_MESSAGE, PublicationPreview, PublishRequest, prepare_publication, publish_dataset,
};
mod project;
mod seal;
pub use project::{
    Project, QuestionnaireChoice, check_server_url, init_project, init_project_with_password,
    open_project, open_project_with_password, stamp,
};
// The coordinator's use cases read submitted answers through it; it has no API of its own.
mod submitted;
