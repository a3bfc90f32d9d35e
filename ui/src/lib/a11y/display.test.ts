import { afterEach, describe, expect, it } from 'vitest';
import { applyTheme, savedTheme, savedZoom, zoomForKey } from './display';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = { ctrlKey: true }) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...mods });

describe('zoomForKey', () => {
  it('steps up with Ctrl+= or Ctrl++, down with Ctrl+-, and back to 100% with Ctrl+0', () => {
    expect(zoomForKey(key('='), 1)).toBe(1.1);
    expect(zoomForKey(key('+'), 1.75)).toBe(2);
    expect(zoomForKey(key('-'), 1)).toBe(0.9);
    expect(zoomForKey(key('0'), 2)).toBe(1);
    expect(zoomForKey(key('=', { metaKey: true }), 1)).toBe(1.1);
  });

  it('goes to the next level from a zoom between levels, and stops at the ends', () => {
    expect(zoomForKey(key('='), 1.05)).toBe(1.1);
    expect(zoomForKey(key('-'), 1.05)).toBe(1);
    expect(zoomForKey(key('='), 3)).toBeNull();
    expect(zoomForKey(key('-'), 0.5)).toBeNull();
    expect(zoomForKey(key('0'), 1)).toBeNull();
  });

  it('leaves every other key alone', () => {
    expect(zoomForKey(key('=', {}), 1)).toBeNull();
    expect(zoomForKey(key('s'), 1)).toBeNull();
    expect(zoomForKey(key('0', { ctrlKey: true, altKey: true }), 2)).toBeNull();
  });
});

describe('theme and zoom kept on this computer', () => {
  afterEach(() => {
    localStorage.clear();
    delete document.documentElement.dataset.theme;
  });

  it('shows a chosen theme on <html> and keeps it; "system" forgets it', () => {
    applyTheme('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(savedTheme()).toBe('dark');
    applyTheme('system');
    expect(document.documentElement.dataset.theme).toBeUndefined();
    expect(savedTheme()).toBe('system');
  });

  it('reads only a known zoom level back', () => {
    expect(savedZoom()).toBe(1);
    localStorage.setItem('verity.zoom', '2');
    expect(savedZoom()).toBe(2);
    localStorage.setItem('verity.zoom', '7');
    expect(savedZoom()).toBe(1);
  });
});
