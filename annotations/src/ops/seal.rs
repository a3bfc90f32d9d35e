//! A rater's package proves whose it is: the project that makes a package gives it a secret of
//! its own (kept in the project under the package's id, and in that package alone), and the
//! package seals every answer event its rater saves with it: HMAC-SHA-256 over the event's
//! canonical encoding, in the terms the package and its project share (task ids, revision
//! numbers, the rater's name), never their row ids. A merge recomputes each new event's seal
//! with the secret the project kept and refuses the package when one is missing or differs
//! (`packages.rs`). What this does and does not prove is in `docs/packages.md`.

use hmac::{Hmac, KeyInit, Mac};
use rand::RngExt;
use serde_json::{Map, Value};
use sha256::Sha256;

use verity_store::EventKind;

/// The package setting holding its id, which the project's record of it shares.
pub(super) const PACKAGE_ID: &str = "package_id";
/// The package setting holding its secret. Only that package holds it.
pub(super) const PACKAGE_SECRET: &str = "package_secret";

/// What the seals of one package are made with: its id and its secret (hex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PackageSeal {
    /// The package's id.
    pub(super) package_id: String,
    /// Its secret, as hex; the key of its seals.
    pub(super) secret: String,
}

/// Whether an open project seals the answer events it saves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Sealing {
    /// It is not a rater's package: nothing is sealed.
    NotPackage,
    /// A rater's package: every event its rater saves is sealed with its secret.
    Package(PackageSeal),
    /// A package made before packages were sealed: what its rater saves could not be merged.
    Unsealed,
}

impl Sealing {
    /// How a project whose settings are read by `meta` seals: a package (it names its rater)
    /// holds its id and secret.
    pub(super) fn of(
        meta: impl Fn(&str) -> Result<Option<String>, verity_store::StoreError>,
    ) -> Result<Sealing, verity_store::StoreError> {
        if meta(verity_store::PACKAGE_RATER)?.is_none() {
            return Ok(Sealing::NotPackage);
        }
        Ok(match (meta(PACKAGE_ID)?, meta(PACKAGE_SECRET)?) {
            (Some(package_id), Some(secret)) => {
                Sealing::Package(PackageSeal { package_id, secret })
            }
            _ => Sealing::Unsealed,
        })
    }
}

/// An answer event in the terms a package and its project share: what a seal covers.
#[derive(Debug, Clone, Copy)]
pub(super) struct SealedEvent<'a> {
    /// The event's global id.
    pub(super) uid: &'a str,
    /// The rater's name.
    pub(super) rater: &'a str,
    /// The task's id.
    pub(super) instance_id: &'a str,
    /// The task revision's number the rater saw.
    pub(super) case_revision: i64,
    /// The questionnaire's id and version.
    pub(super) questionnaire: (&'a str, &'a str),
    /// A draft, a submission or a revision.
    pub(super) kind: EventKind,
    /// The answer's revision.
    pub(super) answer_revision: i64,
    /// The values.
    pub(super) answer: &'a Map<String, Value>,
    /// A revision's reason.
    pub(super) reason: Option<&'a str>,
    /// When it was saved.
    pub(super) at: &'a str,
}

impl PackageSeal {
    /// A new package's id (a UUID v7) and secret: 32 bytes from the operating system's
    /// generator, as hex.
    pub(super) fn new() -> PackageSeal {
        let bytes: [u8; 32] = rand::rng().random();
        PackageSeal {
            package_id: verity_store::new_event_uid(),
            secret: hex(&bytes),
        }
    }

    /// The seal of `event` in this package, as hex.
    pub(super) fn seal(&self, event: &SealedEvent<'_>) -> String {
        hex(&self.mac(event).finalize().into_bytes())
    }

    /// Whether `seal` is this package's seal of `event` (compared in constant time).
    pub(super) fn verifies(&self, event: &SealedEvent<'_>, seal: &str) -> bool {
        unhex(seal).is_some_and(|tag| self.mac(event).verify_slice(&tag).is_ok())
    }

    fn mac(&self, event: &SealedEvent<'_>) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(self.secret.as_bytes())
            .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
        mac.update(&canonical(&self.package_id, event));
        mac
    }
}

/// The bytes a seal covers: a JSON array, in a fixed order, of a version tag, the package's
/// id and every field of the event, the answer as its (question, value) pairs sorted by
/// question (JSON objects keep no order of their own).
fn canonical(package_id: &str, e: &SealedEvent<'_>) -> Vec<u8> {
    let mut answer: Vec<(&String, &Value)> = e.answer.iter().collect();
    answer.sort_by(|a, b| a.0.cmp(b.0));
    let answer: Vec<Value> = answer
        .into_iter()
        .map(|(question, value)| Value::from(vec![Value::from(question.as_str()), value.clone()]))
        .collect();
    Value::from(vec![
        Value::from("verity answer event seal 1"),
        Value::from(package_id),
        Value::from(e.uid),
        Value::from(e.rater),
        Value::from(e.instance_id),
        Value::from(e.case_revision),
        Value::from(e.questionnaire.0),
        Value::from(e.questionnaire.1),
        Value::from(e.kind.as_str()),
        Value::from(e.answer_revision),
        Value::from(answer),
        e.reason.map_or(Value::Null, Value::from),
        Value::from(e.at),
    ])
    .to_string()
    .into_bytes()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event<'a>(answer: &'a Map<String, Value>) -> SealedEvent<'a> {
        SealedEvent {
            uid: "01900000-0000-7000-8000-000000000001",
            rater: "ana",
            instance_id: "a__b-1",
            case_revision: 1,
            questionnaire: ("swe-bench-verified", "1.0.0"),
            kind: EventKind::Submit,
            answer_revision: 1,
            answer,
            reason: None,
            at: "2026-11-28T10:00:00Z",
        }
    }

    fn answer(pairs: &[(&str, Value)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn hmac_sha256_gives_rfc_4231s_test_vector() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?".
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(b"Jefe").unwrap_or_else(|_| {
            unreachable!("HMAC takes a key of any length");
        });
        mac.update(b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac.finalize().into_bytes()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_seal_holds_for_its_event_alone_and_in_its_package_alone() {
        let key = PackageSeal::new();
        let values = answer(&[("underspecified", Value::from(1)), ("notes", "x".into())]);
        let seal = key.seal(&event(&values));
        assert!(key.verifies(&event(&values), &seal));
        // The answer's keys in another order are the same answer.
        let reordered = answer(&[("notes", "x".into()), ("underspecified", Value::from(1))]);
        assert!(key.verifies(&event(&reordered), &seal));
        let changed = answer(&[("underspecified", Value::from(2)), ("notes", "x".into())]);
        assert!(!key.verifies(&event(&changed), &seal), "another value");
        let renamed = SealedEvent {
            rater: "ben",
            ..event(&values)
        };
        assert!(!key.verifies(&renamed, &seal), "another rater");
        let moved = SealedEvent {
            instance_id: "a__b-2",
            ..event(&values)
        };
        assert!(!key.verifies(&moved, &seal), "another task");
        let dated = SealedEvent {
            at: "2020-01-01T00:00:00Z",
            ..event(&values)
        };
        assert!(!key.verifies(&dated, &seal), "another time");
        let other = PackageSeal::new();
        assert_ne!(other.secret, key.secret, "each package has its own secret");
        assert!(!other.verifies(&event(&values), &seal), "another package");
        for bad in ["", "zz", &seal[..10], "0"] {
            assert!(!key.verifies(&event(&values), bad), "{bad:?} is no seal");
        }
    }
}
