//! [`Bulkhead`]: at most `max` attempts in flight, counted by one atomic.

use std::time::{Duration, Instant};

use super::atomic::{AtomicU32, Ordering, const_unless_loom};
use super::{Completion, LimitExceeded, Limiter, Priorities, Priority, Waiters};

/// At most `max` attempts in flight at once; the others are refused, or
/// wait for a permit up to the call's `limit_wait`.
///
/// A `const fn`, so that one bulkhead in a `static` guards every call to a
/// dependency:
///
/// ```
/// use resilient::limit::{Bulkhead, Completion, Limiter};
/// use std::time::{Duration, Instant};
///
/// static POOL: Bulkhead = Bulkhead::new(2).named("pool");
///
/// let now = Instant::now();
/// assert!(POOL.try_acquire(now).is_ok());
/// assert!(POOL.try_acquire(now).is_ok());
/// assert_eq!(POOL.try_acquire(now).unwrap_err().limiter(), "pool");
/// assert_eq!(POOL.available(), 0);
///
/// POOL.release(now, Duration::from_millis(1), Completion::Succeeded);
/// assert_eq!(POOL.available(), 1);
/// assert_eq!(POOL.max(), 2);
/// ```
///
/// `Bulkhead::new(0)` admits nothing.
#[derive(Debug)]
pub struct Bulkhead {
    in_flight: InFlight,
    max: u32,
    name: &'static str,
    /// The shares each priority may fill, when it sheds by priority.
    priorities: Option<Priorities>,
    /// Its entry in the installed configuration (`[limits.NAME]`).
    #[cfg(feature = "config")]
    configured: crate::config::LimitCache,
}

/// Attempts in flight under a limit, and the callers waiting for one of
/// them to end: a bulkhead's, an adaptive limit's.
#[derive(Debug)]
pub(super) struct InFlight {
    count: AtomicU32,
    waiters: Waiters,
}

impl InFlight {
    const_unless_loom! {
        pub(super) fn new() -> InFlight {
            InFlight {
                count: AtomicU32::new(0),
                waiters: Waiters::new(),
            }
        }
    }

    /// Counts one more attempt of `priority` if fewer than `limit()` are
    /// in flight, less what `priorities` reserve above it; else the
    /// refusal by `name`, a shed one if only the reserve was left.
    #[inline]
    pub(super) fn enter_as(
        &self,
        name: &'static str,
        limit: impl Fn() -> u32,
        priorities: Option<&Priorities>,
        priority: Priority,
    ) -> Result<(), LimitExceeded> {
        let Some(priorities) = priorities else {
            return if self.enter(limit) {
                Ok(())
            } else {
                Err(LimitExceeded::new(name, None))
            };
        };
        let mut reserved = false;
        let entered = self
            .count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |held| {
                let limit = limit();
                let most = priorities.most(priority, limit);
                reserved = held >= most && held < limit;
                (held < most).then_some(held + 1)
            });
        match entered {
            Ok(_) => Ok(()),
            Err(_) if reserved => Err(LimitExceeded::shed(name, priority)),
            Err(_) => Err(LimitExceeded::new(name, None)),
        }
    }

    /// Counts one more attempt if fewer than `limit()` are in flight.
    #[inline]
    pub(super) fn enter(&self, limit: impl Fn() -> u32) -> bool {
        // SeqCst so that a waiter's retry and `Waiters::wake` agree on
        // whether a permit returned before the waiter registered.
        self.count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |held| {
                (held < limit()).then_some(held + 1)
            })
            .is_ok()
    }

    /// Counts one attempt fewer, and wakes the callers waiting.
    #[inline]
    pub(super) fn leave(&self) {
        // A release without its acquire would wrap; saturate instead.
        let _ = self
            .count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |held| {
                held.checked_sub(1)
            });
        self.waiters.wake();
    }

    pub(super) fn count(&self) -> u32 {
        self.count.load(Ordering::SeqCst)
    }

    pub(super) fn waiters(&self) -> &Waiters {
        &self.waiters
    }
}

impl Bulkhead {
    const_unless_loom! {
        /// At most `max` attempts in flight, named `"bulkhead"`.
        pub fn new(max: u32) -> Bulkhead {
            Bulkhead {
                in_flight: InFlight::new(),
                max,
                name: "bulkhead",
                priorities: None,
                #[cfg(feature = "config")]
                configured: crate::config::LimitCache::new(),
            }
        }
    }

