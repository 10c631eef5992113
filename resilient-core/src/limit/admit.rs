//! Admission of one attempt: a permit from every limiter of a list, in
//! order, waited for up to a bound, held while the attempt runs and
//! returned when it ends. Each permit is held by a [`LimitPermits`] from the
//! moment its limiter grants it, so that it comes back however the call
//! ends: refused by a later limiter, dropped while a later limiter's
//! answer is awaited, cancelled while it runs, or unwound by a panic.

use std::pin::pin;
use std::sync::PoisonError;
use std::time::{Duration, Instant};

use super::{Completion, LimitExceeded, Limiter, Priority, Waiters};
use crate::clock::{Clock, Mark};
use crate::race::race;

/// The shortest wait taken on a `retry_after` hint, so that a limiter
/// that says "now" while refusing cannot spin the caller.
const MIN_WAIT: Duration = Duration::from_micros(1);

/// The permits one attempt holds: while they are being taken, those of
/// the limiters that granted one so far; once admitted, one of every
/// limiter. Dropped unfinished (the attempt was cancelled, or its caller
/// gave up while a later limiter was still answering), it returns them as
/// [`Completion::Unused`].
#[must_use = "the permits return when this is dropped"]
pub(crate) struct LimitPermits<'a> {
    /// The limiters whose permit this holds, a prefix of the list; empty
    /// once returned.
    held: &'a [&'a dyn Limiter],
    queued: Duration,
}

impl<'a> LimitPermits<'a> {
    /// None held yet.
    fn none() -> Self {
        LimitPermits {
            held: &[],
            queued: Duration::ZERO,
        }
    }

    /// How long the attempt waited for its permits.
    pub(crate) fn queued(&self) -> Duration {
        self.queued
    }

    /// Counts the answer of `limiters[index]`, the limiter after the last
    /// one held: its permit is held from now on, or on a refusal every
    /// permit held goes back unused at `now`.
    fn count(
        &mut self,
        limiters: &'a [&'a dyn Limiter],
        index: usize,
        answer: Result<(), LimitExceeded>,
        now: Instant,
    ) -> Result<(), (usize, LimitExceeded)> {
        match answer {
            Ok(()) => {
                self.held = &limiters[..=index];
                Ok(())
            }
            Err(refusal) => {
                release_all(
                    std::mem::take(&mut self.held),
                    now,
                    Duration::ZERO,
                    Completion::Unused,
                );
                Err((index, refusal))
            }
        }
    }

    /// Returns the permits of an attempt that ran for `rtt`.
    pub(crate) fn finish(mut self, now: Instant, rtt: Duration, completion: Completion) {
        release_all(std::mem::take(&mut self.held), now, rtt, completion);
    }
}

impl Drop for LimitPermits<'_> {
    fn drop(&mut self) {
        if !self.held.is_empty() {
            release_all(
                std::mem::take(&mut self.held),
                Instant::now(),
                Duration::ZERO,
                Completion::Unused,
            );
        }
    }
}

fn release_all(limiters: &[&dyn Limiter], now: Instant, rtt: Duration, completion: Completion) {
    for limiter in limiters {
        limiter.release(now, rtt, completion);
    }
}

/// A permit from every limiter at `now`, or the first refusal (with its
/// limiter's index), the permits taken before it returned unused. Each
/// permit is held by the result from the moment it is granted, so that a
/// panic in a later limiter returns it too.
fn try_all<'a>(
    limiters: &'a [&'a dyn Limiter],
    now: Instant,
    priority: Priority,
) -> Result<LimitPermits<'a>, (usize, LimitExceeded)> {
    let mut permits = LimitPermits::none();
    for (index, limiter) in limiters.iter().enumerate() {
        permits.count(limiters, index, limiter.try_acquire_as(now, priority), now)?;
    }
    Ok(permits)
}

/// [`try_all`], awaiting the limiters whose answer takes a round trip.
/// The permits granted before such an answer are held across its await:
/// a caller that gives up there returns them.
async fn try_all_async<'a>(
    limiters: &'a [&'a dyn Limiter],
    now: Instant,
    priority: Priority,
) -> Result<LimitPermits<'a>, (usize, LimitExceeded)> {
    let mut permits = LimitPermits::none();
    for (index, limiter) in limiters.iter().enumerate() {
        let answer = match limiter.try_acquire_async(now) {
            Some(answer) => answer.await,
            None => limiter.try_acquire_as(now, priority),
        };
        permits.count(limiters, index, answer, now)?;
    }
    Ok(permits)
}

