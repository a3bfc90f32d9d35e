import { describe, expect, it } from 'vitest';
import { LiveRegion } from './live.svelte';

describe('LiveRegion', () => {
  it('says each new message once', () => {
    const live = new LiveRegion();
    live.say('Saved');
    expect(live.text).toBe('Saved');
    live.say('Saved');
    expect(live.text).toBe('Saved');
    live.say('Submitted a-1.');
    expect(live.text).toBe('Submitted a-1.');
  });

  it('changes its text to say a message again when asked to repeat it', () => {
    const live = new LiveRegion();
    live.say('Saved');
    live.say('Saved', true);
    expect(live.text).not.toBe('Saved');
    expect(live.text.trimEnd()).toBe('Saved');
    live.say('Saved', true);
    expect(live.text).toBe('Saved');
  });
});
