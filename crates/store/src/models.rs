//! Model raters: a rater whose answers an LLM gives (`raters.kind = 'model'`), its
//! configuration, each request made for it (`model_attempts`), each reply paid for
//! (`model_replies`, by request hash: a rerun after a kill finds it and pays nothing) and the
//! provenance of each answer event it submitted (`answer_provenance`). The coordinator's alone:
//! no rater's package or login reads any of it.

use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::shared::Cells;
use super::{Rater, Store, StoreError};
use crate::sqlite::sql_err;

/// The file schema's migration 11 (see `migrations.rs`).
pub(super) const MIGRATION: &str = r#"
ALTER TABLE raters ADD COLUMN kind TEXT NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'model'));
CREATE TABLE model_configs (
    rater_id   INTEGER PRIMARY KEY REFERENCES raters(id),
    config     TEXT NOT NULL,
    dialect    TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE model_attempts (
    id            INTEGER PRIMARY KEY,
    rater_id      INTEGER NOT NULL REFERENCES raters(id),
    case_id       INTEGER NOT NULL REFERENCES cases(id),
    request_hash  TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome IN ('ok', 'invalid', 'failed')),
    reason        TEXT,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_ms    INTEGER NOT NULL,
    cost_usd      TEXT,
    at            TEXT NOT NULL
);
CREATE INDEX model_attempts_by_hash ON model_attempts (request_hash);
CREATE TABLE model_replies (
    request_hash TEXT PRIMARY KEY,
    rater_id     INTEGER NOT NULL REFERENCES raters(id),
    reply        TEXT NOT NULL,
    received_at  TEXT NOT NULL
);
CREATE TABLE answer_provenance (
    event_uid  TEXT PRIMARY KEY,
    provenance TEXT NOT NULL
);
"#;

/// A model rater's settings, as a user gives them (`verity models add`, the app's form): where
/// and how it is asked, and what it costs. The API key is not here, only the name of the
/// environment variable it is read from at run time. Not a TypeScript type of its own: ts-rs
/// writes its fields into the types that flatten it and the app reads (`ModelAddRequest`,
/// `ModelSummary`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct ModelSettings {
    /// The API's base URL (`/chat/completions` is appended).
    pub endpoint: String,
    /// The model id sent in each request.
    pub model: String,
    /// The environment variable holding the API key, when the endpoint needs one (never the
    /// key).
    pub api_key_env: Option<String>,
    /// Sampling temperature; the endpoint's default when absent.
    pub temperature: Option<f64>,
    /// The sampling seed.
    #[ts(type = "number | null")]
    pub seed: Option<i64>,
    /// The most tokens a reply may have.
    pub max_output_tokens: Option<u32>,
    /// USD per million input tokens; unknown when absent (never taken as zero).
    pub price_in: Option<f64>,
    /// USD per million output tokens; unknown when absent.
    pub price_out: Option<f64>,
}

/// How a model rater is asked, as stored: its settings and the prompt template it was added
/// with. Stored as one JSON object (the settings' keys beside the prompt's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ModelConfig {
    /// What `verity models add` was given.
    #[serde(flatten)]
    #[ts(flatten)]
    pub settings: ModelSettings,
    /// The prompt template's id.
    pub prompt_id: String,
    /// The prompt template's version.
    pub prompt_version: String,
}

/// A model rater as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRater {
    /// The rater.
    pub rater: Rater,
    /// How it is asked.
    pub config: ModelConfig,
    /// The structured-output dialect its endpoint was found to take, once a run found it.
    pub dialect: Option<String>,
    /// When it was added.
    pub created_at: String,
}

