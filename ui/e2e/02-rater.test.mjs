import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerSections2And3, focus, justification, openDemoAs, shot, startApp, textOf, typeText, until } from './harness.mjs';

test('a rater fills every question with the keyboard, meets a rule, submits and moves on', async () => {
  const browser = await startApp();
  try {
    await openDemoAs(browser, 'Amara Nwosu');
    const first = await textOf(browser, '[data-testid="task-id"]');
    assert.match(first, /\S/);
    await shot(browser, 'rater-task');

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
