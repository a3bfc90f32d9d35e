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
      old_path: 'src/calc.py', new_path: 'src/calc.py', status: 'modified', binary: false, added: 2, removed: 1,
      hunks: [
        {
          old_start: 10, old_count: 3, new_start: 10, new_count: 4, section: 'def add(a, b):',
          lines: [
            { kind: 'context', old_line: 10, new_line: 10, text: 'def add(a, b):', highlights: [] },
            { kind: 'removed', old_line: 11, new_line: null, text: '    return a - b', highlights: [{ start: 13, end: 14 }] },
            { kind: 'added', old_line: null, new_line: 11, text: '    return a + b', highlights: [{ start: 13, end: 14 }] },
            { kind: 'added', old_line: null, new_line: 12, text: '', highlights: [] },
            { kind: 'context', old_line: 12, new_line: 13, text: '', highlights: [] },
          ],
        },
      ],
    },
    { old_path: 'logo.png', new_path: 'logo.png', status: 'modified', binary: true, added: 0, removed: 0, hunks: [] },
  ],
};

/** A patch of `files` files with `lines` added lines each. */
export function bigPatch(files: number, lines: number): PatchView {
  return {
    added: files * lines,
    removed: 0,
    files: Array.from({ length: files }, (_, f) => ({
      old_path: null, new_path: `pkg/file_${f}.py`, status: 'added' as const, binary: false, added: lines, removed: 0,
      hunks: [{
        old_start: 0, old_count: 0, new_start: 1, new_count: lines, section: '',
        lines: Array.from({ length: lines }, (_, i) => ({ kind: 'added' as const, old_line: null, new_line: i + 1, text: `line ${i}`, highlights: [] })),
      }],
    })),
  };
}

import type { AgreementView, Disagreement, EnsembleReport } from '../api/types';

/** Agreement of three raters on the questionnaire above: a measured ordinal question, one whose
 * coefficients are undefined, and a nominal one; the two text questions skipped. */
export const agreement: AgreementView = {
  questionnaire: 'swe-bench-verified 1.0.0',
  cases: 5,
  raters: ['Amara', 'Ben', 'Chen'],
  min_shared_cases: 1,
  questions: [
    {
      question: 'underspecified', number: '1.1', level: 'ordinal', categories: ['0', '1', '2', '3'],
      coefficients: [
        { key: 'percent_agreement', name: 'percent agreement', value: 0.6667, ci95: [0.4, 0.9], reason: null },
        { key: 'fleiss_kappa', name: "Fleiss' kappa (3 complete units)", value: 0.41234, ci95: [0.1, 0.7], reason: null },
        { key: 'krippendorff_alpha.nominal', name: "Krippendorff's alpha, nominal", value: 0.35, ci95: [0.05, 0.62], reason: null },
        { key: 'krippendorff_alpha.ordinal', name: "Krippendorff's alpha, ordinal", value: 0.61234, ci95: [0.3125, 0.8549], reason: null },
        { key: 'gwet_ac1', name: "Gwet's AC1", value: null, ci95: null, reason: 'Gwet’s AC1 is undefined: chance agreement is 1.' },
      ],
      report: {},
      pair_matrix: {
        raters: ['Amara', 'Ben', 'Chen'], weights: 'linear',
        kappa: [[null, 0.5, -0.2], [0.5, null, null], [-0.2, null, null]],
        units: [[0, 4, 3], [4, 0, 0], [3, 0, 0]],
      },
      confusion: [
        { rater_a: 'Amara', rater_b: 'Ben', units: 4, counts: [[1, 1, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]] },
        { rater_a: 'Amara', rater_b: 'Chen', units: 3, counts: [[0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]] },
      ],
      distribution: [
        { category: '0', answers: 3, labels: 1 },
        { category: '1', answers: 5, labels: 2 },
        { category: '2', answers: 2, labels: 1 },
        { category: '3', answers: 1, labels: 1 },
      ],
      reference: [{ set: 'openai-verified', units: 4, percent_agreement: 0.75, kappa: 0.5, kappa_linear: 0.6, reasons: {} }],
    },
    {
      question: 'difficulty', number: '3.1', level: 'ordinal', categories: ['<15 min fix', '15 min - 1 hour'],
      coefficients: [
        { key: 'percent_agreement', name: 'percent agreement', value: null, ci95: null, reason: 'No task was rated by two raters.' },
        { key: 'krippendorff_alpha.ordinal', name: "Krippendorff's alpha, ordinal", value: null, ci95: null, reason: 'No task was rated by two raters.' },
      ],
      report: {},
      pair_matrix: { raters: ['Amara', 'Ben'], weights: 'linear', kappa: [[null, null], [null, null]], units: [[0, 0], [0, 0]] },
      confusion: [],
      distribution: [
        { category: '<15 min fix', answers: 1, labels: 1 },
        { category: '15 min - 1 hour', answers: 1, labels: 1 },
      ],
      reference: [],
    },
    {
      question: 'other_major_issues', number: '3.3', level: 'nominal', categories: ['0', '1'],
      coefficients: [
        { key: 'percent_agreement', name: 'percent agreement', value: 0.8, ci95: [0.6, 1], reason: null },
        { key: 'krippendorff_alpha.nominal', name: "Krippendorff's alpha, nominal", value: -0.0833, ci95: [-0.4, 0.25], reason: null },
      ],
      report: {},
      pair_matrix: { raters: ['Amara', 'Ben'], weights: 'unweighted', kappa: [[null, -0.0833], [-0.0833, null]], units: [[0, 5], [5, 0]] },
      confusion: [{ rater_a: 'Amara', rater_b: 'Ben', units: 5, counts: [[4, 1], [0, 0]] }],
      distribution: [
        { category: '0', answers: 9, labels: 5 },
        { category: '1', answers: 1, labels: 0 },
      ],
      reference: [],
    },
  ],
  skipped: ['underspecified_notes', 'other_notes'],
};

