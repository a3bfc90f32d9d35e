// Unmount components between tests (vitest runs without globals, so testing-library cannot
// register this itself), and empty the storage: the test files share their workers' jsdom, so
// nothing one test leaves may reach the next file's.
import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/svelte';

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
});