    /// The same bulkhead under another name, for [`LimitExceeded`] and the
    /// metrics.
    ///
    /// ```
    /// use resilient::limit::{Bulkhead, Limiter};
    ///
    /// static SEARCH: Bulkhead = Bulkhead::new(8).named("search");
    /// assert_eq!(SEARCH.name(), "search");
    /// ```
    pub const fn named(mut self, name: &'static str) -> Bulkhead {
        self.name = name;
        self
    }

    /// The same bulkhead, shedding by priority: a call may take a permit
    /// only while fewer are held than `max` less the reserves of the
    /// priorities above its own, so as it fills the lowest priority is
    /// refused first ([`LimitExceeded::shed`]), and each level keeps its
    /// reserve (see [`Priorities`]).
    ///
    /// ```
    /// use resilient::limit::{Bulkhead, Limiter, Priorities, Priority};
    /// use std::time::Instant;
    ///
    /// static POOL: Bulkhead = Bulkhead::new(10).named("pool").shed_by_priority(Priorities::new());
    ///
    /// let now = Instant::now();
    /// for _ in 0..6 {
    ///     POOL.try_acquire_as(now, Priority::VeryLow).unwrap();
    /// }
    /// // 6 held: very low calls are shed, the 4 left are kept for the rest.
    /// let shed = POOL.try_acquire_as(now, Priority::VeryLow).unwrap_err();
    /// assert_eq!(shed.shed_priority(), Some(Priority::VeryLow));
    /// assert!(POOL.try_acquire_as(now, Priority::Low).is_ok());
    /// assert!(POOL.try_acquire_as(now, Priority::Critical).is_ok());
    /// ```
    pub const fn shed_by_priority(mut self, priorities: Priorities) -> Bulkhead {
        self.priorities = Some(priorities);
        self
    }

    /// Permits free now.
    ///
    /// ```
    /// use resilient::limit::Bulkhead;
    ///
    /// assert_eq!(Bulkhead::new(4).available(), 4);
    /// ```
    pub fn available(&self) -> u32 {
        self.limit().saturating_sub(self.in_flight.count())
    }

    /// The most attempts in flight at once, as built; an installed
    /// `[limits.NAME] max_concurrent` overrides it (see
    /// [`Limiter::current_limit`]).
    ///
    /// ```
    /// use resilient::limit::Bulkhead;
    ///
    /// assert_eq!(Bulkhead::new(4).max(), 4);
    /// ```
    pub const fn max(&self) -> u32 {
        self.max
    }

    /// The size in force: the installed configuration's for its name, or
    /// the builder's. Shrunk below the permits in flight, admissions stop
    /// until enough of them return; the permits out stay valid.
    #[inline]
    fn limit(&self) -> u32 {
        #[cfg(feature = "config")]
        if let Some(max) = self.configured.max_concurrent(self.name) {
            return max;
        }
        self.max
    }
}

impl Limiter for Bulkhead {
    #[inline]
    fn try_acquire(&self, now: Instant) -> Result<(), LimitExceeded> {
        self.try_acquire_as(now, Priority::Medium)
    }

    #[inline]
    fn try_acquire_as(&self, _now: Instant, priority: Priority) -> Result<(), LimitExceeded> {
        self.in_flight.enter_as(
            self.name,
            || self.limit(),
            self.priorities.as_ref(),
            priority,
        )
    }

    #[inline]
    fn release(&self, _now: Instant, _rtt: Duration, _completion: Completion) {
        self.in_flight.leave();
    }

