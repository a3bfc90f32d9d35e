import { describe, expect, it } from 'vitest';
import { contrast, diverging, textOn } from './scale';

describe('diverging scale', () => {
  it('runs from red through a light neutral to blue', () => {
    expect(diverging(-1)).toBe('#b2182b');
    expect(diverging(0)).toBe('#f7f7f7');
    expect(diverging(1)).toBe('#2166ac');
    expect(diverging(0.25)).toBe('#c5deeb');
  });

  it('clamps values beyond the ends', () => {
    expect(diverging(-3)).toBe(diverging(-1));
    expect(diverging(1.5)).toBe(diverging(1));
  });

  it('keeps printed values at least 4.5:1 against every fill', () => {
    for (let v = -1; v <= 1.0001; v += 0.01) {
      const fill = diverging(v);
      expect(contrast(fill, textOn(fill))).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('puts white text on the saturated ends and black on the neutral middle', () => {
    expect(textOn(diverging(-1))).toBe('#ffffff');
    expect(textOn(diverging(1))).toBe('#ffffff');
    expect(textOn(diverging(0))).toBe('#000000');
  });
});
