// What the prediction-powered panels show: values as their label reads (a share in percent, a
// mean as a number), the chart's axis around two intervals, and how a sample was drawn.
import type { DrawSummary, Estimate } from '../../api';

/** A value of an estimate: a share in percent, a question's mean as it is. */
export function estimateValue(e: Pick<Estimate, 'share'>, v: number): string {
  return e.share ? `${(100 * v).toFixed(1)}%` : v.toFixed(3);
}

/** An interval as `[lo, hi]`, in points for a share. */
export function estimateInterval(e: Pick<Estimate, 'share'>, [lo, hi]: [number, number]): string {
  return e.share ? `[${(100 * lo).toFixed(1)}, ${(100 * hi).toFixed(1)}]` : `[${lo.toFixed(3)}, ${hi.toFixed(3)}]`;
}

/** Half an interval's width, `±3.2 points` for a share. */
export function halfWidth(e: Pick<Estimate, 'share'>, [lo, hi]: [number, number]): string {
  const h = (hi - lo) / 2;
  return e.share ? `±${(100 * h).toFixed(1)} points` : `±${h.toFixed(3)}`;
}

/** The axis of a chart of some intervals: their span padded by a tenth, within [0, 1] for a
 * share. */
export function intervalDomain(share: boolean, intervals: [number, number][]): [number, number] {
  const lo = Math.min(...intervals.map((i) => i[0]));
  const hi = Math.max(...intervals.map((i) => i[1]));
  const pad = Math.max((hi - lo) / 10, share ? 0.01 : 0.05);
  const domain: [number, number] = [lo - pad, hi + pad];
  return share ? [Math.max(0, domain[0]), Math.min(1, domain[1])] : domain;
}

/** Five round ticks across a domain. */
export function domainTicks([lo, hi]: [number, number]): number[] {
  const raw = (hi - lo) / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) ticks.push(Math.round(t / step) * step);
  return ticks;
}

/** How one draw picked its tasks, in words. */
export function drawText(d: DrawSummary): string {
  const how = d.method === 'uniform' ? 'uniformly' : `by the uncertainty of ${d.predictor ?? 'the predictor'} on ${d.label ?? 'the label'} (floor ${d.floor ?? '—'})`;
  return `${d.size} ${how}, seed ${d.seed}, ${d.per_case} rater${d.per_case === 1 ? '' : 's'} each`;
}

/** How many more tasks reach a half-width, in words. */
export function moreText(more: number | null): string {
  return more === null ? 'no number short of every task reaches it' : `rate ${more} more task${more === 1 ? '' : 's'}`;
}