/// One request made for a model rater, as recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelAttempt {
    /// The model rater.
    pub rater_id: i64,
    /// The task.
    pub case_id: i64,
    /// What the request was for.
    pub purpose: AttemptPurpose,
    /// The request's hash (see `endpoint::Client::request_hash`).
    pub request_hash: String,
    /// `ok` (a valid answer), `invalid` (a reply the questionnaire refused), `failed` (no
    /// usable reply) or `abandoned` (sent, and left in flight when its run was stopped: its
    /// tokens are estimated from the prompt).
    pub outcome: String,
    /// Why it is not `ok`.
    pub reason: Option<String>,
    /// Input tokens billed.
    pub input_tokens: i64,
    /// Output tokens billed.
    pub output_tokens: i64,
    /// Time to the reply.
    pub latency_ms: i64,
    /// What it cost, in USD; `None` when a price is unknown.
    pub cost_usd: Option<f64>,
    /// When it was recorded.
    pub at: String,
}

/// The file schema's migration 13: each request says what it was for, rating a task or
/// proposing its sweep (`verity sweep --model`), so a failed proposal is not a failed rating.
pub(super) const PURPOSE_MIGRATION: &str = r#"
ALTER TABLE model_attempts ADD COLUMN purpose TEXT NOT NULL DEFAULT 'rate'
    CHECK (purpose IN ('rate', 'sweep'));
"#;

/// The file schema's migration 14: a request sent and left in flight when its run was stopped
/// is recorded too, as `abandoned`, so that every request sent is counted with its spend.
/// SQLite cannot change a column's check, so the table is made again with the rows.
pub(super) const ABANDONED_MIGRATION: &str = r#"
CREATE TABLE model_attempts_next (
    id            INTEGER PRIMARY KEY,
    rater_id      INTEGER NOT NULL REFERENCES raters(id),
    case_id       INTEGER NOT NULL REFERENCES cases(id),
    request_hash  TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome IN ('ok', 'invalid', 'failed', 'abandoned')),
    reason        TEXT,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_ms    INTEGER NOT NULL,
    cost_usd      TEXT,
    at            TEXT NOT NULL,
    purpose       TEXT NOT NULL DEFAULT 'rate' CHECK (purpose IN ('rate', 'sweep'))
);
INSERT INTO model_attempts_next
    SELECT id, rater_id, case_id, request_hash, outcome, reason, input_tokens, output_tokens,
           latency_ms, cost_usd, at, purpose
    FROM model_attempts;
DROP TABLE model_attempts;
ALTER TABLE model_attempts_next RENAME TO model_attempts;
CREATE INDEX model_attempts_by_hash ON model_attempts (request_hash);
"#;

/// What a model's request was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptPurpose {
    /// Rating a task (`verity models rate`).
    Rate,
    /// Proposing a task's sweep (`verity sweep --model`).
    Sweep,
}

impl AttemptPurpose {
    /// Its name in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptPurpose::Rate => "rate",
            AttemptPurpose::Sweep => "sweep",
        }
    }

    /// The purpose a stored name gives; anything else is a rating, the only purpose before
    /// the column.
    pub fn parse(name: &str) -> AttemptPurpose {
        match name {
            "sweep" => AttemptPurpose::Sweep,
            _ => AttemptPurpose::Rate,
        }
    }
}

/// Model raters' configurations, requests, replies and provenance.
pub trait ModelStore {
    /// Adds a model rater and its configuration in one transaction. Names are unique among
    /// all raters, as `add_rater` has them.
    fn add_model_rater(
        &mut self,
        name: &str,
        config: &ModelConfig,
        now: &str,
    ) -> Result<Rater, StoreError>;

    /// Every model rater, by name.
    fn model_raters(&self) -> Result<Vec<ModelRater>, StoreError>;

    /// Removes a model rater's configuration, requests and replies (the caller removes the
    /// rater after).
    fn remove_model_config(&mut self, rater_id: i64) -> Result<(), StoreError>;

    /// Records the structured-output dialect a model's endpoint takes.
    fn set_model_dialect(&mut self, rater_id: i64, dialect: &str) -> Result<(), StoreError>;

