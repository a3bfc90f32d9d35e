import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearMocks, mockIPC } from '@tauri-apps/api/mocks';
import { emit } from '@tauri-apps/api/event';
import { api, ApiError } from './index';

describe('api', () => {
  afterEach(() => clearMocks());

  it('calls the command named after the ops function with its arguments', async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return 'a__b-1';
    });
    const next = await api.nextTask('ana', null);
    expect(next).toBe('a__b-1');
    expect(calls).toEqual([['next_task', { rater: 'ana', after: null }]]);
  });

  it('turns a {code, message} rejection into an ApiError', async () => {
    mockIPC(() => {
      throw { code: 'invalid_answer', message: 'Question 1.2 (underspecified_notes) needs at least 100 characters; it has 40.' };
    });
    const err = await api.submitAnswer({ rater: 'ana', instance_id: 'x', values: {}, case_revision: null, reason: null }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('invalid_answer');
    expect(err.message).toContain('needs at least 100 characters');
  });

  it('never surfaces "undefined" for a rejection without a message', async () => {
    mockIPC(() => {
      throw undefined;
    });
    const err = await api.listRaters().catch((e) => e);
    expect(err.message).not.toContain('undefined');
    expect(err.code).toBe('error');
  });

  it('tells of other sessions’ answers until told to stop', async () => {
    mockIPC(() => null, { shouldMockEvents: true });
    let told = 0;
    const stop = api.onAnswersChanged(() => { told += 1; });
    await vi.waitFor(async () => {
      await emit('answers-changed');
      expect(told).toBeGreaterThan(0);
    });
    const before = told;
    await emit('answers-changed');
    expect(told).toBe(before + 1);
    stop();
    await vi.waitFor(async () => {
      const now = told;
      await emit('answers-changed');
      expect(told).toBe(now);
    });
  });
});
