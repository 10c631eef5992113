//! Time sources. The engine reads time and sleeps only through [`Clock`], so
//! tests drive time instead of spending it.
//!
//! The engine keeps its timeline in nanoseconds ([`Clock::now_nanos`]): one
//! subtraction per reading, instead of `Instant` arithmetic and `Duration`
//! conversions on every call.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::time::duration_nanos;

/// A source of time and of sleeps, for blocking and for async code.
///
/// Implementations must be monotonic: `now()` never goes backwards.
///
/// ```
/// use resilient::Clock;
/// use std::future::Future;
/// use std::time::{Duration, Instant};
///
/// /// A clock that logs every sleep before taking it.
/// struct Logged;
///
/// impl Clock for Logged {
///     fn now(&self) -> Instant {
///         Instant::now()
///     }
///     fn sleep(&self, duration: Duration) {
///         println!("sleeping {duration:?}");
///         std::thread::sleep(duration);
///     }
///     fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
///         println!("waiting {duration:?}");
///         tokio::time::sleep(duration)
///     }
/// }
///
/// let start = Logged.now_nanos();
/// assert!(Logged.now_nanos() >= start);
/// ```
pub trait Clock: Send + Sync {
    /// Whether [`mark`](Clock::mark) and [`nanos_since`](Clock::nanos_since)
    /// read anything: `false` only for [`Untimed`], whose readings are all
    /// 0. The engine's fast path takes it into account to write an attempt's
    /// result at least cost.
    ///
    /// ```
    /// use resilient::{Clock, SystemClock, Untimed};
    ///
    /// assert!(SystemClock::MEASURES);
    /// assert!(!Untimed::<SystemClock>::MEASURES);
    /// ```
    const MEASURES: bool = true;

    /// The current instant.
    fn now(&self) -> Instant;

    /// The current instant as nanoseconds on this clock's own timeline;
    /// only differences between two readings of one clock mean anything.
    ///
    /// The default counts from the first reading of any clock in the
    /// process, from [`now`](Clock::now); a clock that can read nanoseconds
    /// directly overrides it.
    #[inline]
    fn now_nanos(&self) -> u64 {
        nanos_since_epoch(self.now())
    }

    /// A reading to measure an interval from, as cheaply as this clock
    /// reads: see [`nanos_since`](Clock::nanos_since). The default keeps
    /// [`now_nanos`](Clock::now_nanos); a clock whose nanoseconds cost more
    /// than its `Instant`s (tokio's) keeps an `Instant`.
    #[inline]
    fn mark(&self) -> Mark {
        Mark::nanos(self.now_nanos())
    }

    /// Nanoseconds from `mark`, a reading of this clock, to now: one reading
    /// and one subtraction.
    ///
    /// ```
    /// use resilient::{Clock, FakeClock};
    /// use std::time::Duration;
    ///
    /// let clock = FakeClock::new();
    /// let mark = clock.mark();
    /// clock.advance(Duration::from_millis(250));
    /// assert_eq!(clock.nanos_since(mark), 250_000_000);
    /// ```
    #[inline]
    fn nanos_since(&self, mark: Mark) -> u64 {
        match mark {
            Mark(Reading::Nanos(then)) => self.now_nanos().saturating_sub(then),
            Mark(Reading::Instant(then)) => {
                duration_nanos(self.now().saturating_duration_since(then))
            }
            Mark(Reading::None) => 0,
        }
    }

    /// Blocks the current thread for `duration`.
    fn sleep(&self, duration: Duration);

    /// Waits for `duration` without blocking the thread.
    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send;

