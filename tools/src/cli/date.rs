//! Dates and time stamps in UTC, from the system clock (with `jiff`; no time-zone data needed).

use jiff::Timestamp;

/// Today as `YYYY-MM-DD` (UTC).
pub fn today() -> String {
    Timestamp::now().strftime("%Y-%m-%d").to_string()
}

/// Now as `YYYYMMDD-HHMMSS` (UTC), for folder names.
pub fn stamp() -> String {
    Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string()
}

/// Now as an RFC 3339 time stamp in UTC with whole seconds, like `2026-11-23T07:10:00Z`.
pub fn now_rfc3339() -> String {
    rfc3339(std::time::SystemTime::now())
}

/// `time` as an RFC 3339 time stamp in UTC with whole seconds (`None`-free: times before 1970
/// or beyond year 9999 are clamped by `jiff`'s range and written as its limits).
///
/// # Examples
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use tools::cli::date::rfc3339;
///
/// assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
/// assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(1_709_164_800)), "2024-02-29T00:00:00Z");
/// ```
pub fn rfc3339(time: std::time::SystemTime) -> String {
    let ts = Timestamp::try_from(time).unwrap_or(Timestamp::UNIX_EPOCH);
    let whole = Timestamp::from_second(ts.as_second()).unwrap_or(ts);
    whole.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(today().len(), 10);
        assert_eq!(stamp().len(), 15);
        let now = now_rfc3339();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.ends_with('Z') && now.starts_with(&today()), "{now}");
    }
}