/// The outcome of one try at the permits, `start` being when the first
/// try began and `wait` the bound on the whole wait.
enum Step<'a> {
    Admitted(LimitPermits<'a>),
    Refused(LimitExceeded),
    /// Try again after this long, the limiter's `retry_after`.
    Sleep(Duration),
    /// Try again when limiter `index` wakes these waiters, within `left`.
    Wake {
        index: usize,
        waiters: &'a Waiters,
        left: Duration,
        refusal: LimitExceeded,
    },
}

fn step<'a, C: Clock>(
    limiters: &'a [&'a dyn Limiter],
    clock: &C,
    start: Mark,
    wait: Duration,
    first: bool,
    tried: Result<LimitPermits<'a>, (usize, LimitExceeded)>,
) -> Step<'a> {
    let (index, refusal) = match tried {
        // Admitted at the first try: nothing was queued, whatever the
        // clock read meanwhile.
        Ok(permits) if first => return Step::Admitted(permits),
        Ok(permits) => return Step::Admitted(queued(permits, clock, start)),
        Err(refused) => refused,
    };
    let left = wait.saturating_sub(Duration::from_nanos(clock.nanos_since(start)));
    if left.is_zero() {
        return Step::Refused(refusal);
    }
    match (refusal.retry_after(), limiters[index].waiters()) {
        // Waiting past the bound would end in a refusal anyway: refuse now.
        (Some(after), _) if after <= left => Step::Sleep(after.max(MIN_WAIT)),
        (None, Some(waiters)) => Step::Wake {
            index,
            waiters,
            left,
            refusal,
        },
        _ => Step::Refused(refusal),
    }
}

/// One caller's tries at the permits: when the first began, the bound on
/// the whole wait, and whether the next try is the first.
struct Tries {
    start: Mark,
    wait: Duration,
    first: bool,
}

impl Tries {
    fn new<C: Clock>(clock: &C, wait: Duration) -> Self {
        Tries {
            start: clock.mark(),
            wait,
            first: true,
        }
    }

    /// What follows a try that ended as `tried`.
    fn next<'a, C: Clock>(
        &mut self,
        limiters: &'a [&'a dyn Limiter],
        clock: &C,
        tried: Result<LimitPermits<'a>, (usize, LimitExceeded)>,
    ) -> Step<'a> {
        let first = std::mem::take(&mut self.first);
        step(limiters, clock, self.start, self.wait, first, tried)
    }
}

/// Takes a permit from every limiter, waiting up to `wait` on `clock`.
#[cfg(all(test, not(loom)))]
pub(crate) async fn admit_async<'a, C: Clock>(
    limiters: &'a [&'a dyn Limiter],
    clock: &C,
    wait: Duration,
) -> Result<LimitPermits<'a>, LimitExceeded> {
    admit_async_as(limiters, clock, wait, Priority::default()).await
}

/// [`admit_async`] for a call of `priority`.
pub(crate) async fn admit_async_as<'a, C: Clock>(
    limiters: &'a [&'a dyn Limiter],
    clock: &C,
    wait: Duration,
    priority: Priority,
) -> Result<LimitPermits<'a>, LimitExceeded> {
    let mut tries = Tries::new(clock, wait);
    let start = tries.start;
    loop {
        let tried = try_all_async(limiters, clock.now(), priority).await;
        match tries.next(limiters, clock, tried) {
            Step::Admitted(permits) => return Ok(permits),
            Step::Refused(refusal) => return Err(refusal),
            Step::Sleep(after) => clock.sleep_async(after).await,
            Step::Wake {
                index,
                waiters,
                left,
                ..
            } => {
                let _registered = waiters.register();
                let mut woken = pin!(waiters.notified());
                woken.as_mut().enable();
                // Registered: a permit returned from here on wakes us; one
                // returned before is seen by this try.
                match try_all_async(limiters, clock.now(), priority).await {
                    Ok(permits) => return Ok(queued(permits, clock, start)),
                    Err((again, _)) if again != index => continue,
                    Err(_) => {}
                }
                race(clock, clock.mark(), None, Some(left), woken.as_mut()).await;
            }
        }
    }
}

/// Takes a permit from every limiter, blocking up to `wait`. A wait for a
/// permit another thread returns is bounded on the OS clock (a condition
/// variable's timeout); waits on a `retry_after` hint sleep on `clock`.
#[cfg(all(test, not(loom)))]
pub(crate) fn admit_blocking<'a, C: Clock>(
    limiters: &'a [&'a dyn Limiter],
    clock: &C,
    wait: Duration,
) -> Result<LimitPermits<'a>, LimitExceeded> {
    admit_blocking_as(limiters, clock, wait, Priority::default())
}

