//! Adjudicators, adjudications, reference labels and calibration tasks on the server, with the
//! project file's behaviour.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::cases::PgImport;
use super::{Client, PgStore};
use crate::shared::{self, ADJUDICATION_COLUMNS, Cells};
use crate::{
    AdjudicationRow, EventSpans, ImportLabels, LabelStore, NewAdjudication, NewAnswerEvent,
    ReferenceRow, StoreError, Submission,
};

impl LabelStore for PgStore {
    fn add_adjudicator(&mut self, name: &str, now: &str) -> Result<(), StoreError> {
        self.execute(shared::ADD_ADJUDICATOR, &[&name, &now])?;
        Ok(())
    }

    fn remove_adjudicator(&mut self, name: &str) -> Result<bool, StoreError> {
        Ok(self.execute(shared::REMOVE_ADJUDICATOR, &[&name])? > 0)
    }

    fn list_adjudicators(&self) -> Result<Vec<String>, StoreError> {
        self.column(
            "SELECT name FROM adjudicators ORDER BY name COLLATE \"C\"",
            &[],
        )
    }

    fn add_adjudication(&mut self, d: &NewAdjudication<'_>) -> Result<i64, StoreError> {
        let value = serde_json::to_string(d.value).map_err(|e| self.corrupt("adjudication", e))?;
        self.run(async |c: &mut Client| {
            Ok(c.query_one(
                shared::INSERT_ADJUDICATION,
                &[
                    &d.case_id,
                    &d.question,
                    &value,
                    &d.rationale,
                    &d.decided_by,
                    &d.rule,
                    &d.at,
                ],
            )
            .await?
            .try_get(0)?)
        })
    }

