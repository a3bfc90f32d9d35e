// The questionnaire's texts use a sliver of markdown: paragraphs, "- " list items and **bold**.
// They are parsed into plain data and rendered as text nodes, never as HTML.

export interface Run { text: string; strong: boolean }
export type Block = { kind: 'paragraph'; runs: Run[] } | { kind: 'list'; items: Run[][] };

/** Splits `**bold**` spans out of a line; an unpaired `**` stays as written. */
export function runs(line: string): Run[] {
  const parts = line.split('**');
  if (parts.length % 2 === 0) return [{ text: line, strong: false }];
  return parts.map((text, i) => ({ text, strong: i % 2 === 1 })).filter((r) => r.text !== '');
}

/** Paragraphs (separated by blank lines) and lists (consecutive "- " lines). */
export function blocks(text: string): Block[] {
  const out: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push({ kind: 'paragraph', runs: runs(paragraph.join(' ')) });
    paragraph = [];
  };
  for (const raw of text.trim().split('\n')) {
    const line = raw.trim();
    if (line === '') {
      flush();
    } else if (line.startsWith('- ')) {
      flush();
      const last = out[out.length - 1];
      const item = runs(line.slice(2));
      if (last?.kind === 'list') last.items.push(item);
      else out.push({ kind: 'list', items: [item] });
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return out;
}
