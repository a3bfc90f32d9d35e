//! SWE-bench Pro: the SWE-bench fields plus `requirements` and `interface`, lower-case
//! `fail_to_pass`/`pass_to_pass`. Some text fields are stored JSON-encoded: the value itself
//! is a quoted JSON string with `\n` escapes. Those are decoded; the others are left alone.
//! [`super::swebench::record_from_row`] reads the rows, with [`super::swebench::Family::Pro`].

/// Decodes a text stored JSON-encoded (starting and ending with a double quote and parsing as
/// a JSON string); returns any other text unchanged.
pub fn decode_text(text: String) -> String {
    let trimmed = text.trim();
    if trimmed.len() >= 2
        && trimmed.starts_with('"')
        && trimmed.ends_with('"')
        && let Ok(decoded) = serde_json::from_str::<String>(trimmed)
    {
        return decoded;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_encoded_text_is_decoded_and_plain_text_left_alone() {
        assert_eq!(decode_text("\"a\\nb\"".into()), "a\nb");
        assert_eq!(
            decode_text("plain \"quoted\" text".into()),
            "plain \"quoted\" text"
        );
        assert_eq!(decode_text("\"unbalanced".into()), "\"unbalanced");
        assert_eq!(
            decode_text("\"starts\" and ends \"".into()),
            "\"starts\" and ends \"",
            "a quote at each end that is not one JSON string is plain text"
        );
    }
}
