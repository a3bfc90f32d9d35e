//! Cases, the records their sources gave, and their revisions.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;

use super::packed::{pack, unpack};
use super::shared::{self, Cells};
use super::{MetaStore, Store, StoreError};
use crate::sqlite::sql_err;
use verity_task::case::{Case, CaseRecord, CaseShape, Encoded, SourceKind, TITLE_RULE};

/// The meta key holding the version of the title rule the stored titles were made with.
pub(super) const TITLE_RULE_KEY: &str = "title_rule";

/// SQLite's page cache while an import runs, in KiB: a large import's b-tree pages stay in
/// memory instead of being read back from the log, a quarter less work. SQLite's default of
/// 2 MiB comes back when it commits, so an open project (the app) keeps its memory small.
const IMPORT_CACHE: i64 = -32_768;
const DEFAULT_CACHE: i64 = -2_000;

/// A case's current content with where it is stored.
#[derive(Debug, Clone)]
pub struct StoredCase {
    /// The case's row id.
    pub case_id: i64,
    /// The revision number, from 1.
    pub revision: i64,
    /// The revision's row id (answers point at it).
    pub revision_id: i64,
    /// The content.
    pub case: Case,
}

/// A case's current revision, without its content: what an answer refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseRef {
    /// The case's row id.
    pub case_id: i64,
    /// The task's id.
    pub instance_id: String,
    /// The current revision's row id (answers point at it).
    pub revision_id: i64,
    /// The current revision number, from 1.
    pub revision: i64,
}

/// A line of the case list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseRow {
    /// The case's row id.
    pub case_id: i64,
    /// The task's id.
    pub instance_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The base commit, when known.
    pub base_commit: Option<String>,
    /// The title derived from the issue text ([`Case::title`]).
    pub title: String,
    /// The current revision number.
    pub revision: i64,
    /// Whether issue text and patches are present.
    pub has_materials: bool,
}

/// What an import changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportSummary {
    /// Cases that did not exist before.
    pub added: usize,
    /// Cases whose content changed: each got a new revision.
    pub updated: usize,
    /// Cases whose content was already there.
    pub unchanged: usize,
}

/// An import in progress: one transaction. Dropping it without [`ImportSession::finish`]
/// rolls everything back, so a failed import stores nothing.
///
/// A case's revision is settled as soon as a source of it changes, from the record in hand and
/// the case's other sources, so a task is encoded once and never read back. A later source of
/// the same case in the same import rewrites that revision: an import makes at most one
/// revision per case.
pub struct ImportSession<'s> {
    tx: Transaction<'s>,
    path: &'s Path,
    now: String,
    seen: BTreeSet<i64>,
    added: BTreeSet<i64>,
    /// The revision row this import wrote for each case it changed.
    revised: BTreeMap<i64, i64>,
}

/// Cases, their revisions, and imports.
pub trait CaseStore {
    /// Starts an import.
    fn begin_import(&mut self, now: &str) -> Result<Box<dyn ImportBatch + '_>, StoreError>;

    /// The current revision of a case.
    fn case_by_instance(&self, instance_id: &str) -> Result<Option<StoredCase>, StoreError>;

    /// The JSON of a case's current revision as stored, unparsed: for a reader that wants a
    /// few of its fields from every case (a dataset's survey of the tasks' other fields).
    fn case_json(&self, instance_id: &str) -> Result<Option<String>, StoreError>;

    /// Every case's current revision's shape: (case row id, instance id, shape), in instance-id
    /// order; `None` for a revision stored before shapes were (a dataset export reads those).
    fn case_shapes(&self) -> Result<Vec<(i64, String, Option<CaseShape>)>, StoreError>;

    /// Another connection to the project that reads cases on a thread of its own (an export
    /// reads the tasks there while it builds their rows), or `None` when the store gives none.
    fn case_reader(&self) -> Result<Option<Box<dyn CaseStore + Send>>, StoreError>;

    /// Up to `limit` instance ids that start with `prefix`, in order.
    fn instance_ids_with_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;

