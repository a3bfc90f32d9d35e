//! Classification of a term by where it occurs.
//!
//! Precedence, first match wins:
//! 1. `stated`: the prose (issue, requirements, interface) contains it; the solver was told.
//! 2. `codebase`: a live path of the base commit contains it; the solver could find it.
//! 3. `gold-introduced`: the gold patch's added lines contain it and no path of the base commit
//!    does, not even a test: the tests depend on a name or message that only the gold patch
//!    brings, the most common cause of false negatives.
//! 4. `test-only`: everything else: only the test patch itself, or test, vendor, generated or
//!    docs paths of the base commit, have it.
//!
//! Matching in prose and gold: string literals match as substrings; identifiers and numbers
//! match as whole words (not preceded or followed by a letter, digit or `_`), so `10` is not
//! found in `2010`. In the repository every kind matches as a substring, exactly as
//! `git grep -F` does, so the receipts reproduce the paths.

use super::report::TermClass;
use super::terms::TermKind;
use super::text::contains_word;

/// The class of a term given where it occurs; see the module documentation for precedence.
pub fn classify_term(
    in_prose: bool,
    in_live_code: bool,
    in_gold: bool,
    in_non_live_paths: bool,
) -> TermClass {
    if in_prose {
        TermClass::Stated
    } else if in_live_code {
        TermClass::Codebase
    } else if in_gold && !in_non_live_paths {
        TermClass::GoldIntroduced
    } else {
        TermClass::TestOnly
    }
}

/// Whether `haystack` contains `term` under the matching rule for its kind.
pub(crate) fn text_contains(haystack: &str, term: &str, kind: TermKind) -> bool {
    if kind == TermKind::String {
        return !term.is_empty() && haystack.contains(term);
    }
    contains_word(haystack, term)
}

/// The added lines of a patch joined by newlines: what "the gold patch adds" means.
pub(crate) fn added_text(patch: &str) -> String {
    verity_task::patch::added_lines(patch)
        .iter()
        .map(|line| line.text)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_is_stated_then_codebase_then_gold_then_test() {
        assert_eq!(classify_term(true, true, true, true), TermClass::Stated);
        assert_eq!(classify_term(false, true, true, false), TermClass::Codebase);
        assert_eq!(
            classify_term(false, false, true, false),
            TermClass::GoldIntroduced
        );
        assert_eq!(
            classify_term(false, false, true, true),
            TermClass::TestOnly,
            "a term the base's tests already had is not introduced by gold"
        );
        assert_eq!(
            classify_term(false, false, false, false),
            TermClass::TestOnly
        );
    }

    #[test]
    fn identifiers_match_whole_words_strings_match_substrings() {
        assert!(!text_contains("released in 2010", "10", TermKind::Number));
        assert!(text_contains(
            "retries default to 10.",
            "10",
            TermKind::Number
        ));
        assert!(!text_contains(
            "call get_connection()",
            "connection",
            TermKind::Identifier
        ));
        assert!(text_contains(
            "use `get_connection`",
            "get_connection",
            TermKind::Identifier
        ));
        assert!(text_contains(
            "xx non-config yy",
            "non-config",
            TermKind::String
        ));
    }
}
