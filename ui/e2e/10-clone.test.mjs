import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { find, openDemoAsCoordinator, reopenDemo, shot, startApp, until } from './harness.mjs';
import { checkAccessibility } from './a11y.mjs';

// scripts/e2e.sh serves VERITY_E2E_GIT_BASE with git daemon and points https://github.com/ at
// it (git's url.insteadOf): the demo's repository, put there and forgotten by the project,
// is cloned again by the app's Clone button.
test('the coordinator clones a repository the tasks need, with progress', async () => {
  const cli = process.env.VERITY_CLI;
  const base = process.env.VERITY_E2E_GIT_BASE;
  assert.ok(cli && base, 'scripts/e2e.sh passes VERITY_CLI and VERITY_E2E_GIT_BASE');
  const project = reopenDemo();
  const verity = (...args) => execFileSync(cli, ['--project', project, ...args], { encoding: 'utf8' });
  const [repo] = JSON.parse(verity('repo', 'list', '--json'));
  const served = path.join(base, `${repo.name}.git`);
  mkdirSync(path.dirname(served), { recursive: true });
  execFileSync('git', ['clone', '-q', '--bare', repo.path, served]);
  verity('repo', 'remove', repo.name);

  const browser = await startApp();
  try {
    await openDemoAsCoordinator(browser);
    await (await find(browser, '[data-testid="coord-evidence"]')).click();
    const button = await find(browser, `[data-testid="clone-${repo.name}"]`, 30_000);
    assert.equal(await button.getText(), 'Clone');
    await button.click();
    const done = await find(browser, '[data-testid="cloned"]', 120_000);
    assert.match(await done.getText(), new RegExp(`${repo.name}`));
    await until(
      browser,
      async () => !(await (await browser.$(`[data-testid="clone-${repo.name}"]`)).isExisting()),
      'the repository still offers a Clone button',
    );
    await shot(browser, 'coordinator-cloned');
    await checkAccessibility(browser, 'the coordinator’s repositories and evidence');
  } finally {
    await browser.deleteSession();
  }
  const [again] = JSON.parse(verity('repo', 'list', '--json'));
  assert.equal(again.held, again.base_commits);
});
