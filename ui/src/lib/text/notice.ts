// The sentence shown above a task's text when rendering showed something as text instead of
// rendering it (see annotations::markdown): the rater then knows to look at the source.
import type { RenderChanges } from '../api/types';

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "2 HTML elements shown as text · 1 link shown as text", or null when nothing changed. */
export function changeNotice(changes: RenderChanges): string | null {
  const parts: string[] = [];
  if (changes.html_as_text > 0) parts.push(`${count(changes.html_as_text, 'HTML element', 'HTML elements')} shown as text`);
  if (changes.links_as_text > 0) parts.push(`${count(changes.links_as_text, 'link', 'links')} shown as text`);
  return parts.length > 0 ? parts.join(' · ') : null;
}
