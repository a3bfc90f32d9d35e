// Types of the commands' requests and responses: generated from the Rust types (ts-rs) into
// ./bindings/, re-exported here. Only the shell's own types (`ProjectInfo`, `Startup`,
// `RecentProject`) are written by hand.
import type { ErrorCode } from './bindings/ErrorCode';

export type { PatchView } from './bindings/PatchView';
export type { FileDiff } from './bindings/FileDiff';
export type { Hunk } from './bindings/Hunk';
export type { DiffLine } from './bindings/DiffLine';
export type { LineKind } from './bindings/LineKind';
export type { Span } from './bindings/Span';
export type { FileStatus } from './bindings/FileStatus';
export type { TestLocation } from './bindings/TestLocation';
export type { Questionnaire } from './bindings/Questionnaire';
export type { Section } from './bindings/Section';
export type { Question } from './bindings/Question';
export type { QuestionKind } from './bindings/QuestionKind';
export type { AnswerOption } from './bindings/AnswerOption';
export type { RequiredIf } from './bindings/RequiredIf';
export type { Violation } from './bindings/Violation';
export type { RuleKind } from './bindings/RuleKind';
export type { QueueItem } from './bindings/QueueItem';
export type { QueuePage } from './bindings/QueuePage';
export type { QueueQuery } from './bindings/QueueQuery';
export type { StatusCounts } from './bindings/StatusCounts';
export type { AnswerStatus } from './bindings/AnswerStatus';
export type { AnswerView } from './bindings/AnswerView';
export type { AnswerRequest } from './bindings/AnswerRequest';
export type { RaterSummary } from './bindings/RaterSummary';
export type { CaseView } from './bindings/CaseView';
export type { PatchDisplay } from './bindings/PatchDisplay';
export type { RenderedText } from './bindings/RenderedText';
export type { RenderChanges } from './bindings/RenderChanges';
export type { TestLink } from './bindings/TestLink';
export type { CaseListItem } from './bindings/CaseListItem';
export type { ProgressPage } from './bindings/ProgressPage';
export type { ProgressQuery } from './bindings/ProgressQuery';
export type { CaseOrder } from './bindings/CaseOrder';
export type { AssignmentStatus } from './bindings/AssignmentStatus';
export type { ImportProgress } from './bindings/ImportProgress';
export type { ResultsSource } from './bindings/ResultsSource';
export type { ResultsImport } from './bindings/ResultsImport';
export type { SystemResults } from './bindings/SystemResults';
export type { ScoresOptions } from './bindings/ScoresOptions';
export type { ScoresReport } from './bindings/ScoresReport';
export type { ScoresPpi } from './bindings/ScoresPpi';
export type { EstimateRequest } from './bindings/EstimateRequest';
export type { Estimate } from './bindings/Estimate';
export type { Sampling } from './bindings/Sampling';
export type { DrawSummary } from './bindings/DrawSummary';
export type { Target } from './bindings/Target';
export type { SampleMethod } from './bindings/SampleMethod';
export type { SampleRequest } from './bindings/SampleRequest';
export type { SampleReport } from './bindings/SampleReport';
export type { SampleStatus } from './bindings/SampleStatus';
export type { SystemScore } from './bindings/SystemScore';
export type { PairComparison } from './bindings/PairComparison';
export type { Coverage } from './bindings/Coverage';
export type { SourceCount } from './bindings/SourceCount';
export type { LabelSource } from './bindings/LabelSource';
export type { ImportReport } from './bindings/ImportReport';
export type { FetchRequest } from './bindings/FetchRequest';
export type { QualityRequest } from './bindings/QualityRequest';
export type { QualityReport } from './bindings/QualityReport';
export type { RaterQuality } from './bindings/RaterQuality';
export type { QuestionDetail } from './bindings/QuestionDetail';
export type { BiasFigure } from './bindings/BiasFigure';
export type { BlockFigures } from './bindings/BlockFigures';
export type { CalibrationView } from './bindings/CalibrationView';
export type { FetchProgress } from './bindings/FetchProgress';
export type { FetchReport } from './bindings/FetchReport';
export type { FetchedSplit } from './bindings/FetchedSplit';
export type { HubFile } from './bindings/HubFile';
export type { HubProgress } from './bindings/HubProgress';
export type { HubStage } from './bindings/HubStage';
export type { AssignReport } from './bindings/AssignReport';
export type { AgreementRequest } from './bindings/AgreementRequest';
export type { AgreementView } from './bindings/AgreementView';
export type { GroupAgreement } from './bindings/GroupAgreement';
export type { GroupQuestion } from './bindings/GroupQuestion';
export type { Among } from './bindings/Among';
export type { QuestionAgreement } from './bindings/QuestionAgreement';
export type { CoefficientRow } from './bindings/CoefficientRow';
export type { PairMatrix } from './bindings/PairMatrix';
export type { PairConfusion } from './bindings/PairConfusion';
export type { CategoryCount } from './bindings/CategoryCount';
export type { ReferenceAgreement } from './bindings/ReferenceAgreement';
export type { MeasurementLevel } from './bindings/MeasurementLevel';
export type { EnsembleReport } from './bindings/EnsembleReport';
export type { CaseLabels } from './bindings/CaseLabels';
export type { Label } from './bindings/Label';
export type { Disagreement } from './bindings/Disagreement';
export type { DisagreementPage } from './bindings/DisagreementPage';
export type { DisagreementQuery } from './bindings/DisagreementQuery';
export type { DisagreedQuestion } from './bindings/DisagreedQuestion';
export type { RaterValue } from './bindings/RaterValue';
export type { AdjudicationRequest } from './bindings/AdjudicationRequest';
export type { AdjudicationView } from './bindings/AdjudicationView';
export type { ExportFormat } from './bindings/ExportFormat';
export type { DatasetFile } from './bindings/DatasetFile';
export type { DatasetSubset } from './bindings/DatasetSubset';
export type { DatasetSummary } from './bindings/DatasetSummary';
export type { FileAction } from './bindings/FileAction';
export type { PublicationPreview } from './bindings/PublicationPreview';
export type { PublishedFile } from './bindings/PublishedFile';
export type { PublishProgress } from './bindings/PublishProgress';
export type { PublishReport } from './bindings/PublishReport';
export type { PublishRequest } from './bindings/PublishRequest';
export type { PublishStage } from './bindings/PublishStage';
export type { UploadMode } from './bindings/UploadMode';
export type { ExportFormatInfo } from './bindings/ExportFormatInfo';
export type { ExportOptions } from './bindings/ExportOptions';
export type { EvidenceView } from './bindings/EvidenceView';
export type { ProposedSweep } from './bindings/ProposedSweep';
export type { Proposer } from './bindings/Proposer';
export type { SweptSnippet } from './bindings/SweptSnippet';
export type { JudgedStep } from './bindings/JudgedStep';
export type { GradedValue } from './bindings/GradedValue';
export type { GoldLine } from './bindings/GoldLine';
export type { Receipt } from './bindings/Receipt';
export type { Tier } from './bindings/Tier';
export type { EvidenceReport } from './bindings/EvidenceReport';
export type { TermEvidence } from './bindings/TermEvidence';
export type { TermClass } from './bindings/TermClass';
export type { TermKind } from './bindings/TermKind';
export type { TermOrigin } from './bindings/TermOrigin';
export type { TermRole } from './bindings/TermRole';
export type { TermSource } from './bindings/TermSource';
export type { HitGrade } from './bindings/HitGrade';
export type { RiskDriver } from './bindings/RiskDriver';
export type { Hit } from './bindings/Hit';
export type { AirtightCandidate } from './bindings/AirtightCandidate';
export type { NearString } from './bindings/NearString';
export type { WordChange } from './bindings/WordChange';
export type { ChangeOp } from './bindings/ChangeOp';
export type { PrecedentFinding } from './bindings/PrecedentFinding';
export type { PrecedentLocation } from './bindings/PrecedentLocation';
export type { Summary } from './bindings/Summary';
export type { PathClass } from './bindings/PathClass';
export type { GrepQuery } from './bindings/GrepQuery';
export type { GrepReport } from './bindings/GrepReport';
export type { GrepFile } from './bindings/GrepFile';
export type { GrepLine } from './bindings/GrepLine';
export type { ShownFile } from './bindings/ShownFile';
export type { RepositoryStatus } from './bindings/RepositoryStatus';
export type { NeededRepository } from './bindings/NeededRepository';
export type { CloneRequest } from './bindings/CloneRequest';
export type { CloneProgress } from './bindings/CloneProgress';
export type { CloneStage } from './bindings/CloneStage';
export type { CloneReport } from './bindings/CloneReport';
export type { CommitsReport } from './bindings/CommitsReport';
export type { MissingCommit } from './bindings/MissingCommit';
export type { EvidenceProgress } from './bindings/EvidenceProgress';
export type { EvidenceAllReport } from './bindings/EvidenceAllReport';
export type { SkippedCase } from './bindings/SkippedCase';
export type { SkipKind } from './bindings/SkipKind';
export type { ErrorCode } from './bindings/ErrorCode';
export type { RaterKind } from './bindings/RaterKind';
export type { ModelAddRequest } from './bindings/ModelAddRequest';
export type { ModelSummary } from './bindings/ModelSummary';
export type { ModelComparison } from './bindings/ModelComparison';
export type { HumanResult } from './bindings/HumanResult';
export type { AgreementFigure } from './bindings/AgreementFigure';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The open project, as the shell reports it (src-tauri's `ProjectInfo`). `path` is the project
 * file or, when `server`, the server project's `postgres://` URL (never with a password).
 * `bound_rater` names the one rater a rater's package or a rater's login on a server acts for,
 * already signed in; `null` when the app asks who is using the project. */
export interface ProjectInfo { path: string; server: boolean; questionnaire: string; bound_rater: string | null }

/** A project opened lately (src-tauri's `RecentProject`): a file's path or, when `server`, a
 * server project's URL (never with a password); `missing` when the file is no longer there. */
export interface RecentProject { path: string; server: boolean; missing: boolean }

/** What the window shows at start (src-tauri's `Startup`): the project opened, or the last
 * project's server, which did not let Verity in without a password or could not be reached. */
export type Startup =
  | { kind: 'opened'; project: ProjectInfo }
  | { kind: 'server'; url: string; error: { code: ErrorCode; message: string } };

/** What the Models section asks a run of a model rater to do (src-tauri's `ModelRunRequest`):
 * `cases` by id, or `null` for every task. */
export interface ModelRunRequest { name: string; cases: string[] | null; concurrency: number; budget_usd: number | null }

/** How far a model rater's run is (`ops::RateProgress`): tasks done of `tasks`, and what this run
 * paid for; `cost_usd` is `null` when a price is unknown. */
export interface RateProgress {
  tasks: number;
  done: number;
  rated: number;
  failed: number;
  skipped: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

/** What a model rater's run did (src-tauri's `ModelRun`): `verity models rate --json`'s keys, and
 * why it stopped before its end (the budget, Stop) when it did. */
export interface ModelRun {
  rated: number;
  failed: number;
  skipped: number;
  cost_usd: number | null;
  input_tokens: number;
  output_tokens: number;
  stopped: string | null;
}

/** Who is using the project (`ops::Actor`): a rater sees only their own answers. */
export type { Actor as Role } from './bindings/Actor';
