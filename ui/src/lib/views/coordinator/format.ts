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

/** The shortest hexadecimal word: git's default abbreviation of a commit. */
const HEX_WORD = 7;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

/** Whether the character at `at` lies in a run of at least seven hex digits with a letter among
 * them (a commit id, whole or abbreviated): text, not a number. */
function inHexWord(s: string, at: number): boolean {
  let start = at;
  while (start > 0 && isHex(s.charCodeAt(start - 1))) start -= 1;
  let end = at;
  while (end < s.length && isHex(s.charCodeAt(end))) end += 1;
  if (end - start < HEX_WORD) return false;
  for (let k = start; k < end; k += 1) if (!isDigit(s.charCodeAt(k))) return true;
  return false;
}

/** The end of the number starting at `at`: its run of digits, or its one digit inside a
 * hexadecimal word. */
function numberEnd(s: string, at: number): number {
  if (inHexWord(s, at)) return at + 1;
  let end = at;
  while (end < s.length && isDigit(s.charCodeAt(end))) end += 1;
  return end;
}

/** Code point order, as Rust compares strings. */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let k = 0; k < Math.min(x.length, y.length); k += 1) {
    const d = (x[k].codePointAt(0) ?? 0) - (y[k].codePointAt(0) ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return Math.sign(x.length - y.length);
}

/**
 * Task ids and names in natural order, as the command line sorts them (`verity_stats::natural`):
 * runs of digits compare by value (`x-2` before `x-10`), the digits of a hexadecimal id as text
 * (`00c70ce…` before `0c81642…`), everything else by character.
 */
export function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  for (;;) {
    if (i >= a.length || j >= b.length) {
      if (i >= a.length && j >= b.length) return byCodePoint(a, b);
      return i >= a.length ? -1 : 1;
    }
    const c = a.codePointAt(i) ?? 0;
    const d = b.codePointAt(j) ?? 0;
    if (isDigit(c) && isDigit(d)) {
      const [ei, ej] = [numberEnd(a, i), numberEnd(b, j)];
      const [rx, ry] = [a.slice(i, ei), b.slice(j, ej)];
      const [vx, vy] = [rx.replace(/^0+/, ''), ry.replace(/^0+/, '')];
      const order = vx.length - vy.length || (vx < vy ? -1 : vx > vy ? 1 : 0) || rx.length - ry.length;
      if (order !== 0) return Math.sign(order);
      [i, j] = [ei, ej];
    } else {
      if (c !== d) return c < d ? -1 : 1;
      i += c > 0xffff ? 2 : 1;
      j += d > 0xffff ? 2 : 1;
    }
  }
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
