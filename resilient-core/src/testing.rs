//! Tools for testing code that retries: [`FakeClock`], manual virtual time
//! whose sleeps return at once and are recorded, so a test asserts the
//! schedule instead of waiting for it.
//!
//! For async code, tokio's paused clock (`#[tokio::test(start_paused =
//! true)]`) with the default [`TokioClock`](crate::TokioClock) is usually
//! the better fit: it drives every timer of the test, the body's included.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::clock::{Clock, Mark, ReadsSince, Timeline};
use crate::time::duration_nanos;

/// Manual virtual time for tests.
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
///
/// # With async attempts
///
/// The engine's waits between attempts return at once, as with blocking
/// code. An attempt's deadline (`timeout`, `budget`) is different: it is a
/// timer racing the attempt, and on a `FakeClock` it fires only once
/// virtual time reaches it, through [`advance`](FakeClock::advance) or a
/// sleep on the same clock. An attempt that merely yields is never cut
/// short by a timer that jumped ahead.
///
/// ```
/// use resilient::{FakeClock, Operation, TimedOut};
/// use std::time::Duration;
///
/// #[derive(Debug, PartialEq)]
/// struct Late;
/// impl std::fmt::Display for Late {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str("late")
///     }
/// }
/// impl From<TimedOut> for Late {
///     fn from(_: TimedOut) -> Self {
///         Late
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let clock = FakeClock::new();
/// let outcome = Operation::new()
///     .timeout(Duration::from_secs(1))
///     .clock(&clock)
///     .run_async(async |_| {
///         tokio::task::yield_now().await; // not a reason to time out
///         Ok::<_, Late>("done")
///     })
///     .await;
/// assert_eq!(outcome.into_result(), Ok("done"));
/// # }
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
    /// Deadline timers waiting for virtual time to reach their target.
    timers: Vec<Waiting>,
}

#[derive(Debug)]
struct Waiting {
    id: u64,
    target: Duration,
    waker: Waker,
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
        self.move_by(duration, false);
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

    fn move_by(&self, duration: Duration, record: bool) {
        let due: Vec<Waker> = {
            let mut state = self.state();
            state.offset = state.offset.saturating_add(duration);
            if record {
                state.slept.push(duration);
            }
            let now = state.offset;
            let (due, waiting) = std::mem::take(&mut state.timers)
                .into_iter()
                .partition(|timer| timer.target <= now);
            state.timers = waiting;
            due.into_iter().map(|timer: Waiting| timer.waker).collect()
        };
        // Woken outside the lock: a waker may poll the timer at once.
        due.into_iter().for_each(Waker::wake);
    }

    fn state(&self) -> MutexGuard<'_, FakeState> {
        // The state stays consistent even if a holder panicked.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The clock's time read from a mark without the clock itself, for a
/// deadline that calls made inside an attempt inherit.
impl ReadsSince for Mutex<FakeState> {
    fn nanos_since(&self, mark: Mark) -> u64 {
        let offset = self.lock().unwrap_or_else(PoisonError::into_inner).offset;
        mark.nanos_until(duration_nanos(offset))
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

    fn timeline(&self) -> Timeline {
        Timeline::Shared(self.state.clone())
    }

    fn now_nanos(&self) -> u64 {
        duration_nanos(self.elapsed())
    }

    fn sleep(&self, duration: Duration) {
        self.move_by(duration, true);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        self.move_by(duration, true);
        std::future::ready(())
    }

    fn deadline_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        static IDS: AtomicU64 = AtomicU64::new(0);
        FakeTimer {
            id: IDS.fetch_add(1, Ordering::Relaxed),
            target: self.elapsed().saturating_add(duration),
            clock: self.clone(),
        }
    }
}

/// Ready once the clock's virtual time reaches `target`.
struct FakeTimer {
    id: u64,
    target: Duration,
    clock: FakeClock,
}

impl Future for FakeTimer {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.clock.state();
        if state.offset >= self.target {
            return Poll::Ready(());
        }
        let waker = cx.waker().clone();
        match state.timers.iter_mut().find(|timer| timer.id == self.id) {
            Some(timer) => timer.waker = waker,
            None => state.timers.push(Waiting {
                id: self.id,
                target: self.target,
                waker,
            }),
        }
        Poll::Pending
    }
}

impl Drop for FakeTimer {
    fn drop(&mut self) {
        self.clock
            .state()
            .timers
            .retain(|timer| timer.id != self.id);
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
        assert_eq!(clock.now_nanos(), 3_500_000_000);
        assert_eq!(clock.slept(), [Duration::from_secs(2)]);
    }

    #[test]
    fn fake_clock_saturates_instead_of_panicking() {
        let clock = FakeClock::new();
        clock.advance(Duration::MAX);
        clock.advance(Duration::MAX);
        assert_eq!(clock.elapsed(), Duration::MAX);
        assert_eq!(clock.now_nanos(), u64::MAX);
        assert!(clock.now() >= clock.origin);
    }

    #[tokio::test]
    async fn a_deadline_timer_fires_only_when_virtual_time_reaches_it() {
        let clock = FakeClock::new();
        let mut timer = std::pin::pin!(clock.deadline_async(Duration::from_secs(5)));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(timer.as_mut().poll(&mut cx).is_pending());
        clock.advance(Duration::from_secs(4));
        assert!(timer.as_mut().poll(&mut cx).is_pending());
        assert!(clock.slept().is_empty(), "a timer is not a sleep");
        Clock::sleep(&clock, Duration::from_secs(1));
        assert!(timer.as_mut().poll(&mut cx).is_ready());
        assert_eq!(clock.elapsed(), Duration::from_secs(5));
    }

    #[tokio::test]
    async fn advancing_wakes_a_waiting_timer() {
        let clock = FakeClock::new();
        let waiting = clock.clone();
        let timer =
            tokio::spawn(async move { waiting.deadline_async(Duration::from_secs(3)).await });
        tokio::task::yield_now().await;
        assert!(!timer.is_finished());
        clock.advance(Duration::from_secs(3));
        timer.await.unwrap();
        assert!(clock.state().timers.is_empty());
    }
}
