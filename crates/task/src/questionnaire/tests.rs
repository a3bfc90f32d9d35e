#![allow(clippy::unwrap_used)]
use super::*;
use serde_json::{Map, json};

fn verified() -> Questionnaire {
    Questionnaire::builtin("swe-bench-verified").unwrap()
}

fn full_answer() -> Map<String, Value> {
    let text = "x".repeat(120);
    json!({
        "underspecified": 1, "underspecified_notes": text,
        "false_negative": 0, "false_negative_notes": text,
        "difficulty": "15 min - 1 hour", "difficulty_notes": "small change",
        "other_major_issues": 0, "annotator_confidence": 4
    })
    .as_object()
    .unwrap()
    .clone()
}

#[test]
fn shipped_questionnaires_load() {
    let q = verified();
    let numbers: Vec<&str> = q.questions().map(|q| q.number.as_str()).collect();
    assert_eq!(
        numbers,
        [
            "1.1", "1.2", "2.1", "2.2", "3.1", "3.2", "3.3", "3.4", "3.5"
        ]
    );
    let ids: Vec<&str> = q.questions().map(|q| q.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "underspecified",
            "underspecified_notes",
            "false_negative",
            "false_negative_notes",
            "difficulty",
            "difficulty_notes",
            "other_major_issues",
            "other_notes",
            "annotator_confidence"
        ]
    );
    Questionnaire::builtin("determinacy").unwrap();
}

#[test]
fn a_complete_answer_passes() {
    assert_eq!(verified().validate(&full_answer(), Stage::Submit), vec![]);
}

#[test]
fn a_forty_character_justification_is_refused() {
    let mut answer = full_answer();
    answer.insert("underspecified_notes".into(), json!("y".repeat(40)));
    let problems = verified().validate(&answer, Stage::Submit);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].question, "underspecified_notes");
    assert_eq!(problems[0].rule, RuleKind::MinChars);
    assert!(
        problems[0].message.contains("at least 100"),
        "{}",
        problems[0].message
    );
}

#[test]
fn other_notes_are_required_when_other_issues_is_yes() {
    let mut answer = full_answer();
    answer.insert("other_major_issues".into(), json!(1));
    let problems = verified().validate(&answer, Stage::Submit);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].question, "other_notes");
    assert_eq!(problems[0].rule, RuleKind::Required);
}

#[test]
fn values_off_the_scale_are_refused_even_in_drafts() {
    let answer = json!({"underspecified": 4, "annotator_confidence": 0, "difficulty": "a week"});
    let problems = verified().validate(answer.as_object().unwrap(), Stage::Draft);
    let rules: Vec<(&str, &RuleKind)> = problems
        .iter()
        .map(|p| (p.question.as_str(), &p.rule))
        .collect();
    assert_eq!(
        rules,
        [
            ("underspecified", &RuleKind::OffScale),
            ("difficulty", &RuleKind::OffScale),
            ("annotator_confidence", &RuleKind::OffScale)
        ]
    );
}

#[test]
fn every_question_kind_refuses_every_wrong_json_type() {
    let verified = verified();
    let determinacy = Questionnaire::builtin("determinacy").unwrap();
    // (questionnaire, question, its kind) for every kind the shipped questionnaires use.
    let cases = [
        (&verified, "underspecified", QuestionKind::Scale),
        (&verified, "difficulty", QuestionKind::Choice),
        (&verified, "other_major_issues", QuestionKind::YesNo),
        (&verified, "underspecified_notes", QuestionKind::Text),
        (&determinacy, "verdict", QuestionKind::Choice),
        (&determinacy, "confidence", QuestionKind::Scale),
    ];
    for (q, id, kind) in cases {
        assert_eq!(q.question(id).unwrap().kind, kind);
        let wrong: Vec<Value> = match kind {
            QuestionKind::Text => vec![json!(2), json!(1.5), json!(true), json!([]), json!({})],
            _ => vec![
                json!(true),
                json!(false),
                json!(1.5),
                json!("two"),
                json!("1.5"),
                json!([1]),
                json!({"value": 1}),
                json!(-1),
                json!(99),
            ],
        };
        for value in wrong {
            let answer = json!({ id: value.clone() });
            for stage in [Stage::Draft, Stage::Submit] {
                let refused = q
                    .check_answer(answer.as_object().unwrap(), stage)
                    .unwrap_err();
                assert!(
                    refused.iter().any(|v| v.question == id
                        && matches!(v.rule, RuleKind::OffScale | RuleKind::WrongType)),
                    "{id} accepted {value} at {stage:?}: {refused:?}"
                );
            }
            assert_eq!(q.question(id).unwrap().decode(&value), Decoded::Wrong);
            let decoded = q.decode_answer(answer.as_object().unwrap());
            assert!(!decoded.contains_key(id), "{id}: {value} was decoded");
        }
    }
}

