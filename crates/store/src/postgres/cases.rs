//! Cases, their sources and revisions on the server, and imports: one transaction on one
//! pooled connection from `begin_import` to `finish`, rolled back when dropped unfinished.

use std::collections::BTreeSet;

use super::{Client, Failure, PgStore};
use crate::cases::{CASE_ORIGINS, case_ref, case_row, case_shape, merge_sources, shape_json};
use crate::shared;
use crate::{
    CaseRef, CaseRow, CaseStore, ImportBatch, ImportLabels, ImportSummary, StoreError, StoredCase,
};

/// The server's query of [`CaseStore::case_refs_with_prefix`], as the project file's, with ids
/// compared byte by byte.
const CASE_REFS: &str = "SELECT c.id, c.instance_id, r.id, r.revision FROM cases c
     JOIN case_revisions r ON r.case_id = c.id
     WHERE c.instance_id >= $1 COLLATE \"C\" AND c.instance_id < $2 COLLATE \"C\"
       AND r.revision = (SELECT MAX(revision) FROM case_revisions WHERE case_id = c.id)
     ORDER BY c.instance_id COLLATE \"C\" LIMIT $3";
use verity_task::case::{CaseRecord, CaseShape, Encoded, SourceKind};

/// The server schema's migration 14, the file schema's 17 (`cases::SHAPE_MIGRATION`): each
/// revision's shape. The raters' group is granted the columns it reads by name
/// (`access::group_grants`), and this is not one of them. Written to run again over a schema
/// whose version was set back.
pub(super) const SHAPE_MIGRATION: &str =
    "ALTER TABLE case_revisions ADD COLUMN IF NOT EXISTS shape TEXT;";

impl PgStore {
    pub(super) fn stored_case(
        &self,
        case_id: i64,
        revision: i64,
        revision_id: i64,
        content: &str,
    ) -> Result<StoredCase, StoreError> {
        Ok(StoredCase {
            case_id,
            revision,
            revision_id,
            case: serde_json::from_str(content).map_err(|e| self.corrupt("case", e))?,
        })
    }
}

impl PgStore {
    /// The expression that reads a task revision `r`'s text: the column itself for the
    /// coordinator; for a rater's login, `case_text`, which leaves out the audit's verdict (the
    /// column is not theirs to read).
    fn case_text_column(&self) -> Result<&'static str, StoreError> {
        Ok(if self.is_rater_session()? {
            "case_text(r.id)"
        } else {
            "r.content"
        })
    }
}