    /// The raw reply stored under a request hash.
    fn model_reply(&self, request_hash: &str) -> Result<Option<String>, StoreError>;

    /// Stores replies received (kept as first stored) and, when given, the request's attempt,
    /// in one transaction.
    fn record_model_exchange(
        &mut self,
        rater_id: i64,
        replies: &[(String, String)],
        attempt: Option<&ModelAttempt>,
        now: &str,
    ) -> Result<(), StoreError>;

    /// Every recorded request of a model rater, oldest first.
    fn model_attempts(&self, rater_id: i64) -> Result<Vec<ModelAttempt>, StoreError>;

    /// Every answer event's provenance, by event uid (stored with its event:
    /// [`AnswerSave::provenance`](crate::AnswerSave::provenance)).
    fn provenance(&self) -> Result<Vec<(String, String)>, StoreError>;
}

/// The stored text of a configuration.
pub(crate) fn config_text(config: &ModelConfig) -> Result<String, StoreError> {
    serde_json::to_string(config)
        .map_err(|e| StoreError::Rule(format!("a model configuration cannot be written: {e}")))
}

/// Every model rater with its configuration; each backend adds its order by name.
pub(crate) const MODEL_RATERS: &str =
    "SELECT r.id, r.name, r.deactivated_at IS NULL, m.config, m.dialect, m.created_at
     FROM raters r JOIN model_configs m ON m.rater_id = r.id";

/// A model rater's attempts in the order they were made.
pub(crate) const MODEL_ATTEMPTS: &str = "SELECT rater_id, case_id, request_hash, outcome, reason,
     input_tokens, output_tokens, latency_ms, cost_usd, at, purpose
     FROM model_attempts WHERE rater_id = $1 ORDER BY id";

/// A model rater from a row of [`MODEL_RATERS`], on either backend.
pub(crate) fn model_rater(row: &impl Cells) -> Result<ModelRater, StoreError> {
    Ok(ModelRater {
        rater: Rater {
            id: row.cell(0)?,
            name: row.cell(1)?,
            active: row.cell(2)?,
        },
        config: row.json(3, "model configuration")?,
        dialect: row.cell(4)?,
        created_at: row.cell(5)?,
    })
}

/// An attempt from a row of [`MODEL_ATTEMPTS`], on either backend.
pub(crate) fn attempt(row: &impl Cells) -> Result<ModelAttempt, StoreError> {
    Ok(ModelAttempt {
        rater_id: row.cell(0)?,
        case_id: row.cell(1)?,
        purpose: AttemptPurpose::parse(&row.cell::<String>(10)?),
        request_hash: row.cell(2)?,
        outcome: row.cell(3)?,
        reason: row.cell(4)?,
        input_tokens: row.cell(5)?,
        output_tokens: row.cell(6)?,
        latency_ms: row.cell(7)?,
        cost_usd: read_cost(row.cell(8)?),
        at: row.cell(9)?,
    })
}

/// A cost as stored: the decimal text of the number, or NULL when unknown.
pub(crate) fn cost_text(cost: Option<f64>) -> Option<String> {
    cost.map(|c| c.to_string())
}

/// A stored cost read back.
pub(crate) fn read_cost(text: Option<String>) -> Option<f64> {
    text.and_then(|t| t.parse().ok())
}

impl ModelStore for Store {
    fn add_model_rater(
        &mut self,
        name: &str,
        config: &ModelConfig,
        now: &str,
    ) -> Result<Rater, StoreError> {
        super::raters::check_name_free(&super::RaterStore::list_raters(self)?, name)?;
        let text = config_text(config)?;
        let sql = |e| sql_err(&self.path, e);
        let tx = self.conn.transaction().map_err(sql)?;
        tx.execute(
            "INSERT INTO raters(name, created_at, kind) VALUES (?1, ?2, 'model')",
            params![name, now],
        )
        .map_err(sql)?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO model_configs(rater_id, config, created_at) VALUES (?1, ?2, ?3)",
            params![id, text, now],
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(Rater {
            id,
            name: name.to_string(),
            active: true,
        })
    }