    /// A timer racing an async attempt: ready once `duration` has passed on
    /// this clock. Unlike a sleep it is not a wait the engine chose, so a
    /// virtual clock doesn't move time forward for it; by default it is
    /// [`sleep_async`](Clock::sleep_async).
    fn deadline_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        self.sleep_async(duration)
    }

    /// How a deadline measured from one of this clock's marks is read
    /// where the clock itself can't be borrowed: by the calls made inside
    /// an attempt (`resilient::deadline`). The default reads the system's
    /// monotonic clock, as [`SystemClock`]'s marks do.
    #[doc(hidden)]
    fn timeline(&self) -> Timeline {
        Timeline::System
    }
}

/// A reading of a clock, to measure an interval from with
/// [`Clock::nanos_since`]; made by [`Clock::mark`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark(Reading);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Nanos(u64),
    Instant(Instant),
    /// No reading: a mark not taken yet (see [`Mark::NONE`]).
    None,
}

impl Mark {
    /// No reading yet: what a first attempt's guard holds until the attempt
    /// begins, and again once it ended. In the niche of a mark's readings,
    /// so it costs no byte.
    pub(crate) const NONE: Mark = Mark(Reading::None);

    /// A reading of [`Clock::now_nanos`].
    #[inline]
    pub const fn nanos(nanos: u64) -> Mark {
        Mark(Reading::Nanos(nanos))
    }

    /// A reading of [`Clock::now`].
    #[inline]
    pub const fn instant(instant: Instant) -> Mark {
        Mark(Reading::Instant(instant))
    }

    /// Nanoseconds from this mark, a reading in nanoseconds, to `now`,
    /// another on the same clock; 0 from a reading of an `Instant`.
    #[inline]
    pub(crate) fn nanos_until(self, now: u64) -> u64 {
        match self.0 {
            Reading::Nanos(then) => now.saturating_sub(then),
            Reading::Instant(_) | Reading::None => 0,
        }
    }
}

/// `instant` as nanoseconds on one timeline for the whole process: from
/// its first clock reading, offset by 2^63 so that instants before that
/// one (a paused tokio clock that started earlier, say) keep their order
/// and their distances.
pub(crate) fn nanos_since_epoch(instant: Instant) -> u64 {
    const MIDDLE: u64 = 1 << 63;
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(|| instant);
    match instant.checked_duration_since(epoch) {
        Some(after) => MIDDLE.saturating_add(duration_nanos(after)),
        None => MIDDLE.saturating_sub(duration_nanos(epoch.saturating_duration_since(instant))),
    }
}

/// Forwards every method, so that `&C` and `Arc<C>` are clocks as `C` is.
macro_rules! forward_clock {
    ($($pointer:ty),*) => {$(
        impl<C: Clock + ?Sized> Clock for $pointer {
            const MEASURES: bool = C::MEASURES;

            #[inline]
            fn now(&self) -> Instant {
                (**self).now()
            }

            #[inline]
            fn now_nanos(&self) -> u64 {
                (**self).now_nanos()
            }

            #[inline]
            fn mark(&self) -> Mark {
                (**self).mark()
            }

            #[inline]
            fn nanos_since(&self, mark: Mark) -> u64 {
                (**self).nanos_since(mark)
            }

            fn sleep(&self, duration: Duration) {
                (**self).sleep(duration);
            }

            fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
                (**self).sleep_async(duration)
            }

            fn deadline_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
                (**self).deadline_async(duration)
            }

            fn timeline(&self) -> Timeline {
                (**self).timeline()
            }
        }
    )*};
}

forward_clock!(&C, Arc<C>);

/// The operating system's monotonic clock; sleeps block the thread.
///
/// The default clock of blocking code. Its async sleep uses tokio's timer,
/// so async code normally uses [`TokioClock`] instead.
///
/// ```
/// use resilient::{Clock, SystemClock};
///
/// let before = SystemClock.now();
/// assert!(SystemClock.now() >= before);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[inline]
    fn now(&self) -> Instant {
        Instant::now()
    }

    /// `CLOCK_MONOTONIC`, the clock `Instant` reads, as one number.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[inline]
    fn now_nanos(&self) -> u64 {
        let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        // A monotonic reading is never negative, and counts the time since
        // boot: in nanoseconds it fits a `u64` for 584 years of uptime. So
        // the conversion is a multiply and an add, with no overflow to
        // check on every call (wrapping, it could not panic either).
        let (secs, nanos) = (now.tv_sec as u64, now.tv_nsec as u64);
        secs.wrapping_mul(1_000_000_000).wrapping_add(nanos)
    }

    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// Tokio's clock: follows paused test time, so
