//! Time as whole nanoseconds: `Nanos`, a duration in 8 bytes, and
//! `duration_nanos`, without the trip through `u128`. A leaf, so that the
//! clocks, the limiters and the report can all count in it.

use std::time::Duration;

/// A duration stored in 8 bytes (nanoseconds, saturating at 584 years), to
/// keep attempt records small: they are moved with every outcome.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Nanos(u64);

impl std::fmt::Debug for Nanos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.get_optional() {
            Some(duration) => duration.fmt(f),
            None => f.write_str("none"),
        }
    }
}

impl Nanos {
    /// Marks "no value" where a field is optional.
    pub(crate) const NONE: Nanos = Nanos(u64::MAX);
    pub(crate) const ZERO: Nanos = Nanos(0);

    /// `nanos`, kept one below the `NONE` marker.
    #[inline]
    pub(crate) const fn from_u64(nanos: u64) -> Nanos {
        Nanos(if nanos == u64::MAX {
            u64::MAX - 1
        } else {
            nanos
        })
    }

    #[inline]
    pub(crate) const fn from_duration(duration: Duration) -> Nanos {
        Nanos::from_u64(duration_nanos(duration))
    }

    #[inline]
    pub(crate) const fn optional(duration: Option<Duration>) -> Nanos {
        match duration {
            Some(duration) => Nanos::from_duration(duration),
            None => Nanos::NONE,
        }
    }

    #[inline]
    pub(crate) const fn get(self) -> Duration {
        Duration::from_nanos(self.0)
    }

    #[inline]
    pub(crate) const fn as_u64(self) -> u64 {
        self.0
    }

    pub(crate) fn get_optional(self) -> Option<Duration> {
        (self.0 != u64::MAX).then(|| self.get())
    }
}

/// A duration as whole nanoseconds, saturating at `u64::MAX`, without the
/// trip through `u128` that `Duration::as_nanos` takes.
#[inline]
pub(crate) const fn duration_nanos(duration: Duration) -> u64 {
    match duration.as_secs().checked_mul(1_000_000_000) {
        Some(whole) => whole.saturating_add(duration.subsec_nanos() as u64),
        None => u64::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanos_convert_without_overflow() {
        assert_eq!(duration_nanos(Duration::MAX), u64::MAX);
        assert_eq!(duration_nanos(Duration::new(3, 7)), 3_000_000_007);
        assert_eq!(
            duration_nanos(Duration::from_nanos(u64::MAX)),
            u64::MAX,
            "the largest exact value"
        );
    }
}
