//! Registered repository clones and the evidence cache on the server, with the project file's
//! behaviour.

use super::{Client, PgRow, PgStore};
use crate::repos::{case_risks_sql, risk_permille};
use crate::shared::{self, Cells};
use crate::{CachedEvidence, EvidenceKey, RepoStore, Repository, StoreError, StoredSweep};

impl RepoStore for PgStore {
    fn put_repository(&mut self, name: &str, path: &str, now: &str) -> Result<(), StoreError> {
        self.execute(shared::PUT_REPOSITORY, &[&name, &path, &now])?;
        Ok(())
    }

    fn remove_repository(&mut self, name: &str) -> Result<bool, StoreError> {
        Ok(self.execute(shared::REMOVE_REPOSITORY, &[&name])? > 0)
    }

    fn list_repositories(&self) -> Result<Vec<Repository>, StoreError> {
        self.decode(
            "SELECT name, path FROM repositories ORDER BY name COLLATE \"C\"",
            &[],
            |row| shared::repository(row),
        )
    }

    fn repository(&self, name: &str) -> Result<Option<Repository>, StoreError> {
        Ok(self
            .decode(shared::REPOSITORY, &[&name], |row| shared::repository(row))?
            .pop())
    }

    fn cached_evidence(&self, key: &EvidenceKey<'_>) -> Result<Option<CachedEvidence>, StoreError> {
        Ok(self
            .decode(
                shared::CACHED_EVIDENCE,
                &[&key.case_revision_id, &key.base_commit, &key.engine_version],
                |row| {
                    Ok(CachedEvidence {
                        report: row.cell(0)?,
                        computed_at: row.cell(1)?,
                    })
                },
            )?
            .pop())
    }

    fn put_evidence(
        &mut self,
        key: &EvidenceKey<'_>,
        report: &str,
        risk: f64,
        now: &str,
    ) -> Result<(), StoreError> {
        // Evidence a rater's machine computes is theirs to read, never the panel's: the
        // coordinator's cached report stays (and a rater's login may not write the cache).
        if self.is_rater_session()? {
            return Ok(());
        }
        let risk = risk_permille(risk);
        self.run(async |c: &mut Client| {
            c.execute(
                "INSERT INTO evidence_cache(case_revision_id, base_commit, engine_version, report, computed_at, risk_permille)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (case_revision_id, base_commit, engine_version)
                 DO UPDATE SET report = excluded.report, computed_at = excluded.computed_at,
                               risk_permille = excluded.risk_permille",
                &[&key.case_revision_id, &key.base_commit, &key.engine_version, &report, &now, &risk],
            )
            .await?;
            Ok(())
        })
    }

    fn put_sweep(
        &mut self,
        case_id: i64,
        base_commit: &str,
        results: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        self.execute(shared::PUT_SWEEP, &[&case_id, &base_commit, &results, &now])?;
        Ok(())
    }

    fn sweep(&self, case_id: i64) -> Result<Option<StoredSweep>, StoreError> {
        Ok(self
            .decode(shared::SWEEP, &[&case_id], |row| {
                Ok(StoredSweep {
                    results: row.cell(0)?,
                    base_commit: row.cell(1)?,
                    computed_at: row.cell(2)?,
                })
            })?
            .pop())
    }

    fn sweeps(&self, cases: Option<&[i64]>) -> Result<Vec<(i64, String)>, StoreError> {
        let row = |row: &PgRow<'_>| Ok((row.cell(0)?, row.cell(1)?));
        match cases {
            None => self.decode(shared::ALL_SWEEPS, &[], row),
            Some(ids) => self.decode(&shared::sweeps_of_sql("= ANY($1)"), &[&ids], row),
        }
    }

    fn case_risks(
        &self,
        engine_version: &str,
        cases: Option<&[i64]>,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = match cases {
                None => {
                    c.query(&case_risks_sql("$1", None), &[&engine_version])
                        .await?
                }
                Some(ids) => {
                    let sql = case_risks_sql("$1", Some("= ANY($2)"));
                    c.query(&sql, &[&engine_version, &ids]).await?
                }
            };
            rows.iter()
                .map(|r| -> Result<_, tokio_postgres::Error> {
                    Ok((r.try_get(0)?, r.try_get::<_, i64>(1)? as f64 / 1000.0))
                })
                .collect::<Result<_, _>>()
                .map_err(Into::into)
        })
    }
}
