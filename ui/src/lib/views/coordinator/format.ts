// Small helpers the coordinator's sections share: the main coefficient of a question, question
// titles and option labels, natural order of task ids, errors as their sentence, what an
// export's save dialog proposes.
import type { SaveDialogOptions } from '@tauri-apps/plugin-dialog';
import { toApiError, type CoefficientRow, type ExportFormatInfo, type FetchProgress, type FetchReport, type PublishedFile, type PublishProgress, type PublishReport, type Question, type QuestionAgreement, type Questionnaire } from '../../api';
import { blocks } from '../../text/prose';
import { sameValue } from '../../form/rules';

/** Krippendorff's alpha at the question's level, or the first alpha the report has. */
export function mainCoefficient(q: Pick<QuestionAgreement, 'level' | 'coefficients'>): CoefficientRow | undefined {
  return (
    q.coefficients.find((c) => c.key === `krippendorff_alpha.${q.level}`) ??
    q.coefficients.find((c) => c.key.startsWith('krippendorff_alpha'))
  );
}

/** Every question of the questionnaire by id, in its order. */
export function questionsById(questionnaire: Questionnaire | null): Map<string, Question> {
  return new Map((questionnaire?.sections ?? []).flatMap((s) => s.questions.map((q) => [q.id, q] as const)));
}

/** A question's short title: its heading, else its prompt's first paragraph as plain text. */
export function questionTitle(question: Question | undefined, fallback: string): string {
  if (!question) return fallback;
  if (question.heading) return question.heading;
  const first = blocks(question.prompt)[0];
  return first?.kind === 'paragraph' ? first.runs.map((r) => r.text).join('') : fallback;
}

/** The label of the option with this value (a category arrives as the value's text). */
export function optionLabel(question: Question | undefined, value: number | string): string | undefined {
  return question?.options.find((o) => sameValue(o.value, value))?.label;
}

/** An answer as text: its value and, when it says more, its option's label (`2 · Vague`). */
export function answerText(question: Question | undefined, value: number | string): string {
  const label = optionLabel(question, value);
  return label === undefined || label === String(value) ? String(value) : `${value} · ${label}`;
}

/** Task ids in natural order (`x-2` before `x-10`). */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true });
}

/** The sentence an error carries, never a stack trace or "undefined". */
export function errorText(e: unknown): string {
  return toApiError(e).message;
}

/** A size in bytes as people read it: `812 B`, `4.2 MB`. */
export function bytesText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** What a fetch is doing, in one line. */
export function fetchStatus(p: FetchProgress): string {
  if (p.phase === 'import') return `Importing: ${p.records} records`;
  const file = p.file ? ` · file ${Math.min(p.files_done + 1, p.files_total)} of ${p.files_total}` : '';
  switch (p.stage) {
    case 'listing':
      return 'Asking the Hub for the dataset’s files…';
    case 'waiting':
      return `${p.waiting ?? 'Waiting'}${file}`;
    case 'verifying':
      return `Checking ${p.file ?? 'the file'}${file}`;
    case 'downloading':
      return `${bytesText(p.bytes_done)}${p.bytes_total ? ` of ${bytesText(p.bytes_total)}` : ''}${file}`;
  }
}

/** What a finished fetch brought, in one sentence. */
export function fetchSummary(r: FetchReport): string {
  const f = r.fetched;
  const bytes = f.files.reduce((sum, file) => sum + file.bytes, 0);
  const files = `${f.files.length} file${f.files.length === 1 ? '' : 's'}, ${bytesText(bytes)}`;
  const how = r.from_cache ? 'served from the cache, nothing downloaded' : 'downloaded';
  return `Fetched ${f.dataset} (${f.split}, ${f.revision} at ${f.commit.slice(0, 7)}): ${files}, ${how}. Imported ${r.import.added} new tasks, ${r.import.updated} changed (new revisions), ${r.import.unchanged} unchanged.`;
}

/** What a publication is doing, in one line. */
export function publishStatus(p: PublishProgress): string {
  const of = p.bytes_total ? ` of ${bytesText(p.bytes_total)}` : '';
  switch (p.stage) {
    case 'hashing':
      return `Reading ${p.file ?? 'the folder'}: ${bytesText(p.bytes_done)}${of}`;
    case 'checking':
      return 'Asking the Hub about the repository and each file…';
    case 'uploading':
      return `Uploading ${p.file ?? ''}: ${bytesText(p.bytes_done)}${of}`;
    case 'committing':
      return 'Making the commit…';
    case 'waiting':
      return p.waiting ?? 'Waiting';
  }
}

/** What a finished publication did, or a dry run would do, in one sentence. */
export function publishSummary(r: PublishReport): string {
  const count = (action: PublishedFile['action']) => r.files.filter((f) => f.action === action).length;
  const made = r.created ? `${r.dry_run ? 'Would create' : 'Created'} the ${r.private ? 'private' : 'public'} repository ${r.repo}. ` : '';
  const files = `${count('upload')} to send, ${count('already_uploaded')} already uploaded, ${count('unchanged')} unchanged`;
  if (r.dry_run) return `${made}Dry run: ${files}; nothing was uploaded.`;
  if (!r.commit) return `${made}Nothing changed: ${r.repo} on ${r.revision} already holds every file.`;
  return `${made}Committed ${r.commit.slice(0, 7)} to ${r.repo} on ${r.revision} (${files}; ${bytesText(r.uploaded_bytes)} sent).`;
}

/** What a save dialog proposes for an export format: its file name and its type's filter. */
export function exportDialog(info: ExportFormatInfo): SaveDialogOptions {
  return { defaultPath: info.file_name, filters: [{ name: info.file_type, extensions: [info.extension] }] };
}
