// Types of the commands' requests and responses: generated from the Rust types (ts-rs) into
// ./bindings/, re-exported here. Only the agreement views' types are written by hand: their
// `ops` functions have not landed yet (see the note in views/CoordinatorView.svelte).
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
export type { AnswerStatus } from './bindings/AnswerStatus';
export type { AnswerView } from './bindings/AnswerView';
export type { AnswerRequest } from './bindings/AnswerRequest';
export type { RaterSummary } from './bindings/RaterSummary';
export type { CaseView } from './bindings/CaseView';
export type { PatchDisplay } from './bindings/PatchDisplay';
export type { TestLink } from './bindings/TestLink';
export type { CaseListItem } from './bindings/CaseListItem';
export type { AssignmentStatus } from './bindings/AssignmentStatus';
export type { ImportProgress } from './bindings/ImportProgress';
export type { ImportReport } from './bindings/ImportReport';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The open project, as the shell reports it (src-tauri's `ProjectInfo`). */
export interface ProjectInfo { path: string; questionnaire: string }
