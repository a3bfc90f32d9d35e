//! Numbers in names, ids and counts as people read them: runs of digits compare by their
//! value, so `tinylib-2` sorts before `tinylib-10` and `rater 9` before `rater 10`, and counts
//! are written with their thousands separated (1,699).
//!
//! ```
//! use verity_stats::natural::natural_cmp;
//! let mut ids = vec!["tinylib-10", "tinylib-2", "tinylib-1"];
//! ids.sort_by(|a, b| natural_cmp(a, b));
//! assert_eq!(ids, ["tinylib-1", "tinylib-2", "tinylib-10"]);
//! ```

use std::cmp::Ordering;

/// Compares two strings naturally. Digit runs compare by value (leading zeros ignored, then
/// the shorter run first so the order is total); everything else compares by character. Equal
/// natural keys fall back to plain string order, so only equal strings compare equal.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        match (x.chars().next(), y.chars().next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (run_x, rest_x) = split_digits(x);
                let (run_y, rest_y) = split_digits(y);
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
