import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type AnswerRequest, type AnswerView } from '../api';
import { DraftKeeper, type KeeperOptions, type KeptDraft } from './offline';

const PROJECT = '/home/ana/panel.verity';

function request(task: string, underspecified: number): AnswerRequest {
  return { rater: 'ana', instance_id: task, values: { underspecified }, case_revision: 1, reason: null };
}

/** A server that is unreachable for its next `down` requests, then takes every draft. */
function fakeServer(down: number) {
  const calls: { at: number; req: AnswerRequest }[] = [];
  const server = {
    down,
    calls,
    refuse: null as ApiError | null,
    save: async (req: AnswerRequest): Promise<AnswerView> => {
      calls.push({ at: Date.now(), req });
      if (server.refuse) throw server.refuse;
      if (server.down > 0) {
        server.down -= 1;
        throw { code: 'server_unavailable', message: 'The project’s server cannot be reached; nothing was stored.' };
      }
      return {
        instance_id: req.instance_id, rater: req.rater, status: 'in_progress', values: req.values, answer_revision: 0, case_revision: 1,
        saved_at: new Date().toISOString(), questionnaire: 'swe-bench-verified 1.0.0', reason: null, unchanged: false,
      };
    },
  };
  return server;
}

function keeper(server: ReturnType<typeof fakeServer>, more: Partial<KeeperOptions> = {}) {
  const saved: KeptDraft[] = [];
  const refused: [string, string][] = [];
  const k = new DraftKeeper({
    project: PROJECT,
    rater: 'ana',
    save: server.save,
    onsaved: (draft) => saved.push(draft),
    onrefused: (draft, error) => refused.push([draft.case, error.message]),
    ...more,
  });
  return { k, saved, refused };
}

describe('drafts kept while the server cannot be reached', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    localStorage.clear();
  });
  afterEach(() => vi.useRealTimers());

  it('keeps a draft here and saves it when the server is back, then forgets it', async () => {
    const server = fakeServer(3);
    let changes = 0;
    const { k, saved } = keeper(server, { onchange: () => (changes += 1) });
    const start = Date.now();

    expect(await k.save(request('a-1', 2))).toBeNull();
    expect(k.kept('a-1')).toEqual({ case: 'a-1', values: { underspecified: 2 }, case_revision: 1, submit: false });
    expect(changes).toBe(1);
    // Values only, under the project, the rater and the task.
    expect(Object.entries(localStorage)).toEqual([
      [`verity.kept-draft:${JSON.stringify([PROJECT, 'ana', 'a-1'])}`, JSON.stringify({ values: { underspecified: 2 }, case_revision: 1, submit: false })],
    ]);

    // Tried again after 1 s and 2 s (the server is still down), then after 4 s it takes it.
    await vi.advanceTimersByTimeAsync(999);
    expect(server.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1 + 2_000 + 4_000);
    expect(server.calls.map((c) => c.at - start)).toEqual([0, 1_000, 3_000, 7_000]);
    expect(server.calls[3].req).toEqual(request('a-1', 2));
    expect(saved.map((d) => d.case)).toEqual(['a-1']);
    expect(k.kept('a-1')).toBeNull();
    expect(localStorage.length).toBe(0);
    expect(changes).toBe(2);

    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.calls).toHaveLength(4);
  });

  it('waits twice as long each time, up to 30 s', async () => {
    const server = fakeServer(100);
    const { k } = keeper(server);
    const start = Date.now();
    await k.save(request('a-1', 0));
    await vi.advanceTimersByTimeAsync(200_000);
    const at = server.calls.map((c) => c.at - start);
    const waits = at.slice(1).map((t, i) => t - at[i]);
    expect(waits.slice(0, 8)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    k.stop();
    const made = server.calls.length;
    await vi.advanceTimersByTimeAsync(200_000);
    expect(server.calls).toHaveLength(made);
    expect(k.kept('a-1')).not.toBeNull();
  });

  it('keeps a submission that did not get through as a draft, saves it as one, and says to submit again', async () => {
    const server = fakeServer(1);
    const { k, saved } = keeper(server);
    k.keep(request('a-2', 1), true);
    expect(k.kept('a-2')?.submit).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(server.calls).toHaveLength(1);
    expect(k.kept('a-2')).not.toBeNull();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(server.calls).toHaveLength(2);
    expect(saved).toEqual([{ case: 'a-2', values: { underspecified: 1 }, case_revision: 1, submit: true }]);
    expect(k.kept('a-2')).toBeNull();
  });

  it('tries the drafts kept earlier when the panes open again, and only this project’s and rater’s', async () => {
    const first = fakeServer(10);
    const before = keeper(first);
    await before.k.save(request('a-1', 1));
    await before.k.save(request('a-2', 2));
    before.k.stop();
    const other = keeper(first, { rater: 'bo' });
    await other.k.save({ ...request('a-1', 3), rater: 'bo' });
    other.k.stop();

    const server = fakeServer(0);
    const { k, saved } = keeper(server);
    expect(k.all().map((d) => d.case)).toEqual(['a-1', 'a-2']);
    await k.retry();
    expect(server.calls.map((c) => c.req)).toEqual([request('a-1', 1), request('a-2', 2)]);
    expect(saved.map((d) => d.case)).toEqual(['a-1', 'a-2']);
    expect(k.all()).toEqual([]);
    expect(other.k.kept('a-1')?.values).toEqual({ underspecified: 3 });
  });

  it('a save that gets through replaces the kept copy and sends the other kept drafts at once', async () => {
    const server = fakeServer(2);
    const { k, saved } = keeper(server);
    await k.save(request('a-1', 1));
    await k.save(request('a-2', 2));
    expect(k.all()).toHaveLength(2);
    // Back before the retry is due: a new edit of a-2 gets through, and a-1 follows at once.
    const view = await k.save(request('a-2', 3));
    expect(view?.values).toEqual({ underspecified: 3 });
    await vi.advanceTimersByTimeAsync(0);
    expect(server.calls.map((c) => c.req)).toEqual([request('a-1', 1), request('a-2', 2), request('a-2', 3), request('a-1', 1)]);
    expect(saved.map((d) => d.case)).toEqual(['a-2', 'a-1']);
    expect(k.all()).toEqual([]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.calls).toHaveLength(4);
  });

  it('other refusals reject as before and keep nothing', async () => {
    const server = fakeServer(0);
    server.refuse = new ApiError('invalid_answer', 'Question 1.1 takes 0 to 3.');
    const { k } = keeper(server);
    const error = await k.save(request('a-1', 9)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_answer');
    expect(localStorage.length).toBe(0);
  });

  it('a kept draft the server refuses for another reason is reported and no longer kept', async () => {
    const server = fakeServer(1);
    const { k, refused } = keeper(server);
    await k.save(request('a-1', 1));
    server.refuse = new ApiError('not_assigned', 'ana is not assigned to a-1.');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(refused).toEqual([['a-1', 'ana is not assigned to a-1.']]);
    expect(k.kept('a-1')).toBeNull();
  });
});
