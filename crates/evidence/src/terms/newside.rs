//! A test file's new side, to parse whole: the patch's hunks applied to the base commit's
//! file, or, when that file is missing or the hunks do not fit it, the hunks' context and
//! added lines on their own.

use verity_task::patch::{LineKind, PatchLine};

/// The text of a file's new side, with the added lines marked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NewSide<'a> {
    /// The text, one line per row.
    pub(super) text: String,
    /// Per row of `text`: the patch line that adds it, or `None` for a line already there.
    pub(super) added: Vec<Option<&'a PatchLine<'a>>>,
    /// Whether `text` is the whole file, rather than the hunks alone.
    pub(super) whole: bool,
}

impl<'a> NewSide<'a> {
    /// The new side of one file from its patch lines and, when known, its base content.
    pub(super) fn build(lines: &'a [PatchLine<'a>], base: Option<&str>) -> NewSide<'a> {
        let applied = base.and_then(|base| apply(lines, base));
        let whole = applied.is_some();
        let rows = applied.unwrap_or_else(|| hunks_only(lines));
        let mut text = String::with_capacity(rows.iter().map(|(t, _)| t.len() + 1).sum());
        let mut added = Vec::with_capacity(rows.len());
        for (line, by) in rows {
            text.push_str(line.trim_end_matches('\r'));
            text.push('\n');
            added.push(by);
        }
        NewSide { text, added, whole }
    }

    /// The patch line that adds `row`, if any.
    pub(super) fn added_at(&self, row: usize) -> Option<&'a PatchLine<'a>> {
        self.added.get(row).copied().flatten()
    }
}

type Row<'s, 'a> = (&'s str, Option<&'a PatchLine<'a>>);

fn hunks_only<'a>(lines: &'a [PatchLine<'a>]) -> Vec<Row<'a, 'a>> {
    lines
        .iter()
        .filter_map(|line| match line.kind {
            LineKind::Added => Some((line.text, Some(line))),
            LineKind::Context => Some((line.text, None)),
            _ => None,
        })
        .collect()
}

/// The hunks applied to `base`, or `None` when they do not fit it.
fn apply<'s, 'a: 's>(lines: &'a [PatchLine<'a>], base: &'s str) -> Option<Vec<Row<'s, 'a>>> {
    let old: Vec<&str> = base.lines().collect();
    let mut out: Vec<Row<'s, 'a>> = Vec::with_capacity(old.len() + lines.len());
    // The next base line to copy, 0-based.
    let mut next = 0;
    for line in lines {
        match line.kind {
            LineKind::Context | LineKind::Removed => {
                let at = (line.old_line? as usize).checked_sub(1)?;
                if at < next || at >= old.len() {
                    return None;
                }
                out.extend(old[next..at].iter().map(|text| (*text, None)));
                if old[at].trim_end_matches('\r') != line.text.trim_end_matches('\r') {
                    return None;
                }
                if line.kind == LineKind::Context {
                    out.push((old[at], None));
                    if out.len() != line.new_line? as usize {
                        return None;
                    }
                }
                next = at + 1;
            }
            LineKind::Added => {
                let row = line.new_line? as usize;
                while out.len() + 1 < row && next < old.len() {
                    out.push((old[next], None));
                    next += 1;
                }
                if out.len() + 1 != row {
                    return None;
                }
                out.push((line.text, Some(line)));
            }
            LineKind::NoNewline => {}
        }
    }
    out.extend(old[next..].iter().map(|text| (*text, None)));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use verity_task::patch::patch_lines;

    fn rows(side: &NewSide<'_>) -> Vec<(String, Option<(usize, u32)>)> {
        side.text
            .lines()
            .zip(&side.added)
            .map(|(text, by)| {
                (
                    text.to_string(),
                    by.map(|l| (l.patch_line, l.new_line.unwrap_or(0))),
                )
            })
            .collect()
    }

    const PATCH: &str = "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -2,2 +2,3 @@\n b\n-c\n+C\n+D\n@@ -6,0 +8,1 @@\n+G\n";

    #[test]
    fn hunks_apply_to_the_base_file() {
        let lines = patch_lines(PATCH);
        let side = NewSide::build(&lines, Some("a\nb\nc\nd\ne\nf\ng\n"));
        let want: Vec<(String, Option<(usize, u32)>)> = vec![
            ("a".into(), None),
            ("b".into(), None),
            ("C".into(), Some((7, 3))),
            ("D".into(), Some((8, 4))),
            ("d".into(), None),
            ("e".into(), None),
            ("f".into(), None),
            ("G".into(), Some((10, 8))),
            ("g".into(), None),
        ];
        assert_eq!(rows(&side), want);
        assert!(side.whole);
    }

    #[test]
    fn a_base_that_does_not_fit_leaves_the_hunks_alone() {
        let lines = patch_lines(PATCH);
        let side = NewSide::build(&lines, Some("a\nX\nc\n"));
        let want: Vec<(String, Option<(usize, u32)>)> = vec![
            ("b".into(), None),
            ("C".into(), Some((7, 3))),
            ("D".into(), Some((8, 4))),
            ("G".into(), Some((10, 8))),
        ];
        assert_eq!(rows(&side), want);
        assert!(!side.whole);
        assert_eq!(rows(&NewSide::build(&lines, None)), want);
    }
}