/// `#[tokio::test(start_paused = true)]` runs a 30-second schedule in
/// milliseconds.
///
/// The default clock of `async fn`s. Its blocking sleep blocks the thread
/// (paused time cannot advance under a blocked thread).
///
/// ```
/// use resilient::{Clock, TokioClock};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let start = TokioClock.now();
/// TokioClock.sleep_async(Duration::from_secs(30)).await;
/// assert_eq!(TokioClock.now() - start, Duration::from_secs(30));
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokioClock;

impl Clock for TokioClock {
    #[inline]
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    /// An `Instant`: measuring from it takes one subtraction, where two
    /// readings in nanoseconds take one each.
    #[inline]
    fn mark(&self) -> Mark {
        Mark::instant(self.now())
    }

    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }

    fn timeline(&self) -> Timeline {
        Timeline::Tokio
    }
}

/// The CPU's time-stamp counter, through `quanta` (feature `quanta`): a
/// reading costs a fraction of the operating system's clock on most
/// machines, so the report's two readings cost little.
///
/// Opt in only where the counter is trustworthy: it is calibrated against
/// the OS clock once, when first read, and is safe across cores on modern
/// CPUs, but a VM that migrates between hosts, or an old CPU without an
/// invariant counter, can make it drift. The defaults stay on the OS
/// clock ([`SystemClock`]) and tokio's ([`TokioClock`], whose paused time
/// tests rely on). Sleeps go to the thread (blocking) and to tokio (async),
/// as [`SystemClock`]'s do.
///
/// ```
/// use resilient::{Clock, TscClock};
///
/// let start = TscClock.now_nanos();
/// assert!(TscClock.now_nanos() >= start);
/// ```
#[cfg(feature = "quanta")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TscClock;

#[cfg(feature = "quanta")]
impl TscClock {
    fn source() -> &'static quanta::Clock {
        static SOURCE: OnceLock<quanta::Clock> = OnceLock::new();
        SOURCE.get_or_init(quanta::Clock::new)
    }
}

#[cfg(feature = "quanta")]
impl Clock for TscClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    #[inline]
    fn now_nanos(&self) -> u64 {
        let source = TscClock::source();
        source.delta_as_nanos(0, source.raw())
    }

    fn timeline(&self) -> Timeline {
        Timeline::Tsc
    }

    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// A clock whose readings the engine ignores: every attempt starts and
/// ends at 0, so a successful call costs no clock reading at all. Sleeps
/// (the backoff's waits) still go to the wrapped clock, and a circuit
/// breaker still reads its [`now`](Clock::now).
///
/// Made by [`Operation::untimed`](crate::Operation::untimed) and the
/// attribute's `timing = false`. The report keeps counts, kinds, errors,
/// retryable flags and the delays decided, but no times; and nothing that
/// needs time can work: no per-attempt timeout, no budget, no soft cap, no
/// Retry-After wait against a budget.
///
/// ```
/// use resilient::{Backoff, FakeClock, Operation};
/// use std::time::Duration;
///
/// let clock = FakeClock::new();
/// let outcome = Operation::new()
///     .max_attempts(2)
///     .backoff(Backoff::constant(Duration::from_secs(1)))
///     .clock(&clock)
///     .untimed()
///     .run(|attempt| if attempt.number() == 1 { Err("busy") } else { Ok(()) });
/// assert_eq!(clock.slept(), [Duration::from_secs(1)]);
/// assert_eq!(outcome.report().delays(), [Duration::from_secs(1)]);
/// assert_eq!(outcome.report().elapsed(), Duration::ZERO);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Untimed<C>(pub C);

