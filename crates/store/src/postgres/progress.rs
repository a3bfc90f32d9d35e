//! Progress on the server: the project file's queries ([`pair_progress_sql`]). Nothing read
//! here may be kept by the caller: other sessions write at any time.

use super::{Client, PgStore};
use crate::StoreError;
use crate::progress::{
    ChangeStamp, LISTING_VERSION, PairProgress, PairScope, PairState, ProgressStore,
    pair_progress_sql,
};

impl ProgressStore for PgStore {
    fn pair_progress(&self, scope: PairScope<'_>) -> Result<Vec<PairProgress>, StoreError> {
        let (sql, rater, cases);
        let param: &(dyn tokio_postgres::types::ToSql + Sync) = match scope {
            PairScope::Rater(id) => {
                sql = pair_progress_sql("rater_id = $1");
                rater = id;
                &rater
            }
            PairScope::Cases(ids) => {
                sql = pair_progress_sql("case_id = ANY($1)");
                cases = ids.to_vec();
                &cases
            }
        };
        self.run(async |c: &mut Client| {
            let rows = c.query(&sql, &[param]).await?;
            Ok(rows
                .iter()
                .map(|r| {
                    Ok(PairProgress {
                        case_id: r.try_get(0)?,
                        rater_id: r.try_get(1)?,
                        state: PairState::from_code(i64::from(r.try_get::<_, i32>(2)?)),
                        active_ms: r.try_get(3)?,
                    })
                })
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }

    fn listing_version(&self) -> Result<i64, StoreError> {
        self.run(async |c: &mut Client| Ok(c.query_one(LISTING_VERSION, &[]).await?.try_get(0)?))
    }

    fn change_stamp(&self) -> Result<Option<ChangeStamp>, StoreError> {
        Ok(None)
    }
}
