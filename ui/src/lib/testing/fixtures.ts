// Small fixtures shaped like the Rust types (generated bindings), for component tests.
import type { PatchView, Questionnaire } from '../api/types';

export const questionnaire: Questionnaire = {
  id: 'swe-bench-verified',
  version: '1.0.0',
  title: 'SWE-bench Annotation Instructions',
  intro: '',
  footnotes: [],
  sections: [
    {
      id: '1',
      title: 'Section 1 - Issue Description',
      text: 'Read the issue for {repo}.',
      shows: ['issue'],
      questions: [
        {
          id: 'underspecified', number: '1.1', kind: 'scale', level: 'ordinal', prompt: 'Is the issue well-specified?', required: true,
          options: [
            { value: 0, label: 'Well-specified', example: 'pylint #5201' },
            { value: 1, label: 'Some blanks', example: 'sympy #18030' },
            { value: 2, label: 'Vague', example: 'scikit-learn #14520' },
            { value: 3, label: 'Almost impossible', example: 'pylint #5743' },
          ],
        },
        { id: 'underspecified_notes', number: '1.2', kind: 'text', level: 'nominal', prompt: 'Explain your choice.', options: [], required: true, min_chars: 100 },
      ],
    },
    {
      id: '3',
      title: 'Section 3',
      text: '',
      shows: [],
      questions: [
        {
          id: 'difficulty', number: '3.1', kind: 'choice', level: 'ordinal', prompt: 'How long would it take?', required: true,
          options: [
            { value: '<15 min fix', label: '<15 min fix' },
            { value: '15 min - 1 hour', label: '15 min - 1 hour' },
          ],
        },
        {
          id: 'other_major_issues', number: '3.3', kind: 'yes_no', level: 'nominal', prompt: 'Other major issues?', required: true,
          options: [{ value: 0, label: 'No' }, { value: 1, label: 'Yes' }],
        },
        { id: 'other_notes', number: '3.4', kind: 'text', level: 'nominal', prompt: 'Other notes', options: [], required: false, required_if: { question: 'other_major_issues', values: [1] } },
      ],
    },
  ],
};

export const patch: PatchView = {
  added: 2,
  removed: 1,
  files: [
    {
      oldPath: 'src/calc.py', newPath: 'src/calc.py', status: 'modified', binary: false, added: 2, removed: 1,
      hunks: [
        {
          oldStart: 10, oldCount: 3, newStart: 10, newCount: 4, section: 'def add(a, b):',
          lines: [
            { kind: 'context', oldLine: 10, newLine: 10, text: 'def add(a, b):', highlights: [] },
            { kind: 'removed', oldLine: 11, newLine: null, text: '    return a - b', highlights: [{ start: 13, end: 14 }] },
            { kind: 'added', oldLine: null, newLine: 11, text: '    return a + b', highlights: [{ start: 13, end: 14 }] },
            { kind: 'added', oldLine: null, newLine: 12, text: '', highlights: [] },
            { kind: 'context', oldLine: 12, newLine: 13, text: '', highlights: [] },
          ],
        },
      ],
    },
    { oldPath: 'logo.png', newPath: 'logo.png', status: 'modified', binary: true, added: 0, removed: 0, hunks: [] },
  ],
};

/** A patch of `files` files with `lines` added lines each. */
export function bigPatch(files: number, lines: number): PatchView {
  return {
    added: files * lines,
    removed: 0,
    files: Array.from({ length: files }, (_, f) => ({
      oldPath: null, newPath: `pkg/file_${f}.py`, status: 'added' as const, binary: false, added: lines, removed: 0,
      hunks: [{
        oldStart: 0, oldCount: 0, newStart: 1, newCount: lines, section: '',
        lines: Array.from({ length: lines }, (_, i) => ({ kind: 'added' as const, oldLine: null, newLine: i + 1, text: `line ${i}`, highlights: [] })),
      }],
    })),
  };
}