/// [`admit_blocking`] for a call of `priority`.
pub(crate) fn admit_blocking_as<'a, C: Clock>(
    limiters: &'a [&'a dyn Limiter],
    clock: &C,
    wait: Duration,
    priority: Priority,
) -> Result<LimitPermits<'a>, LimitExceeded> {
    let mut tries = Tries::new(clock, wait);
    let start = tries.start;
    loop {
        let tried = try_all(limiters, clock.now(), priority);
        match tries.next(limiters, clock, tried) {
            Step::Admitted(permits) => return Ok(permits),
            Step::Refused(refusal) => return Err(refusal),
            Step::Sleep(after) => clock.sleep(after),
            Step::Wake {
                waiters,
                left,
                refusal,
                ..
            } => {
                let deadline = Instant::now().checked_add(left);
                let taken = waiters.wait_blocking(deadline, || {
                    try_all(limiters, clock.now(), priority).map_err(|(_, refusal)| refusal)
                });
                return match taken {
                    Ok(permits) => Ok(queued(permits, clock, start)),
                    Err(last) => Err(last.unwrap_or(refusal)),
                };
            }
        }
    }
}

/// `permits`, taken after waiting since `start`.
fn queued<'a, C: Clock>(mut permits: LimitPermits<'a>, clock: &C, start: Mark) -> LimitPermits<'a> {
    permits.queued = Duration::from_nanos(clock.nanos_since(start));
    permits
}