    fn latest_adjudications(&self) -> Result<Vec<AdjudicationRow>, StoreError> {
        self.decode(
            &format!(
                "SELECT * FROM (SELECT DISTINCT ON (case_id, question_id) {ADJUDICATION_COLUMNS}
                   FROM adjudications ORDER BY case_id, question_id, id DESC) latest
                 ORDER BY case_id, question_id COLLATE \"C\""
            ),
            &[],
            |row| shared::adjudication(row),
        )
    }

    fn reference_sets(&self) -> Result<Vec<(String, usize)>, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT label_set, COUNT(*) FROM reference_labels GROUP BY label_set
                     ORDER BY label_set COLLATE \"C\"",
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get::<_, i64>(1)? as usize)))
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }

    fn case_instance_ids(&self) -> Result<Vec<(i64, String)>, StoreError> {
        self.decode(
            "SELECT id, instance_id FROM cases ORDER BY instance_id COLLATE \"C\"",
            &[],
            |row| Ok((row.cell(0)?, row.cell(1)?)),
        )
    }

    fn calibration_tasks(&self) -> Result<Vec<String>, StoreError> {
        self.column(
            "SELECT c.instance_id FROM calibration_tasks k JOIN cases c ON c.id = k.case_id
             ORDER BY c.instance_id COLLATE \"C\"",
            &[],
        )
    }

    fn set_calibration(
        &mut self,
        case_ids: &[i64],
        calibration: bool,
        now: &str,
    ) -> Result<usize, StoreError> {
        let ids = case_ids.to_vec();
        let changed = if calibration {
            self.execute(
                "INSERT INTO calibration_tasks(case_id, marked_at)
                 SELECT id, $2::TEXT FROM UNNEST($1::BIGINT[]) AS t(id)
                 ON CONFLICT (case_id) DO NOTHING",
                &[&ids, &now],
            )?
        } else {
            self.execute(
                "DELETE FROM calibration_tasks WHERE case_id = ANY($1::BIGINT[])",
                &[&ids],
            )?
        };
        Ok(changed as usize)
    }

    fn each_reference_label(
        &self,
        label_set: &str,
        each: &mut dyn FnMut(ReferenceRow),
    ) -> Result<(), StoreError> {
        let rows = self.rows(
            "SELECT r.case_id, c.instance_id, r.labels FROM reference_labels r
             JOIN cases c ON c.id = r.case_id WHERE r.label_set = $1
             ORDER BY c.instance_id COLLATE \"C\"",
            &[&label_set],
        )?;
        for row in &rows {
            each(shared::reference(&self.cells(row))?);
        }
        Ok(())
    }

    fn answer_event_fields(&self) -> Result<HashMap<i64, Map<String, Value>>, StoreError> {
        Ok(self
            .decode(shared::ANSWER_EVENT_FIELDS, &[], |row| {
                shared::event_fields(row)
            })?
            .into_iter()
            .collect())
    }

    fn answer_event_span(&self) -> Result<EventSpans, StoreError> {
        self.run(async |c: &mut Client| {
            let rows = c
                .query(
                    "SELECT case_id, rater_id,
                       (ARRAY_AGG(at ORDER BY uid COLLATE \"C\"))[1],
                       (ARRAY_AGG(at ORDER BY uid COLLATE \"C\" DESC))[1]
                     FROM answer_events GROUP BY case_id, rater_id",
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| {
                    Ok((
                        (r.try_get(0)?, r.try_get(1)?),
                        (r.try_get(2)?, r.try_get(3)?),
                    ))
                })
                .collect::<Result<_, tokio_postgres::Error>>()?)
        })
    }
}

impl ImportLabels for PgImport<'_> {
    fn revision_for_answers(&self, instance_id: &str) -> Result<(i64, i64), StoreError> {
        let case_id = self.case_row_id(instance_id)?.ok_or_else(|| {
            StoreError::Rule(format!(
                "the project has no case {instance_id:?} to attach answers to"
            ))
        })?;
        let latest = || {
            self.on(async |c: &Client| {
                Ok(c.query_opt(shared::LATEST_REVISION_ID, &[&case_id])
                    .await?
                    .map(|r| r.try_get(0))
                    .transpose()?)
            })
        };
        if let Some(id) = latest()? {
            return Ok((case_id, id));
        }
        self.settle_revision(case_id)?;
        let id = latest()?.ok_or_else(|| {
            StoreError::Rule(format!("case {instance_id:?} has no revision after import"))
        })?;
        Ok((case_id, id))
    }

    fn ensure_rater(&self, name: &str, now: &str) -> Result<i64, StoreError> {
        self.on(async |c: &Client| {
            c.execute(shared::ENSURE_RATER, &[&name, &now]).await?;
            Ok(c.query_one(shared::RATER_ID, &[&name]).await?.try_get(0)?)
        })
    }

    fn submission_of(&self, case_id: i64, rater_id: i64) -> Result<Option<Submission>, StoreError> {
        let row: Option<(String, String)> = self.on(async |c: &Client| {
            Ok(
                c.query_opt(shared::FIRST_SUBMISSION, &[&case_id, &rater_id])
                    .await?
                    .map(|r| -> Result<_, tokio_postgres::Error> {
                        Ok((r.try_get(0)?, r.try_get(1)?))
                    })
                    .transpose()?,
            )
        })?;
        row.map(|(answer, at)| {
            Ok((
                serde_json::from_str(&answer).map_err(|e| self.store.corrupt("answer", e))?,
                at,
            ))
        })
        .transpose()
    }

    fn append_imported_answer(
        &self,
        event: &NewAnswerEvent<'_>,
        origin: &str,
        fields: &Map<String, Value>,
    ) -> Result<i64, StoreError> {
        let fields = serde_json::to_string(fields).map_err(|e| self.store.corrupt("fields", e))?;
        let answer =
            serde_json::to_string(event.answer).map_err(|e| self.store.corrupt("answer", e))?;
        self.on(async |c: &Client| {
            let id = super::answers::insert_answer_event(self.store, c, event, &answer).await?;
            c.execute(shared::INSERT_EVENT_FIELDS, &[&id, &origin, &fields])
                .await?;
            Ok(id)
        })
    }

    fn put_reference_label(
        &self,
        label_set: &str,
        case_id: i64,
        labels: &Value,
        origin: &str,
        now: &str,
    ) -> Result<(), StoreError> {
        let labels = serde_json::to_string(labels).map_err(|e| self.store.corrupt("labels", e))?;
        self.on(async |c: &Client| {
            c.execute(
                shared::PUT_REFERENCE_LABEL,
                &[&label_set, &case_id, &labels, &origin, &now],
            )
            .await?;
            Ok(())
        })
    }

    fn case_row_id(&self, instance_id: &str) -> Result<Option<i64>, StoreError> {
        self.on(async |c: &Client| {
            Ok(c.query_opt(shared::CASE_ID, &[&instance_id])
                .await?
                .map(|r| r.try_get(0))
                .transpose()?)
        })
    }
}