    fn model_raters(&self) -> Result<Vec<ModelRater>, StoreError> {
        self.decode(&format!("{MODEL_RATERS} ORDER BY r.name"), [], |row| {
            model_rater(row)
        })
    }

    fn remove_model_config(&mut self, rater_id: i64) -> Result<(), StoreError> {
        let sql = |e| sql_err(&self.path, e);
        let tx = self.conn.transaction().map_err(sql)?;
        for table in ["model_attempts", "model_replies", "model_configs"] {
            tx.execute(
                &format!("DELETE FROM {table} WHERE rater_id = ?1"),
                [rater_id],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)
    }

    fn set_model_dialect(&mut self, rater_id: i64, dialect: &str) -> Result<(), StoreError> {
        self.execute(
            "UPDATE model_configs SET dialect = ?2 WHERE rater_id = ?1",
            params![rater_id, dialect],
        )?;
        Ok(())
    }

    fn model_reply(&self, request_hash: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT reply FROM model_replies WHERE request_hash = ?1",
                [request_hash],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    fn record_model_exchange(
        &mut self,
        rater_id: i64,
        replies: &[(String, String)],
        attempt: Option<&ModelAttempt>,
        now: &str,
    ) -> Result<(), StoreError> {
        let sql = |e| sql_err(&self.path, e);
        let tx = self.conn.transaction().map_err(sql)?;
        for (hash, reply) in replies {
            tx.execute(
                "INSERT OR IGNORE INTO model_replies(request_hash, rater_id, reply, received_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![hash, rater_id, reply, now],
            )
            .map_err(sql)?;
        }
        if let Some(a) = attempt {
            tx.execute(
                "INSERT INTO model_attempts(rater_id, case_id, request_hash, outcome, reason,
                     input_tokens, output_tokens, latency_ms, cost_usd, at, purpose)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    a.rater_id,
                    a.case_id,
                    a.request_hash,
                    a.outcome,
                    a.reason,
                    a.input_tokens,
                    a.output_tokens,
                    a.latency_ms,
                    cost_text(a.cost_usd),
                    a.at,
                    a.purpose.as_str()
                ],
            )
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)
    }

    fn model_attempts(&self, rater_id: i64) -> Result<Vec<ModelAttempt>, StoreError> {
        self.decode(MODEL_ATTEMPTS, [rater_id], |row| attempt(row))
    }

    fn provenance(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT p.event_uid, p.provenance FROM answer_provenance p
                 JOIN answer_events e ON e.uid = p.event_uid ORDER BY p.event_uid",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_is_stored_as_one_flat_object_of_its_settings_and_prompt() {
        let config = ModelConfig {
            settings: ModelSettings {
                endpoint: "http://127.0.0.1:9/v1".into(),
                model: "m".into(),
                api_key_env: Some("KEY".into()),
                temperature: Some(0.2),
                seed: Some(7),
                max_output_tokens: Some(400),
                price_in: None,
                price_out: Some(0.6),
            },
            prompt_id: "verity-rater".into(),
            prompt_version: "1".into(),
        };
        let text = config_text(&config).expect("written");
        assert_eq!(
            text,
            r#"{"endpoint":"http://127.0.0.1:9/v1","model":"m","api_key_env":"KEY","temperature":0.2,"seed":7,"max_output_tokens":400,"price_in":null,"price_out":0.6,"prompt_id":"verity-rater","prompt_version":"1"}"#
        );
        let read: ModelConfig = serde_json::from_str(&text).expect("read back");
        assert_eq!(read, config);
        // A temperature written as a whole number reads back as one.
        let whole = text.replace("0.2", "0");
        let read: ModelConfig = serde_json::from_str(&whole).expect("read back");
        assert_eq!(read.settings.temperature, Some(0.0));
    }
}