impl CaseStore for PgStore {
    fn begin_import(&mut self, now: &str) -> Result<Box<dyn ImportBatch + '_>, StoreError> {
        let client = self
            .rt
            .block_on(self.client())
            .map_err(|e| self.failure(e))?;
        self.rt
            .block_on(client.batch_execute("BEGIN"))
            .map_err(|e| self.failure(e.into()))?;
        Ok(Box::new(PgImport {
            store: self,
            client: Some(client),
            now: now.to_string(),
            seen: BTreeSet::new(),
            added: BTreeSet::new(),
            changed: BTreeSet::new(),
        }))
    }

    fn case_by_instance(&self, instance_id: &str) -> Result<Option<StoredCase>, StoreError> {
        let sql = format!(
            "SELECT c.id, r.revision, r.id, {} FROM cases c
             JOIN case_revisions r ON r.case_id = c.id
             WHERE c.instance_id = $1 ORDER BY r.revision DESC LIMIT 1",
            self.case_text_column()?
        );
        let row = self.run(async |c: &mut Client| {
            let row = c.query_opt(&sql, &[&instance_id]).await?;
            row.map(|r| -> Result<(i64, i64, i64, String), Failure> {
                Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?))
            })
            .transpose()
        })?;
        row.map(|(case_id, revision, revision_id, content)| {
            self.stored_case(case_id, revision, revision_id, &content)
        })
        .transpose()
    }

    fn case_json(&self, instance_id: &str) -> Result<Option<String>, StoreError> {
        let sql = format!(
            "SELECT {} FROM cases c JOIN case_revisions r ON r.case_id = c.id
             WHERE c.instance_id = $1 ORDER BY r.revision DESC LIMIT 1",
            self.case_text_column()?
        );
        self.run(async |c: &mut Client| {
            let row = c.query_opt(&sql, &[&instance_id]).await?;
            Ok(row.map(|r| r.try_get(0)).transpose()?)
        })
    }

    fn case_shapes(&self) -> Result<Vec<(i64, String, Option<CaseShape>)>, StoreError> {
        // A rater's login is not granted the column: its tasks' shapes are read from the tasks.
        let shape = if self.is_rater_session()? {
            "NULL::TEXT"
        } else {
            "r.shape"
        };
        let sql = format!(
            "SELECT c.id, c.instance_id, {shape} FROM cases c
             JOIN case_revisions r ON r.case_id = c.id
             WHERE r.revision = (SELECT MAX(revision) FROM case_revisions WHERE case_id = c.id)
             ORDER BY c.instance_id COLLATE \"C\""
        );
        self.decode(&sql, &[], |row| case_shape(row))
    }

    fn case_reader(&self) -> Result<Option<Box<dyn CaseStore + Send>>, StoreError> {
        // A server project's cases are read on the caller's thread, over its pool.
        Ok(None)
    }

    fn instance_ids_with_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let upper = format!("{prefix}\u{10FFFF}");
        let limit = limit as i64;
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT instance_id FROM cases
                     WHERE instance_id >= $1 COLLATE \"C\" AND instance_id < $2 COLLATE \"C\"
                     ORDER BY instance_id COLLATE \"C\" LIMIT $3",
                    &[&prefix, &upper, &limit],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| r.try_get(0))
                .collect::<Result<_, _>>()?)
        })
    }

    fn case_refs_with_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<CaseRef>, StoreError> {
        let upper = format!("{prefix}\u{10FFFF}");
        let limit = limit as i64;
        self.decode(CASE_REFS, &[&prefix, &upper, &limit], |row| case_ref(row))
    }

    fn case_revision(&self, revision_id: i64) -> Result<StoredCase, StoreError> {
        let sql = format!(
            "SELECT r.case_id, r.revision, {} FROM case_revisions r WHERE r.id = $1",
            self.case_text_column()?
        );
        let (case_id, revision, content): (i64, i64, String) =
            self.run(async |c: &mut Client| {
                let r = c.query_one(&sql, &[&revision_id]).await?;
                Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?))
            })?;
        self.stored_case(case_id, revision, revision_id, &content)
    }

    fn case_revisions(&self, case_id: i64) -> Result<Vec<(i64, i64)>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c.query(shared::CASE_REVISIONS, &[&case_id]).await?;
            Ok(rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }

    fn case_origins(&self) -> Result<Vec<(String, String)>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c.query(CASE_ORIGINS, &[]).await?;
            Ok(rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }

    fn list_cases(&self) -> Result<Vec<CaseRow>, StoreError> {
        self.decode(
            "SELECT c.id, c.instance_id, r.repo, r.base_commit, r.title, r.revision,
               r.has_materials
             FROM cases c JOIN case_revisions r ON r.case_id = c.id
             WHERE r.revision = (SELECT MAX(revision) FROM case_revisions WHERE case_id = c.id)
             ORDER BY c.instance_id COLLATE \"C\"",
            &[],
            |row| case_row(row),
        )
    }
}

/// An import on the server: every statement in one transaction.
pub(super) struct PgImport<'s> {
    pub(super) store: &'s PgStore,
    client: Option<Client>,
    now: String,
    seen: BTreeSet<i64>,
    added: BTreeSet<i64>,
    changed: BTreeSet<i64>,
}

