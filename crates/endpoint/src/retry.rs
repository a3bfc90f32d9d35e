//! When to try a request again: exponential backoff with full jitter, and the server's own
//! `Retry-After`.

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc2822;

/// How transient faults are retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    /// Requests sent at most for one reply, the first included.
    pub max_attempts: u32,
    /// The first retry's ceiling; each retry doubles it.
    pub base: Duration,
    /// No wait is longer than this, whatever the attempt.
    pub cap: Duration,
    /// A `Retry-After` longer than this is not waited for: the request fails instead.
    pub max_retry_after: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            max_attempts: 6,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl Backoff {
    /// The wait before retry number `retry` (1 for the first) of the request whose hash is
    /// `key`: uniform in `[0, min(cap, base × 2^(retry-1))]` ("full jitter"), so that many
    /// requests refused at once do not come back at once. The draw is taken from the key and the
    /// retry number, so a run is reproducible and two requests still spread apart.
    pub fn delay(&self, retry: u32, key: &str) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16))
            .min(self.cap);
        let digest = Sha256::new()
            .chain_update(key.as_bytes())
            .chain_update(retry.to_le_bytes())
            .finalize();
        let mut word = [0u8; 8];
        word.copy_from_slice(&digest[..8]);
        let unit = (u64::from_le_bytes(word) >> 11) as f64 / (1u64 << 53) as f64;
        ceiling.mul_f64(unit)
    }
}

/// The wait a `Retry-After` header asks for at `now`: seconds, or an HTTP date (a date passed
/// is no wait).
pub fn retry_after(headers: &HeaderMap, now: OffsetDateTime) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>()
        && seconds.is_finite()
        && seconds >= 0.0
    {
        return Some(Duration::from_secs_f64(seconds));
    }
    let at = OffsetDateTime::parse(value, &Rfc2822).ok()?;
    Some(Duration::try_from(at - now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn delays_stay_under_a_doubling_ceiling_and_the_cap() {
        let b = Backoff::default();
        for retry in 1..=10 {
            let ceiling = (b.base * (1 << (retry - 1))).min(b.cap);
            let d = b.delay(retry, "k");
            assert!(d <= ceiling, "retry {retry}: {d:?} > {ceiling:?}");
        }
        assert_eq!(b.delay(3, "k"), b.delay(3, "k"));
        let spread: std::collections::BTreeSet<_> = (0..20)
            .map(|i| b.delay(4, &format!("request {i}")))
            .collect();
        assert!(spread.len() > 15, "jitter spreads requests: {spread:?}");
    }

    #[test]
    fn retry_after_is_read_as_seconds_or_a_date() {
        let now = datetime!(2026-11-26 12:00:00 UTC);
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers, now), None);
        headers.insert(RETRY_AFTER, "7".parse().expect("a header value"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(7)));
        headers.insert(RETRY_AFTER, "0.25".parse().expect("a header value"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_millis(250)));
        let date = "Thu, 26 Nov 2026 12:00:09 GMT";
        headers.insert(RETRY_AFTER, date.parse().expect("a header value"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(9)));
        let past = "Thu, 26 Nov 2026 11:00:00 GMT";
        headers.insert(RETRY_AFTER, past.parse().expect("a header value"));
        assert_eq!(retry_after(&headers, now), Some(Duration::ZERO));
        headers.insert(RETRY_AFTER, "soon".parse().expect("a header value"));
        assert_eq!(retry_after(&headers, now), None);
    }
}