    /// The current revision of up to `limit` cases whose instance id starts with `prefix`, in
    /// order, without their content: one query finds a case named by its id or a prefix and
    /// what an answer on it refers to.
    fn case_refs_with_prefix(&self, prefix: &str, limit: usize)
    -> Result<Vec<CaseRef>, StoreError>;

    /// One revision of a case by its row id.
    fn case_revision(&self, revision_id: i64) -> Result<StoredCase, StoreError>;

    /// Every revision of a case: (row id, revision number), oldest first.
    fn case_revisions(&self, case_id: i64) -> Result<Vec<(i64, i64)>, StoreError>;

    /// Every case's current revision, by instance id.
    fn list_cases(&self) -> Result<Vec<CaseRow>, StoreError>;

    /// Where each case's content came from: instance id to the origin of its dataset row, or
    /// of its audit folder when no dataset gave it.
    fn case_origins(&self) -> Result<Vec<(String, String)>, StoreError>;
}

/// The query of [`CaseStore::case_origins`], the same on both backends: a dataset row's origin
/// first, then an audit folder's.
pub(crate) const CASE_ORIGINS: &str = "SELECT c.instance_id, s.origin FROM cases c
     JOIN case_sources s ON s.case_id = c.id
     WHERE s.kind <> 'stub'
     ORDER BY c.instance_id, CASE s.kind WHEN 'dataset' THEN 0 ELSE 1 END";

/// The project file's query of [`CaseStore::case_refs_with_prefix`]: the instance ids from
/// `?1` up to `?2` (the prefix followed by the largest code point), each with its latest
/// revision, the first `?3` of them.
const CASE_REFS: &str = "SELECT c.id, c.instance_id, r.id, r.revision FROM cases c
     JOIN case_revisions r ON r.case_id = c.id
     WHERE c.instance_id >= ?1 AND c.instance_id < ?2
       AND r.revision = (SELECT MAX(revision) FROM case_revisions WHERE case_id = c.id)
     ORDER BY c.instance_id LIMIT ?3";

/// The project file's query of [`CaseStore::list_cases`]. The listing index holds every column
/// it reads, so no row's content (stored before the title) is walked.
pub(super) const LIST_CASES: &str =
    "SELECT c.id, c.instance_id, r.repo, r.base_commit, r.title, r.revision, r.has_materials
     FROM cases c JOIN case_revisions r INDEXED BY case_revisions_listing ON r.case_id = c.id
     WHERE r.revision = (SELECT MAX(revision) FROM case_revisions WHERE case_id = c.id)
     ORDER BY c.instance_id";

/// The file schema's migration 17: each revision's shape (`Case::shape`, JSON), whether it
/// has its SWE-bench fields and what kind of value each other field holds, so a dataset export
/// picks its columns without reading every task. NULL for a revision stored before; the export
/// reads those instead. Its own index covers [`CASE_SHAPES`]: the column comes after the
/// content, whose pages the index spares the reading of. The index is cheap to build on an
/// older file, whose rows end before the column and so read as NULL from their headers.
pub(crate) const SHAPE_MIGRATION: &str = "
ALTER TABLE case_revisions ADD COLUMN shape TEXT;
CREATE INDEX case_revisions_shapes ON case_revisions (case_id, revision, shape);
";

/// The project file's query of [`CaseStore::case_shapes`], answered from its own index.
pub(super) const CASE_SHAPES: &str = "SELECT c.id, c.instance_id, r.shape
     FROM cases c JOIN case_revisions r INDEXED BY case_revisions_shapes ON r.case_id = c.id
     WHERE r.revision = (SELECT MAX(revision) FROM case_revisions WHERE case_id = c.id)
     ORDER BY c.instance_id";

/// The project file's query of [`CaseStore::case_by_instance`].
const CASE_BY_INSTANCE: &str = "SELECT c.id, r.revision, r.id, r.content FROM cases c
     JOIN case_revisions r ON r.case_id = c.id
     WHERE c.instance_id = ?1 ORDER BY r.revision DESC LIMIT 1";

