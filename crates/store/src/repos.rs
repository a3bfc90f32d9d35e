//! Registered repository clones and the evidence cache.

use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::packed::{pack, unpack};
use super::shared;
use super::{Store, StoreError};

/// A local clone registered for a repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Repository {
    /// `owner/name`.
    pub name: String,
    /// Where the clone is.
    pub path: String,
}

/// An evidence report cached for a case revision, base commit and engine version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedEvidence {
    /// The report as JSON.
    pub report: String,
    /// When it was computed.
    pub computed_at: String,
}

/// What an evidence report is cached under: the case revision, the commit and the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvidenceKey<'a> {
    /// The case revision's row id.
    pub case_revision_id: i64,
    /// The base commit.
    pub base_commit: &'a str,
    /// The evidence engine's version.
    pub engine_version: &'a str,
}

/// A case's latest sweep (`verity sweep`), as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSweep {
    /// Each proposal's result, as a JSON list.
    pub results: String,
    /// The base commit it was computed at.
    pub base_commit: String,
    /// When.
    pub computed_at: String,
}

/// Registered clones, the evidence cache and the sweeps.
pub trait RepoStore {
    /// Registers (or moves) the clone of a repository.
    fn put_repository(&mut self, name: &str, path: &str, now: &str) -> Result<(), StoreError>;

    /// Forgets the clone registered for a repository (the clone itself is never touched);
    /// false when none was registered.
    fn remove_repository(&mut self, name: &str) -> Result<bool, StoreError>;

    /// Every registered repository, by name.
    fn list_repositories(&self) -> Result<Vec<Repository>, StoreError>;

    /// The clone registered for a repository.
    fn repository(&self, name: &str) -> Result<Option<Repository>, StoreError>;

    /// A cached evidence report.
    fn cached_evidence(&self, key: &EvidenceKey<'_>) -> Result<Option<CachedEvidence>, StoreError>;

    /// Stores an evidence report with its risk score (0 to 1), which listings sort by.
    fn put_evidence(
        &mut self,
        key: &EvidenceKey<'_>,
        report: &str,
        risk: f64,
        now: &str,
    ) -> Result<(), StoreError>;

    /// Stores a case's sweep (the JSON list of its proposals' results), replacing the one
    /// before: the coordinator's, which a rater reads only when the project shows sweeps to
    /// raters.
    fn put_sweep(
        &mut self,
        case_id: i64,
        base_commit: &str,
        results: &str,
        now: &str,
    ) -> Result<(), StoreError>;

    /// A case's sweep, when one was stored.
    fn sweep(&self, case_id: i64) -> Result<Option<StoredSweep>, StoreError>;

    /// The stored sweeps' results (the JSON list), by case row id: of every case, or of
    /// `cases` only (a page).
    fn sweeps(&self, cases: Option<&[i64]>) -> Result<Vec<(i64, String)>, StoreError>;

    /// The risk score of each case whose latest revision has a report, at that revision's base
    /// commit, from this engine version: `(case row id, risk)`; of every case, or of `cases`
    /// only (a page). Reports cached before risk scores were stored have none.
    fn case_risks(
        &self,
        engine_version: &str,
        cases: Option<&[i64]>,
    ) -> Result<Vec<(i64, f64)>, StoreError>;
}

/// A risk score as stored: thousandths, which is the precision the engine rounds it to.
pub(crate) fn risk_permille(risk: f64) -> i64 {
    (risk.clamp(0.0, 1.0) * 1000.0).round() as i64
}

/// The listing query of [`RepoStore::case_risks`], the same on both backends but for the
/// engine version's parameter mark and `cases`, the condition on `r.case_id` that limits it to
/// some cases, in the backend's dialect. Every case's risks are read from the risks' index; a
/// page's from its cases' revisions first (SQLite takes `CROSS JOIN` as that order, PostgreSQL
/// as an inner join).
pub(crate) fn case_risks_sql(mark: &str, cases: Option<&str>) -> String {
    let (tables, cases) = match cases {
        None => ("evidence_cache e, case_revisions r", String::new()),
        Some(c) => (
            "case_revisions r CROSS JOIN evidence_cache e",
            format!(" AND r.case_id {c}"),
        ),
    };
    format!(
        "SELECT r.case_id, e.risk_permille FROM {tables}
         WHERE r.id = e.case_revision_id AND e.engine_version = {mark}
           AND e.risk_permille IS NOT NULL AND e.base_commit = r.base_commit{cases}
           AND r.revision = (SELECT MAX(revision) FROM case_revisions WHERE case_id = r.case_id)"
    )
}

/// `IN (…)` of some case row ids, for SQLite: the ids are numbers from the project itself, so
/// they are written into the text.
fn id_list(ids: &[i64]) -> String {
    let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
    format!("IN ({})", ids.join(","))
}

impl RepoStore for Store {
    fn put_repository(&mut self, name: &str, path: &str, now: &str) -> Result<(), StoreError> {
        self.execute(shared::PUT_REPOSITORY, params![name, path, now])?;
        Ok(())
    }

