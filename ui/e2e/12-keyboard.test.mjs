import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerAll, find, shot, startApp, textOf, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

/** What has the focus: its id, test id, tag and text. */
const focused = (browser) =>
  browser.execute(() => {
    const el = document.activeElement;
    return { id: el?.id ?? '', testid: el?.dataset?.testid ?? '', tag: el?.tagName ?? '', text: (el?.textContent ?? '').trim().slice(0, 80) };
  });

/** What the live region says (it is read, not shown, so WebDriver's visible text is empty). */
const announced = (browser) => browser.execute(() => document.querySelector('[data-testid="announcement"]').textContent);

/** Presses `key` alone (WebKitWebDriver merges repeats inside one action sequence). */
const press = (browser, key) => browser.keys([key]);

/** The page's layout: the window's width in CSS px, how wide the page scrolls, and how wide the task and form panes are. */
const layout = (browser) =>
  browser.execute(() => ({
    width: window.innerWidth,
    scroll: document.scrollingElement.scrollWidth,
    content: document.querySelector('main').scrollWidth,
    contentRoom: document.querySelector('main').clientWidth,
    task: document.querySelector('.middle')?.getBoundingClientRect().width ?? 0,
    form: document.querySelector('#answer-form')?.getBoundingClientRect().width ?? 0,
  }));

