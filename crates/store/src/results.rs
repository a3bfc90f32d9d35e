//! Systems' imported per-task outcomes: one row per system, its outcomes packed in one text
//! (a few hundred kilobytes for 50,000 tasks, where a row per task would make 100 systems five
//! million rows to write and read). The coordinator's data: no rater's package or login reads
//! it.

use std::fmt::Write;

use rusqlite::{OptionalExtension, params};

use super::packed::{pack, unpack};
use super::shared::Cells;
use super::{Store, StoreError};

/// A system's results as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemRow {
    /// The system's name, unique in the project.
    pub name: String,
    /// The format its file was read as.
    pub format: String,
    /// The file or folder it came from.
    pub origin: String,
    /// Tasks of the project the file mentions.
    pub submitted: i64,
    /// Of those, the tasks it resolved.
    pub resolved: i64,
    /// When it was imported.
    pub imported_at: String,
}

/// A system's row from (name, format, origin, submitted, resolved, imported_at), on either
/// backend.
pub(crate) fn system_row(row: &impl Cells) -> Result<SystemRow, StoreError> {
    Ok(SystemRow {
        name: row.cell(0)?,
        format: row.cell(1)?,
        origin: row.cell(2)?,
        submitted: row.cell(3)?,
        resolved: row.cell(4)?,
        imported_at: row.cell(5)?,
    })
}

/// A system's outcomes: (case row id, resolved) for each task its file mentions, by case id.
pub type Outcomes = Vec<(i64, bool)>;

/// A system's outcomes in their stored text (see [`EncodedOutcomes::new`]): a few bytes a task
/// where [`Outcomes`] take sixteen, so an import of many systems holds them all at once in
/// this form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedOutcomes(String);

impl EncodedOutcomes {
    /// The outcomes sorted by case id, each as the gap from the previous case id in decimal
    /// and `r` (resolved) or `u` (not), as in `3r1u12r`.
    pub fn new(outcomes: &[(i64, bool)]) -> EncodedOutcomes {
        let mut sorted = outcomes.to_vec();
        sorted.sort_unstable();
        let mut text = String::with_capacity(sorted.len() * 3);
        let mut previous = 0;
        for (case_id, resolved) in sorted {
            // Written in place, without a string for each gap.
            let _ = write!(
                text,
                "{}{}",
                case_id - previous,
                if resolved { 'r' } else { 'u' }
            );
            previous = case_id;
        }
        EncodedOutcomes(text)
    }

    /// The stored text.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// The systems' results of a project, and the audit's verdicts that scores read beside them.
pub trait ResultStore {
    /// Stores systems' results in one transaction, each replacing those stored under its
    /// name; for each, true when it replaced.
    fn put_system_results(
        &mut self,
        systems: &[(SystemRow, EncodedOutcomes)],
    ) -> Result<Vec<bool>, StoreError>;

    /// Every system's row, by name.
    fn system_rows(&self) -> Result<Vec<SystemRow>, StoreError>;

    /// Hands every system's name and outcomes to `each`, by name, one system at a time, so
    /// that a caller keeping what it needs holds one system's outcomes at once.
    fn system_outcomes(&self, each: &mut dyn FnMut(String, Outcomes)) -> Result<(), StoreError>;

    /// Removes a system's results; false when there were none under that name.
    fn remove_system_results(&mut self, name: &str) -> Result<bool, StoreError>;

    /// The determinacy audit's verdict on every case imported from an audit folder.
    fn audit_verdicts(&self) -> Result<Vec<AuditVerdict>, StoreError>;
}

/// The determinacy audit's verdict on a case, as its folder was imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditVerdict {
    /// The case's row id.
    pub case_id: i64,
    /// `entailed`, `determined`, `proven` or `rater-pending`; `None` when nothing said.
    pub status: Option<String>,
    /// The witness or hypothesis class.
    pub witness_class: Option<String>,
}

/// The part of an audit folder's stored record a verdict needs.
#[derive(serde::Deserialize)]
struct AuditPart {
    audit: Option<verity_task::case::AuditNote>,
}

/// The verdict in an audit folder's stored record.
pub(crate) fn audit_verdict(
    path: &std::path::Path,
    case_id: i64,
    content: &str,
) -> Result<AuditVerdict, StoreError> {
    let part: AuditPart = serde_json::from_str(content).map_err(|source| StoreError::Corrupt {
        path: path.to_path_buf(),
        what: "audit folder record",
        source,
    })?;
    let (status, witness_class) = part
        .audit
        .map_or((None, None), |a| (a.status, a.witness_class));
    Ok(AuditVerdict {
        case_id,
        status,
        witness_class,
    })
}

