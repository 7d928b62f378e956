//! Dates and time stamps in UTC, from the system clock (the C library's `gmtime_r`; no
//! time-zone data needed).

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds of 0000-01-01T00:00:00Z and of 9999-12-31T23:59:59Z: times outside are clamped,
/// so every stamp has a four-digit year.
const FIRST_SECOND: i64 = -62_167_219_200;
const LAST_SECOND: i64 = 253_402_300_799;

/// The calendar fields of `time` in UTC: (year, month 1..=12, day, hour, minute, second).
fn civil(time: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        // whole seconds, rounded down (toward the past) like the times after 1970
        Err(before) => {
            let d = before.duration();
            -i64::try_from(d.as_secs()).unwrap_or(i64::MAX) - i64::from(d.subsec_nanos() > 0)
        }
    };
    let seconds = seconds.clamp(FIRST_SECOND, LAST_SECOND) as libc::time_t;
    // SAFETY: `tm` is plain data that gmtime_r fills; both pointers are valid for the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let filled = unsafe { libc::gmtime_r(&seconds, &mut tm) };
    if filled.is_null() {
        return (1970, 1, 1, 0, 0, 0); // not reached: the range above is representable
    }
    let field = |v: libc::c_int| u32::try_from(v).unwrap_or(0);
    (
        i64::from(tm.tm_year) + 1900,
        field(tm.tm_mon) + 1,
        field(tm.tm_mday),
        field(tm.tm_hour),
        field(tm.tm_min),
        field(tm.tm_sec),
    )
}

/// Today as `YYYY-MM-DD` (UTC).
pub fn today() -> String {
    let (y, mo, d, ..) = civil(SystemTime::now());
    format!("{y:04}-{mo:02}-{d:02}")
}

/// Now as `YYYYMMDD-HHMMSS` (UTC), for folder names.
pub fn stamp() -> String {
    let (y, mo, d, h, mi, s) = civil(SystemTime::now());
    format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}")
}

/// Now as an RFC 3339 time stamp in UTC with whole seconds, like `2026-11-23T07:10:00Z`.
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// `time` as an RFC 3339 time stamp in UTC with whole seconds (rounded down); times before
/// year 0 or after 9999 are clamped to those years' first and last second.
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
pub fn rfc3339(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(time);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn formats() {
        assert_eq!(today().len(), 10);
        assert_eq!(stamp().len(), 15);
        let now = now_rfc3339();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.ends_with('Z') && now.starts_with(&today()), "{now}");
    }

    #[test]
    fn calendar_edges_before_and_after_1970() {
        let at = |s: i64| match u64::try_from(s) {
            Ok(after) => UNIX_EPOCH + Duration::from_secs(after),
            Err(_) => UNIX_EPOCH - Duration::from_secs(s.unsigned_abs()),
        };
        assert_eq!(rfc3339(at(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(at(4_107_542_399)), "2100-02-28T23:59:59Z");
        assert_eq!(rfc3339(at(-1)), "1969-12-31T23:59:59Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH - Duration::from_millis(1)),
            "1969-12-31T23:59:59Z"
        );
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_millis(1999)),
            "1970-01-01T00:00:01Z"
        );
        assert_eq!(rfc3339(at(FIRST_SECOND - 5)), "0000-01-01T00:00:00Z");
        assert_eq!(rfc3339(at(LAST_SECOND + 5)), "9999-12-31T23:59:59Z");
    }
}
