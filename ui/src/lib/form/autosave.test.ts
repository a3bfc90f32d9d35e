import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Autosave } from './autosave';
import { ActiveClock, activeMinutes } from './activity';

describe('autosave', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('saves the last value once, within the delay after the last edit', async () => {
    const saved: string[] = [];
    const a = new Autosave<string>(async (v) => { saved.push(v); }, 500);
    a.schedule('a');
    await vi.advanceTimersByTimeAsync(300);
    a.schedule('ab');
    await vi.advanceTimersByTimeAsync(300);
    expect(saved).toEqual([]);
    await vi.advanceTimersByTimeAsync(250);
    expect(saved).toEqual(['ab']);
  });

  it('flush saves at once and cancel drops a pending edit', async () => {
    const saved: string[] = [];
    const a = new Autosave<string>(async (v) => { saved.push(v); }, 500);
    a.schedule('x');
    await a.flush();
    expect(saved).toEqual(['x']);
    a.schedule('y');
    a.cancel();
    await vi.advanceTimersByTimeAsync(1000);
    expect(saved).toEqual(['x']);
    expect(a.dirty).toBe(false);
  });
});

describe('active time', () => {
  it('counts attentive time and stops counting after the idle limit', () => {
    let t = 0;
    const c = new ActiveClock(() => t, 60_000);
    t = 10_000;
    c.noteInput();
    t = 200_000;
    // Input at 10 s, idle limit 60 s: active until 70 s.
    expect(c.take(true)).toBe(70_000);
    t = 210_000;
    expect(c.take(false)).toBe(0);
  });

  it('does not count time while the window is unfocused', () => {
    let t = 0;
    const c = new ActiveClock(() => t, 60_000);
    t = 5_000;
    c.tick(false);
    t = 8_000;
    c.noteInput();
    expect(c.take(true)).toBe(3_000);
  });
});

describe('active time as shown', () => {
  it('says nothing for none, "<1 min" under a minute, whole minutes after', () => {
    expect(activeMinutes(0)).toBe('');
    expect(activeMinutes(5_000)).toBe('<1 min');
    expect(activeMinutes(59_999)).toBe('<1 min');
    expect(activeMinutes(60_000)).toBe('1 min');
    expect(activeMinutes(150_000)).toBe('3 min');
  });
});