// Runs after 11-open, on the empty demo: nothing is answered yet.
test('a rater signs in, answers, submits and moves on by keyboard alone, with focus always placed', async () => {
  let browser = await startApp();
  try {
    await (await find(browser, '[data-testid="other-project"]', 60_000)).click();
    await (await find(browser, '[data-testid="open-empty-demo"]')).click();
    await until(browser, async () => (await focused(browser)).text === 'Who is using Verity?', 'focus is not on the sign-in heading');

    // Sign in: Tab to the first rater, Enter. Focus lands on the task's heading.
    await press(browser, 'Tab');
    assert.equal((await focused(browser)).testid, 'rater');
    await press(browser, 'Enter');
    await find(browser, '[data-testid="task-id"]', 30_000);
    await until(browser, async () => (await focused(browser)).id === 'task-heading', 'focus is not on the task heading after signing in');
    const first = await textOf(browser, '[data-testid="task-id"]');

    // From the heading to the first question's first answer in at most five Tab stops.
    const path = [];
    while ((await focused(browser)).id !== 'opt-underspecified-0' && path.length < 6) {
      await press(browser, 'Tab');
      path.push(await focused(browser));
    }
    assert.ok(path.length <= 5, `${path.length} Tab stops from the task's heading to the first answer: ${JSON.stringify(path)}`);

    // The tab strip is one stop; arrows move between tabs.
    await browser.execute(() => document.querySelector('[role="tab"][aria-selected="true"]').focus());
    await press(browser, 'ArrowRight');
    const tab = await focused(browser);
    assert.notEqual(tab.id, 'tab-issue');
    assert.equal(await (await browser.$(`#${tab.id}`)).getAttribute('aria-selected'), 'true');
    await press(browser, 'Home');
    assert.equal((await focused(browser)).id, 'tab-issue');

    // Help is a modal dialog: Tab stays inside, Escape closes it, focus goes back.
    await browser.execute(() => document.getElementById('opt-underspecified-0').focus());
    await press(browser, '?');
    await find(browser, '[data-testid="help"]');
    assert.equal((await focused(browser)).testid, 'help-close');
    for (let i = 0; i < 3; i += 1) {
      await press(browser, 'Tab');
      assert.ok(await browser.execute(() => document.querySelector('[data-testid="help"]').contains(document.activeElement)), 'focus left the help dialog');
    }
    await checkAccessibility(browser, 'the help dialog', { screenshot: 'rater-help' });
    await press(browser, 'Escape');
    await until(browser, async () => !(await (await browser.$('[data-testid="help"]')).isExisting()), 'Escape did not close the help');
    assert.equal((await focused(browser)).id, 'opt-underspecified-0', 'focus did not return to what opened the help');

    // The skip link: first in the page, shown when focused, and it leads to the form.
    const skip = await browser.execute(() => {
      const link = document.querySelector('[data-testid="skip-to-form"]');
      link.focus();
      const r = link.getBoundingClientRect();
      return { visible: r.top >= 0 && r.height > 0, before: [...document.querySelectorAll('a[href], button, input, select, textarea')].indexOf(link) };
    });
    assert.deepEqual(skip, { visible: true, before: 1 }, 'the skip link to the form is the second stop of the page, after the one to the main content');
    await shot(browser, 'rater-skip-link');
    await press(browser, 'Enter');
    assert.equal((await focused(browser)).id, 'opt-underspecified-0');

    // Focus rings are drawn inside clipped rows and the tab strip, so they show whole.
    const rings = await browser.execute(() =>
      ['[data-testid="queue-item"]', '[role="tab"]'].map((s) => {
        const el = document.querySelector(s);
        el.focus();
        const style = getComputedStyle(el);
        return [s, style.outlineStyle, parseFloat(style.outlineOffset) <= -2];
      }),
    );
    assert.deepEqual(rings, [['[data-testid="queue-item"]', 'solid', true], ['[role="tab"]', 'solid', true]]);

    // Answer everything and submit with Ctrl+Enter: the next task opens with focus on its heading.
    await browser.execute(() => document.getElementById('opt-underspecified-0').focus());
    await answerAll(browser, { specified: 1, scope: 1, difficulty: 1, confidence: 3 });
    await until(browser, async () => (await announced(browser)) === 'Saved', '"Saved" was not announced');
    await browser.keys(['Control', 'Enter']);
    await until(browser, async () => (await textOf(browser, '[data-testid="task-id"]')) !== first, 'submit did not open the next task');
    const next = await textOf(browser, '[data-testid="task-id"]');
    await until(browser, async () => (await focused(browser)).id === 'task-heading', 'focus is not on the next task’s heading');
    assert.equal(await announced(browser), `Submitted ${first}. Now on ${next}.`);

    // Zoom to 200% with Ctrl+=: the panes stack, nothing collapses, no sideways scroll.
    for (let i = 0; i < 5; i += 1) await browser.keys(['Control', '=']);
    await until(browser, async () => (await layout(browser)).width <= 660, 'Ctrl+= did not zoom the window to 200%');
    let at = await layout(browser);
    assert.ok(at.scroll <= at.width && at.content <= at.contentRoom, `the page scrolls sideways at 200%: ${JSON.stringify(at)}`);
    assert.ok(at.task >= at.width * 0.9 && at.form >= at.width * 0.8, `a pane is cut at 200%: ${JSON.stringify(at)}`);
    await shot(browser, 'zoom-200-rater');
    await browser.execute(() => document.querySelector('.right').scrollIntoView());
    await shot(browser, 'zoom-200-rater-form');

    // The zoom is kept: the next start is at 200% too.
    await browser.deleteSession();
    browser = await startApp();
    const coordinator = await find(browser, '[data-testid="coordinator"]', 60_000);
    await until(browser, async () => (await layout(browser)).width <= 660, 'the zoom was not kept across a restart');

    // The coordinator at 200%, by keyboard (WebDriver's clicks miss on a zoomed page):
    // navigation above the section, no sideways scroll.
    await browser.execute((el) => el.focus(), coordinator);
    await press(browser, 'Enter');
    await find(browser, '[data-testid="case-progress"]');
    await until(browser, async () => (await focused(browser)).text === 'Coordinator', 'focus is not on the coordinator’s heading');
    at = await layout(browser);
    assert.ok(at.scroll <= at.width, `the coordinator's page scrolls sideways at 200%: ${JSON.stringify(at)}`);
    await shot(browser, 'zoom-200-coordinator');
    await browser.execute(() => document.querySelector('[data-testid="coord-raters"]').focus());
    await press(browser, 'Enter');
    await find(browser, '[data-testid="raters-quality"]');
    await shot(browser, 'zoom-200-coordinator-raters');

    // Ctrl+0: back to 100%.
    await browser.keys(['Control', '0']);
    await until(browser, async () => (await layout(browser)).width >= 1200, 'Ctrl+0 did not reset the zoom');
  } finally {
    await browser.deleteSession();
  }
});
