//! [`RateLimiter`]: the generic cell rate algorithm (GCRA), as governor
//! runs it, on one atomic: the theoretical arrival time of the next cell.

use std::time::{Duration, Instant};

use super::atomic::{AtomicU64, Ordering, const_unless_loom};
use super::{Completion, LimitExceeded, Limiter};
use crate::clock::nanos_since_epoch;

const NANOS_PER_SECOND: u64 = 1_000_000_000;

/// `n` attempts a second or a minute, with bursts of up to `burst`
/// (by default `n`): the generic cell rate algorithm, with governor's
/// semantics. A cell is spent when an attempt starts; it is never given
/// back.
///
/// Every constructor is a `const fn`:
///
/// ```
/// use resilient::limit::RateLimiter;
/// use std::time::{Duration, Instant};
///
/// // A provider's quota: 60 requests a minute, at most 5 at once.
/// static PROVIDER: RateLimiter = RateLimiter::per_minute(60).burst(5).named("provider");
///
/// let start = Instant::now();
/// for _ in 0..5 {
///     assert_eq!(PROVIDER.check_at(start), Ok(()));
/// }
/// // The burst is spent: the next cell frees in a second.
/// assert_eq!(PROVIDER.check_at(start), Err(Duration::from_secs(1)));
/// assert_eq!(PROVIDER.check_at(start + Duration::from_secs(1)), Ok(()));
/// ```
///
/// A rate or a burst of 0 admits nothing.
///
/// With the feature `config`, an installed `[limits.NAME]` sets the
/// `rate`, the period it is counted over (`per`) and the `burst` of the
/// limiter of that name from its next check; the arrival time it has
/// reached survives the reload, so the cells taken before it still count.
///
/// ```
/// # #[cfg(feature = "config")] {
/// use resilient::config;
/// use resilient::limit::RateLimiter;
/// use std::time::{Duration, Instant};
///
/// static EXPORT: RateLimiter = RateLimiter::per_second(1).named("rate_doc_export");
///
/// let now = Instant::now();
/// assert_eq!(EXPORT.check_at(now), Ok(()));
/// assert!(EXPORT.check_at(now).is_err());
/// config::install_toml("[limits.rate_doc_export]\nrate = 10\nburst = 2\n")?;
/// // The cell taken still holds the arrival time a second on; cells of a
/// // tenth of a second, two at once, conform from 100 ms before it.
/// assert_eq!(EXPORT.check_at(now), Err(Duration::from_millis(900)));
/// let later = now + Duration::from_millis(900);
/// assert_eq!(EXPORT.check_at(later), Ok(()));
/// assert_eq!(EXPORT.check_at(later), Err(Duration::from_millis(100)));
/// config::clear();
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct RateLimiter {
    /// The theoretical arrival time of the next cell, on the process's
    /// nanosecond timeline (`nanos_since_epoch`); 0 before the first cell.
    tat: AtomicU64,
    /// Nanoseconds one cell weighs: the period divided by the rate.
    per_cell: u64,
    burst: u32,
    /// How far ahead of now the arrival time may run: `per_cell` times
    /// `burst - 1`, worked out when the limiter is made rather than on
    /// every check.
    tolerance: u64,
    /// The rate and the period (in nanoseconds) it was built with, which
    /// an entry that sets only one of them keeps.
    #[cfg(feature = "config")]
    rate: u32,
    #[cfg(feature = "config")]
    period: u64,
    name: &'static str,
    /// Its entry in the installed configuration (`[limits.NAME]`).
    #[cfg(feature = "config")]
    configured: crate::config::RateCache,
}

impl RateLimiter {
    const_unless_loom! {
        /// `n` cells a second, in bursts of up to `n`.
        ///
        /// ```
        /// use resilient::limit::RateLimiter;
        ///
        /// static API: RateLimiter = RateLimiter::per_second(10);
        /// # let _ = &API;
        /// ```
        pub fn per_second(n: u32) -> RateLimiter {
            RateLimiter::every(NANOS_PER_SECOND, n)
        }
    }

    const_unless_loom! {
        /// `n` cells a minute, in bursts of up to `n`.
        ///
        /// ```
        /// use resilient::limit::RateLimiter;
        ///
        /// static LLM: RateLimiter = RateLimiter::per_minute(60);
        /// # let _ = &LLM;
        /// ```
        pub fn per_minute(n: u32) -> RateLimiter {
            RateLimiter::every(60 * NANOS_PER_SECOND, n)
        }
    }

    const_unless_loom! {
        fn every(period: u64, n: u32) -> RateLimiter {
            let (per_cell, burst, tolerance) = cell_of(n, period, n);
            RateLimiter {
                tat: AtomicU64::new(0),
                per_cell,
                burst,
                tolerance,
                #[cfg(feature = "config")]
                rate: n,
                #[cfg(feature = "config")]
                period,
                name: "rate_limiter",
                #[cfg(feature = "config")]
                configured: crate::config::RateCache::new(),
            }
        }
    }

