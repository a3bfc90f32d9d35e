//! Raters and their assignments on the server, with the project file's behaviour.

use super::{Client, PgStore};
use crate::raters::check_name_free;
use crate::shared::{self, Cells, RATER_COLUMNS};
use crate::{Assignment, PackageKey, Rater, RaterStore, StoreError};

impl RaterStore for PgStore {
    fn add_rater(&mut self, name: &str, now: &str) -> Result<Rater, StoreError> {
        check_name_free(&self.list_raters()?, name)?;
        let id: i64 = self.run(async |c: &mut Client| {
            Ok(c.query_one(shared::INSERT_RATER, &[&name, &now])
                .await?
                .try_get(0)?)
        })?;
        Ok(Rater {
            id,
            name: name.to_string(),
            active: true,
        })
    }

    fn list_raters(&self) -> Result<Vec<Rater>, StoreError> {
        self.decode(
            &format!("SELECT {RATER_COLUMNS} FROM raters ORDER BY name COLLATE \"C\""),
            &[],
            |row| shared::rater(row),
        )
    }

    fn rater_by_name(&self, name: &str) -> Result<Option<Rater>, StoreError> {
        Ok(self
            .decode(shared::RATER_BY_NAME, &[&name], |row| shared::rater(row))?
            .pop())
    }

    fn set_rater_active(
        &mut self,
        rater_id: i64,
        active: bool,
        now: &str,
    ) -> Result<usize, StoreError> {
        let deactivated = (!active).then_some(now);
        self.run(async |c: &mut Client| {
            let tx = c.transaction().await?;
            tx.execute(shared::SET_RATER_DEACTIVATED, &[&deactivated, &rater_id])
                .await?;
            let released = if active {
                0
            } else {
                tx.execute(shared::RELEASE_UNSUBMITTED, &[&rater_id])
                    .await?
            };
            tx.commit().await?;
            Ok(released as usize)
        })
    }

    fn rater_event_count(&self, rater_id: i64) -> Result<i64, StoreError> {
        self.run(async |c: &mut Client| {
            Ok(c.query_one(shared::RATER_EVENT_COUNT, &[&rater_id])
                .await?
                .try_get(0)?)
        })
    }

    fn remove_rater(&mut self, rater_id: i64) -> Result<usize, StoreError> {
        self.run(async |c: &mut Client| {
            let tx = c.transaction().await?;
            let released = tx
                .execute(shared::DELETE_RATER_ASSIGNMENTS, &[&rater_id])
                .await?;
            // The answer events' foreign key refuses this for a rater who answered.
            tx.execute(shared::DELETE_RATER, &[&rater_id]).await?;
            tx.commit().await?;
            Ok(released as usize)
        })
    }

    fn list_assignments(&self) -> Result<Vec<Assignment>, StoreError> {
        self.decode(shared::ASSIGNMENTS, &[], |row| shared::assignment(row))
    }

    fn add_assignments(&mut self, pairs: &[(i64, i64)], now: &str) -> Result<usize, StoreError> {
        let cases: Vec<i64> = pairs.iter().map(|p| p.0).collect();
        let raters: Vec<i64> = pairs.iter().map(|p| p.1).collect();
        let added = self.execute(
            "INSERT INTO assignments(case_id, rater_id, assigned_at)
             SELECT c, r, $3::TEXT FROM UNNEST($1::BIGINT[], $2::BIGINT[]) AS p(c, r)
             ON CONFLICT (case_id, rater_id) DO NOTHING",
            &[&cases, &raters, &now],
        )?;
        Ok(added as usize)
    }

    fn add_active_time(
        &mut self,
        case_id: i64,
        rater_id: i64,
        ms: i64,
    ) -> Result<bool, StoreError> {
        let ms = ms.max(0);
        if self.is_rater_session()? {
            return self.run(async |c: &mut Client| {
                Ok(c.query_one("SELECT add_my_time($1, $2)", &[&case_id, &ms])
                    .await?
                    .try_get(0)?)
            });
        }
        Ok(self.execute(shared::ADD_ACTIVE_TIME, &[&ms, &case_id, &rater_id])? > 0)
    }

    fn assigned_cases(&self, rater_id: i64) -> Result<Vec<i64>, StoreError> {
        self.decode(shared::ASSIGNED_CASES, &[&rater_id], |row| row.cell(0))
    }

    fn put_package_key(&mut self, key: &PackageKey) -> Result<(), StoreError> {
        self.execute(
            shared::PUT_PACKAGE_KEY,
            &[&key.package_id, &key.rater_id, &key.secret, &key.made_at],
        )?;
        Ok(())
    }

    fn package_key(&self, package_id: &str) -> Result<Option<PackageKey>, StoreError> {
        Ok(self
            .decode(shared::PACKAGE_KEY, &[&package_id], |row| {
                shared::package_key(row)
            })?
            .pop())
    }
}