/// Reads back what [`EncodedOutcomes::new`] wrote; `None` when the text is not such a list.
pub(crate) fn decode_outcomes(text: &str) -> Option<Outcomes> {
    let mut out = Vec::with_capacity(text.len() / 3);
    let mut previous = 0i64;
    let mut gap = 0i64;
    let mut digits = false;
    for b in text.bytes() {
        match b {
            b'0'..=b'9' => {
                gap = gap.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
                digits = true;
            }
            b'r' | b'u' if digits => {
                previous = previous.checked_add(gap)?;
                out.push((previous, b == b'r'));
                gap = 0;
                digits = false;
            }
            _ => return None,
        }
    }
    (!digits).then_some(out)
}

/// The error for stored outcomes that cannot be read.
pub(crate) fn damaged(path: &std::path::Path, name: &str) -> StoreError {
    StoreError::Damaged {
        path: path.to_path_buf(),
        what: "system results",
        reason: format!("the outcomes of system {name:?} are not a list of tasks"),
    }
}

impl ResultStore for Store {
    fn put_system_results(
        &mut self,
        systems: &[(SystemRow, EncodedOutcomes)],
    ) -> Result<Vec<bool>, StoreError> {
        let packed = systems
            .iter()
            .map(|(_, outcomes)| pack(&self.path, "system results", outcomes.as_str()))
            .collect::<Result<Vec<_>, _>>()?;
        let sql = |e| crate::sqlite::sql_err(&self.path, e);
        let tx = self.conn.transaction().map_err(sql)?;
        let mut replaced = Vec::with_capacity(systems.len());
        for ((row, _), packed) in systems.iter().zip(packed) {
            replaced.push(
                tx.query_row(
                    "SELECT 1 FROM system_results WHERE name = ?1",
                    [&row.name],
                    |_| Ok(()),
                )
                .optional()
                .map_err(sql)?
                .is_some(),
            );
            tx.execute(
                "INSERT OR REPLACE INTO system_results(name, format, origin, submitted, resolved, outcomes, imported_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    row.name,
                    row.format,
                    row.origin,
                    row.submitted,
                    row.resolved,
                    packed,
                    row.imported_at
                ],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        Ok(replaced)
    }

    fn system_rows(&self) -> Result<Vec<SystemRow>, StoreError> {
        self.decode(
            "SELECT name, format, origin, submitted, resolved, imported_at FROM system_results
             ORDER BY name",
            [],
            |row| system_row(row),
        )
    }

    fn system_outcomes(&self, each: &mut dyn FnMut(String, Outcomes)) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, outcomes FROM system_results ORDER BY name")
            .map_err(|e| self.sql(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sql(e))?;
        while let Some(row) = rows.next().map_err(|e| self.sql(e))? {
            let name: String = row.get(0).map_err(|e| self.sql(e))?;
            let text = unpack(
                &self.path,
                "system results",
                row.get_ref(1).map_err(|e| self.sql(e))?,
            )?;
            let outcomes = decode_outcomes(&text).ok_or_else(|| damaged(&self.path, &name))?;
            each(name, outcomes);
        }
        Ok(())
    }

    fn remove_system_results(&mut self, name: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .execute("DELETE FROM system_results WHERE name = ?1", [name])
            .map_err(|e| self.sql(e))?
            > 0)
    }

    fn audit_verdicts(&self) -> Result<Vec<AuditVerdict>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT case_id, content FROM case_sources WHERE kind = 'audit_folder'")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    unpack(&self.path, "audit folder record", r.get_ref(1)?),
                ))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.sql(e))?;
        rows.into_iter()
            .map(|(case_id, content)| audit_verdict(&self.path, case_id, &content?))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_back_as_written_in_case_order() {
        let outcomes = vec![(12, true), (3, false), (4, true), (1_000_000, false)];
        let text = EncodedOutcomes::new(&outcomes);
        assert_eq!(text.as_str(), "3u1r8r999988u");
        let mut sorted = outcomes.clone();
        sorted.sort_unstable();
        assert_eq!(decode_outcomes(text.as_str()), Some(sorted));
        assert_eq!(decode_outcomes(""), Some(vec![]));
        for bad in ["3", "r", "3x", "3r4"] {
            assert_eq!(decode_outcomes(bad), None, "{bad}");
        }
    }
}
