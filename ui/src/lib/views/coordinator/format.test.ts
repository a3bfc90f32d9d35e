import { describe, expect, it } from 'vitest';
import { naturalCompare } from './format';

describe('naturalCompare', () => {
  it('compares numbers by value and hexadecimal ids as text, as the command line does', () => {
    const ids = [
      'NodeBB-0c81642997ea1d827dbd02c311db9d4976112cd4-vf2cf3cb',
      'NodeBB-00c70ce7b0541cfc94afe567921d7668cdc8f4ac-vnan',
      'NodeBB-0e07f3c9bace416cbab078a30eae972868c0a8a3-vf2cf3cb',
      'teleport-10',
      'teleport-9',
      'calc-1000',
      'calc-999',
      'rater 10',
      'rater 2',
      'b10c',
      'b9c',
    ];
    expect([...ids].sort(naturalCompare)).toEqual([
      'NodeBB-00c70ce7b0541cfc94afe567921d7668cdc8f4ac-vnan',
      'NodeBB-0c81642997ea1d827dbd02c311db9d4976112cd4-vf2cf3cb',
      'NodeBB-0e07f3c9bace416cbab078a30eae972868c0a8a3-vf2cf3cb',
      'b9c',
      'b10c',
      'calc-999',
      'calc-1000',
      'rater 2',
      'rater 10',
      'teleport-9',
      'teleport-10',
    ]);
    expect(naturalCompare('x-01', 'x-1')).not.toBe(0);
    expect(naturalCompare('x-1', 'x-1')).toBe(0);
  });

  it('is a total order over hexadecimal words and numbers', () => {
    const names = ['x-1234567a', 'x-99', 'x-1000', 'x-1', 'x-0abcdef0', 'x-00abcdef', 'x-a', 'x-', 'x-9999999', 'x-123abcd', 'x-12', 'x-0'];
    for (const a of names) {
      for (const b of names) {
        expect(Math.sign(naturalCompare(a, b)) + Math.sign(naturalCompare(b, a))).toBe(0);
        for (const c of names) {
          if (naturalCompare(a, b) <= 0 && naturalCompare(b, c) <= 0) expect(naturalCompare(a, c)).toBeLessThanOrEqual(0);
        }
      }
    }
  });
});
