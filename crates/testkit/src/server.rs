//! A fresh database on the test server for each test that asks for one: the server the test
//! command starts (`scripts/postgres.sh`), named by `VERITY_TEST_POSTGRES_URL`. Without it,
//! [`Database::fresh`] says the server part was skipped and gives `None`, and the test runs on
//! SQLite alone; under CI (`CI=true`), where the server must be there, it fails the test
//! instead, so a server that did not start never passes as a green run.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use annotations::ops::{self, Project, QuestionnaireChoice};
use verity_store::postgres::{Environment, ServerConfig};

/// A database made for one test, dropped after it.
pub struct Database {
    admin: ServerConfig,
    /// Its name.
    pub name: String,
}

/// Runs SQL as `user` (with `password`, else the superuser's from the test server's password
/// file) on `dbname`; the server's error message when it fails.
pub fn try_sql(
    admin: &ServerConfig,
    user: Option<(&str, &str)>,
    dbname: &str,
    sql: &str,
) -> Result<Vec<Vec<Option<String>>>, String> {
    let env = Environment::current();
    let mut config = admin.clone();
    config.dbname = dbname.to_string();
    let password = match user {
        Some((name, password)) => {
            config.user = name.to_string();
            Some(password.to_string())
        }
        None => config.password(None, &env),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, connection) = config
            .connect_config(password.as_deref())
            .connect(tokio_postgres::NoTls)
            .await
            .map_err(|e| e.to_string())?;
        let connection = tokio::spawn(connection);
        let result = client.simple_query(sql).await.map_err(|e| {
            e.as_db_error()
                .map_or_else(|| e.to_string(), |d| d.message().to_string())
        });
        drop(client);
        connection.await.unwrap().unwrap();
        Ok(result?
            .into_iter()
            .filter_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(row) => Some(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_string))
                        .collect(),
                ),
                _ => None,
            })
            .collect())
    })
}

/// Runs SQL as the test server's superuser on `dbname`, which must succeed.
pub fn admin_sql(admin: &ServerConfig, dbname: &str, sql: &str) {
    if let Err(e) = try_sql(admin, None, dbname, sql) {
        panic!("{sql}: {e}");
    }
}

/// The test server's URL, `None` when there is none; under CI a missing server is a failure.
pub fn test_server() -> Option<String> {
    let url = std::env::var("VERITY_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty());
    assert!(
        url.is_some() || std::env::var("CI").ok().as_deref() != Some("true"),
        "CI=true but VERITY_TEST_POSTGRES_URL is unset: the server tests cannot reach PostgreSQL, and they fail rather than pass without it"
    );
    url
}

impl Database {
    /// A new empty database, when a test server is configured.
    pub fn fresh() -> Option<Database> {
        let Some(url) = test_server() else {
            eprintln!(
                "skipped the PostgreSQL part of this test: VERITY_TEST_POSTGRES_URL is unset (scripts/postgres.sh starts a server)"
            );
            return None;
        };
        let admin = ServerConfig::parse(&url, &Environment::current()).unwrap();
        let name = format!("verity_test_{}", uuid::Uuid::now_v7().simple());
        admin_sql(&admin, &admin.dbname, &format!("CREATE DATABASE {name}"));
        Some(Database { admin, name })
    }

    /// The URL of the database as the superuser.
    pub fn url(&self) -> String {
        self.url_as(&self.admin.user)
    }

    /// The URL of the database as another role.
    pub fn url_as(&self, user: &str) -> String {
        format!(
            "postgres://{user}@{}:{}/{}",
            self.admin.host, self.admin.port, self.name
        )
    }

    /// Makes a role `<database>_coord` with `password` and CREATEROLE the database's owner, and
    /// creates a project there as that role on the built-in `questionnaire`: the role's name
    /// and the project.
    pub fn coordinator_project(&self, password: &str, questionnaire: &str) -> (String, Project) {
        let coordinator = format!("{}_coord", self.name);
        self.sql(&format!(
            "CREATE ROLE {coordinator} LOGIN CREATEROLE PASSWORD '{password}';
             ALTER DATABASE {} OWNER TO {coordinator};",
            self.name
        ));
        let project = ops::init_project_with_password(
            Path::new(&self.url_as(&coordinator)),
            Some(password),
            &QuestionnaireChoice::Builtin(questionnaire.into()),
            crate::project::T0,
        )
        .unwrap();
        (coordinator, project)
    }

    /// Runs SQL on the database as the superuser.
    pub fn sql(&self, sql: &str) {
        admin_sql(&self.admin, &self.name, sql);
    }

    /// Runs SQL on the database as the superuser, or as `(user, password)`; the rows (as
    /// text) or the server's error message.
    pub fn try_sql(
        &self,
        user: Option<(&str, &str)>,
        sql: &str,
    ) -> Result<Vec<Vec<Option<String>>>, String> {
        try_sql(&self.admin, user, &self.name, sql)
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        admin_sql(
            &self.admin,
            &self.admin.dbname,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}
