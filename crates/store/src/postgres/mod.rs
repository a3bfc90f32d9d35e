//! A project on a PostgreSQL server: the same tables as the project file, in the schema
//! `verity` of an existing database, so a panel on many machines shares one project.
//!
//! The store's interface is synchronous; this backend owns a small tokio runtime and blocks on
//! it, with a pool of connections (deadpool). A statement that fails because the connection
//! was lost (a server restart, a network drop) is tried again with backoff for a few seconds,
//! then reported as [`StoreError::Unavailable`]: nothing it wrote is half-stored, and answer
//! events' global ids make a retried save land once.

mod access;
mod answers;
mod cases;
pub mod config;
mod feed;
mod labels;
mod models;
mod progress;
mod raters;
mod repos;
mod results;
mod samples;
mod schema;
mod transfer;

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::error::SqlState;

pub use config::{Environment, ServerConfig, SslMode, is_server_url};

use super::shared::{self, Cell, Cells};
use super::{AnswersChanged, MetaStore, StatementCount, StoreError};

/// How long a statement is tried again while the server cannot be reached.
const RETRY_FOR: Duration = Duration::from_secs(5);

/// An open server project.
pub struct PgStore {
    rt: tokio::runtime::Runtime,
    pool: Pool,
    config: ServerConfig,
    /// The URL shown and remembered: never with a password.
    location: PathBuf,
    /// Kept in memory only, for the connection that listens for other sessions' answers.
    password: Option<String>,
    /// Whether the password was given (typed in the app) rather than found in the environment.
    password_given: bool,
    /// Dropped with the store, which stops the connections listening for answers.
    closing: tokio::sync::watch::Sender<()>,
    /// Whether the session's login is a rater's, asked once.
    rater_session: std::sync::OnceLock<bool>,
    /// The statements run through [`Client`] since [`MetaStore::count_statements`].
    statements: StatementCount,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("location", &self.location)
            .finish()
    }
}

/// Why a statement failed: the database's error, or a rule of the store.
pub(super) enum Failure {
    Pg(tokio_postgres::Error),
    Store(StoreError),
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Failure {
        Failure::Pg(e)
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Failure {
        Failure::Store(e)
    }
}

/// A pooled connection whose statements are prepared once per connection and kept: each
/// query after the first is one round trip, and the server parses and plans it once. Each
/// statement run through its methods is counted (a batch as one); those run on a
/// [`Client::transaction`]'s handle or on the connection itself (`c.0`) are not.
pub(super) struct Client(deadpool_postgres::Client, StatementCount);

type Params<'a> = &'a [&'a (dyn tokio_postgres::types::ToSql + Sync)];

impl Client {
    async fn prepared(
        &self,
        sql: &str,
    ) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
        self.0.prepare_cached(sql).await
    }

    pub(super) async fn query(
        &self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        self.1.add();
        self.0.query(&self.prepared(sql).await?, params).await
    }

    pub(super) async fn query_one(
        &self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<tokio_postgres::Row, tokio_postgres::Error> {
        self.1.add();
        self.0.query_one(&self.prepared(sql).await?, params).await
    }

    pub(super) async fn query_opt(
        &self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<Option<tokio_postgres::Row>, tokio_postgres::Error> {
        self.1.add();
        self.0.query_opt(&self.prepared(sql).await?, params).await
    }

    pub(super) async fn execute(
        &self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<u64, tokio_postgres::Error> {
        self.1.add();
        self.0.execute(&self.prepared(sql).await?, params).await
    }

    pub(super) async fn batch_execute(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.1.add();
        self.0.batch_execute(sql).await
    }

    pub(super) async fn transaction(
        &mut self,
    ) -> Result<deadpool_postgres::Transaction<'_>, tokio_postgres::Error> {
        self.0.transaction().await
    }

    /// Takes the connection out of the pool for good: it closes when dropped.
    pub(super) fn discard(self) {
        drop(deadpool_postgres::Object::take(self.0));
    }
}

/// A failure is worth trying again when the connection, not the statement, failed.
fn connection_lost(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        // The server is shutting down or starting up, or dropped the session.
        return [
            SqlState::ADMIN_SHUTDOWN,
            SqlState::CRASH_SHUTDOWN,
            SqlState::CANNOT_CONNECT_NOW,
            SqlState::CONNECTION_FAILURE,
            SqlState::CONNECTION_EXCEPTION,
            SqlState::CONNECTION_DOES_NOT_EXIST,
        ]
        .contains(code);
    }
    // A socket that failed, not a TLS handshake that refused the server (InvalidData).
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return io.kind() != std::io::ErrorKind::InvalidData;
        }
        source = s.source();
    }
    false
}

