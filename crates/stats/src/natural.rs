//! Numbers in names, ids and counts as people read them: runs of digits compare by their
//! value, so `tinylib-2` sorts before `tinylib-10` and `rater 9` before `rater 10`, while the
//! digits of a hexadecimal id (a commit, `00c70ce…`) compare as text; counts are written with
//! their thousands separated (1,699).
//!
//! ```
//! use verity_stats::natural::natural_cmp;
//! let mut ids = vec!["tinylib-10", "tinylib-2", "tinylib-1"];
//! ids.sort_by(|a, b| natural_cmp(a, b));
//! assert_eq!(ids, ["tinylib-1", "tinylib-2", "tinylib-10"]);
//! ```

use std::cmp::Ordering;

/// Compares two strings naturally. Digit runs compare by value (leading zeros ignored, then
/// the shorter run first so the order is total) and before letters, as digits do; a digit of a
/// hexadecimal word (see [`in_hex_word`]) is a number of its own, so such words compare as
/// text. Everything else compares by character. Each string is split alike whatever it is
/// compared with, so the order is total; equal natural keys fall back to plain string order,
/// so only equal strings compare equal.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        match (x.chars().next(), y.chars().next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (run_x, rest_x) = number_at(a, x);
                let (run_y, rest_y) = number_at(b, y);
                let (vx, vy) = (run_x.trim_start_matches('0'), run_y.trim_start_matches('0'));
                let order = vx
                    .len()
                    .cmp(&vy.len())
                    .then_with(|| vx.cmp(vy))
                    .then_with(|| run_x.len().cmp(&run_y.len()));
                if order != Ordering::Equal {
                    return order;
                }
                (x, y) = (rest_x, rest_y);
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(&d);
                }
                (x, y) = (&x[c.len_utf8()..], &y[d.len_utf8()..]);
            }
        }
    }
}

/// The number at the start of `rest`, the tail of `whole`, and what follows it: its run of
/// digits, or its one digit inside a hexadecimal word.
fn number_at<'a>(whole: &str, rest: &'a str) -> (&'a str, &'a str) {
    if in_hex_word(whole, whole.len() - rest.len()) {
        rest.split_at(1)
    } else {
        split_digits(rest)
    }
}

/// A count and its noun, singular for one and plural otherwise: `1 task`, `2 tasks`, `0 tasks`.
/// The plural adds `s`, as every noun Verity counts takes it.
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A count with thousands separated by commas, as people write it (1,699).
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The shortest hexadecimal word: git's default abbreviation of a commit.
const HEX_WORD: usize = 7;

/// Whether the byte at `at` lies in a hexadecimal word: a run of at least [`HEX_WORD`] hex
/// digits with a letter among them (a commit id, whole or abbreviated), which is text, not a
/// number.
fn in_hex_word(s: &str, at: usize) -> bool {
    let bytes = s.as_bytes();
    let start = bytes[..at]
        .iter()
        .rposition(|b| !b.is_ascii_hexdigit())
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|b| !b.is_ascii_hexdigit())
        .map_or(bytes.len(), |i| at + i);
    let word = &bytes[start..end];
    word.len() >= HEX_WORD && word.iter().any(u8::is_ascii_alphabetic)
}

fn split_digits(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_runs_compare_by_value() {
        let mut names = vec![
            "rater 10", "rater 2", "rater 1", "alice", "rater 02", "b10c", "b9c", "b9", "",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "", "alice", "b9", "b9c", "b10c", "rater 1", "rater 2", "rater 02", "rater 10"
            ]
        );
    }

    #[test]
    fn hexadecimal_ids_compare_as_text() {
        let mut ids = vec![
            "NodeBB-0c81642997ea1d827dbd02c311db9d4976112cd4-vf2cf3cb",
            "NodeBB-00c70ce7b0541cfc94afe567921d7668cdc8f4ac-vnan",
            "NodeBB-0e07f3c9bace416cbab078a30eae972868c0a8a3-vf2cf3cb",
            "teleport-10",
            "teleport-9",
            "calc-1000",
            "calc-999",
        ];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            ids,
            [
                "NodeBB-00c70ce7b0541cfc94afe567921d7668cdc8f4ac-vnan",
                "NodeBB-0c81642997ea1d827dbd02c311db9d4976112cd4-vf2cf3cb",
                "NodeBB-0e07f3c9bace416cbab078a30eae972868c0a8a3-vf2cf3cb",
                "calc-999",
                "calc-1000",
                "teleport-9",
                "teleport-10",
            ]
        );
        // Short hex-looking runs and words of digits alone stay numbers.
        assert_eq!(natural_cmp("b9c", "b10c"), Ordering::Less);
        assert_eq!(natural_cmp("run-20240101", "run-9"), Ordering::Greater);
    }

    #[test]
    fn the_order_is_total_over_hexadecimal_words_and_numbers() {
        let names = [
            "x-1234567a",
            "x-99",
            "x-1000",
            "x-1",
            "x-0abcdef0",
            "x-00abcdef",
            "x-a",
            "x-",
            "x-9999999",
            "x-123abcd",
            "x-12",
            "x-0",
        ];
        for a in names {
            for b in names {
                assert_eq!(natural_cmp(a, b), natural_cmp(b, a).reverse(), "{a} {b}");
                for c in names {
                    if natural_cmp(a, b).is_le() && natural_cmp(b, c).is_le() {
                        assert!(natural_cmp(a, c).is_le(), "{a} <= {b} <= {c}");
                    }
                }
            }
        }
    }

    #[test]
    fn only_equal_strings_compare_equal() {
        assert_eq!(natural_cmp("x-1", "x-1"), Ordering::Equal);
        assert_ne!(natural_cmp("x-01", "x-1"), Ordering::Equal);
        assert_eq!(natural_cmp("ü2", "ü10"), Ordering::Less);
    }

    #[test]
    fn counts_have_their_thousands_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_699), "1,699");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