impl<C: Clock> Clock for Untimed<C> {
    const MEASURES: bool = false;

    fn now(&self) -> Instant {
        self.0.now()
    }

    #[inline]
    fn now_nanos(&self) -> u64 {
        0
    }

    #[inline]
    fn mark(&self) -> Mark {
        Mark::nanos(0)
    }

    fn timeline(&self) -> Timeline {
        Timeline::Frozen
    }

    #[inline]
    fn nanos_since(&self, _: Mark) -> u64 {
        0
    }

    fn sleep(&self, duration: Duration) {
        self.0.sleep(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        self.0.sleep_async(duration)
    }

    fn deadline_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        self.0.deadline_async(duration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn tokio_clock_follows_paused_time() {
        let start = TokioClock.now();
        let start_nanos = TokioClock.now_nanos();
        TokioClock.sleep_async(Duration::from_secs(10)).await;
        assert_eq!(TokioClock.now() - start, Duration::from_secs(10));
        assert_eq!(TokioClock.now_nanos() - start_nanos, 10_000_000_000);
    }

    #[test]
    fn instants_before_the_first_reading_keep_their_distance() {
        let now = Instant::now();
        let later = nanos_since_epoch(now);
        let earlier = now
            .checked_sub(Duration::from_secs(5))
            .map_or(later, nanos_since_epoch);
        assert!(earlier == later || later - earlier == 5_000_000_000);
        let much_earlier = now
            .checked_sub(Duration::from_secs(50))
            .map_or(earlier, nanos_since_epoch);
        assert!(much_earlier <= earlier);
    }

    #[test]
    fn system_clock_nanos_move_forward() {
        let before = SystemClock.now_nanos();
        std::hint::black_box(0);
        assert!(SystemClock.now_nanos() >= before);
    }
}

/// Where a clock's time is read from one of its marks, without the clock:
/// what a deadline kept for the calls made inside an attempt
/// (`resilient::deadline`) measures with. An expansion detail of the
/// engine; [`Clock::timeline`] gives a clock's.
#[doc(hidden)]
#[derive(Clone)]
pub enum Timeline {
    /// [`SystemClock`]'s.
    System,
    /// [`TokioClock`]'s, paused time included.
    Tokio,
    /// [`TscClock`]'s.
    #[cfg(feature = "quanta")]
    Tsc,
    /// [`Untimed`]'s: no time passes.
    Frozen,
    /// A clock of its own, shared (a [`FakeClock`](crate::FakeClock)'s).
    Shared(Arc<dyn ReadsSince>),
}

impl Timeline {
    /// Nanoseconds from `mark` to now on this timeline.
    pub(crate) fn nanos_since(&self, mark: Mark) -> u64 {
        match self {
            Timeline::System => SystemClock.nanos_since(mark),
            Timeline::Tokio => TokioClock.nanos_since(mark),
            #[cfg(feature = "quanta")]
            Timeline::Tsc => TscClock.nanos_since(mark),
            Timeline::Frozen => 0,
            Timeline::Shared(clock) => clock.nanos_since(mark),
        }
    }
}

impl fmt::Debug for Timeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Timeline::System => "System",
            Timeline::Tokio => "Tokio",
            #[cfg(feature = "quanta")]
            Timeline::Tsc => "Tsc",
            Timeline::Frozen => "Frozen",
            Timeline::Shared(_) => "Shared",
        };
        f.write_str(name)
    }
}

/// A clock's reading from a mark, shared: see [`Timeline::Shared`].
#[doc(hidden)]
pub trait ReadsSince: Send + Sync {
    /// Nanoseconds from `mark` to now.
    fn nanos_since(&self, mark: Mark) -> u64;
}