    /// At most `burst` cells at once, after an idle spell; the rate is
    /// unchanged.
    ///
    /// ```
    /// use resilient::limit::RateLimiter;
    /// use std::time::Instant;
    ///
    /// let smooth = RateLimiter::per_second(10).burst(1);
    /// let now = Instant::now();
    /// assert!(smooth.check_at(now).is_ok());
    /// assert!(smooth.check_at(now).is_err());
    /// ```
    pub const fn burst(mut self, burst: u32) -> RateLimiter {
        self.burst = burst;
        self.tolerance = tolerance(self.per_cell, burst);
        self
    }

    /// The same limiter under another name, for [`LimitExceeded`], the
    /// metrics, and an installed configuration's `[limits.NAME]` (feature
    /// `config`).
    ///
    /// ```
    /// use resilient::limit::{Limiter, RateLimiter};
    ///
    /// assert_eq!(RateLimiter::per_second(1).named("search").name(), "search");
    /// ```
    pub const fn named(mut self, name: &'static str) -> RateLimiter {
        self.name = name;
        self
    }

    /// Nanoseconds one cell weighs (0: admits nothing), and the burst.
    #[cfg(feature = "redis")]
    pub(crate) const fn cell(&self) -> (u64, u32) {
        (self.per_cell, self.burst)
    }

    /// Takes a cell at `now`, or returns how long until one frees.
    ///
    /// A limiter that admits nothing (a rate or a burst of 0) returns
    /// `Duration::MAX`.
    ///
    /// ```
    /// use resilient::limit::RateLimiter;
    /// use std::time::{Duration, Instant};
    ///
    /// let limiter = RateLimiter::per_second(2);
    /// let start = Instant::now();
    /// assert_eq!(limiter.check_at(start), Ok(()));
    /// assert_eq!(limiter.check_at(start), Ok(()));
    /// assert_eq!(limiter.check_at(start), Err(Duration::from_millis(500)));
    /// ```
    pub fn check_at(&self, now: Instant) -> Result<(), Duration> {
        let (per_cell, burst, tolerance) = self.cell_in_force();
        if per_cell == 0 || burst == 0 {
            return Err(Duration::MAX);
        }
        let now = nanos_since_epoch(now);
        let mut tat = self.tat.load(Ordering::Acquire);
        loop {
            let earliest = tat.saturating_sub(tolerance);
            if now < earliest {
                return Err(Duration::from_nanos(earliest - now));
            }
            let next = tat.max(now).saturating_add(per_cell);
            match self
                .tat
                .compare_exchange_weak(tat, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Ok(()),
                Err(seen) => tat = seen,
            }
        }
    }
}

impl RateLimiter {
    /// The cell's weight, the burst and the tolerance in force: the
    /// builder's, or the installed configuration's for its name.
    #[inline(always)]
    fn cell_in_force(&self) -> (u64, u32, u64) {
        #[cfg(feature = "config")]
        if let Some(cell) = self.configured.cell(
            self.name,
            crate::config::BuiltRate {
                rate: self.rate,
                period: self.period,
                burst: self.burst,
            },
            cell_of,
        ) {
            return cell;
        }
        (self.per_cell, self.burst, self.tolerance)
    }
}

/// The cell of `rate` cells per `period` nanoseconds in bursts of
/// `burst`: its weight, the burst and the tolerance. Governor weighs a
/// cell at least a nanosecond; a weight of 0 marks a limiter that admits
/// nothing.
const fn cell_of(rate: u32, period: u64, burst: u32) -> (u64, u32, u64) {
    let per_cell = if rate == 0 {
        0
    } else if period / rate as u64 == 0 {
        1
    } else {
        period / rate as u64
    };
    (per_cell, burst, tolerance(per_cell, burst))
}

/// `per_cell` times `burst - 1`, saturating; 0 for a burst of 0, which
/// admits nothing anyway.
const fn tolerance(per_cell: u64, burst: u32) -> u64 {
    per_cell.saturating_mul(burst.saturating_sub(1) as u64)
}

impl Limiter for RateLimiter {
    #[inline]
    fn try_acquire(&self, now: Instant) -> Result<(), LimitExceeded> {
        self.check_at(now).map_err(|wait| {
            let after = (wait != Duration::MAX).then_some(wait);
            LimitExceeded::new(self.name, after)
        })
    }

    /// Nothing to return: the cell was spent when the attempt started.
    #[inline]
    fn release(&self, _now: Instant, _rtt: Duration, _completion: Completion) {}

    fn name(&self) -> &'static str {
        self.name
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_limiter_is_named_rate_limiter_unless_named() {
        assert_eq!(RateLimiter::per_second(1).name(), "rate_limiter");
        assert_eq!(RateLimiter::per_second(1).named("search").name(), "search");
    }

    /// The cell a Redis limiter shares: nanoseconds per cell, and burst.
    #[cfg(feature = "redis")]
    #[test]
    fn the_cell_shared_through_redis_is_the_rate_and_the_burst() {
        assert_eq!(RateLimiter::per_second(4).burst(3).cell(), (250_000_000, 3));
    }