impl CaseStore for Store {
    fn begin_import(&mut self, now: &str) -> Result<Box<dyn ImportBatch + '_>, StoreError> {
        Ok(Box::new(self.begin_session(now)?))
    }

    fn case_by_instance(&self, instance_id: &str) -> Result<Option<StoredCase>, StoreError> {
        // Cached: an export reads every case by its id, and preparing the statement each time
        // cost a fifth of the reading.
        let row = self
            .conn
            .prepare_cached(CASE_BY_INSTANCE)
            .and_then(|mut statement| {
                statement.query_row([instance_id], |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, i64>(1)?,
                        row.get::<_, i64>(2)?,
                        unpack(&self.path, "case", row.get_ref(3)?),
                    ))
                })
            })
            .optional()
            .map_err(|e| self.sql(e))?;
        row.map(|(case_id, revision, revision_id, content)| {
            Ok(StoredCase {
                case_id,
                revision,
                revision_id,
                case: serde_json::from_str(&content?).map_err(|e| self.corrupt("case", e))?,
            })
        })
        .transpose()
    }

    fn case_json(&self, instance_id: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT r.content FROM cases c JOIN case_revisions r ON r.case_id = c.id
                 WHERE c.instance_id = ?1 ORDER BY r.revision DESC LIMIT 1",
            )
            .and_then(|mut statement| {
                statement.query_row([instance_id], |row| {
                    Ok(unpack(&self.path, "case", row.get_ref(0)?))
                })
            })
            .optional()
            .map_err(|e| self.sql(e))?
            .transpose()
    }

    fn case_shapes(&self) -> Result<Vec<(i64, String, Option<CaseShape>)>, StoreError> {
        self.decode(CASE_SHAPES, [], |row| case_shape(row))
    }

    fn case_reader(&self) -> Result<Option<Box<dyn CaseStore + Send>>, StoreError> {
        Ok(Some(Box::new(Store::open(&self.path)?)))
    }

    fn instance_ids_with_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        // Every id that starts with the prefix sorts between it and the prefix followed by the
        // largest code point, so the unique index on instance_id answers the range.
        let upper = format!("{prefix}\u{10FFFF}");
        let mut stmt = self
            .conn
            .prepare(
                "SELECT instance_id FROM cases WHERE instance_id >= ?1 AND instance_id < ?2
                 ORDER BY instance_id LIMIT ?3",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![prefix, upper, limit as i64], |row| row.get(0))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn case_refs_with_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<CaseRef>, StoreError> {
        let upper = format!("{prefix}\u{10FFFF}");
        self.decode(CASE_REFS, params![prefix, upper, limit as i64], |row| {
            case_ref(row)
        })
    }

    fn case_revision(&self, revision_id: i64) -> Result<StoredCase, StoreError> {
        let (case_id, revision, content) = self
            .conn
            .query_row(
                "SELECT case_id, revision, content FROM case_revisions WHERE id = ?1",
                [revision_id],
                |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, i64>(1)?,
                        unpack(&self.path, "case", row.get_ref(2)?),
                    ))
                },
            )
            .map_err(|e| self.sql(e))?;
        Ok(StoredCase {
            case_id,
            revision,
            revision_id,
            case: serde_json::from_str(&content?).map_err(|e| self.corrupt("case", e))?,
        })
    }

    fn case_revisions(&self, case_id: i64) -> Result<Vec<(i64, i64)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(shared::CASE_REVISIONS)
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([case_id], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn case_origins(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self.conn.prepare(CASE_ORIGINS).map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    fn list_cases(&self) -> Result<Vec<CaseRow>, StoreError> {
        self.decode(LIST_CASES, [], |row| case_row(row))
    }
}

/// A case's current revision from a row of (case id, instance id, revision id, revision), on
/// either backend.
pub(crate) fn case_ref(row: &impl Cells) -> Result<CaseRef, StoreError> {
    Ok(CaseRef {
        case_id: row.cell(0)?,
        instance_id: row.cell(1)?,
        revision_id: row.cell(2)?,
        revision: row.cell(3)?,
    })
}

/// A case's current shape from a row of (case id, instance id, shape), on either backend.
pub(crate) fn case_shape(row: &impl Cells) -> Result<(i64, String, Option<CaseShape>), StoreError> {
    let shape: Option<String> = row.cell(2)?;
    let shape = shape
        .map(|s| serde_json::from_str(&s).map_err(|e| row.corrupt("case shape", e)))
        .transpose()?;
    Ok((row.cell(0)?, row.cell(1)?, shape))
}

/// What a revision stores as its shape: [`Case::shape`] as JSON.
pub(crate) fn shape_json(case: &Case) -> String {
    serde_json::to_string(&case.shape()).unwrap_or_default()
}

/// A listed case from a row of [`LIST_CASES`]' columns, on either backend.
pub(crate) fn case_row(row: &impl Cells) -> Result<CaseRow, StoreError> {
    Ok(CaseRow {
        case_id: row.cell(0)?,
        instance_id: row.cell(1)?,
        repo: row.cell(2)?,
        base_commit: row.cell(3)?,
        title: row.cell(4)?,
        revision: row.cell(5)?,
        has_materials: row.cell::<i64>(6)? != 0,
    })
}

impl Store {
    /// Opens the import's immediate transaction: no other writer interleaves with it.
    fn begin_session(&mut self, now: &str) -> Result<ImportSession<'_>, StoreError> {
        self.conn
            .pragma_update(None, "cache_size", IMPORT_CACHE)
            .map_err(|e| sql_err(&self.path, e))?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| sql_err(&self.path, e))?;
        Ok(ImportSession {
            tx,
            path: &self.path,
            now: now.to_string(),
            seen: BTreeSet::new(),
            added: BTreeSet::new(),
            revised: BTreeMap::new(),
        })
    }

    /// Recomputes every revision's stored title when the file's titles were made by an older
    /// title rule than this Verity's ([`TITLE_RULE`]), in one transaction. A file without the
    /// key predates the versioned rule; a file from a newer rule is left alone.
    pub(super) fn refresh_titles(&mut self) -> Result<(), StoreError> {
        let stored = self
            .meta(TITLE_RULE_KEY)?
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(1);
        if stored >= TITLE_RULE {
            return Ok(());
        }
        let path = self.path.clone();
        let sql = |e| sql_err(&path, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sql)?;
        {
            let mut read = tx
                .prepare("SELECT id, content FROM case_revisions")
                .map_err(sql)?;
            let mut write = tx
                .prepare("UPDATE case_revisions SET title = ?2 WHERE id = ?1 AND title <> ?2")
                .map_err(sql)?;
            let rows = read
                .query_map([], |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        unpack(&path, "case", row.get_ref(1)?),
                    ))
                })
                .map_err(sql)?;
            for row in rows {
                let (id, content) = row.map_err(sql)?;
                // A damaged revision keeps its old title: refusing to open the whole project
                // over a list label would be worse, and reading that case reports the damage.
                match content.map(|c| serde_json::from_str::<Case>(&c)) {
                    Ok(Ok(case)) => {
                        write.execute(params![id, case.title()]).map_err(sql)?;
                    }
                    Ok(Err(err)) => {
                        tracing::warn!(
                            "case revision {id} is not valid JSON ({err}); its title was kept"
                        );
                    }
                    Err(err) => tracing::warn!("{err}; its title was kept"),
                }
            }
        }
        tx.execute(
            shared::SET_META,
            params![TITLE_RULE_KEY, TITLE_RULE.to_string()],
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)
    }
}

