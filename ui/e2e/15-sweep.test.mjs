import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { find, openDemoAs, openDemoAsCoordinator, reopenDemo, shot, signOut, startApp, textOf, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

const TASK = 'demo__tinylib-1';

/** A proposal for the demo's first task: two ways the package's code makes the choice, both in
 * live code at the base commit, and a third snippet that is in no file. */
function sweepDemoTask(project) {
  const proposal = {
    iid: TASK,
    choice: 'how a helper is exported from the package',
    proposed: [
      { path: 'tinylib/__init__.py', way: 'imported by name at the package’s top', snippet: 'from .retry import retry' },
      { path: 'tinylib/__init__.py', way: 'listed in __all__', snippet: '__all__ = [\n    "__version__",\n    "format_duration",' },
      { path: 'tinylib/__init__.py', way: 'imported by name at the package’s top', snippet: 'from .retry import retry_forever' },
    ],
  };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'verity-sweep-')), 'proposal.json');
  writeFileSync(file, JSON.stringify(proposal));
  execFileSync(process.env.VERITY_CLI, ['--project', project, 'sweep', '--proposals', file], { encoding: 'utf8' });
}

async function openEvidence(browser) {
  await (await find(browser, `//button[@data-testid="queue-item"][contains(., "${TASK}")]`)).click();
  await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) === TASK, `${TASK} did not open`);
  await (await find(browser, '//button[@role="tab"][starts-with(., "Evidence")]')).click();
  await find(browser, '[data-testid="evidence-summary"]', 60_000);
}

test('a sweep shows in the evidence beside the terms, to raters only once the coordinator turns it on', async () => {
  const project = reopenDemo();
  sweepDemoTask(project);
  const browser = await startApp();
  try {
    // Off by default: the rater's evidence has no sweep.
    await openDemoAs(browser, 'Lena Vogt');
    await openEvidence(browser);
    assert.equal((await browser.$$('[data-testid="sweep"]')).length, 0, 'a rater sees the sweep before it is shared');
    await signOut(browser);

    // The coordinator sees the task marked in the progress list, and shares sweeps.
    await openDemoAsCoordinator(browser);
    await until(
      browser,
      async () => browser.execute((id) => [...document.querySelectorAll('[data-testid="case-progress"] [role="row"]')].some((r) => r.textContent.includes(id) && r.querySelector('.swept')), TASK),
      'the progress list does not mark the swept task',
      30_000,
    );
    await (await find(browser, '[data-testid="coord-evidence"]')).click();
    const share = await find(browser, '[data-testid="sweeps-for-raters"]');
    assert.equal(await share.isSelected(), false);
    await share.click();
    await until(browser, async () => execFileSync(process.env.VERITY_CLI, ['--project', project, '--as', 'Lena Vogt', 'case', 'show', TASK, '--json'], { encoding: 'utf8' }).includes('"tier": "codebase-plural"'), 'the switch did not share the sweep');
    await signOut(browser);

    // Now the rater reads it: the tier, each snippet verified or not in words, the receipts.
    await openDemoAs(browser, 'Lena Vogt');
    await openEvidence(browser);
    const panel = await find(browser, '[data-testid="sweep"]', 30_000);
    assert.match(await textOf(browser, '[data-testid="sweep-tier"]'), /^Tier: codebase-plural — the codebase makes this choice two or more live ways/);
    const snippets = await browser.execute(() => [...document.querySelectorAll('[data-testid="sweep-snippet"]')].map((s) => [s.dataset.verified, s.querySelector('.verdict').textContent]));
    assert.deepEqual(snippets, [['true', 'Verified'], ['true', 'Verified'], ['false', 'Not verified']]);
    assert.match(await textOf(browser, '[data-testid="sweep-receipt"]'), /^git grep -n -m 1 -F -I -e 'from \.retry import retry' [0-9a-f]{40}$/);
    await panel.scrollIntoView();
    await shot(browser, 'rater-evidence-sweep');
    await checkAccessibility(browser, 'a sweep in the evidence', { screenshot: 'rater-evidence-sweep' });
  } finally {
    execFileSync(process.env.VERITY_CLI, ['--project', project, 'sweep', '--for-raters', 'off']);
    await browser.deleteSession();
  }
});
