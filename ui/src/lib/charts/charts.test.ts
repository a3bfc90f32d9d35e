import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import Heatmap from './Heatmap.svelte';
import Confusion from './Confusion.svelte';
import Forest from './Forest.svelte';
import Bars from './Bars.svelte';
import { diverging } from './scale';

describe('Heatmap', () => {
  const names = ['Amara Nwosu', 'Ben Okafor', 'Chen Li'];
  const values = [
    [null, 0.4123, -0.25],
    [0.4123, null, null],
    [-0.25, null, null],
  ];
  const units = [
    [0, 6, 4],
    [6, 0, 0],
    [4, 0, 0],
  ];

  function cell(container: HTMLElement, row: string, col: string) {
    return container.querySelector(`[data-testid="heatmap-cell"][data-row="${row}"][data-col="${col}"]`)!;
  }

  it('prints each pair’s kappa in its cell, coloured on the diverging scale', () => {
    const { container } = render(Heatmap, { names, values, units, title: 'kappa' });
    expect(container.querySelectorAll('[data-testid="heatmap-cell"]')).toHaveLength(9);
    const ab = cell(container, 'Amara Nwosu', 'Ben Okafor');
    expect(ab.querySelector('text')!.textContent).toBe('0.41');
    expect(ab.querySelector('rect')!.getAttribute('fill')).toBe(diverging(0.4123));
    expect(cell(container, 'Chen Li', 'Amara Nwosu').querySelector('text')!.textContent).toBe('-0.25');
    expect(ab.querySelector('title')!.textContent).toBe('Amara Nwosu × Ben Okafor: 0.412 on 6 shared tasks');
  });

  it('gives the same figures as a table, a row and a column per rater', () => {
    const { getByTestId } = render(Heatmap, { names, values, units, title: 'kappa', minShared: 5 });
    const table = getByTestId('heatmap-table');
    expect(table.querySelector('caption')!.textContent).toBe('kappa');
    expect([...table.querySelectorAll('thead th')].map((th) => th.textContent)).toEqual(names);
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(rows).toEqual([
      ['Amara Nwosu', '—', '0.41 (6 shared)', 'not counted (4 shared)'],
      ['Ben Okafor', '0.41 (6 shared)', '—', 'n/a (none shared)'],
      ['Chen Li', 'not counted (4 shared)', 'n/a (none shared)', '—'],
    ]);
  });

  it('hatches undefined pairs with n/a and leaves the diagonal blank', () => {
    const { container } = render(Heatmap, { names, values, units, title: 'kappa' });
    const bc = cell(container, 'Ben Okafor', 'Chen Li');
    expect(bc.querySelector('text')!.textContent).toBe('n/a');
    expect(bc.querySelector('rect')!.getAttribute('fill')).toMatch(/^url\(#hatch-/);
    expect(bc.querySelector('title')!.textContent).toContain('no task rated by both');
    expect(cell(container, 'Ben Okafor', 'Ben Okafor').querySelector('text')).toBeNull();
    expect(container.textContent).not.toContain('NaN');
  });

  it('greys the pairs that share fewer tasks than asked, with their count', () => {
    const { container } = render(Heatmap, { names, values, units, title: 'kappa', minShared: 5 });
    const ac = cell(container, 'Amara Nwosu', 'Chen Li');
    expect(ac.querySelector('text')!.textContent).toBe('n=4');
    expect(ac.querySelector('rect')!.getAttribute('class')).toContain('sparse');
    expect(ac.querySelector('title')!.textContent).toBe('Amara Nwosu × Chen Li: not counted, only 4 shared tasks (fewer than 5)');
    expect(cell(container, 'Amara Nwosu', 'Ben Okafor').querySelector('text')!.textContent).toBe('0.41');
  });

  it('names the raters on both axes', () => {
    const { container } = render(Heatmap, { names, values, units, title: 'kappa' });
    const axis = [...container.querySelectorAll('text.axis')].map((t) => t.firstChild!.textContent);
    expect(axis.filter((t) => t === 'Chen Li')).toHaveLength(2);
  });
});

describe('Confusion', () => {
  it('puts each count in the cell of the first rater’s row and the second rater’s column', () => {
    const categories = [{ value: '0', label: 'Well-specified' }, { value: '1', label: 'Some blanks' }, { value: '2', label: 'Vague' }];
    const counts = [
      [3, 1, 0],
      [0, 2, 0],
      [0, 4, 1],
    ];
    const { container } = render(Confusion, { rowName: 'Amara', colName: 'Ben', categories, counts, units: 11 });
    const at = (r: string, c: string) => container.querySelector(`td[data-row="${r}"][data-col="${c}"]`)!;
    expect(at('2', '1').textContent).toBe('4');
    expect(at('1', '2').textContent).toBe('0');
    expect(at('0', '1').textContent).toBe('1');
    const rows = [...container.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(rows).toEqual([['0', '3', '1', '0'], ['1', '0', '2', '0'], ['2', '0', '4', '1']]);
    expect(at('2', '1').className).toContain('l5');
    expect(at('1', '2').className).toContain('l0');
    expect(container.querySelector('caption')!.textContent).toBe('Amara (rows) × Ben (columns) · 11 tasks');
  });
});

describe('Forest', () => {
  it('draws defined estimates with their whisker and gives the reason for undefined ones', () => {
    const rows = [
      { id: 'a', label: '1.1', detail: 'Is it specified?', value: 0.51234, ci: [0.2, 0.75] as [number, number], reason: null },
      { id: 'b', label: '3.1', detail: 'How long?', value: null, ci: null, reason: 'no task was rated by two raters' },
    ];
    const { getAllByTestId } = render(Forest, { rows, title: 'alpha' });
    const [a, b] = getAllByTestId('forest-row');
    expect(a.querySelector('circle')).not.toBeNull();
    expect(a.querySelectorAll('line.whisker')).toHaveLength(3);
    expect(a.textContent).toContain('0.512');
    expect(a.textContent).toContain('[0.200, 0.750]');
    expect(b.querySelector('circle')).toBeNull();
    expect(b.textContent).toContain('no task was rated by two raters');
    expect(b.textContent).not.toContain('NaN');
  });
});

describe('Bars', () => {
  it('gives the same counts as a table', () => {
    const { getByTestId, getByRole } = render(Bars, { data: [{ label: '0', count: 5 }, { label: '1', count: 2 }], title: 'Answers per category' });
    expect(getByRole('img', { name: 'Answers per category' })).toBeTruthy();
    const rows = [...getByTestId('bars-table').querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(rows).toEqual([['0', '5'], ['1', '2']]);
  });
});
