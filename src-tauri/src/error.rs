//! The one error type that crosses IPC: `{code, message}`.

use annotations::ops::ErrorCode;
use serde::Serialize;

/// An error as the front end receives it. `code` is one of [`ErrorCode`]'s stable names, which
/// the UI's generated bindings list; `message` is a full sentence.
#[derive(Debug, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    /// A stable machine-readable code.
    pub code: ErrorCode,
    /// A sentence for the user.
    pub message: String,
}

impl CommandError {
    /// Builds an error with a code and a sentence.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> CommandError {
        CommandError {
            code,
            message: message.into(),
        }
    }
}

impl From<annotations::ops::Error> for CommandError {
    fn from(err: annotations::ops::Error) -> CommandError {
        tracing::warn!(code = ?err.code(), error = %err, "command failed");
        let message = sentence(&err.to_string());
        CommandError::new(err.code(), message)
    }
}

/// Library messages are lower-case clauses; the UI shows sentences.
fn sentence(text: &str) -> String {
    let mut chars = text.trim().chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return "Verity failed without a message; the log file has details.".into(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_errors_keep_their_code_and_become_sentences() {
        let err = CommandError::from(annotations::ops::Error::NotFound(
            "the project has no case \"x\"".into(),
        ));
        assert_eq!(err.code, ErrorCode::NotFound);
        assert_eq!(err.message, "The project has no case \"x\".");
        let json = serde_json::to_value(&err).expect("serializable");
        assert_eq!(json["code"], "not_found");
    }

    #[test]
    fn an_empty_message_still_says_something() {
        assert!(sentence("  ").contains("log file"));
    }
}
