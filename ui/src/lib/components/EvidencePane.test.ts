import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, waitFor } from '@testing-library/svelte';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import EvidencePane from './EvidencePane.svelte';
import type { EvidenceView, GrepReport, TermEvidence } from '../api/types';

function term(name: string, cls: TermEvidence['class'], live: string[], role: TermEvidence['role'] = 'asserted'): TermEvidence {
  return {
    term: name, kind: 'string', role, source: 'literal', class: cls, origin: { file: 'tests/test_units.py', patch_line: 9, file_line: 40 }, occurrences: 1, fed: false,
    in_prose: cls === 'stated', in_gold: cls === 'gold-introduced', live_paths: live, test_paths: [], count: live.length,
    nearest_grade: live.length > 0 ? (name === 'KB' ? 'non-code' : 'touched') : null, weak: name === 'KB',
    hits: live.map((path) => ({ path, line: 3, text: `x = "${name}"`, path_class: 'live' })),
    receipt: `git grep -F -l -I -e '${name}' abc123`, live_receipt: `git grep -F -l -I -e '${name}' abc123`,
  };
}

const evidence: EvidenceView = {
  cached: false,
  sweep: null,
  computed_at: '2026-11-22T08:00:00Z',
  report: {
    engine_version: 'evidence-1', instance_id: 'demo__tinylib-3', repo: 'demo/tinylib', base_commit: 'abc123abc123abc123', files: 14,
    terms: [term('parse_duration', 'stated', ['tinylib/units.py'], 'other'), term('only seconds are supported', 'gold-introduced', []), term('KB', 'codebase', ['.github/size.yml'])],
    candidates: [{
      term: 'only seconds are supported', kind: 'string', source: 'literal', class: 'gold-introduced', origin: { file: 'tests/test_units.py', patch_line: 12, file_line: 44 },
      strength: 0.8, airtight: true, reason: 'an asserted string; the gold patch adds it and no file of the base commit has it; no live file has it',
      receipt: "git grep -F -n -e 'only seconds are supported' abc123 -- ':!tests'",
      nearest: [{
        text: 'only minutes are supported', similarity: 0.75, paths: 2, path: 'tinylib/units.py', line: 18,
        diff: [{ op: 'equal', text: 'only ' }, { op: 'delete', text: 'minutes' }, { op: 'insert', text: 'seconds' }, { op: 'equal', text: ' are supported' }],
        diff_text: 'only [-minutes-]{+seconds+} are supported', receipt: "git grep -F -n -e 'only minutes are supported' abc123",
      }],
    }],
    precedents: [],
    summary: { terms: 3, asserted: 2, unexplained: 1, stated: 1, codebase: 1, gold_introduced: 1, test_only: 0, candidates: 1, airtight_candidates: 1, weak: 1, risk: 0.8, precedents_found: 0, precedents_missing: 0, incomplete: false },
    risk_drivers: [{ term: 'only seconds are supported', strength: 0.8, reason: 'an asserted string; the gold patch adds it' }],
    binary_paths: [],
    missing_objects: [],
  },
};

const grep: GrepReport = {
  query: { pattern: 'supported', fixed_strings: true, case_insensitive: false, context_lines: 2, max_matches: 500, live_only: false },
  commit: 'abc123', matches: 1, truncated: false, binary_files_skipped: 0, missing_objects: [], receipt: "git grep -F -n -C 2 -e supported abc123",
  files: [{ path: 'tinylib/units.py', path_class: 'live', lines: [{ line: 17, text: 'def f():', is_match: false }, { line: 18, text: '    raise E("only minutes are supported")', is_match: true }] }],
};