impl PgStore {
    /// Creates a project's schema in an existing database, which must not hold one yet.
    pub fn create(url: &str, password: Option<&str>) -> Result<PgStore, StoreError> {
        let store = PgStore::connect(url, password)?;
        store.run_once(async |c: &mut Client| {
            let tx = c.transaction().await?;
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtext('verity schema'))",
                &[],
            )
            .await?;
            let exists: bool = tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'verity')",
                    &[],
                )
                .await?
                .try_get(0)?;
            if exists {
                return Err(StoreError::AlreadyExists {
                    path: store.location.clone(),
                }
                .into());
            }
            tx.batch_execute(
                "CREATE SCHEMA verity;
                 CREATE TABLE verity.schema_version (version BIGINT NOT NULL);
                 INSERT INTO verity.schema_version VALUES (0);",
            )
            .await?;
            store.apply_migrations(&tx, 0).await?;
            // The titles a new project stores are made by this Verity's title rule.
            tx.execute(
                "INSERT INTO verity.meta(key, value) VALUES ('project_id', $1), ($2, $3)",
                &[
                    &super::new_event_uid(),
                    &super::cases::TITLE_RULE_KEY,
                    &verity_task::case::TITLE_RULE.to_string(),
                ],
            )
            .await?;
            tx.commit().await?;
            Ok(())
        })?;
        Ok(store)
    }

    /// Opens a server project, bringing its schema up to this Verity's.
    pub fn open(url: &str, password: Option<&str>) -> Result<PgStore, StoreError> {
        let store = PgStore::connect(url, password)?;
        store.run_once(async |c: &mut Client| {
            let tx = c.transaction().await?;
            let exists: bool = tx
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM pg_tables
                     WHERE schemaname = 'verity' AND tablename = 'schema_version')",
                    &[],
                )
                .await?
                .try_get(0)?;
            if !exists {
                return Err(StoreError::Missing {
                    path: store.location.clone(),
                }
                .into());
            }
            let version: i64 = tx
                .query_one("SELECT version FROM verity.schema_version", &[])
                .await?
                .try_get(0)?;
            let known = schema::MIGRATIONS.len() as i64;
            if version > known {
                return Err(StoreError::TooNew {
                    path: store.location.clone(),
                    found: version,
                    known,
                }
                .into());
            }
            if version < known {
                tx.execute(
                    "SELECT pg_advisory_xact_lock(hashtext('verity schema'))",
                    &[],
                )
                .await?;
                // Another Verity may have migrated while this one waited for the lock.
                let version: i64 = tx
                    .query_one("SELECT version FROM verity.schema_version", &[])
                    .await?
                    .try_get(0)?;
                store.apply_migrations(&tx, version).await?;
            }
            tx.commit().await?;
            Ok(())
        })?;
        Ok(store)
    }

    async fn apply_migrations(
        &self,
        tx: &deadpool_postgres::Transaction<'_>,
        from: i64,
    ) -> Result<(), Failure> {
        let from = usize::try_from(from).unwrap_or(0);
        for sql in schema::MIGRATIONS.iter().skip(from) {
            tx.batch_execute(&format!("SET LOCAL search_path = verity;\n{sql}"))
                .await?;
        }
        tx.execute(
            "UPDATE verity.schema_version SET version = $1",
            &[&(schema::MIGRATIONS.len() as i64)],
        )
        .await?;
        access::write_questionnaire_rules(&**tx).await?;
        let group = self.group_role();
        if tx
            .query_opt("SELECT 1 FROM pg_roles WHERE rolname = $1", &[&group])
            .await?
            .is_some()
        {
            tx.batch_execute(&access::group_grants(&self.config.dbname, &group))
                .await?;
        }
        Ok(())
    }

    fn connect(url: &str, password: Option<&str>) -> Result<PgStore, StoreError> {
        let env = Environment::current();
        let config = ServerConfig::parse(url, &env).map_err(StoreError::Rule)?;
        let location = PathBuf::from(config.location());
        let password_given = password.is_some();
        let password = config.password(password, &env);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Rule(format!("cannot start the server connection: {e}")))?;
        let tls =
            tokio_postgres_rustls::MakeRustlsConnect::new(config.tls().map_err(StoreError::Rule)?);
        let manager = Manager::from_config(
            config.connect_config(password.as_deref()),
            tls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(4)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .build()
            .map_err(|e| StoreError::Rule(format!("cannot set up the connection pool: {e}")))?;
        Ok(PgStore {
            rt,
            pool,
            config,
            location,
            password,
            password_given,
            closing: tokio::sync::watch::channel(()).0,
            rater_session: std::sync::OnceLock::new(),
            statements: StatementCount::default(),
        })
    }

    /// The server's error as one sentence: who could not connect where, and why; never a
    /// password.
    fn failure(&self, e: Failure) -> StoreError {
        let e = match e {
            Failure::Store(s) => return s,
            Failure::Pg(e) => e,
        };
        let c = &self.config;
        // A server that shuts down tells its sessions so (57P01) before it closes them: that
        // is the server going away, not a refusal of what was asked.
        if connection_lost(&e) {
            return StoreError::Unavailable {
                location: c.server(),
                reason: e
                    .as_db_error()
                    .map_or_else(|| innermost(&e), |db| db.message().to_string()),
            };
        }
        if let Some(db) = e.as_db_error() {
            let code = db.code();
            // The checked functions' own refusals (schema migration 6).
            match code.code() {
                "VR001" => return StoreError::HistoryMoved(db.message().to_string()),
                "VR002" => return StoreError::Rule(db.message().to_string()),
                _ => {}
            }
            if *code == SqlState::DISK_FULL {
                return StoreError::DiskFull {
                    path: self.location.clone(),
                };
            }
            let message = if *code == SqlState::INVALID_PASSWORD {
                format!(
                    "password authentication failed for user {:?} on {}; {}",
                    c.user,
                    c.server(),
                    if self.password_given {
                        "check the password"
                    } else {
                        "check PGPASSWORD or ~/.pgpass"
                    }
                )
            } else if *code == SqlState::INVALID_CATALOG_NAME {
                format!(
                    "database {:?} does not exist on {}; create it first (createdb)",
                    c.dbname,
                    c.server()
                )
            } else if *code == SqlState::INSUFFICIENT_PRIVILEGE {
                format!("{} (user {:?})", db.message(), c.user)
            } else {
                db.message().to_string()
            };
            return StoreError::Database {
                path: self.location.clone(),
                source: message.into(),
            };
        }
        let reason = innermost(&e);
        let message = if reason.contains("password missing") {
            format!(
                "the server at {} asks a password for user {:?}: set PGPASSWORD or put it in ~/.pgpass",
                c.server(),
                c.user
            )
        } else if reason.contains("certificate") {
            format!(
                "the TLS certificate of the server at {} was refused ({reason}); with sslmode={}, name the root that signed it with sslrootcert= in the URL or PGSSLROOTCERT",
                c.server(),
                c.sslmode.name()
            )
        } else {
            reason
        };
        StoreError::Database {
            path: self.location.clone(),
            source: message.into(),
        }
    }

    /// Runs `f` on a pooled connection, once.
    fn run_once<T>(
        &self,
        mut f: impl AsyncFnMut(&mut Client) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        self.rt
            .block_on(async {
                let mut client = self.client().await?;
                f(&mut client).await
            })
            .map_err(|e| self.failure(e))
    }

    /// Runs one statement as [`PgStore::run`] does; returns how many rows it changed.
    fn execute(&self, sql: &str, params: Params<'_>) -> Result<u64, StoreError> {
        self.run(async |c: &mut Client| Ok(c.execute(sql, params).await?))
    }

    /// Every row a query returns.
    fn rows(&self, sql: &str, params: Params<'_>) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        self.run(async |c: &mut Client| Ok(c.query(sql, params).await?))
    }

    /// The first column of every row a query returns.
    fn column<T: for<'r> tokio_postgres::types::FromSql<'r>>(
        &self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<Vec<T>, StoreError> {
        self.run(async |c: &mut Client| {
            Ok(c.query(sql, params)
                .await?
                .iter()
                .map(|r| r.try_get(0))
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }

    /// Runs `f` on a pooled connection, trying again with backoff while the connection is
    /// lost. `f` is one statement or one transaction, so a try either stored everything or
    /// nothing.
    fn run<T>(
        &self,
        mut f: impl AsyncFnMut(&mut Client) -> Result<T, Failure>,
    ) -> Result<T, StoreError> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(50);
        self.rt
            .block_on(async {
                loop {
                    let attempt = async {
                        let mut client = self.client().await?;
                        f(&mut client).await
                    }
                    .await;
                    match attempt {
                        Err(Failure::Pg(e))
                            if connection_lost(&e) && started.elapsed() + pause < RETRY_FOR =>
                        {
                            tracing::debug!(server = %self.config.server(), error = %innermost(&e), "connection lost; trying again");
                            tokio::time::sleep(pause).await;
                            pause = (pause * 2).min(Duration::from_secs(2));
                        }
                        other => return other,
                    }
                }
            })
            .map_err(|e| self.failure(e))
    }

    /// Whether this session's login is a rater's (`verity panel grant`), which writes only
    /// through the checked functions.
    pub(super) fn is_rater_session(&self) -> Result<bool, StoreError> {
        if let Some(known) = self.rater_session.get() {
            return Ok(*known);
        }
        let rater = self.run(async |c: &mut Client| {
            Ok(c.query_one("SELECT current_rater() IS NOT NULL", &[])
                .await?
                .try_get::<_, bool>(0)?)
        })?;
        Ok(*self.rater_session.get_or_init(|| rater))
    }

    async fn client(&self) -> Result<Client, Failure> {
        let client = self.pool.get().await;
        client
            .map(|c| Client(c, self.statements.clone()))
            .map_err(|e| match e {
                deadpool_postgres::PoolError::Backend(e) => Failure::Pg(e),
                other => Failure::Store(StoreError::Unavailable {
                    location: self.config.server(),
                    reason: other.to_string(),
                }),
            })
    }

    fn corrupt(&self, what: &'static str, source: serde_json::Error) -> StoreError {
        StoreError::Corrupt {
            path: self.location.clone(),
            what,
            source,
        }
    }

    /// A row of this server's, to decode.
    fn cells<'r>(&'r self, row: &'r tokio_postgres::Row) -> PgRow<'r> {
        PgRow { row, store: self }
    }

    /// Every row a query gives, decoded by `decode`.
    fn decode<T>(
        &self,
        sql: &str,
        params: Params<'_>,
        decode: impl Fn(&PgRow<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        self.rows(sql, params)?
            .iter()
            .map(|row| decode(&self.cells(row)))
            .collect()
    }
}

/// A row of the server's.
pub(super) struct PgRow<'r> {
    row: &'r tokio_postgres::Row,
    store: &'r PgStore,
}

impl Cells for PgRow<'_> {
    fn cell<T: Cell>(&self, index: usize) -> Result<T, StoreError> {
        self.row
            .try_get(index)
            .map_err(|e| self.store.failure(e.into()))
    }

    fn corrupt(&self, what: &'static str, source: serde_json::Error) -> StoreError {
        self.store.corrupt(what, source)
    }
}

/// The innermost cause of an error, which says what happened ("Connection refused").
fn innermost(e: &tokio_postgres::Error) -> String {
    let mut last: &dyn std::error::Error = e;
    while let Some(next) = last.source() {
        last = next;
    }
    last.to_string()
}

impl MetaStore for PgStore {
    fn path(&self) -> &Path {
        &self.location
    }

    fn schema_version(&self) -> Result<i64, StoreError> {
        self.run(async |c: &mut Client| {
            Ok(c.query_one("SELECT version FROM schema_version", &[])
                .await?
                .try_get(0)?)
        })
    }

    fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.run(async |c: &mut Client| {
            let row = c.query_opt(shared::META, &[&key]).await?;
            Ok(row.map(|r| r.try_get(0)).transpose()?)
        })
    }

    fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.run(async |c: &mut Client| {
            c.execute(shared::SET_META, &[&key, &value]).await?;
            Ok(())
        })
    }

    fn put_questionnaire(
        &mut self,
        id: &str,
        version: &str,
        source: &str,
    ) -> Result<i64, StoreError> {
        self.run(async |c: &mut Client| {
            c.execute(
                "INSERT INTO questionnaires(qid, version, source) VALUES ($1, $2, $3)
                 ON CONFLICT (qid, version) DO NOTHING",
                &[&id, &version, &source],
            )
            .await?;
            let row = c
                .query_one(shared::QUESTIONNAIRE_BY_VERSION, &[&id, &version])
                .await?;
            let stored: String = row.try_get(1)?;
            if stored != source {
                return Err(crate::sqlite::changed_questionnaire(id, version).into());
            }
            access::write_questionnaire_rules(&**c.0).await?;
            Ok(row.try_get(0)?)
        })
    }

    fn questionnaire_source(&self, row: i64) -> Result<(String, String, String), StoreError> {
        self.run(async |c: &mut Client| {
            let r = c.query_one(shared::QUESTIONNAIRE_SOURCE, &[&row]).await?;
            Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?))
        })
    }

    fn bound_rater(&self) -> Result<Option<String>, StoreError> {
        self.session_rater()
    }

    fn logins(&mut self) -> Option<&mut dyn super::PanelLogins> {
        Some(self)
    }

    fn count_statements(&mut self) -> Result<StatementCount, StoreError> {
        self.statements = StatementCount::default();
        Ok(self.statements.clone())
    }

    fn answer_feed(&self) -> Result<Option<Receiver<AnswersChanged>>, StoreError> {
        let (send, receive) = std::sync::mpsc::channel();
        let config = self.config.connect_config(self.password.as_deref());
        let tls = tokio_postgres_rustls::MakeRustlsConnect::new(
            self.config.tls().map_err(StoreError::Rule)?,
        );
        let server = self.config.server();
        let closed = self.closing.subscribe();
        let (ready_send, ready) = std::sync::mpsc::sync_channel(1);
        // The listening connection lives on a thread of its own, for as long as the store is
        // open and someone holds the receiver; a lost connection is made again.
        std::thread::Builder::new()
            .name("verity-answer-feed".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                rt.block_on(feed::listen(config, tls, send, ready_send, closed, server));
            })
            .map_err(|e| StoreError::Rule(format!("cannot listen for answers: {e}")))?;
        // From here on every change is heard: the feed returns once it listens.
        match ready.recv_timeout(Duration::from_secs(15)) {
            Ok(Ok(())) => Ok(Some(receive)),
            Ok(Err(reason)) => Err(StoreError::Unavailable {
                location: self.config.server(),
                reason: format!("cannot listen for answers: {reason}"),
            }),
            Err(_) => Err(StoreError::Unavailable {
                location: self.config.server(),
                reason: "listening for answers did not start within 15 s".into(),
            }),
        }
    }
}