    fn name(&self) -> &'static str {
        self.name
    }

    fn waiters(&self) -> Option<&Waiters> {
        Some(self.in_flight.waiters())
    }

    fn in_flight(&self) -> Option<u32> {
        Some(self.in_flight.count())
    }

    /// Its `max`, or the installed configuration's `max_concurrent`.
    fn current_limit(&self) -> Option<u32> {
        Some(self.limit())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    fn done(bulkhead: &Bulkhead) {
        bulkhead.release(Instant::now(), Duration::ZERO, Completion::Succeeded);
    }

    /// resilience4j `resilience4j-bulkhead/src/test/java/io/github/resilience4j/
    /// bulkhead/internal/SemaphoreBulkheadTest.java`, `testBulkhead`: max 2,
    /// no wait.
    #[test]
    fn resilience4j_semaphore_bulkhead_acquires_refuses_and_frees() {
        let bulkhead = Bulkhead::new(2);
        let now = Instant::now();
        assert_eq!(bulkhead.try_acquire(now), Ok(()));
        assert_eq!(bulkhead.try_acquire(now), Ok(()));
        assert_eq!(bulkhead.available(), 0);

        assert_eq!(
            bulkhead.try_acquire(now),
            Err(LimitExceeded::new("bulkhead", None))
        );
        done(&bulkhead);
        assert_eq!(bulkhead.available(), 1);
        done(&bulkhead);
        assert_eq!(bulkhead.available(), 2);
        assert_eq!(bulkhead.try_acquire(now), Ok(()));
        assert_eq!(bulkhead.available(), 1);
    }

    /// Of 10 permits, 10 % is kept for each level above `VeryLow`: each
    /// level fills up to its own line and is shed there (the refusal says
    /// its priority) while the levels above still have room; the full
    /// bulkhead refuses without shedding.
    #[test]
    fn each_priority_fills_to_its_line_and_is_shed_there() {
        use crate::priority::{Priorities, Priority};

        let bulkhead = Bulkhead::new(10).shed_by_priority(Priorities::new());
        let now = Instant::now();
        let lines = [
            (Priority::VeryLow, 6),
            (Priority::Low, 7),
            (Priority::Medium, 8),
            (Priority::High, 9),
            (Priority::Critical, 10),
        ];
        for (priority, line) in lines {
            for _ in 0..10 {
                if bulkhead.available() <= 10 - line {
                    break;
                }
                let taken = bulkhead.try_acquire_as(now, priority);
                assert_eq!(taken, Ok(()), "{priority:?}");
            }
            assert_eq!(
                bulkhead.available(),
                10 - line,
                "{priority:?} stops at its line"
            );
            let refused = bulkhead.try_acquire_as(now, priority).unwrap_err();
            let shed = (line < 10).then_some(priority);
            assert_eq!(refused.shed_priority(), shed, "{priority:?}");
            assert_eq!(bulkhead.available(), 10 - line, "a refusal takes nothing");
        }
        // One permit back: 9 held is `High`'s line still, not `Critical`'s.
        done(&bulkhead);
        assert!(bulkhead.try_acquire_as(now, Priority::High).is_err());
        assert_eq!(bulkhead.try_acquire_as(now, Priority::Critical), Ok(()));
    }

    #[test]
    fn a_bulkhead_tells_its_name_size_and_permits_out() {
        let bulkhead = Bulkhead::new(4).named("pool");
        assert_eq!((bulkhead.max(), bulkhead.name()), (4, "pool"));
        assert_eq!(bulkhead.current_limit(), Some(4));
        bulkhead.try_acquire(Instant::now()).unwrap();
        assert_eq!(bulkhead.in_flight(), Some(1));
        assert_eq!(Bulkhead::new(4).name(), "bulkhead");
    }

    /// resilience4j `SemaphoreBulkheadTest.java`, `testZeroMaxConcurrentCalls`.
    #[test]
    fn resilience4j_zero_max_concurrent_calls_always_refuses() {
        let bulkhead = Bulkhead::new(0);
        assert!(bulkhead.try_acquire(Instant::now()).is_err());
        assert_eq!(bulkhead.available(), 0);
    }

    #[test]
    fn release_without_acquire_does_not_wrap() {
        let bulkhead = Bulkhead::new(1);
        done(&bulkhead);
        assert_eq!(bulkhead.available(), 1);
        assert_eq!(bulkhead.try_acquire(Instant::now()), Ok(()));
        assert!(bulkhead.try_acquire(Instant::now()).is_err());
    }

    /// Eight threads take and return permits of one bulkhead of 3 as fast as
    /// they can; a lost or torn update would let a fourth in, or leave a
    /// permit taken at the end.
    #[test]
    fn hammer_never_admits_more_than_max() {
        use std::sync::atomic::AtomicU32 as Count;
        static BULKHEAD: Bulkhead = Bulkhead::new(3);
        static INSIDE: Count = Count::new(0);
        static PEAK: Count = Count::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    let mut admitted = 0;
                    while admitted < 2_000 {
                        if BULKHEAD.try_acquire(Instant::now()).is_err() {
                            std::hint::spin_loop();
                            continue;
                        }
                        admitted += 1;
                        let inside = INSIDE.fetch_add(1, Ordering::SeqCst) + 1;
                        PEAK.fetch_max(inside, Ordering::SeqCst);
                        INSIDE.fetch_sub(1, Ordering::SeqCst);
                        done(&BULKHEAD);
                    }
                });
            }
        });
        assert!(PEAK.load(Ordering::SeqCst) <= 3);
        assert_eq!(BULKHEAD.available(), 3);
        assert_eq!(BULKHEAD.in_flight(), Some(0));
    }
}