    /// governor `tests/direct.rs`, `rejects_too_many`: at 2/s, two cells,
    /// a refusal, and two more a second later.
    #[test]
    fn governor_rejects_too_many() {
        let limiter = RateLimiter::per_second(2);
        let mut now = Instant::now();
        assert_eq!(limiter.check_at(now), Ok(()));
        now += MS;
        assert_eq!(limiter.check_at(now), Ok(()));
        now += MS;
        // The next cell conforms 500 ms after the first one.
        assert_eq!(limiter.check_at(now), Err(MS * 498));

        now += MS * 1000;
        assert_eq!(limiter.check_at(now), Ok(()));
        now += MS;
        assert_eq!(limiter.check_at(now), Ok(()));
        now += MS;
        assert!(limiter.check_at(now).is_err());
    }

    /// governor `tests/direct.rs`, `accepts_first_cell`.
    #[test]
    fn governor_accepts_first_cell() {
        assert_eq!(RateLimiter::per_second(5).check_at(Instant::now()), Ok(()));
    }

    /// governor `tests/direct.rs`, `correct_wait_time`: at 5/s, sleeping
    /// the wait it returns always makes the next check conform.
    #[test]
    fn governor_correct_wait_time() {
        let limiter = RateLimiter::per_second(5);
        let mut now = Instant::now();
        let mut conforming = 0;
        for _ in 0..20 {
            now += MS;
            if let Err(wait) = limiter.check_at(now) {
                now += wait;
                assert_eq!(limiter.check_at(now), Ok(()));
            }
            conforming += 1;
        }
        assert_eq!(conforming, 20);
    }

    /// governor `tests/direct.rs`: at 5/s the burst is 5; after 2 s idle,
    /// exactly 5 again, never more.
    #[test]
    fn governor_burst_refills_to_exactly_the_quota() {
        let limiter = RateLimiter::per_second(5);
        let mut now = Instant::now();
        let admitted = (0..15).filter(|_| limiter.check_at(now).is_ok()).count();
        assert_eq!(admitted, 5);
        now += Duration::from_secs(2);
        let admitted = (0..15).filter(|_| limiter.check_at(now).is_ok()).count();
        assert_eq!(admitted, 5);
    }

    /// governor `tests/direct.rs`, `actual_threadsafety`: 20 threads take
    /// the 20 cells of a 20/s limiter at once; 2 ms later none is left, a
    /// second later one is.
    #[test]
    fn governor_actual_threadsafety() {
        let limiter = RateLimiter::per_second(20);
        let start = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..20 {
                scope.spawn(|| assert_eq!(limiter.check_at(start), Ok(())));
            }
        });
        assert!(limiter.check_at(start + MS * 2).is_err());
        assert_eq!(limiter.check_at(start + MS * 1000), Ok(()));
    }

    #[test]
    fn per_minute_spaces_cells_a_second_apart_after_the_burst() {
        let limiter = RateLimiter::per_minute(60).burst(1);
        let start = Instant::now();
        assert_eq!(limiter.check_at(start), Ok(()));
        assert_eq!(limiter.check_at(start), Err(Duration::from_secs(1)));
        assert_eq!(
            limiter.check_at(start + MS * 999),
            Err(MS),
            "the wait shrinks as time passes"
        );
        assert_eq!(limiter.check_at(start + Duration::from_secs(1)), Ok(()));
    }

    #[test]
    fn zero_rate_or_burst_admits_nothing_and_names_no_time() {
        let now = Instant::now();
        for limiter in [
            RateLimiter::per_second(0),
            RateLimiter::per_second(5).burst(0),
        ] {
            assert_eq!(limiter.check_at(now), Err(Duration::MAX));
            assert_eq!(
                limiter.try_acquire(now),
                Err(LimitExceeded::new("rate_limiter", None))
            );
        }
    }

    #[test]
    fn refusal_says_when_to_come_back() {
        let limiter = RateLimiter::per_second(4).burst(1).named("api");
        let now = Instant::now();
        limiter.try_acquire(now).unwrap();
        assert_eq!(
            limiter.try_acquire(now),
            Err(LimitExceeded::new("api", Some(MS * 250)))
        );
    }

    #[test]
    fn huge_rates_and_bursts_do_not_overflow() {
        let now = Instant::now();
        let limiter = RateLimiter::per_second(u32::MAX).burst(u32::MAX);
        assert_eq!(limiter.check_at(now), Ok(()));
        let slow = RateLimiter::per_minute(1).burst(u32::MAX);
        for _ in 0..1000 {
            assert_eq!(slow.check_at(now), Ok(()));
        }
    }

    /// Eight threads take cells of one 1000/s limiter (burst 100) at one
    /// frozen instant: exactly the burst conforms, however they interleave.
    #[test]
    fn hammer_admits_exactly_the_burst_at_one_instant() {
        use std::sync::atomic::AtomicU32 as Count;
        let limiter = RateLimiter::per_second(1000).burst(100);
        let admitted = Count::new(0);
        let now = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..1000 {
                        if limiter.check_at(now).is_ok() {
                            admitted.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(admitted.load(Ordering::Relaxed), 100);
        assert_eq!(limiter.check_at(now + Duration::from_millis(1)), Ok(()));
    }
}