#[test]
fn values_are_stored_in_their_questions_canonical_type() {
    let answer = json!({
        "underspecified": "2", "false_negative": 1.0, "other_major_issues": " 1 ",
        "annotator_confidence": 4, "difficulty": "<15 min fix", "underspecified_notes": "n"
    });
    let stored = verified()
        .check_answer(answer.as_object().unwrap(), Stage::Draft)
        .unwrap();
    assert_eq!(
        Value::Object(stored),
        json!({
            "underspecified": 2, "false_negative": 1, "other_major_issues": 1,
            "annotator_confidence": 4, "difficulty": "<15 min fix", "underspecified_notes": "n"
        })
    );
    // What an older Verity stored as text reads back as the option it names.
    let decoded = verified().decode_answer(answer.as_object().unwrap());
    assert_eq!(decoded["underspecified"], json!(2));
    assert_eq!(decoded["other_major_issues"], json!(1));
}

/// Answers that exercise every rule of a questionnaire at submission: nothing, a complete
/// answer, and for each question each option, a value off the scale, the wrong JSON type,
/// a text too short, and each value of a condition that makes it required while it is blank.
fn rule_cases(q: &Questionnaire) -> Vec<Map<String, Value>> {
    let mut complete = Map::new();
    for question in q.questions() {
        let value = match question.kind {
            QuestionKind::Text => Value::from("w".repeat(question.min_chars.unwrap_or(1) as usize)),
            _ => question.options[0].value.clone(),
        };
        complete.insert(question.id.clone(), value);
    }
    let mut cases = vec![Map::new(), complete.clone()];
    // A note too long, once per questionnaire (its first text question): the limit is the same
    // for every note, and each case of it is 20,000 characters of the committed file.
    let first_text = q
        .questions()
        .find(|question| question.kind == QuestionKind::Text)
        .map(|question| question.id.clone());
    for question in q.questions() {
        let mut variants: Vec<Value> = question.options.iter().map(|o| o.value.clone()).collect();
        if first_text.as_deref() == Some(question.id.as_str()) {
            variants.push(Value::from("w".repeat(NOTE_MAX_CHARS + 1)));
        }
        variants.extend(match question.kind {
            QuestionKind::Text => vec![json!("short"), json!(7), json!(null), json!("   ")],
            QuestionKind::Choice => vec![json!("no such option"), json!(99), json!(true)],
            _ => vec![
                json!(99),
                json!(-1),
                json!(1.5),
                json!("two"),
                json!(false),
                json!([1]),
            ],
        });
        for value in variants {
            let mut answer = complete.clone();
            answer.insert(question.id.clone(), value);
            cases.push(answer);
        }
        if let Some(rule) = &question.required_if {
            for trigger in &rule.values {
                let mut answer = complete.clone();
                answer.insert(rule.question.clone(), trigger.clone());
                answer.remove(&question.id);
                cases.push(answer);
            }
        }
    }
    cases
}

/// The desktop app's form rules (`ui/src/lib/form/rules.ts`) are checked against Rust's: the
/// UI's unit test reads, from `ui/src/lib/api/bindings/rule-cases.json`, every shipped
/// questionnaire with the violations Rust finds at submission in each of its rule cases. This
/// test fails when the committed file is not what the Rust rules give; with
/// `VERITY_WRITE_RULE_CASES=1` it writes the file instead.
#[test]
fn the_ui_rule_cases_are_the_ones_the_rust_rules_give() {
    let mut out = Vec::new();
    for (id, _) in BUILTIN {
        let q = Questionnaire::builtin(id).unwrap();
        let cases: Vec<Value> = rule_cases(&q)
            .into_iter()
            .map(|values| {
                let violations = q.validate(&values, Stage::Submit);
                json!({ "values": values, "violations": violations })
            })
            .collect();
        out.push(json!({ "questionnaire": q, "cases": cases }));
    }
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/api/bindings/rule-cases.json");
    let text = serde_json::to_string_pretty(&out).unwrap() + "\n";
    if std::env::var_os("VERITY_WRITE_RULE_CASES").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{} is not what the Rust rules give; rewrite it with \
         `VERITY_WRITE_RULE_CASES=1 cargo test -p verity-task --lib rule_cases` and commit it",
        path.display()
    );
}

#[test]
fn drafts_need_nothing_yet() {
    assert_eq!(verified().validate(&Map::new(), Stage::Draft), vec![]);
    assert_eq!(verified().validate(&Map::new(), Stage::Submit).len(), 8);
}

#[test]
fn a_malformed_file_names_the_line() {
    let source = "id = \"x\"\nversion = \"1\"\ntitle = \"t\"\n[[sections]]\nid = 1\n";
    let err = Questionnaire::parse(source, Path::new("q.toml")).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with("questionnaire q.toml, line 5:"),
        "{message}"
    );
}

#[test]
fn a_duplicate_question_id_is_refused_with_its_line() {
    let source = r#"id = "x"
version = "1"
title = "t"
[[sections]]
id = "1"
title = "s"
[[sections.questions]]
id = "a"
number = "1"
kind = "text"
level = "nominal"
prompt = "p"
[[sections.questions]]
id = "a"
number = "2"
kind = "text"
level = "nominal"
prompt = "p"
"#;
    let err = Questionnaire::parse(source, Path::new("q.toml")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "questionnaire q.toml, line 14: question id \"a\" is used twice"
    );
}
