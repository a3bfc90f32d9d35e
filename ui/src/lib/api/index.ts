// The only module that talks to Tauri. Every command is called by the name of the `ops`
// function it wraps; a rejection becomes an `ApiError` with the `{code, message}` the Rust side
// sent, so views show a sentence, never a stack trace or "undefined". Arguments go by the Rust
// parameters' snake_case names: the commands are declared `rename_all = "snake_case"`.
import { Channel, invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import type {
  AdjudicationRequest,
  AdjudicationView,
  AgreementRequest,
  AgreementView,
  AnswerRequest,
  AssignReport,
  CalibrationView,
  AnswerView,
  CaseView,
  CloneProgress,
  CloneReport,
  CloneRequest,
  DisagreementPage,
  DisagreementQuery,
  EnsembleReport,
  ErrorCode,
  Estimate,
  EstimateRequest,
  EvidenceAllReport,
  EvidenceProgress,
  EvidenceView,
  ExportFormat,
  ExportFormatInfo,
  ExportOptions,
  FetchProgress,
  FetchReport,
  FetchRequest,
  GrepQuery,
  GrepReport,
  ImportProgress,
  ImportReport,
  PublicationPreview,
  PublishProgress,
  PublishReport,
  PublishRequest,
  ModelAddRequest,
  ModelComparison,
  ModelRun,
  ModelRunRequest,
  ModelSummary,
  NeededRepository,
  ProjectInfo,
  ProgressPage,
  ProgressQuery,
  QualityReport,
  QualityRequest,
  Questionnaire,
  QueuePage,
  QueueQuery,
  RateProgress,
  RaterSummary,
  RecentProject,
  RepositoryStatus,
  ResultsImport,
  ResultsSource,
  Role,
  SampleReport,
  SampleRequest,
  SampleStatus,
  ScoresOptions,
  ScoresReport,
  ShownFile,
  Startup,
  SystemResults,
} from './types';

export * from './types';

/** A Verity error code (generated from the Rust `ErrorCode`), or `error` for a failure that
 * carried none (a bug, or the IPC layer itself). */
export type ApiErrorCode = ErrorCode | 'error';

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = 'ApiError';
  }
}

export function toApiError(raw: unknown): ApiError {
  if (raw instanceof ApiError) return raw;
  if (raw && typeof raw === 'object') {
    const { code, message } = raw as { code?: unknown; message?: unknown };
    if (typeof message === 'string' && message.length > 0) {
      // The Rust side sends only `ErrorCode` names (src-tauri's CommandError).
      return new ApiError(typeof code === 'string' ? (code as ErrorCode) : 'error', message);
    }
  }
  if (typeof raw === 'string' && raw.length > 0) return new ApiError('error', raw);
  if (raw instanceof Error && raw.message) return new ApiError('error', raw.message);
  return new ApiError('error', 'Verity failed without saying why; the log file in its data folder has details.');
}

/** The event the shell emits when other sessions on a shared server changed answers (src-tauri's
 * `feed::ANSWERS_CHANGED`). */
const ANSWERS_CHANGED = 'answers-changed';

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw toApiError(raw);
  }
}

