//! The JSON schema of a questionnaire's answer, as structured outputs take it: each question id a
//! property, scales and yes/no questions integer enums, choices enums of their values, texts
//! strings. In strict mode every property is listed as required and no other is allowed; a
//! question a submission may leave blank takes `null` as well.

use serde_json::{Map, Value, json};

use verity_task::questionnaire::{Question, QuestionKind, Questionnaire};

/// The schema of one answer to `questionnaire`.
pub fn questionnaire_schema(questionnaire: &Questionnaire) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for question in questionnaire.questions() {
        properties.insert(question.id.clone(), question_schema(question));
        required.push(Value::String(question.id.clone()));
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn question_schema(question: &Question) -> Value {
    let values: Vec<Value> = match question.kind {
        QuestionKind::YesNo => vec![json!(0), json!(1)],
        QuestionKind::Scale | QuestionKind::Choice | QuestionKind::Text => {
            question.options.iter().map(|o| o.value.clone()).collect()
        }
    };
    let base = match question.kind {
        QuestionKind::Text => "string",
        QuestionKind::Scale | QuestionKind::Choice | QuestionKind::YesNo => {
            if values.iter().all(Value::is_i64) {
                "integer"
            } else if values.iter().all(Value::is_string) {
                "string"
            } else {
                // A choice mixing numbers and strings: the enum alone says what is allowed.
                ""
            }
        }
    };
    // A question that is not always required may be left blank: `null`, as strict mode has no
    // optional properties. One required only under a condition is checked by the questionnaire.
    let nullable = !question.required;
    let mut schema = Map::new();
    match (base, nullable) {
        ("", _) => {}
        (t, false) => {
            schema.insert("type".into(), json!(t));
        }
        (t, true) => {
            schema.insert("type".into(), json!([t, "null"]));
        }
    }
    if question.kind.is_rated() {
        let mut allowed = values;
        if nullable {
            allowed.push(Value::Null);
        }
        schema.insert("enum".into(), Value::Array(allowed));
    }
    schema.insert(
        "description".into(),
        Value::String(format!("{} {}", question.number, question.prompt)),
    );
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verified_questionnaire_becomes_a_strict_schema_of_every_question() {
        let q = Questionnaire::builtin("swe-bench-verified").expect("shipped");
        let schema = questionnaire_schema(&q);
        let ids: Vec<&str> = q.questions().map(|q| q.id.as_str()).collect();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(required, ids);
        assert_eq!(schema["additionalProperties"], false);
        let underspecified = &schema["properties"]["underspecified"];
        assert_eq!(underspecified["type"], "integer");
        assert_eq!(underspecified["enum"], json!([0, 1, 2, 3]));
        let notes = &schema["properties"]["underspecified_notes"];
        assert!(notes.get("enum").is_none());
        assert!(notes["type"] == "string" || notes["type"] == json!(["string", "null"]));
        for question in q.questions() {
            let property = &schema["properties"][question.id.as_str()];
            let types = &property["type"];
            assert_eq!(
                types.is_array(),
                !question.required,
                "{}: nullable exactly when a submission may leave it blank",
                question.id
            );
            if question.kind.is_rated() {
                let listed = property["enum"].as_array().expect("an enum");
                for option in &question.options {
                    assert!(listed.contains(&option.value), "{}", question.id);
                }
            }
        }
    }

    #[test]
    fn every_shipped_questionnaire_has_a_schema_with_a_property_per_question() {
        for (id, _) in verity_task::questionnaire::BUILTIN {
            let q = Questionnaire::builtin(id).expect("shipped");
            let schema = questionnaire_schema(&q);
            let properties = schema["properties"].as_object().expect("properties");
            assert_eq!(properties.len(), q.questions().count(), "{id}");
            assert!(
                properties
                    .values()
                    .all(|p| p["description"].as_str().is_some_and(|d| !d.is_empty())),
                "{id}"
            );
        }
    }
}
