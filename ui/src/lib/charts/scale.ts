// The heatmap's diverging colour scale for coefficients in [-1, 1]: red below zero, a light
// neutral at zero, blue above (ColorBrewer's RdBu stops). Each cell's text is black or white,
// whichever contrasts more with its fill, so the printed values read the same in light and
// dark themes.

type Rgb = [number, number, number];

const STOPS: [number, Rgb][] = [
  [-1, [0xb2, 0x18, 0x2b]],
  [-0.5, [0xf4, 0xa5, 0x82]],
  [0, [0xf7, 0xf7, 0xf7]],
  [0.5, [0x92, 0xc5, 0xde]],
  [1, [0x21, 0x66, 0xac]],
];

function hex([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

function rgb(colour: string): Rgb {
  const n = parseInt(colour.slice(1), 16);
  return [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/** The fill for a value; values outside [-1, 1] take the nearest end. */
export function diverging(value: number): string {
  const v = Math.min(1, Math.max(-1, value));
  for (let i = 1; i < STOPS.length; i++) {
    const [hi, to] = STOPS[i];
    if (v <= hi) {
      const [lo, from] = STOPS[i - 1];
      const t = (v - lo) / (hi - lo);
      return hex([0, 1, 2].map((k) => from[k] + (to[k] - from[k]) * t) as Rgb);
    }
  }
  return hex(STOPS[STOPS.length - 1][1]);
}

/** WCAG relative luminance of a `#rrggbb` colour. */
export function luminance(colour: string): number {
  const [r, g, b] = rgb(colour).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two `#rrggbb` colours. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Black or white, whichever reads better on `fill`. */
export function textOn(fill: string): '#000000' | '#ffffff' {
  return contrast(fill, '#000000') >= contrast(fill, '#ffffff') ? '#000000' : '#ffffff';
}