export const api = {
  openDemoProject: () => call<ProjectInfo>('open_demo_project'),
  openEmptyDemoProject: () => call<ProjectInfo>('open_empty_demo_project'),
  openProject: (path: string) => call<ProjectInfo>('open_project', { path }),
  /** Opens a project on a server (`postgres://USER@HOST:PORT/DATABASE`); `password` is kept in
   * the shell's memory only. `null` connects with libpq's `PGPASSWORD` or `~/.pgpass`. */
  openServerProject: (url: string, password: string | null) => call<ProjectInfo>('open_server_project', { url, password }),
  openStartupProject: () => call<Startup>('open_startup_project'),
  /** The projects opened lately, most recent first. */
  recentProjects: () => call<RecentProject[]>('recent_projects'),
  /** Takes a project off the recent ones; resolves to the list left. */
  forgetRecentProject: (path: string) => call<RecentProject[]>('forget_recent_project', { path }),
  signIn: (role: Role) => call<Role>('sign_in', { role }),
  /** Signs out: the project acts for nobody until someone signs in again. */
  signOut: () => call<void>('sign_out'),
  listRaters: () => call<RaterSummary[]>('list_raters'),
  addRater: (name: string) => call<RaterSummary>('add_rater', { name }),
  assignRaters: (perCase: number, seed: number) => call<AssignReport>('assign_raters', { per_case: perCase, seed }),
  drawSample: (request: SampleRequest) => call<SampleReport>('draw_sample', { request }),
  sampleStatus: () => call<SampleStatus>('sample_status'),
  /** A page of a rater's queue, filtered and searched, with the whole queue's counts. */
  queuePage: (query: QueueQuery) => call<QueuePage>('queue_page', { query }),
  /** The task to open first (`after` null), or the next one not submitted after `after`. */
  nextTask: (rater: string, after: string | null) => call<string | null>('next_task', { rater, after }),
  /** A page of the coordinator's progress per task. */
  progressPage: (query: ProgressQuery) => call<ProgressPage>('progress_page', { query }),
  caseView: (instanceId: string) => call<CaseView>('case_view', { instance_id: instanceId }),
  projectQuestionnaire: () => call<Questionnaire>('project_questionnaire'),
  currentAnswer: (rater: string, instanceId: string) => call<AnswerView>('current_answer', { rater, case: instanceId }),
  saveDraft: (req: AnswerRequest) => call<AnswerView>('save_draft', { req }),
  submitAnswer: (req: AnswerRequest) => call<AnswerView>('submit_answer', { req }),
  reviseAnswer: (req: AnswerRequest) => call<AnswerView>('revise_answer', { req }),
  recordTime: (rater: string, instanceId: string, activeMs: number) =>
    call<void>('record_time', { rater, case: instanceId, active_ms: activeMs }),
  importPaths: (paths: string[], onProgress: (p: ImportProgress) => void) => {
    const channel = new Channel<ImportProgress>();
    channel.onmessage = onProgress;
    return call<ImportReport>('import_paths', { paths, on_progress: channel });
  },
  fetchDataset: (request: FetchRequest, onProgress: (p: FetchProgress) => void) => {
    const channel = new Channel<FetchProgress>();
    channel.onmessage = onProgress;
    return call<FetchReport>('fetch_dataset', { request, on_progress: channel });
  },
  cancelJob: () => call<void>('cancel_job'),
  /** Every export format, with its title, hint and save dialog's file name and type. */
  exportFormats: () => call<ExportFormatInfo[]>('export_formats'),
  exportProject: (format: ExportFormat, options: ExportOptions, outPath: string) =>
    call<number>('export_project', { format, options, out_path: outPath }),
  /** Exports the project as a dataset folder for the Hub repository `repo` (in the app's data
   * folder) and returns its card as the Hub will show it. */
  preparePublication: (options: ExportOptions, repo: string) =>
    call<PublicationPreview>('prepare_publication', { options, repo }),
  /** Publishes a prepared folder to the Hub as one commit (or, as a dry run, says what would
   * go); `cancelJob` stops it before the commit. */
  publishDataset: (request: PublishRequest, onProgress: (p: PublishProgress) => void) => {
    const channel = new Channel<PublishProgress>();
    channel.onmessage = onProgress;
    return call<PublishReport>('publish_dataset', { request, on_progress: channel });
  },
  projectAgreement: (req: AgreementRequest) => call<AgreementView>('project_agreement', { req }),
  raterQuality: (req: QualityRequest) => call<QualityReport>('rater_quality', { req }),
  calibration: () => call<CalibrationView>('calibration'),
  markAllCalibration: () => call<CalibrationView>('mark_all_calibration'),
  setCalibrationRate: (rate: number) => call<CalibrationView>('set_calibration_rate', { rate }),
  ensembleLabels: (rule: string | null) => call<EnsembleReport>('ensemble_labels', { rule }),
  /** Imports systems' per-task outcomes (each file a system); all or nothing. */
  importResults: (sources: ResultsSource[]) => call<ResultsImport[]>('import_results', { sources }),
  listResults: () => call<SystemResults[]>('list_results'),
  removeResults: (system: string) => call<void>('remove_results', { system }),
  /** Each system's raw and determinate-only rates, ranks and pairs compared. */
  projectScores: (options: ScoresOptions) => call<ScoresReport>('project_scores', { options }),
  projectEstimate: (request: EstimateRequest) => call<Estimate>('project_estimate', { request }),
  /** A page of the disagreement queue, worst first, with the whole queue's figures. */
  disagreementPage: (query: DisagreementQuery) => call<DisagreementPage>('disagreement_page', { query }),
  adjudicate: (req: AdjudicationRequest) => call<AdjudicationView>('adjudicate', { req }),
  caseEvidence: (instanceId: string, refresh: boolean) => call<EvidenceView>('case_evidence', { instance_id: instanceId, refresh }),
  grepCase: (instanceId: string, query: GrepQuery) => call<GrepReport>('grep_case', { instance_id: instanceId, query }),
  showFile: (instanceId: string, path: string) => call<ShownFile>('show_file', { instance_id: instanceId, path }),
  listRepositories: () => call<RepositoryStatus[]>('list_repositories'),
  addRepository: (name: string, path: string) => call<RepositoryStatus>('add_repository', { name, path }),
  listNeededRepositories: () => call<NeededRepository[]>('list_needed_repositories'),
  cloneRepository: (req: CloneRequest, onProgress: (p: CloneProgress) => void) => {
    const channel = new Channel<CloneProgress>();
    channel.onmessage = onProgress;
    return call<CloneReport>('clone_repository', { req, on_progress: channel });
  },
  evidenceAll: (onProgress: (p: EvidenceProgress) => void) => {
    const channel = new Channel<EvidenceProgress>();
    channel.onmessage = onProgress;
    return call<EvidenceAllReport>('evidence_all', { on_progress: channel });
  },
  /** The model raters, with answers, failed tasks and cost so far (`null` when a price is unknown). */
  listModels: () => call<ModelSummary[]>('list_models'),
  /** Adds a model rater; `api_key_env` names an environment variable, never holds a key. */
  addModel: (req: ModelAddRequest) => call<ModelSummary>('add_model', { req }),
  removeModel: (name: string) => call<void>('remove_model', { name }),
  /** Runs a model rater over tasks; `cancelJob` stops it cleanly (what it stored stays). */
  rateModel: (req: ModelRunRequest, onProgress: (p: RateProgress) => void) => {
    const channel = new Channel<RateProgress>();
    channel.onmessage = onProgress;
    return call<ModelRun>('rate_model', { req, on_progress: channel });
  },
  /** The alternative annotator test per model and question, with the agreement figures. */
  compareModels: (question: string | null, epsilon: number | null) => call<ModelComparison[]>('compare_models', { question, epsilon }),
  /** Whether agreement, ensemble, disagreements and exports take model raters' answers too. */
  includeModels: (include: boolean) => call<boolean>('include_models', { include }),
  sweepsForRaters: (on: boolean | null) => call<boolean>('sweeps_for_raters', { on }),
  openExternal: (url: string) => call<void>('open_external', { url }),
  /** Calls `handler` each time other sessions on the project's shared server change answers (a
   * burst at most every quarter second; never for a project file). Returns what stops it. */
  onAnswersChanged: (handler: () => void): (() => void) => {
    // Without the event the views still refresh when shown and on Refresh.
    const listening = listen(ANSWERS_CHANGED, () => handler()).catch(() => null);
    // A listener that cannot be removed (the window is closing) goes with the window.
    return () => void listening.then(async (unlisten) => { await unlisten?.(); }).catch(() => undefined);
  },
};