/** Disagreements on the questionnaire above, worst first; the last one adjudicated. */
export const disagreements: Disagreement[] = [
  {
    instance_id: 'astropy__astropy-12907', question: 'underspecified', number: '1.1', level: 'ordinal', spread: 3, distinct: 2,
    answers: [{ rater: 'Amara', value: 0 }, { rater: 'Ben', value: 3 }],
    adjudication: null,
  },
  {
    instance_id: 'django__django-11099', question: 'difficulty', number: '3.1', level: 'ordinal', spread: 1, distinct: 2,
    answers: [{ rater: 'Amara', value: '<15 min fix' }, { rater: 'Chen', value: '15 min - 1 hour' }],
    adjudication: null,
  },
  {
    instance_id: 'django__django-11099', question: 'other_major_issues', number: '3.3', level: 'nominal', spread: 1, distinct: 2,
    answers: [{ rater: 'Amara', value: 1 }, { rater: 'Chen', value: 0 }],
    adjudication: { instance_id: 'django__django-11099', question: 'other_major_issues', value: 0, rationale: 'The test is sound.', by: 'coordinator', at: '2026-01-02T09:30:00Z' },
  },
];

/** Ensemble labels of three tasks under the questionnaire's rule: one kept, one dropped by an
 * adjudicated label, one undecided for want of a label. */
export const ensemble: EnsembleReport = {
  rule: 'max-severity',
  filter: 'A task is filtered out when 1.1 is at least 2 or 3.3 is Yes.',
  kept: 1,
  filtered_out: 1,
  undecided: 1,
  cases: [
    {
      instance_id: 'django__django-11099', raters: ['Amara', 'Chen'], filter_out: false,
      labels: [
        { question: 'underspecified', value: 1, procedure: 'maximum', decided_by: ['Chen'], rationale: null, reason: null },
        { question: 'difficulty', value: '<15 min fix', procedure: 'majority', decided_by: ['Amara', 'Chen'], rationale: null, reason: null },
        { question: 'other_major_issues', value: 0, procedure: 'adjudicated', decided_by: ['coordinator'], rationale: 'The test is sound.', reason: null },
      ],
    },
    {
      instance_id: 'astropy__astropy-12907', raters: ['Amara', 'Ben'], filter_out: true,
      labels: [
        { question: 'underspecified', value: 3, procedure: 'maximum', decided_by: ['Ben'], rationale: null, reason: null },
        { question: 'difficulty', value: '15 min - 1 hour', procedure: 'majority', decided_by: ['Amara', 'Ben'], rationale: null, reason: null },
        { question: 'other_major_issues', value: 0, procedure: 'majority', decided_by: ['Amara', 'Ben'], rationale: null, reason: null },
      ],
    },
    {
      instance_id: 'astropy__astropy-7166', raters: ['Amara'], filter_out: null,
      labels: [
        { question: 'underspecified', value: 0, procedure: 'maximum', decided_by: ['Amara'], rationale: null, reason: null },
        { question: 'difficulty', value: null, procedure: null, decided_by: [], rationale: null, reason: 'No rater answered it.' },
        { question: 'other_major_issues', value: 0, procedure: 'majority', decided_by: ['Amara'], rationale: null, reason: null },
      ],
    },
  ],
};
