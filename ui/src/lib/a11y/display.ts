// How the window looks to this user, kept on this computer: the colour theme and the zoom.
// The theme is a data-theme attribute on <html> (app.css pairs every colour for light and dark);
// the zoom is the web view's own (Ctrl+=, Ctrl+-, Ctrl+0), so text, layout and charts scale
// together and the page reflows at the zoomed width.
import { getCurrentWebview } from '@tauri-apps/api/webview';

export type Theme = 'system' | 'light' | 'dark';

const THEME_KEY = 'verity.theme';
const ZOOM_KEY = 'verity.zoom';

/** The zoom levels Ctrl+= and Ctrl+- step through; 1 is 100%. */
export const ZOOM_STEPS = [0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3] as const;

/** The theme chosen on this computer ('system' until one is chosen). */
export function savedTheme(): Theme {
  const t = localStorage.getItem(THEME_KEY);
  return t === 'light' || t === 'dark' ? t : 'system';
}

/** Shows `theme` and keeps it for the next start. */
export function applyTheme(theme: Theme) {
  const root = document.documentElement;
  if (theme === 'system') {
    delete root.dataset.theme;
    localStorage.removeItem(THEME_KEY);
  } else {
    root.dataset.theme = theme;
    localStorage.setItem(THEME_KEY, theme);
  }
}

/** The zoom kept on this computer (1 when none, or when what is kept is not a zoom level). */
export function savedZoom(): number {
  const z = Number(localStorage.getItem(ZOOM_KEY));
  return (ZOOM_STEPS as readonly number[]).includes(z) ? z : 1;
}

/** The zoom a key press asks for from `current`: Ctrl (or Cmd) with =, + or - steps, with 0
 * resets; null when the key is not a zoom key or the zoom is already at that end. */
export function zoomForKey(e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }, current: number): number | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  const at = ZOOM_STEPS.findIndex((z) => z >= current);
  const here = at < 0 ? ZOOM_STEPS.length - 1 : at;
  let next: number;
  if (e.key === '=' || e.key === '+') next = ZOOM_STEPS[Math.min(ZOOM_STEPS.length - 1, ZOOM_STEPS[here] > current ? here : here + 1)];
  else if (e.key === '-' || e.key === '_') next = ZOOM_STEPS[Math.max(0, here - 1)];
  else if (e.key === '0') next = 1;
  else return null;
  return next === current ? null : next;
}

/** Zooms the window to `factor` and keeps it for the next start. */
export async function applyZoom(factor: number) {
  await getCurrentWebview().setZoom(factor);
  localStorage.setItem(ZOOM_KEY, String(factor));
}