describe('EvidencePane', () => {
  afterEach(() => clearMocks());

  it('leads with the summary and shows the candidate with its word diff', async () => {
    mockIPC((cmd) => (cmd === 'case_evidence' ? evidence : null));
    const { getByTestId, container } = render(EvidencePane, { instanceId: 'demo__tinylib-3' });
    await waitFor(() => expect(getByTestId('evidence-summary')).toBeTruthy());
    const lead = getByTestId('evidence-summary').textContent ?? '';
    expect(lead).toMatch(/tests use\s*3\s*terms/);
    expect(lead).toMatch(/1\s*appear only in the gold patch/);
    expect(getByTestId('evidence-risk').textContent).toMatch(/Risk 0\.80\s*— driven by\s*only seconds are supported \(an asserted string; the gold patch adds it\)\.\s*1 of 2 asserted values are in neither/);
    expect(getByTestId('candidate').classList.contains('airtight')).toBe(true);
    expect(getByTestId('candidate').textContent).toContain('strength 0.80');
    expect(container.querySelector('.diff .delete')?.textContent).toBe('minutes');
    expect(container.querySelector('.diff .insert')?.textContent).toBe('seconds');
    expect(container.textContent).toContain("git grep -F -n -e 'only seconds are supported'");
  });

  it('filters terms by class and opens a term to its hits and receipt', async () => {
    mockIPC((cmd) => (cmd === 'case_evidence' ? evidence : null));
    const { getByTestId, getByText, container } = render(EvidencePane, { instanceId: 'demo__tinylib-3' });
    await waitFor(() => expect(getByTestId('terms')).toBeTruthy());
    expect(container.querySelectorAll('tr.term-row')).toHaveLength(3);
    expect(container.querySelectorAll('tr.term-row.quiet')).toHaveLength(1);
    expect(container.querySelector('tr.term-row.quiet')?.textContent).toContain('parse_duration');
    expect(container.querySelector('.badge.weak')?.getAttribute('title')).toContain('non-code');
    await fireEvent.click(getByText(/only the gold patch 1/));
    const rows = container.querySelectorAll('tr.term-row');
    expect(rows).toHaveLength(1);
    expect(rows[0].textContent).toContain('only seconds are supported');
    await fireEvent.click(getByText(/^All 3$/));
    await fireEvent.click(getByText('parse_duration'));
    expect(container.querySelector('tr.detail')?.textContent).toContain("git grep -F -l -I -e 'parse_duration' abc123");
  });

  it('marks an incomplete report and lists what the clone lacks', async () => {
    const partial: EvidenceView = {
      ...evidence,
      report: {
        ...evidence.report,
        candidates: evidence.report.candidates.map((c) => ({ ...c, airtight: false })),
        summary: { ...evidence.report.summary, airtight_candidates: 0, incomplete: true },
        missing_objects: Array.from({ length: 12 }, (_, i) => ({ path: `assets/big${i}.bin`, id: 'f'.repeat(40) })),
      },
    };
    mockIPC((cmd) => (cmd === 'case_evidence' ? partial : null));
    const { getByTestId } = render(EvidencePane, { instanceId: 'demo__tinylib-3' });
    await waitFor(() => expect(getByTestId('evidence-incomplete').textContent).toContain('lacks 12 objects'));
    const banner = getByTestId('evidence-incomplete');
    expect([...banner.querySelectorAll('li code')].map((c) => c.textContent)).toEqual(Array.from({ length: 10 }, (_, i) => `assets/big${i}.bin`));
    expect(banner.textContent).toContain('and 2 more');
  });

  it('says why when there is no evidence', async () => {
    mockIPC(() => {
      throw { code: 'not_found', message: 'No clone is registered for demo/tinylib (case demo__tinylib-3).' };
    });
    const { getByTestId } = render(EvidencePane, { instanceId: 'demo__tinylib-3' });
    await waitFor(() => expect(getByTestId('evidence-error').textContent).toContain('No clone is registered'));
  });

  it('searches the base commit and marks matching lines', async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return cmd === 'case_evidence' ? evidence : grep;
    });
    const { getByTestId, container } = render(EvidencePane, { instanceId: 'demo__tinylib-3' });
    await waitFor(() => expect(getByTestId('terms')).toBeTruthy());
    await fireEvent.input(getByTestId('grep-pattern'), { target: { value: 'supported' } });
    await fireEvent.submit(getByTestId('grep-pattern').closest('form')!);
    await waitFor(() => expect(getByTestId('grep-summary').textContent).toContain('1 matching line in 1 file'));
    expect(calls.at(-1)).toEqual(['grep_case', { instance_id: 'demo__tinylib-3', query: grep.query }]);
    expect(container.querySelector('.lines .match')?.textContent).toContain('only minutes are supported');
  });

  it('shows the task’s sweep beside the terms: tiers, snippets verified or not in words, receipts, the judged step', async () => {
    const precedent = {
      path: 'lib/hash.js', way: 'lenient: an empty list', snippet: 'if (!keys.length) {\n\treturn [];\n}', verified: true,
      verified_path: 'lib/hash.js', line: 12, live_paths: ['lib/hash.js', 'lib/list.js'], non_live_paths: [],
      receipt: { command: "git grep -n -m 1 -F -I -e 'if (!keys.length) {' abc123", prints: 'abc123:lib/hash.js:12:if (!keys.length) {' },
    };
    const missing = { ...precedent, way: 'strict: null', snippet: 'return null;', verified: false, verified_path: null, line: null, live_paths: [], non_live_paths: ['test/db.js'], receipt: { command: "git grep -n -F -e 'return null;' abc123", prints: '' } };
    const swept: EvidenceView = {
      ...evidence,
      sweep: [{
        iid: 'acme__store-1', choice: 'what a falsy key list gives', snippets: [precedent, missing], n_verified: 1, ways_verified: 1,
        tier: 'determined-codebase', rests_on: 'One way verified; the proposal judged that gold follows it.',
        judged: [{ step: 'does gold follow the one live way?', way: precedent.way, precedent, gold_lines: [{ path: 'lib/hash.js', line: 20, text: 'return [];' }], judgment: true, by: 'the proposal' }],
        graded_value: { value: '[]', in_prose: false, in_patches: true, live_paths: ['lib/hash.js'], receipt: { command: "git grep -F -l -e '[]' abc123", prints: 'lib/hash.js' } },
        base_commit: 'abc123', missing_objects: [],
      }],
    };
    mockIPC((cmd) => (cmd === 'case_evidence' ? swept : null));
    const { findByTestId, getAllByTestId, getByTestId } = render(EvidencePane, { instanceId: 'acme__store-1' });
    const panel = await findByTestId('sweep');
    expect(getByTestId('sweep-tier').textContent).toContain('Tier: determined-codebase — one live way, and gold follows it (a judgment)');
    const [yes, no] = getAllByTestId('sweep-snippet');
    expect(yes.dataset.verified).toBe('true');
    expect(yes.textContent).toContain('Verified lenient: an empty list · at lib/hash.js:12 and 1 more live file');
    expect(no.dataset.verified).toBe('false');
    expect(no.textContent).toContain('Not verified strict: null · proposed at lib/hash.js; only in non-live files (test/db.js)');
    expect(no.textContent).toContain('(prints nothing)');
    expect(getAllByTestId('sweep-receipt')[0].textContent).toBe("git grep -n -m 1 -F -I -e 'if (!keys.length) {' abc123");
    const judged = getByTestId('sweep-judged');
    expect(judged.textContent).toContain('Judged: does gold follow the one live way? yes (by the proposal)');
    expect(judged.textContent).toContain('lib/hash.js:20  return [];');
    expect(getByTestId('sweep-graded').textContent).toContain('Graded value []: the issue text does not state it; 1 live file has it.');
    expect(getByTestId('sweep-proposer').textContent).toBe('Proposed in a proposals file.');
    expect(panel.textContent).not.toContain('undefined');
  });

  it('names the model rater that proposed a sweep, with its model and prompt', async () => {
    const proposer = {
      rater: 'gpt-sweeper', model: 'gpt-test', endpoint: 'http://127.0.0.1:9/v1', prompt_id: 'sweep-proposer', prompt_version: '1.0.0',
      prompt_sha256: 'ab'.repeat(32), temperature: 0, seed: 1, input_tokens: 1200, output_tokens: 80, latency_ms: 900, cost_usd: null,
      response_id: 'chatcmpl-1', dialect: 'json_schema', request_hash: 'cd'.repeat(32),
    };
    const swept: EvidenceView = {
      ...evidence,
      sweep: [{
        iid: 'acme__store-1', choice: 'what a falsy key list gives', snippets: [], n_verified: 0, ways_verified: 0, tier: 'unsettled',
        rests_on: 'Nothing verified.', judged: [], base_commit: 'abc123', missing_objects: [], proposer,
        graded_value: { value: '1.0.2', in_prose: false, in_patches: false, live_paths: [], receipt: { command: "git grep -F -l -e '1.0.2' abc123", prints: '' } },
      }],
    };
    mockIPC((cmd) => (cmd === 'case_evidence' ? swept : null));
    const { findByTestId, getByTestId } = render(EvidencePane, { instanceId: 'acme__store-1' });
    expect((await findByTestId('sweep-proposer')).textContent).toBe(
      "Proposed by model rater gpt-sweeper (gpt-test, prompt sweep-proposer 1.0.0); every verdict below is Verity's own search.",
    );
    expect(getByTestId('sweep-graded').textContent).toContain('no live file has it; no line the gold or test patch adds holds it, so it settles nothing.');
  });

  it('shows no sweep when the reader may not see one', async () => {
    mockIPC((cmd) => (cmd === 'case_evidence' ? evidence : null));
    const { findByTestId, queryByTestId } = render(EvidencePane, { instanceId: 'x' });
    await findByTestId('evidence-risk');
    expect(queryByTestId('sweep')).toBeNull();
  });
});
