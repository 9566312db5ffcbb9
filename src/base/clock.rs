//! Wall-clock times as RFC 3339 text, for records, ledgers and manifests (below every
//! layer that writes one), through chrono (already in the tree for arrow).

use chrono::{DateTime, SecondsFormat, Utc};

/// Current UTC time as RFC 3339 (whole seconds): manifests, ledgers and file stamps.
pub fn now_rfc3339() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Current UTC time as RFC 3339 with milliseconds: when a sample finished, so that the
/// calls laid out before it (and Inspect's event times) fall within the second.
pub fn now_rfc3339_ms() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Formats UNIX seconds as `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn rfc3339(secs: u64) -> String {
    let secs = i64::try_from(secs).unwrap_or(i64::MAX);
    DateTime::<Utc>::from_timestamp(secs, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Formats milliseconds since 1970 as `YYYY-MM-DDTHH:MM:SS.mmm+00:00` (Inspect's form).
pub(crate) fn iso_ms(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms.max(0))
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Millis, false)
}

/// Milliseconds since 1970 of an RFC 3339 UTC time (`…Z` or `…+00:00`, optional
/// fraction); `None` for anything else (other offsets included: run files write UTC).
pub(crate) fn unix_ms(t: &str) -> Option<i64> {
    let t = t.trim();
    if !(t.ends_with('Z') || t.ends_with("+00:00")) {
        return None;
    }
    DateTime::parse_from_rfc3339(t)
        .ok()
        .map(|d| d.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_has_milliseconds_and_parses_back() {
        let t = now_rfc3339_ms();
        assert_eq!(t.len(), "2026-11-18T11:06:40.245Z".len(), "{t}");
        assert!(unix_ms(&t).is_some());
        let s = now_rfc3339();
        assert_eq!(s.len(), "2026-11-18T11:06:40Z".len(), "{s}");
    }
}
