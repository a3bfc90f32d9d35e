//! Systems' imported outcomes on the server: the coordinator's alone. Raters' logins have no
//! grant on the table at all (see `access::group_grants`), and row-level security shows them
//! no row besides.

use super::{Client, PgStore};
use crate::StoreError;
use crate::results::{
    AuditVerdict, EncodedOutcomes, Outcomes, ResultStore, SystemRow, audit_verdict, damaged,
    decode_outcomes, system_row,
};

impl ResultStore for PgStore {
    fn put_system_results(
        &mut self,
        systems: &[(SystemRow, EncodedOutcomes)],
    ) -> Result<Vec<bool>, StoreError> {
        self.run(async |c: &mut Client| {
            let tx = c.transaction().await?;
            let mut replaced = Vec::with_capacity(systems.len());
            for (row, outcomes) in systems {
                replaced.push(
                    tx.query_opt("SELECT 1 FROM system_results WHERE name = $1", &[&row.name])
                        .await?
                        .is_some(),
                );
                tx.execute(
                    "INSERT INTO system_results(name, format, origin, submitted, resolved, outcomes, imported_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)
                     ON CONFLICT (name) DO UPDATE SET format = EXCLUDED.format,
                         origin = EXCLUDED.origin, submitted = EXCLUDED.submitted,
                         resolved = EXCLUDED.resolved, outcomes = EXCLUDED.outcomes,
                         imported_at = EXCLUDED.imported_at",
                    &[
                        &row.name,
                        &row.format,
                        &row.origin,
                        &row.submitted,
                        &row.resolved,
                        &outcomes.as_str(),
                        &row.imported_at,
                    ],
                )
                .await?;
            }
            tx.commit().await?;
            Ok(replaced)
        })
    }

    fn system_rows(&self) -> Result<Vec<SystemRow>, StoreError> {
        self.decode(
            "SELECT name, format, origin, submitted, resolved, imported_at FROM system_results
             ORDER BY name COLLATE \"C\"",
            &[],
            |row| system_row(row),
        )
    }

    fn system_outcomes(&self, each: &mut dyn FnMut(String, Outcomes)) -> Result<(), StoreError> {
        let rows = self.rows(
            "SELECT name, outcomes FROM system_results ORDER BY name COLLATE \"C\"",
            &[],
        )?;
        for r in &rows {
            let name: String = r.try_get(0).map_err(|e| self.failure(e.into()))?;
            let text: String = r.try_get(1).map_err(|e| self.failure(e.into()))?;
            let outcomes = decode_outcomes(&text).ok_or_else(|| damaged(&self.location, &name))?;
            each(name, outcomes);
        }
        Ok(())
    }

    fn audit_verdicts(&self) -> Result<Vec<AuditVerdict>, StoreError> {
        let rows = self.rows(
            "SELECT case_id, content FROM case_sources WHERE kind = 'audit_folder'",
            &[],
        )?;
        rows.iter()
            .map(|r| {
                let case_id: i64 = r.try_get(0).map_err(|e| self.failure(e.into()))?;
                let content: String = r.try_get(1).map_err(|e| self.failure(e.into()))?;
                audit_verdict(&self.location, case_id, &content)
            })
            .collect()
    }

    fn remove_system_results(&mut self, name: &str) -> Result<bool, StoreError> {
        Ok(self.execute("DELETE FROM system_results WHERE name = $1", &[&name])? > 0)
    }
}
