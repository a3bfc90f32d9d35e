// Number formats and the chart's axis for the Scores section.
import type { SystemScore } from '../../api';

/** A rate as a percentage with `digits` decimals; an em dash when undefined. */
export function percent(rate: number | null, digits = 1): string {
  return rate === null || !Number.isFinite(rate) ? '—' : `${(100 * rate).toFixed(digits)}%`;
}

/** An interval of rates as `[lo, hi]` in percent; an em dash when undefined. */
export function percentInterval(ci: [number, number] | null): string {
  return ci ? `[${(100 * ci[0]).toFixed(1)}, ${(100 * ci[1]).toFixed(1)}]` : '—';
}

/** A rank (ties share the mean of their places, so 2.5 can happen); an em dash when none. */
export function rankText(rank: number | null): string {
  return rank === null ? '—' : String(rank);
}

/** The chart's axis: from 0 to the highest interval end, rounded up to a tenth (at least 10%). */
export function chartDomain(systems: SystemScore[]): [number, number] {
  const highs = systems.flatMap((s) => [s.rate_ci?.[1] ?? 0, s.determinate_rate_ci?.[1] ?? 0]);
  const top = Math.min(1, Math.max(0.1, Math.ceil(Math.max(0, ...highs) * 10) / 10));
  return [0, top];
}

/** Round ticks from 0 to the axis' end: every tenth up to 50%, every fifth above. */
export function chartTicks([lo, hi]: [number, number]): number[] {
  const step = hi - lo <= 0.5 ? 0.1 : 0.2;
  const ticks: number[] = [];
  for (let i = 0; lo + i * step <= hi + 1e-9; i++) ticks.push(Math.round((lo + i * step) * 100) / 100);
  return ticks;
}
