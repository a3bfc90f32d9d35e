import { describe, expect, it } from 'vitest';
import { joinUser, splitUser } from './serverUrl';

describe('a server address and its user', () => {
  it('splits the user out of a URL and leaves the rest as it was', () => {
    expect(splitUser('postgres://verity_panel_ana@db.example:5432/panel')).toEqual({
      address: 'postgres://db.example:5432/panel',
      user: 'verity_panel_ana',
    });
    expect(splitUser('postgresql://bo%40lab@[::1]:5433/p?sslmode=require')).toEqual({
      address: 'postgresql://[::1]:5433/p?sslmode=require',
      user: 'bo@lab',
    });
    expect(splitUser('postgres://db.example/panel')).toEqual({ address: 'postgres://db.example/panel', user: '' });
    expect(splitUser('panel.verity')).toEqual({ address: 'panel.verity', user: '' });
  });

  it('puts the user in, replacing one the address names', () => {
    expect(joinUser('postgres://db.example:5432/panel', 'ana')).toBe('postgres://ana@db.example:5432/panel');
    expect(joinUser('postgres://coord@db.example:5432/panel', 'ana')).toBe('postgres://ana@db.example:5432/panel');
    expect(joinUser('postgres://db/p?sslmode=verify-full', 'bo@lab')).toBe('postgres://bo%40lab@db/p?sslmode=verify-full');
    expect(joinUser(' postgres://coord@db/p ', '')).toBe('postgres://coord@db/p');
  });

  it('gives back what it split', () => {
    for (const url of ['postgres://ana@h:1/d', 'postgresql://x@h/d?host=/tmp/s']) {
      const { address, user } = splitUser(url);
      expect(joinUser(address, user)).toBe(url);
    }
  });
});
