import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, openDemoAs, openDemoAsCoordinator, shot, signOut, startApp, textOf, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

test('a rater reads the evidence the repository gives at the base commit, and searches it', async () => {
  const browser = await startApp();
  try {
    await openDemoAs(browser, 'Lena Vogt');
    // Task 7's row carries requirements and an interface beside SWE-bench's fields: both are
    // texts the rater reads, in tabs of their own.
    await (await find(browser, '//button[@data-testid="queue-item"][contains(., "demo__tinylib-7")]')).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) === 'demo__tinylib-7', 'task 7 did not open');
    // The seven tabs wrap in their row, each whole, and open with the pointer
    // (16-task-tabs.test.mjs clicks every one at each size and zoom).
    const tabs = await browser.execute(() => [...document.querySelectorAll('[role="tab"]')].map((t) => t.textContent.trim()));
    assert.deepEqual(tabs.slice(0, 3), ['Issue', 'Requirements', 'Interface']);
    await (await find(browser, '#tab-requirements')).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="requirements"]')).length > 0, 'a click did not open the Requirements tab');
    assert.match(await textOf(browser, '[data-testid="requirements"]'), /\S/);
    await shot(browser, 'rater-requirements');
    await (await find(browser, '#tab-interface')).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="interface"]')).length > 0, 'a click did not open the Interface tab');
    await (await find(browser, '#tab-issue')).click();

    // A demo task: its repository is registered with the demo project.
    await (await find(browser, '//button[@data-testid="queue-item"][contains(., "demo__tinylib-")]')).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')).startsWith('demo__tinylib-'), 'no demo task opened');
    const task = await textOf(browser, '[data-testid="task-id"]');
    const tab = await find(browser, '//button[@role="tab"][starts-with(., "Evidence")]');
    await tab.click();
    const summary = await find(browser, '[data-testid="evidence-summary"]', 60_000);
    assert.match(await summary.getText(), /The tests use \d+ terms/);
    assert.match(await summary.getText(), /verity-demo\/tinylib at [0-9a-f]{12}/);
    assert.match(await textOf(browser, '[data-testid="evidence-risk"]'), /^Risk \d\.\d\d/);
    const terms = await browser.$$('[data-testid="terms"] tr.term-row');
    assert.ok(terms.length > 0, 'the test patch gives terms');
    await shot(browser, 'rater-evidence');

    // Open a term: its receipt is a git grep at the base commit.
    const first = await terms[0].$('td code');
    await first.scrollIntoView();
    await first.click();
    assert.match(await textOf(browser, '[data-testid="terms"] tr.detail'), /git grep -F -l -I -e .+ [0-9a-f]{40}/);
    // By keyboard: the term's button closes it again, and says so.
    const toggle = await terms[0].$('button.term-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await toggle.click();
    await until(browser, async () => (await toggle.getAttribute('aria-expanded')) === 'false', 'the term did not close');
    await browser.execute(() => document.querySelector('[data-testid="terms"] button.term-toggle').focus());
    await browser.keys(['Enter']);
    await until(browser, async () => (await textOf(browser, '[data-testid="terms"] tr.detail')).length > 0, 'Enter on the term did not open it');
    await checkAccessibility(browser, 'the evidence tab', { screenshot: 'rater-evidence' });

    // Search the repository for a word every Python file of the library has.
    const box = await find(browser, '[data-testid="grep-pattern"]');
    await box.addValue('def ');
    await browser.keys(['Enter']);
    await until(browser, async () => /\d+ matching lines? in \d+ files?/.test(await textOf(browser, '[data-testid="grep-summary"]')), 'the search gave no summary');
    assert.match(await textOf(browser, '[data-testid="grep-summary"]'), /git grep/);

    // The coordinator's task list, in id order, shows the task's risk from that report, and
    // no other task's (none has evidence yet).
    const risk = (await textOf(browser, '[data-testid="evidence-risk"]')).match(/^Risk (\d\.\d\d)/)[1];
    await signOut(browser);
    await openDemoAsCoordinator(browser);
    await find(browser, '[data-testid="task-risk"]');
    const risks = await browser.execute(() =>
      [...document.querySelectorAll('[data-testid="case-progress"] [role="row"]')]
        .map((row) => [...row.querySelectorAll('[role="cell"]')].map((c) => c.textContent.trim()))
        .filter((cells) => cells.length > 2 && cells[2] !== '–')
        .map((cells) => [cells[0], cells[2]]),
    );
    assert.deepEqual(risks, [[task, risk]]);
  } finally {
    await browser.deleteSession();
  }
});
