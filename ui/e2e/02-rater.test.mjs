import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerSections2And3, find, focus, justification, openDemoAs, shot, startApp, textOf, typeText, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

test('a rater fills every question with the keyboard, meets a rule, submits and moves on', async () => {
  const browser = await startApp();
  try {
    await openDemoAs(browser, 'Amara Nwosu');
    const first = await textOf(browser, '[data-testid="task-id"]');
    assert.match(first, /\S/);
    await shot(browser, 'rater-task');
    await checkAccessibility(browser, 'the task’s issue and the form', { screenshot: 'rater-task' });
    // Every other tab of the task but the evidence (06-evidence checks that one).
    const tabs = await browser.execute(() => [...document.querySelectorAll('[role="tab"]')].map((t) => t.id));
    for (const id of tabs.filter((t) => !['tab-issue', 'tab-evidence'].includes(t))) {
      await (await find(browser, `#${id}`)).click();
      await until(browser, async () => (await browser.$(`#${id}`).getAttribute('aria-selected')) === 'true', `${id} did not open`);
      await checkAccessibility(browser, `the task’s ${id.slice(4)} tab`);
    }
    await (await find(browser, '#tab-issue')).click();

    // 1.1: focus its first option, pick 1 with a digit.
    await focus(browser, '#opt-underspecified-0');
    await browser.keys(['1']);
    await until(browser, async () => (await browser.$('#opt-underspecified-1').isSelected()), '1.1 did not take the digit 1');

    // 1.2: Tab into the text; 40 characters are refused by the rule, as the rater types.
    await browser.keys(['Tab']);
    await typeText(browser, justification(40));
    await until(browser, async () => (await textOf(browser, '[data-testid="q-underspecified_notes"] [data-rule="min_chars"]')).includes('needs at least 100 characters; it has 40'), 'the 100-character rule did not show');
    await browser.keys(['Control', 'Enter']);
    await until(browser, async () => (await textOf(browser, '[data-testid="error"]')).length > 0, 'submitting with a 40-character justification was not refused');
    assert.equal(await textOf(browser, '[data-testid="task-id"]'), first, 'a refused submit stays on the task');
    await shot(browser, 'rater-rule-refuses-40-chars');
    assert.equal(await browser.execute(() => document.activeElement?.dataset.testid), 'error', 'the refused submit puts focus on its summary');
    await checkAccessibility(browser, 'the form with its summary of errors');
    // The refused submit moved focus to the message; the rater clicks back into the text.
    await (await browser.$('#text-underspecified_notes')).addValue(justification(110).slice(40));

    await answerSections2And3(browser, { scope: 2, difficulty: 2, confidence: 4 });
    await until(browser, async () => (await textOf(browser, '[data-testid="saved-at"]')).startsWith('Draft saved at'), 'the draft was not autosaved');
    assert.equal(await textOf(browser, '[data-testid="error"]'), '', 'the rules banner goes once every rule is met');
    await shot(browser, 'rater-form-filled');

    await browser.keys(['Control', 'Enter']);
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) !== first, 'submit did not open the next task');
    assert.match(await textOf(browser, '[data-testid="notice"]'), new RegExp(`Submitted ${first}`));
    assert.match(await textOf(browser, '[data-testid="queue-summary"]'), /^1 \/ \d+ done$/);
    await shot(browser, 'rater-next-task');
  } finally {
    await browser.deleteSession();
  }
});

/** Whether a control is disabled, by itself or by its fieldset (WebKitWebDriver's "is enabled"
 *  looks at the control alone). */
const disabled = (browser, selector) => browser.execute((s) => document.querySelector(s).matches(':disabled'), selector);

// Runs after the test above: Amara's first task is submitted.
test('a submitted answer is read-only until "Revise…", which records a new revision and its reason', async () => {
  const browser = await startApp();
  try {
    await openDemoAs(browser, 'Amara Nwosu');
    await find(browser, '[data-testid="queue-item"] .dot.submitted');
    const id = await browser.execute(() => document.querySelector('[data-testid="queue-item"] .dot.submitted').closest('button').querySelector('.id').textContent);
    assert.match(id, /\S/);
    await (await find(browser, `//button[@data-testid="queue-item"][contains(., "${id}")]`)).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) === id, `${id} did not open`);
    assert.match(await textOf(browser, '[data-testid="saved-at"]'), /^Submitted \(revision 1\)/);
    assert.equal(await (await browser.$('#opt-underspecified-1')).isSelected(), true, 'the submitted answer shows');
    assert.equal(await disabled(browser, '#opt-underspecified-0'), true, 'a submitted answer is read-only');

    await (await find(browser, '[data-testid="revise"]')).click();
    await until(browser, async () => !(await disabled(browser, '#opt-underspecified-0')), '"Revise…" did not make the answer editable');
    await focus(browser, '#opt-underspecified-1');
    await browser.keys(['2']);
    await until(browser, async () => (await browser.$('#opt-underspecified-2')).isSelected(), '1.1 did not take the digit 2');
    await (await find(browser, '[data-testid="submit"]')).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="error"]')).startsWith('Say why you revise'), 'a revision without a reason was not refused');

    const reason = 'Reread the issue: it lists the units but not the error type.';
    await (await find(browser, 'input[aria-label="Reason for the revision"]')).setValue(reason);
    await (await find(browser, '[data-testid="submit"]')).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="notice"]')).includes(`Submitted ${id}`), 'the revision was not submitted');

    // Back on the task: the new revision, its reason, and the revised value.
    await (await find(browser, `//button[@data-testid="queue-item"][contains(., "${id}")]`)).click();
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) === id, `${id} did not open again`);
    await until(browser, async () => /^Submitted \(revision 2\)/.test(await textOf(browser, '[data-testid="saved-at"]')), 'the revision is not revision 2');
    assert.equal(await textOf(browser, '[data-testid="notice"]'), `Last revised: ${reason}`);
    assert.equal(await (await browser.$('#opt-underspecified-2')).isSelected(), true, 'the revised value shows');
    assert.equal(await disabled(browser, '#opt-underspecified-0'), true, 'the revision is read-only again');
    await shot(browser, 'rater-revised');
  } finally {
    await browser.deleteSession();
  }
});