/// A case's content from what its sources said, encoded: a stub adds nothing once a real
/// source is there.
pub(super) fn merge_sources(mut records: Vec<(SourceKind, &CaseRecord)>) -> Encoded<Case> {
    if records.iter().any(|(k, _)| *k != SourceKind::Stub) {
        records.retain(|(k, _)| *k != SourceKind::Stub);
    }
    Encoded::new(Case::merge(&records))
}

/// One import, all or nothing: nothing it wrote is visible until [`ImportBatch::finish`], and
/// dropping it unfinished stores nothing.
pub trait ImportBatch: super::ImportLabels {
    /// Records what one source says about a case. The case's revision is settled in
    /// [`ImportSession::finish`], once every source of this import is in.
    fn put_record(
        &mut self,
        kind: SourceKind,
        origin: &str,
        record: &Encoded<CaseRecord>,
    ) -> Result<(), StoreError>;

    /// Makes sure a case exists, creating it from its id alone (a stub lacking materials) when
    /// the project does not hold it yet. Returns whether it had to be created.
    fn ensure_case(&mut self, instance_id: &str, origin: &str) -> Result<bool, StoreError>;

    /// Settles a new revision for every case whose merged content changed, and commits.
    fn finish(self: Box<Self>) -> Result<ImportSummary, StoreError>;
}

