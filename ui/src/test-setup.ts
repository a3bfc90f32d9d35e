// Unmount components between tests (vitest runs without globals, so testing-library cannot
// register this itself).
import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/svelte';

afterEach(() => cleanup());
