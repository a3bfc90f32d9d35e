import { describe, expect, it } from 'vitest';
import { countChars, isRequired, validateAll, validateQuestion } from './rules';
import { questionnaire } from '../testing/fixtures';
import type { JsonValue, Questionnaire, Violation } from '../api/types';
import ruleCases from '../api/bindings/rule-cases.json';

const q = (id: string) => questionnaire.sections.flatMap((s) => s.questions).find((x) => x.id === id)!;
const complete = {
  underspecified: 1,
  underspecified_notes: 'x'.repeat(100),
  difficulty: '<15 min fix',
  other_major_issues: 0,
};

describe('form rules', () => {
  it('accepts a complete answer', () => {
    expect(validateAll(questionnaire, complete)).toEqual([]);
  });

  it('refuses a 40-character justification where 100 are required', () => {
    const v = validateQuestion(q('underspecified_notes'), { underspecified_notes: 'a'.repeat(40) });
    expect(v).toHaveLength(1);
    expect(v[0].rule).toBe('min_chars');
    expect(v[0].message).toBe('Question 1.2 (underspecified_notes) needs at least 100 characters; it has 40.');
  });

  it('counts trimmed code points like the Rust side', () => {
    expect(countChars('  é😀  ')).toBe(2);
    expect(validateQuestion(q('underspecified_notes'), { underspecified_notes: ' ' + '😀'.repeat(100) + ' ' })).toEqual([]);
  });

  it('requires missing answers and treats blank text as missing', () => {
    const v = validateAll(questionnaire, { ...complete, underspecified_notes: '   ' });
    expect(v.map((x) => [x.question, x.rule])).toEqual([['underspecified_notes', 'required']]);
  });

  it('applies required_if only when the other answer has a listed value', () => {
    expect(isRequired(q('other_notes'), { other_major_issues: 0 })).toBe(false);
    expect(isRequired(q('other_notes'), { other_major_issues: 1 })).toBe(true);
    const v = validateAll(questionnaire, { ...complete, other_major_issues: 1 });
    expect(v).toEqual([{ question: 'other_notes', rule: 'required', message: 'Question 3.4 (other_notes) must be answered because other_major_issues is 1.' }]);
  });

  it('refuses a value that is not an option', () => {
    const v = validateQuestion(q('underspecified'), { underspecified: 5 });
    expect(v[0].rule).toBe('off_scale');
    expect(v[0].message).toContain('must be one of 0, 1, 2, 3; 5 is not');
  });
});

describe('form rules agree with Rust', () => {
  const shipped = ruleCases as unknown as { questionnaire: Questionnaire; cases: { values: Record<string, JsonValue>; violations: Violation[] }[] }[];

  it.each(shipped.map((s) => [s.questionnaire.id, s] as const))('on every rule case of %s', (_, s) => {
    expect(s.cases.length).toBeGreaterThan(20);
    for (const c of s.cases) {
      expect({ values: c.values, violations: validateAll(s.questionnaire, c.values) }).toEqual(c);
    }
  });
});