impl ImportBatch for ImportSession<'_> {
    fn put_record(
        &mut self,
        kind: SourceKind,
        origin: &str,
        record: &Encoded<CaseRecord>,
    ) -> Result<(), StoreError> {
        let case_id = self.case_id(&record.value.instance_id)?;
        self.seen.insert(case_id);
        let stored: Option<String> = self
            .tx
            .query_row(
                shared::SOURCE_HASH,
                params![case_id, kind.as_str()],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| sql_err(self.path, e))?;
        if stored.as_deref() == Some(record.hash.as_str()) {
            return Ok(());
        }
        let packed;
        let content = match &record.packed {
            Some(frame) => frame,
            None => {
                packed = pack(self.path, "case record", &record.json)?;
                &packed
            }
        };
        self.tx
            .prepare_cached(
                "INSERT INTO case_sources(case_id, kind, origin, content, content_hash, imported_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(case_id, kind) DO UPDATE SET origin = excluded.origin,
                   content = excluded.content, content_hash = excluded.content_hash,
                   imported_at = excluded.imported_at",
            )
            .and_then(|mut stmt| {
                stmt.execute(params![case_id, kind.as_str(), origin, content, record.hash, self.now])
            })
            .map_err(|e| sql_err(self.path, e))?;
        self.settle_revision(case_id, kind, &record.value)
    }

    fn ensure_case(&mut self, instance_id: &str, origin: &str) -> Result<bool, StoreError> {
        let exists: Option<i64> = self
            .tx
            .query_row(shared::CASE_ID, [instance_id], |row| row.get(0))
            .optional()
            .map_err(|e| sql_err(self.path, e))?;
        if exists.is_some() {
            return Ok(false);
        }
        let stub = Encoded::new(CaseRecord {
            instance_id: instance_id.to_string(),
            ..CaseRecord::default()
        });
        self.put_record(SourceKind::Stub, origin, &stub)?;
        Ok(true)
    }

    fn finish(self: Box<Self>) -> Result<ImportSummary, StoreError> {
        self.commit()
    }
}

