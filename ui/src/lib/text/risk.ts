/** A task's risk score from this value up is shown as high, in the task list and the evidence. */
export const HIGH_RISK = 0.7;

/** Missing objects named in an incomplete report before "and N more", as in `verity evidence`. */
export const MISSING_SHOWN = 10;

/** Whether a risk score (null: evidence not computed) is shown as high. */
export function isHighRisk(risk: number | null): boolean {
  return risk !== null && risk >= HIGH_RISK;
}

/** A risk score as shown: two decimals, or a dash when the evidence is not computed. */
export function riskText(risk: number | null): string {
  return risk === null ? '–' : risk.toFixed(2);
}
