// The questionnaire's rules, checked as the rater types so a violation shows before submit.
// `Questionnaire::validate` in Rust decides at submit; this mirrors its Submit stage (same
// rules, same counting: trimmed text, Unicode scalar values) for immediate feedback only. The
// unit test runs it on every rule case that Rust writes into `api/bindings/rule-cases.json`
// and expects Rust's violations, word for word.
import type { JsonValue, Question, Questionnaire, Violation } from '../api/types';

/** The most characters a note may hold: Rust's `NOTE_MAX_CHARS`, on every path that stores an
 * answer. */
export const NOTE_MAX_CHARS = 20000;

/** An empty string or null counts as no answer, as in Rust's `is_blank`. */
export function isAnswered(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim().length > 0;
  return true;
}

/** Characters as Rust counts them: code points of the trimmed text. */
export function countChars(value: JsonValue | undefined): number {
  return typeof value === 'string' ? [...value.trim()].length : 0;
}

/** A number, or numeric text, as a number (Rust's `as_number`); anything else is not one. */
function asNumber(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Rust's `same_value`, the one definition of "the same option" in the app: `1`, `1.0` and `"1"`
 * are the same option; other values compare whole. */
export function sameValue(a: JsonValue | undefined, b: JsonValue): boolean {
  const [x, y] = [asNumber(a), asNumber(b)];
  if (x !== undefined && y !== undefined) return x === y;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the question must be answered given the other answers. */
export function isRequired(question: Question, values: Record<string, JsonValue>): boolean {
  if (question.required) return true;
  const cond = question.required_if;
  return cond !== undefined && cond.values.some((v) => sameValue(values[cond.question], v));
}

function label(q: Question): string {
  return `Question ${q.number} (${q.id})`;
}

export function validateQuestion(question: Question, values: Record<string, JsonValue>): Violation[] {
  const value = values[question.id];
  if (!isAnswered(value)) {
    if (!isRequired(question, values)) return [];
    const cond = question.required_if;
    const why = !question.required && cond ? ` because ${cond.question} is ${JSON.stringify(values[cond.question])}` : '';
    return [{ question: question.id, rule: 'required', message: `${label(question)} must be answered${why}.` }];
  }
  if (question.kind === 'text') {
    if (typeof value !== 'string') {
      return [{ question: question.id, rule: 'wrong_type', message: `${label(question)} takes text, not ${JSON.stringify(value)}.` }];
    }
    const stored = [...value].length;
    if (stored > NOTE_MAX_CHARS) {
      return [{ question: question.id, rule: 'max_chars', message: `${label(question)} holds ${stored} characters; a note may hold at most ${NOTE_MAX_CHARS}.` }];
    }
    const min = question.min_chars;
    const n = countChars(value);
    if (min !== undefined && n < min) {
      return [{ question: question.id, rule: 'min_chars', message: `${label(question)} needs at least ${min} characters; it has ${n}.` }];
    }
    return [];
  }
  if (!question.options.some((o) => sameValue(value, o.value))) {
    const allowed = question.options.map((o) => JSON.stringify(o.value)).join(', ');
    // A number or a text can name an option; any other JSON type never can.
    const rule = typeof value === 'number' || typeof value === 'string' ? 'off_scale' : 'wrong_type';
    return [{ question: question.id, rule, message: `${label(question)} must be one of ${allowed}; ${JSON.stringify(value)} is not.` }];
  }
  return [];
}

export function validateAll(questionnaire: Questionnaire, values: Record<string, JsonValue>): Violation[] {
  return questionnaire.sections.flatMap((s) => s.questions.flatMap((q) => validateQuestion(q, values)));
}
