// Coefficients as text for charts and tables.

/** A value with `digits` decimals, or `undefined` when it has none (never `NaN`). */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? 'undefined' : value.toFixed(digits);
}

/** A 95% interval as `[low, high]`, or an empty string without one. */
export function interval(ci: [number, number] | null, digits = 3): string {
  return ci ? `[${ci[0].toFixed(digits)}, ${ci[1].toFixed(digits)}]` : '';
}
