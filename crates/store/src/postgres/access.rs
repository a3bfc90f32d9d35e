//! Raters' own logins on the server. `grant` makes a login role for a rater, a member of the
//! panel's group role, which holds the grants the row-level policies (schema migration 2)
//! narrow to the rater's own rows. Reading the id sequences (how many rows each table has had)
//! is granted too, so a rater may `pg_dump` what they can see (`docs/rater-logins.md`). The
//! password is sent to the server only as a SCRAM-SHA-256 verifier, so it appears in no server
//! log; the rater is shown it once.

use std::path::Path;

use rand::RngExt;
use serde_json::{Value, json};

use super::{Client, Failure, PgStore};
use crate::{Login, PanelLogins, StoreError};
use verity_task::questionnaire::Questionnaire;

/// Longest role name PostgreSQL keeps.
const NAME_MAX: usize = 63;

/// `name` as a double-quoted SQL identifier.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `text` as a single-quoted SQL literal.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Lower-case letters, digits and underscores of `text`, for a role name people can type.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// What the raters' group may do: read the panel as far as the row-level policies let it, and
/// write only through the checked functions (schema migration 6). Everything is revoked first
/// and granted again whenever the schema is migrated, so a panel made by an older Verity loses
/// the direct writes it had. The task texts (`case_revisions.content`, `case_sources.content`)
/// hold the audit's verdict: a rater reads them only through `case_text`.
pub(super) fn group_grants(db: &str, group: &str) -> String {
    let (db, g) = (ident(db), ident(group));
    format!(
        "GRANT CONNECT ON DATABASE {db} TO {g};
         GRANT USAGE ON SCHEMA verity TO {g};
         REVOKE ALL ON ALL TABLES IN SCHEMA verity FROM {g};
         REVOKE ALL ON ALL SEQUENCES IN SCHEMA verity FROM {g};
         REVOKE ALL ON ALL FUNCTIONS IN SCHEMA verity FROM {g};
         GRANT SELECT ON {readable} TO {g};
         GRANT SELECT (id, case_id, revision, repo, base_commit, title, has_materials, created_at)
             ON verity.case_revisions TO {g};
         GRANT SELECT (case_id) ON verity.case_sources TO {g};
         GRANT SELECT ON ALL SEQUENCES IN SCHEMA verity TO {g};
         GRANT EXECUTE ON FUNCTION verity.current_rater(), verity.assigned_to_me(BIGINT),
             verity.save_my_answer(TEXT, BIGINT, BIGINT, BIGINT, TEXT, TEXT, TEXT),
             verity.add_my_time(BIGINT, BIGINT), verity.case_text(BIGINT) TO {g};",
        readable = RATER_READS
            .iter()
            .map(|t| format!("verity.{t}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The tables a rater's login may SELECT from, whole rows; the row-level policies narrow each
/// to what is theirs, and the coordinator's tables among them (adjudications, reference
/// labels, calibration, conflicts, imported answers' fields, systems' results, model raters'
/// configurations, requests, replies and provenance, packages' secrets and seals) show them no
/// row at all.
pub(super) const RATER_READS: &[&str] = &[
    "schema_version",
    "meta",
    "questionnaires",
    "questionnaire_rules",
    "cases",
    "raters",
    "assignments",
    "answer_events",
    "answer_event_fields",
    "answer_conflicts",
    "adjudications",
    "adjudicators",
    "reference_labels",
    "calibration_tasks",
    "repositories",
    "evidence_cache",
    "panel_logins",
    "system_results",
    "model_configs",
    "model_attempts",
    "model_replies",
    "answer_provenance",
    "sweeps",
    "package_keys",
    "answer_seals",
    "sample_draws",
    "sample_frame",
];

/// The rules `save_my_answer` checks a rater's answer against, as JSON (server schema 12 and
/// later): the most characters a note or a revision's reason holds
/// ([`NOTE_MAX_CHARS`](verity_task::questionnaire::NOTE_MAX_CHARS), the limit the project file
/// keeps), and per question its id, whether it takes text or an option (and which option
/// values, in their stored form), whether a submission must answer it (always, or when another
/// question has one of some values) and the fewest characters a text takes.
fn questionnaire_rules(questionnaire: &Questionnaire) -> Value {
    json!({
        "max_chars": verity_task::questionnaire::NOTE_MAX_CHARS,
        "questions": question_rules(questionnaire),
    })
}

/// Each question's rules, for [`questionnaire_rules`].
fn question_rules(questionnaire: &Questionnaire) -> Value {
    let canonical = |question: &str, value: &Value| {
        questionnaire
            .question(question)
            .and_then(|q| q.canonical(value))
            .unwrap_or_else(|| value.clone())
    };
    Value::Array(
        questionnaire
            .questions()
            .map(|q| {
                json!({
                    "id": q.id,
                    "kind": if q.kind.is_rated() { "option" } else { "text" },
                    "values": q.options.iter().map(|o| o.value.clone()).collect::<Vec<_>>(),
                    "required": q.required,
                    "min_chars": q.min_chars,
                    "required_if": q.required_if.as_ref().map(|rule| json!({
                        "question": rule.question,
                        "values": rule
                            .values
                            .iter()
                            .map(|v| canonical(&rule.question, v))
                            .collect::<Vec<_>>(),
                    })),
                })
            })
            .collect(),
    )
}

/// Writes the rules of every stored questionnaire that has none yet (a new project, a project
/// copied in, a panel made before schema migration 6).
pub(super) async fn write_questionnaire_rules(
    c: &impl tokio_postgres::GenericClient,
) -> Result<(), Failure> {
    let rows = c
        .query(
            "SELECT id, source FROM verity.questionnaires q WHERE NOT EXISTS (
               SELECT 1 FROM verity.questionnaire_rules r WHERE r.questionnaire_id = q.id)",
            &[],
        )
        .await?;
    for row in rows {
        let (id, source): (i64, String) = (row.try_get(0)?, row.try_get(1)?);
        // A questionnaire Verity cannot read has no rules: no rater can answer under it, as no
        // Verity can open a project that uses it.
        let questionnaire = match Questionnaire::parse(&source, Path::new("questionnaire")) {
            Ok(q) => q,
            Err(e) => {
                tracing::warn!(questionnaire = id, error = %e, "stored questionnaire cannot be read; raters' logins cannot answer under it");
                continue;
            }
        };
        c.execute(
            "INSERT INTO verity.questionnaire_rules(questionnaire_id, rules)
             VALUES ($1, $2::TEXT::JSONB)",
            &[&id, &questionnaire_rules(&questionnaire).to_string()],
        )
        .await?;
    }
    Ok(())
}

fn truncated(name: &str) -> String {
    name.chars().take(NAME_MAX).collect()
}

impl PgStore {
    /// The panel's group role on this database.
    pub(super) fn group_role(&self) -> String {
        truncated(&format!("verity_{}_raters", slug(&self.config.dbname)))
    }

    /// The rater whose login this session uses; `None` for the coordinator (the owner of the
    /// schema, or a superuser). Any other role is refused.
    pub(super) fn session_rater(&self) -> Result<Option<String>, StoreError> {
        let (rater, coordinator, role): (Option<String>, bool, String) =
            self.run(async |c: &mut Client| {
                let rater = c
                    .query_opt(
                        "SELECT r.name FROM panel_logins p JOIN raters r ON r.id = p.rater_id
                         WHERE p.role = session_user",
                        &[],
                    )
                    .await?
                    .map(|r| r.try_get(0))
                    .transpose()?;
                let row = c
                    .query_one(
                        "SELECT pg_has_role(session_user, n.nspowner, 'MEMBER')
                                OR (SELECT rolsuper FROM pg_roles WHERE rolname = session_user),
                                session_user::TEXT
                         FROM pg_namespace n WHERE n.nspname = 'verity'",
                        &[],
                    )
                    .await?;
                Ok((rater, row.try_get(0)?, row.try_get(1)?))
            })?;
        match (rater, coordinator) {
            (Some(name), _) => Ok(Some(name)),
            (None, true) => Ok(None),
            (None, false) => Err(StoreError::Rule(format!(
                "role {role:?} is neither the coordinator of {} nor a rater's login; the coordinator gives a rater theirs with `verity panel grant NAME`",
                self.location.display()
            ))),
        }
    }
}

impl PanelLogins for PgStore {
    fn grant(&mut self, rater_id: i64, rater: &str, now: &str) -> Result<Login, StoreError> {
        let password: String = rand::rng()
            .sample_iter(rand::distr::Alphanumeric)
            .take(24)
            .map(char::from)
            .collect();
        let verifier = postgres_protocol::password::scram_sha_256(password.as_bytes());
        let group = self.group_role();
        let db = self.config.dbname.clone();
        let base = truncated(&format!(
            "verity_{}_{}",
            slug(&self.config.dbname),
            match slug(rater) {
                s if s.is_empty() => format!("rater{rater_id}"),
                s => s,
            }
        ));
        let role = self.run(async |c: &mut Client| {
            let tx = c.transaction().await?;
            let exists = |name: String| {
                let tx = &tx;
                async move {
                    Ok::<bool, Failure>(
                        tx.query_opt("SELECT 1 FROM pg_roles WHERE rolname = $1", &[&name])
                            .await?
                            .is_some(),
                    )
                }
            };
            if !exists(group.clone()).await? {
                tx.batch_execute(&format!("CREATE ROLE {} NOLOGIN", ident(&group)))
                    .await?;
            }
            tx.batch_execute(&group_grants(&db, &group)).await?;
            let current: Option<String> = tx
                .query_opt(
                    "SELECT role FROM panel_logins WHERE rater_id = $1",
                    &[&rater_id],
                )
                .await?
                .map(|r| r.try_get(0))
                .transpose()?;
            let role = match current {
                Some(role) => {
                    tx.batch_execute(&format!(
                        "ALTER ROLE {} WITH LOGIN PASSWORD {}",
                        ident(&role),
                        literal(&verifier)
                    ))
                    .await?;
                    role
                }
                None => {
                    let mut role = base.clone();
                    let mut n = 2;
                    while exists(role.clone()).await? {
                        let suffix = format!("_{n}");
                        role = format!(
                            "{}{suffix}",
                            base.chars()
                                .take(NAME_MAX - suffix.len())
                                .collect::<String>()
                        );
                        n += 1;
                    }
                    tx.batch_execute(&format!(
                        "CREATE ROLE {} WITH LOGIN PASSWORD {} IN ROLE {}",
                        ident(&role),
                        literal(&verifier),
                        ident(&group)
                    ))
                    .await?;
                    tx.execute(
                        "INSERT INTO panel_logins(role, rater_id, granted_at) VALUES ($1, $2, $3)",
                        &[&role, &rater_id, &now],
                    )
                    .await?;
                    role
                }
            };
            tx.commit().await?;
            Ok(role)
        })?;
        Ok(Login { role, password })
    }

    fn revoke(&mut self, rater_id: i64) -> Result<Option<String>, StoreError> {
        self.run(async |c: &mut Client| {
            let tx = c.transaction().await?;
            let role: Option<String> = tx
                .query_opt(
                    "DELETE FROM panel_logins WHERE rater_id = $1 RETURNING role",
                    &[&rater_id],
                )
                .await?
                .map(|r| r.try_get(0))
                .transpose()?;
            if let Some(role) = &role {
                tx.batch_execute(&format!("DROP ROLE IF EXISTS {}", ident(role)))
                    .await?;
            }
            tx.commit().await?;
            Ok(role)
        })
    }

    fn list(&mut self) -> Result<Vec<(i64, String)>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT rater_id, role FROM panel_logins ORDER BY role COLLATE \"C\"",
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_and_slugged() {
        assert_eq!(ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(literal("it's"), "'it''s'");
        assert_eq!(slug("Ana María O'Neil"), "ana_mar_a_o_neil");
        assert_eq!(slug("--"), "");
        assert_eq!(truncated(&"x".repeat(80)).len(), NAME_MAX);
    }
}
