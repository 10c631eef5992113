//! Time sources. The engine reads time and sleeps only through [`Clock`], so
//! tests drive time instead of spending it.

use std::future::{self, Future};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// A source of time and of sleeps, for blocking and for async code.
///
/// Implementations must be monotonic: `now()` never goes backwards.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> Instant;

    /// Blocks the current thread for `duration`.
    fn sleep(&self, duration: Duration);

    /// Waits for `duration` without blocking the thread.
    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send;
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now(&self) -> Instant {
        (**self).now()
    }

    fn sleep(&self, duration: Duration) {
        (**self).sleep(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        (**self).sleep_async(duration)
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now(&self) -> Instant {
        (**self).now()
    }

    fn sleep(&self, duration: Duration) {
        (**self).sleep(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        (**self).sleep_async(duration)
    }
}

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
    fn now(&self) -> Instant {
        Instant::now()
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
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// Manual virtual time for tests of blocking code.
///
/// Time moves only when a test calls [`advance`](FakeClock::advance) or the
/// engine sleeps; every sleep is recorded and returns at once. Clones share
/// one timeline, so a test can keep a handle while the operation owns another.
///
/// ```
/// use resilient::{Clock, FakeClock};
/// use std::time::Duration;
///
/// let clock = FakeClock::new();
/// let start = clock.now();
/// clock.advance(Duration::from_secs(2));
/// clock.sleep(Duration::from_secs(1));
/// assert_eq!(clock.now() - start, Duration::from_secs(3));
/// assert_eq!(clock.slept(), [Duration::from_secs(1)]);
/// ```
#[derive(Debug, Clone)]
pub struct FakeClock {
    origin: Instant,
    state: Arc<Mutex<FakeState>>,
}

#[derive(Debug, Default)]
struct FakeState {
    offset: Duration,
    slept: Vec<Duration>,
}

impl FakeClock {
    /// A clock whose time starts now and moves only when told.
    pub fn new() -> FakeClock {
        FakeClock {
            origin: Instant::now(),
            state: Arc::default(),
        }
    }

    /// Moves time forward by `duration` (saturating), without recording a sleep.
    pub fn advance(&self, duration: Duration) {
        let mut state = self.state();
        state.offset = state.offset.saturating_add(duration);
    }

    /// The current virtual instant.
    pub fn now(&self) -> Instant {
        let offset = self.state().offset;
        // `Instant` cannot represent every offset; stay at the last
        // representable instant rather than panic.
        self.origin
            .checked_add(offset)
            .unwrap_or_else(|| self.origin + max_offset(self.origin, offset))
    }

    /// Virtual time elapsed since the clock was made.
    pub fn elapsed(&self) -> Duration {
        self.state().offset
    }

    /// Every sleep the clock was asked for, in order.
    pub fn slept(&self) -> Vec<Duration> {
        self.state().slept.clone()
    }

    fn record_sleep(&self, duration: Duration) {
        let mut state = self.state();
        state.offset = state.offset.saturating_add(duration);
        state.slept.push(duration);
    }

    fn state(&self) -> MutexGuard<'_, FakeState> {
        // The state stays consistent even if a holder panicked.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for FakeClock {
    fn default() -> Self {
        Self::new()
    }
}

/// The largest offset below `wanted` that `origin` can be moved by.
fn max_offset(origin: Instant, wanted: Duration) -> Duration {
    let (mut low, mut high) = (Duration::ZERO, wanted);
    while high.saturating_sub(low) > Duration::from_nanos(1) {
        let mid = low + (high - low) / 2;
        if origin.checked_add(mid).is_some() {
            low = mid;
        } else {
            high = mid;
        }
    }
    low
}

impl Clock for FakeClock {
    fn now(&self) -> Instant {
        FakeClock::now(self)
    }

    fn sleep(&self, duration: Duration) {
        self.record_sleep(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        self.record_sleep(duration);
        future::ready(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_clones_share_one_timeline() {
        let clock = FakeClock::new();
        let other = clock.clone();
        let start = clock.now();
        other.advance(Duration::from_millis(1500));
        Clock::sleep(&other, Duration::from_secs(2));
        assert_eq!(clock.now() - start, Duration::from_millis(3500));
        assert_eq!(clock.slept(), [Duration::from_secs(2)]);
    }

    #[test]
    fn fake_clock_saturates_instead_of_panicking() {
        let clock = FakeClock::new();
        clock.advance(Duration::MAX);
        clock.advance(Duration::MAX);
        assert_eq!(clock.elapsed(), Duration::MAX);
        assert!(clock.now() >= clock.origin);
    }

    #[tokio::test(start_paused = true)]
    async fn tokio_clock_follows_paused_time() {
        let start = TokioClock.now();
        TokioClock.sleep_async(Duration::from_secs(10)).await;
        assert_eq!(TokioClock.now() - start, Duration::from_secs(10));
    }
}