impl ImportSession<'_> {
    /// Gives the transaction to the store's code that stores other rows in the same import
    /// (ratings, reference labels).
    pub(super) fn transaction(&self) -> &Transaction<'_> {
        &self.tx
    }

    fn case_id(&mut self, instance_id: &str) -> Result<i64, StoreError> {
        let sql = |e| sql_err(self.path, e);
        let existing: Option<i64> = self
            .tx
            .prepare_cached(shared::CASE_ID)
            .and_then(|mut stmt| stmt.query_row([instance_id], |row| row.get(0)).optional())
            .map_err(sql)?;
        if let Some(id) = existing {
            return Ok(id);
        }
        self.tx
            .prepare_cached("INSERT INTO cases(instance_id, created_at) VALUES (?1, ?2)")
            .and_then(|mut stmt| stmt.execute(params![instance_id, self.now]))
            .map_err(sql)?;
        let id = self.tx.last_insert_rowid();
        self.added.insert(id);
        Ok(id)
    }

    /// Commits: every revision was settled as its sources came in.
    fn commit(self) -> Result<ImportSummary, StoreError> {
        self.tx
            .pragma_update(None, "cache_size", DEFAULT_CACHE)
            .map_err(|e| sql_err(self.path, e))?;
        let mut summary = ImportSummary::default();
        for case_id in &self.seen {
            if self.added.contains(case_id) {
                summary.added += 1;
            } else if self.revised.contains_key(case_id) {
                summary.updated += 1;
            } else {
                summary.unchanged += 1;
            }
        }
        self.tx.commit().map_err(|e| sql_err(self.path, e))?;
        Ok(summary)
    }

    /// Settles the case's revision from its stored sources, the one of `kind` just stored
    /// taken as given (`record`) instead of read back. A merge that differs from the last revision
    /// before this import makes the next revision, or rewrites the one this import already made.
    fn settle_revision(
        &mut self,
        case_id: i64,
        kind: SourceKind,
        record: &CaseRecord,
    ) -> Result<(), StoreError> {
        let path = self.path;
        let sql = |e| sql_err(path, e);
        let mut stored = Vec::new();
        {
            let mut stmt = self
                .tx
                .prepare_cached(
                    "SELECT kind, content FROM case_sources WHERE case_id = ?1 AND kind <> ?2",
                )
                .map_err(sql)?;
            let mut rows = stmt.query(params![case_id, kind.as_str()]).map_err(sql)?;
            while let Some(row) = rows.next().map_err(sql)? {
                let name: String = row.get(0).map_err(sql)?;
                let other = SourceKind::parse(&name).ok_or_else(|| {
                    StoreError::Rule(format!("unknown source kind {name:?} in the project"))
                })?;
                let content = unpack(path, "case record", row.get_ref(1).map_err(sql)?)?;
                let said: CaseRecord =
                    serde_json::from_str(&content).map_err(|source| StoreError::Corrupt {
                        path: path.to_path_buf(),
                        what: "case record",
                        source,
                    })?;
                stored.push((other, said));
            }
        }
        let mut records: Vec<(SourceKind, &CaseRecord)> = stored
            .iter()
            .map(|(kind, record)| (*kind, record))
            .collect();
        records.push((kind, record));
        let case = merge_sources(records);
        let content = pack(path, "case", &case.json)?;
        let fields = (
            &case.value.repo,
            &case.value.base_commit,
            case.value.title(),
            case.value.has_materials(),
            shape_json(&case.value),
        );
        if let Some(&row) = self.revised.get(&case_id) {
            self.tx
                .prepare_cached(
                    "UPDATE case_revisions SET content = ?2, content_hash = ?3, repo = ?4,
                       base_commit = ?5, title = ?6, has_materials = ?7, shape = ?8
                     WHERE id = ?1",
                )
                .and_then(|mut stmt| {
                    stmt.execute(params![
                        row, content, case.hash, fields.0, fields.1, fields.2, fields.3, fields.4
                    ])
                })
                .map_err(sql)?;
            return Ok(());
        }
        let latest: Option<(i64, String)> = self
            .tx
            .prepare_cached(
                "SELECT revision, content_hash FROM case_revisions WHERE case_id = ?1
                 ORDER BY revision DESC LIMIT 1",
            )
            .and_then(|mut stmt| {
                stmt.query_row([case_id], |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()
            })
            .map_err(sql)?;
        if latest.as_ref().is_some_and(|(_, h)| *h == case.hash) {
            return Ok(());
        }
        let revision = latest.map_or(1, |(n, _)| n + 1);
        self.tx
            .prepare_cached(
                "INSERT INTO case_revisions(case_id, revision, content, content_hash, repo,
                   base_commit, title, has_materials, created_at, shape)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )
            .and_then(|mut stmt| {
                stmt.execute(params![
                    case_id, revision, content, case.hash, fields.0, fields.1, fields.2, fields.3,
                    self.now, fields.4
                ])
            })
            .map_err(sql)?;
        self.revised.insert(case_id, self.tx.last_insert_rowid());
        Ok(())
    }
}

#[cfg(test)]
mod tests;