    fn remove_repository(&mut self, name: &str) -> Result<bool, StoreError> {
        let removed = self
            .conn
            .execute(shared::REMOVE_REPOSITORY, [name])
            .map_err(|e| self.sql(e))?;
        Ok(removed > 0)
    }

    fn list_repositories(&self) -> Result<Vec<Repository>, StoreError> {
        self.decode(
            "SELECT name, path FROM repositories ORDER BY name",
            [],
            |row| shared::repository(row),
        )
    }

    fn repository(&self, name: &str) -> Result<Option<Repository>, StoreError> {
        Ok(self
            .decode(shared::REPOSITORY, [name], |row| shared::repository(row))?
            .pop())
    }

    fn cached_evidence(&self, key: &EvidenceKey<'_>) -> Result<Option<CachedEvidence>, StoreError> {
        let row = self
            .conn
            .query_row(
                shared::CACHED_EVIDENCE,
                params![key.case_revision_id, key.base_commit, key.engine_version],
                |row| {
                    Ok((
                        unpack(&self.path, "evidence report", row.get_ref(0)?),
                        row.get(1)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| self.sql(e))?;
        row.map(|(report, computed_at)| {
            Ok(CachedEvidence {
                report: report?,
                computed_at,
            })
        })
        .transpose()
    }

    fn put_sweep(
        &mut self,
        case_id: i64,
        base_commit: &str,
        results: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        let packed = pack(&self.path, "sweep", results)?;
        self.execute(
            shared::PUT_SWEEP,
            params![case_id, base_commit, packed, now],
        )?;
        Ok(())
    }

    fn sweep(&self, case_id: i64) -> Result<Option<StoredSweep>, StoreError> {
        let row = self
            .conn
            .query_row(shared::SWEEP, [case_id], |row| {
                Ok((
                    unpack(&self.path, "sweep", row.get_ref(0)?),
                    row.get(1)?,
                    row.get(2)?,
                ))
            })
            .optional()
            .map_err(|e| self.sql(e))?;
        row.map(|(results, base_commit, computed_at)| {
            Ok(StoredSweep {
                results: results?,
                base_commit,
                computed_at,
            })
        })
        .transpose()
    }

    fn sweeps(&self, cases: Option<&[i64]>) -> Result<Vec<(i64, String)>, StoreError> {
        let sql = match cases {
            None => shared::ALL_SWEEPS.to_string(),
            Some(ids) => shared::sweeps_of_sql(&id_list(ids)),
        };
        let mut statement = self.conn.prepare(&sql).map_err(|e| self.sql(e))?;
        let rows = statement
            .query_map([], |row| {
                Ok((row.get(0)?, unpack(&self.path, "sweep", row.get_ref(1)?)))
            })
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (case_id, results) = row.map_err(|e| self.sql(e))?;
            out.push((case_id, results?));
        }
        Ok(out)
    }

    fn put_evidence(
        &mut self,
        key: &EvidenceKey<'_>,
        report: &str,
        risk: f64,
        now: &str,
    ) -> Result<(), StoreError> {
        let report = pack(&self.path, "evidence report", report)?;
        self.execute(
            "INSERT OR REPLACE INTO evidence_cache(case_revision_id, base_commit, engine_version,
               report, computed_at, risk_permille) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                key.case_revision_id,
                key.base_commit,
                key.engine_version,
                report,
                now,
                risk_permille(risk)
            ],
        )?;
        Ok(())
    }

    fn case_risks(
        &self,
        engine_version: &str,
        cases: Option<&[i64]>,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        let cases = cases.map(id_list);
        let mut stmt = self
            .conn
            .prepare(&case_risks_sql("?1", cases.as_deref()))
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([engine_version], |row| {
                Ok((row.get(0)?, row.get::<_, i64>(1)? as f64 / 1000.0))
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }
}