impl PgImport<'_> {
    /// Runs `f` on the import's connection, inside its transaction.
    pub(super) fn on<T>(
        &self,
        f: impl AsyncFnOnce(&Client) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        let client = self.client.as_ref().ok_or_else(|| {
            StoreError::Rule("the import's connection is gone; nothing was stored".into())
        })?;
        self.store
            .rt
            .block_on(f(client))
            .map_err(|e| self.store.failure(e))
    }

    fn case_id(&mut self, instance_id: &str) -> Result<i64, StoreError> {
        let now = self.now.clone();
        let (id, new): (i64, bool) = self.on(async |c: &Client| {
            if let Some(r) = c.query_opt(shared::CASE_ID, &[&instance_id]).await? {
                return Ok((r.try_get(0)?, false));
            }
            let r = c
                .query_one(
                    "INSERT INTO cases(instance_id, created_at) VALUES ($1, $2) RETURNING id",
                    &[&instance_id, &now],
                )
                .await?;
            Ok((r.try_get(0)?, true))
        })?;
        if new {
            self.added.insert(id);
        }
        Ok(id)
    }

    /// Writes revision n+1 when the merge of the case's records differs from revision n.
    pub(super) fn settle_revision(&self, case_id: i64) -> Result<bool, StoreError> {
        let path = self.store.location.clone();
        let sources: Vec<(String, String)> = self.on(async |c: &Client| {
            let rows = c
                .query(
                    "SELECT kind, content FROM case_sources WHERE case_id = $1",
                    &[&case_id],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })?;
        let mut records = Vec::new();
        for (kind, content) in sources {
            let kind = SourceKind::parse(&kind).ok_or_else(|| {
                StoreError::Rule(format!("unknown source kind {kind:?} in the project"))
            })?;
            let record: CaseRecord =
                serde_json::from_str(&content).map_err(|source| StoreError::Corrupt {
                    path: path.clone(),
                    what: "case record",
                    source,
                })?;
            records.push((kind, record));
        }
        let merged = merge_sources(records.iter().map(|(kind, r)| (*kind, r)).collect());
        let (case, hash, content) = (merged.value, merged.hash, merged.json);
        let now = self.now.clone();
        self.on(async |c: &Client| {
            let latest = c
                .query_opt(
                    "SELECT revision, content_hash FROM case_revisions WHERE case_id = $1
                     ORDER BY revision DESC LIMIT 1",
                    &[&case_id],
                )
                .await?
                .map(|r| -> Result<(i64, String), tokio_postgres::Error> {
                    Ok((r.try_get(0)?, r.try_get(1)?))
                })
                .transpose()?;
            if latest.as_ref().is_some_and(|(_, h)| *h == hash) {
                return Ok(false);
            }
            let revision = latest.map_or(1, |(n, _)| n + 1);
            c.execute(
                "INSERT INTO case_revisions(case_id, revision, content, content_hash, repo,
                   base_commit, title, has_materials, created_at, shape)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                &[
                    &case_id,
                    &revision,
                    &content,
                    &hash,
                    &case.repo,
                    &case.base_commit,
                    &case.title(),
                    &i64::from(case.has_materials()),
                    &now,
                    &shape_json(&case),
                ],
            )
            .await?;
            Ok(true)
        })
    }
}

impl Drop for PgImport<'_> {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            // Unfinished: nothing is kept. A connection that cannot roll back is closed
            // instead of going back to the pool, which ends its transaction all the same.
            if self
                .store
                .rt
                .block_on(client.batch_execute("ROLLBACK"))
                .is_err()
            {
                client.discard();
            }
        }
    }
}

impl ImportBatch for PgImport<'_> {
    fn put_record(
        &mut self,
        kind: SourceKind,
        origin: &str,
        record: &Encoded<CaseRecord>,
    ) -> Result<(), StoreError> {
        let case_id = self.case_id(&record.value.instance_id)?;
        self.seen.insert(case_id);
        let (hash, content) = (&record.hash, &record.json);
        let now = self.now.clone();
        let kind = kind.as_str();
        let changed = self.on(async |c: &Client| {
            let stored: Option<String> = c
                .query_opt(shared::SOURCE_HASH, &[&case_id, &kind])
                .await?
                .map(|r| r.try_get(0))
                .transpose()?;
            if stored.as_ref() == Some(hash) {
                return Ok(false);
            }
            c.execute(
                "INSERT INTO case_sources(case_id, kind, origin, content, content_hash, imported_at)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (case_id, kind) DO UPDATE SET origin = excluded.origin,
                   content = excluded.content, content_hash = excluded.content_hash,
                   imported_at = excluded.imported_at",
                &[&case_id, &kind, &origin, &content, &hash, &now],
            )
            .await?;
            Ok(true)
        })?;
        if changed {
            self.changed.insert(case_id);
        }
        Ok(())
    }

    fn ensure_case(&mut self, instance_id: &str, origin: &str) -> Result<bool, StoreError> {
        if self.case_row_id(instance_id)?.is_some() {
            return Ok(false);
        }
        let stub = Encoded::new(CaseRecord {
            instance_id: instance_id.to_string(),
            ..CaseRecord::default()
        });
        self.put_record(SourceKind::Stub, origin, &stub)?;
        Ok(true)
    }

    fn finish(mut self: Box<Self>) -> Result<ImportSummary, StoreError> {
        let mut summary = ImportSummary::default();
        for &case_id in &self.seen {
            let changed = self.changed.contains(&case_id) && self.settle_revision(case_id)?;
            if self.added.contains(&case_id) {
                summary.added += 1;
            } else if changed {
                summary.updated += 1;
            } else {
                summary.unchanged += 1;
            }
        }
        self.on(async |c: &Client| Ok(c.batch_execute("COMMIT").await?))?;
        // Committed: the connection goes back to the pool as it is.
        self.client.take();
        Ok(summary)
    }
}