impl Waiters {
    /// Blocks until `take` succeeds, trying again at each wake, or until
    /// `deadline` (`None`: no deadline); the last refusal if it never did.
    fn wait_blocking<T>(
        &self,
        deadline: Option<Instant>,
        mut take: impl FnMut() -> Result<T, LimitExceeded>,
    ) -> Result<T, Option<LimitExceeded>> {
        let _registered = self.register();
        let woken = self.woken();
        // `take` runs under the lock that `wake` takes after a release:
        // either it sees the permit, or the wake comes after it waits.
        let mut held = woken.lock.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let refusal = match take() {
                Ok(taken) => return Ok(taken),
                Err(refusal) => refusal,
            };
            held = match deadline {
                None => woken
                    .ready
                    .wait(held)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(Some(refusal));
                    }
                    woken
                        .ready
                        .wait_timeout(held, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::clock::TokioClock;
    use crate::limit::{Bulkhead, RateLimiter};
    use crate::testing::FakeClock;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_refusal_returns_the_permits_taken_before_it() {
        let first = Bulkhead::new(1);
        let second = Bulkhead::new(0).named("closed");
        let limiters: [&dyn Limiter; 2] = [&first, &second];
        let clock = FakeClock::new();
        let refusal = admit_blocking(&limiters, &clock, Duration::ZERO)
            .err()
            .unwrap();
        assert_eq!(refusal.limiter(), "closed");
        assert_eq!(first.available(), 1);
    }

    #[test]
    fn permits_return_when_finished_or_dropped() {
        let bulkhead = Bulkhead::new(1);
        let limiters: [&dyn Limiter; 1] = [&bulkhead];
        let clock = FakeClock::new();
        let permits = admit_blocking(&limiters, &clock, Duration::ZERO)
            .ok()
            .unwrap();
        assert_eq!(bulkhead.available(), 0);
        permits.finish(clock.now(), MS, Completion::Succeeded);
        assert_eq!(bulkhead.available(), 1);
        let permits = admit_blocking(&limiters, &clock, Duration::ZERO)
            .ok()
            .unwrap();
        drop(permits);
        assert_eq!(bulkhead.available(), 1);
    }

    #[test]
    fn a_rate_limiter_is_waited_for_on_the_clock_within_the_bound() {
        let limiter = RateLimiter::per_second(4).burst(1);
        let limiters: [&dyn Limiter; 1] = [&limiter];
        let clock = FakeClock::new();
        drop(
            admit_blocking(&limiters, &clock, Duration::ZERO)
                .ok()
                .unwrap(),
        );
        // 250 ms to the next cell: within a bound of 300 ms, slept.
        let permits = admit_blocking(&limiters, &clock, MS * 300).ok().unwrap();
        assert_eq!(permits.queued(), MS * 250);
        assert_eq!(clock.slept(), [MS * 250]);
        // Beyond a bound of 100 ms: refused at once, without sleeping.
        let refusal = admit_blocking(&limiters, &clock, MS * 100).err().unwrap();
        assert_eq!(refusal.retry_after(), Some(MS * 250));
        assert_eq!(clock.slept(), [MS * 250]);
    }

    #[test]
    fn a_blocking_waiter_takes_the_permit_another_thread_returns() {
        static BULKHEAD: Bulkhead = Bulkhead::new(1);
        let limiters: [&dyn Limiter; 1] = [&BULKHEAD];
        let clock = FakeClock::new();
        let held = admit_blocking(&limiters, &clock, Duration::ZERO)
            .ok()
            .unwrap();
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| {
                // Bounded for the test's sake; the release comes first.
                admit_blocking(&limiters, &clock, Duration::from_secs(30))
                    .map(|permits| permits.finish(Instant::now(), MS, Completion::Succeeded))
            });
            while BULKHEAD
                .waiters()
                .unwrap()
                .waiting
                .load(std::sync::atomic::Ordering::SeqCst)
                == 0
            {
                std::thread::yield_now();
            }
            held.finish(Instant::now(), MS, Completion::Succeeded);
            assert_eq!(waiter.join().unwrap(), Ok(()));
        });
        assert_eq!(BULKHEAD.available(), 1);
    }

    /// A limiter whose async answer never comes, and whose blocking one
    /// is a panic: a caller can only give up on it.
    struct Stuck;

    impl Limiter for Stuck {
        fn try_acquire(&self, _now: Instant) -> Result<(), LimitExceeded> {
            panic!("the limiter's store failed");
        }
        fn release(&self, _now: Instant, _rtt: Duration, _completion: Completion) {
            unreachable!("no permit was granted");
        }
        fn name(&self) -> &'static str {
            "stuck"
        }
        fn try_acquire_async(&self, _now: Instant) -> Option<super::super::AcquireFuture<'_>> {
            Some(Box::pin(std::future::pending()))
        }
    }

    /// `stuck` at `position` of three limiters, bulkheads of one around it.
    fn around<'a>(
        stuck: &'a Stuck,
        bulkheads: &'a [Bulkhead; 2],
        position: usize,
    ) -> [&'a dyn Limiter; 3] {
        let mut others = bulkheads.iter().map(|bulkhead| bulkhead as &dyn Limiter);
        std::array::from_fn(|index| {
            if index == position {
                stuck
            } else {
                others.next().unwrap()
            }
        })
    }

    #[test]
    fn a_caller_that_gives_up_on_a_pending_answer_returns_the_permits_taken_before_it() {
        for position in 0..3 {
            let bulkheads = [Bulkhead::new(1), Bulkhead::new(1)];
            let limiters = around(&Stuck, &bulkheads, position);
            let clock = FakeClock::new();
            let mut admission = Box::pin(admit_async(&limiters, &clock, MS * 100));
            let mut context = std::task::Context::from_waker(std::task::Waker::noop());
            assert!(admission.as_mut().poll(&mut context).is_pending());
            let taken = bulkheads[..position]
                .iter()
                .filter(|bulkhead| bulkhead.available() == 0)
                .count();
            assert_eq!(taken, position, "held while the answer is awaited");
            drop(admission);
            let available = bulkheads.each_ref().map(Bulkhead::available);
            assert_eq!(available, [1, 1], "{position}: every permit back");
        }
    }

    #[test]
    fn a_panicking_limiter_returns_the_permits_taken_before_it() {
        for position in 0..3 {
            let bulkheads = [Bulkhead::new(1), Bulkhead::new(1)];
            let limiters = around(&Stuck, &bulkheads, position);
            let clock = FakeClock::new();
            let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                admit_blocking(&limiters, &clock, Duration::ZERO).is_ok()
            }));
            assert!(unwound.is_err());
            let available = bulkheads.each_ref().map(Bulkhead::available);
            assert_eq!(available, [1, 1], "{position}: every permit back");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_async_waiter_wakes_when_a_permit_returns_and_counts_its_queue() {
        let bulkhead = Bulkhead::new(1);
        let limiters: [&dyn Limiter; 1] = [&bulkhead];
        let clock = TokioClock;
        let held = admit_async(&limiters, &clock, Duration::ZERO)
            .await
            .ok()
            .unwrap();
        let release = async {
            tokio::time::sleep(MS * 40).await;
            held.finish(Instant::now(), MS, Completion::Succeeded);
        };
        let (permits, ()) = tokio::join!(admit_async(&limiters, &clock, MS * 100), release);
        assert_eq!(permits.ok().unwrap().queued(), MS * 40);
    }

    #[tokio::test(start_paused = true)]
    async fn an_async_waiter_gives_up_at_the_bound() {
        let bulkhead = Bulkhead::new(1);
        let limiters: [&dyn Limiter; 1] = [&bulkhead];
        let clock = TokioClock;
        let _held = admit_async(&limiters, &clock, Duration::ZERO)
            .await
            .ok()
            .unwrap();
        let start = tokio::time::Instant::now();
        let refusal = admit_async(&limiters, &clock, MS * 100)
            .await
            .err()
            .unwrap();
        assert_eq!(refusal, LimitExceeded::new("bulkhead", None));
        assert_eq!(start.elapsed(), MS * 100);
    }
}
