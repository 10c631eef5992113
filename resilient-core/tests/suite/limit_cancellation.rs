//! A call's permits come back however it ends: dropped while a later
//! limiter's async check is pending, while it waits for a permit, while
//! its attempt runs, or unwound by a panic in a limiter. Async tests run on
//! paused tokio time; the hammer polls by hand on a multi-thread runtime.

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use resilient_core::limit::{AcquireFuture, AdaptiveLimit, Bulkhead, Completion, Limiter};
use resilient_core::{Backoff, FakeClock, LimitExceeded, Operation, StopReason};

const MS: Duration = Duration::from_millis(1);

#[derive(Debug, Clone, PartialEq)]
enum CallError {
    Busy(&'static str),
    Transient,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<LimitExceeded> for CallError {
    fn from(refusal: LimitExceeded) -> Self {
        CallError::Busy(refusal.limiter())
    }
}

/// What a test limiter granted, got back, and saw abandoned.
#[derive(Debug, Default)]
struct Counts {
    granted: AtomicU64,
    returned: AtomicU64,
    /// Checks whose future was dropped before it answered.
    abandoned: AtomicU64,
}

impl Counts {
    const fn new() -> Self {
        Counts {
            granted: AtomicU64::new(0),
            returned: AtomicU64::new(0),
            abandoned: AtomicU64::new(0),
        }
    }

    fn in_flight(&self) -> u64 {
        self.granted.load(SeqCst) - self.returned.load(SeqCst)
    }
}

/// Counts a check as abandoned unless it is disarmed by answering.
struct Unanswered<'a>(Option<&'a AtomicU64>);

impl Unanswered<'_> {
    fn answered(mut self) {
        self.0 = None;
    }
}

impl Drop for Unanswered<'_> {
    fn drop(&mut self) {
        if let Some(abandoned) = self.0 {
            abandoned.fetch_add(1, SeqCst);
        }
    }
}

/// A limiter kept on a slow server: its async check takes 400 ms, as a
/// `RedisRateLimiter`'s does while Redis is paused; its blocking one
/// panics, as a limiter whose store fails might.
struct Slow(Counts);

impl Limiter for Slow {
    fn try_acquire(&self, _now: Instant) -> Result<(), LimitExceeded> {
        panic!("the limiter's store failed");
    }
    fn release(&self, _now: Instant, _rtt: Duration, _completion: Completion) {
        self.0.returned.fetch_add(1, SeqCst);
    }
    fn name(&self) -> &'static str {
        "slow"
    }
    fn try_acquire_async(&self, _now: Instant) -> Option<AcquireFuture<'_>> {
        Some(Box::pin(async move {
            let unanswered = Unanswered(Some(&self.0.abandoned));
            tokio::time::sleep(MS * 400).await;
            unanswered.answered();
            self.0.granted.fetch_add(1, SeqCst);
            Ok(())
        }))
    }
}

/// `slow` at `position` of three limiters, a bulkhead of two and an
/// adaptive limit of two around it.
fn around<'a>(
    slow: &'a Slow,
    bulkhead: &'a Bulkhead,
    adaptive: &'a AdaptiveLimit,
    position: usize,
) -> [&'a dyn Limiter; 3] {
    let mut others = [bulkhead as &dyn Limiter, adaptive].into_iter();
    std::array::from_fn(|index| {
        if index == position {
            slow
        } else {
            others.next().unwrap()
        }
    })
}

/// The guide's case at every position of the slow limiter: two calls cut
/// at 50 ms while its check is pending give back every permit, and the
/// calls after them are admitted.
#[tokio::test(start_paused = true)]
async fn calls_cut_while_a_check_is_pending_return_every_permit() {
    for position in 0..3 {
        let slow = Slow(Counts::new());
        let bulkhead = Bulkhead::new(2);
        let adaptive = AdaptiveLimit::aimd().initial(2).min(1).max(2);
        let limiters = around(&slow, &bulkhead, &adaptive, position);
        let call = || {
            Operation::new()
                .limit(&limiters)
                .run_async(async |_| Ok::<_, CallError>(()))
        };
        let cut = || tokio::time::timeout(MS * 50, call());
        let (first, second) = tokio::join!(cut(), cut());
        assert!(first.is_err() && second.is_err(), "both cut at 50 ms");
        assert_eq!(slow.0.abandoned.load(SeqCst), 2);
        assert_eq!(
            (
                bulkhead.available(),
                adaptive.in_flight(),
                slow.0.in_flight()
            ),
            (2, Some(0), 0),
            "position {position}: every permit back"
        );
        for _ in 0..3 {
            let later = call().await;
            assert!(later.is_ok(), "position {position}: {:?}", later.report());
        }
        assert_eq!((bulkhead.available(), adaptive.in_flight()), (2, Some(0)));
    }
}

/// A blocking call is abandoned only by a panic: a limiter whose check
/// panics at any position unwinds past the permits taken before it, which
/// come back.
#[test]
fn a_limiter_that_panics_returns_the_permits_taken_before_it() {
    for position in 0..3 {
        let slow = Slow(Counts::new());
        let bulkhead = Bulkhead::new(2);
        let adaptive = AdaptiveLimit::aimd().initial(2).min(1).max(2);
        let limiters = around(&slow, &bulkhead, &adaptive, position);
        let clock = FakeClock::new();
        let unwound = panic::catch_unwind(AssertUnwindSafe(|| {
            Operation::new()
                .clock(&clock)
                .limit(&limiters)
                .run(|_| Ok::<_, CallError>(()))
                .is_ok()
        }));
        assert!(unwound.is_err(), "the panic reaches the caller");
        assert_eq!(
            (bulkhead.available(), adaptive.in_flight()),
            (2, Some(0)),
            "position {position}: every permit back"
        );
    }
}

/// A call cut while it waits (`limit_wait`) for a permit held elsewhere
/// holds none of the others meanwhile, and takes none once it is gone.
#[tokio::test(start_paused = true)]
async fn a_call_cut_while_it_waits_for_a_permit_holds_none() {
    let first = Bulkhead::new(1);
    let busy = Bulkhead::new(1);
    let last = Bulkhead::new(1);
    let limiters: [&dyn Limiter; 3] = [&first, &busy, &last];
    busy.try_acquire(Instant::now()).unwrap();
    let call = Operation::new()
        .limit(&limiters)
        .limit_wait(Duration::from_secs(1))
        .run_async(async |_| Ok::<_, CallError>(()));
    assert!(tokio::time::timeout(MS * 50, call).await.is_err());
    busy.release(Instant::now(), Duration::ZERO, Completion::Unused);
    tokio::task::yield_now().await;
    let available = [&first, &busy, &last].map(|bulkhead| bulkhead.available());
    assert_eq!(available, [1, 1, 1]);
}

/// The random draws of the hammer: SplitMix64 of a counter, so that a run
/// is the same draws whatever the threads' order.
fn draw(counter: &AtomicU64) -> u64 {
    let mut z = counter
        .fetch_add(1, SeqCst)
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A limiter whose async check yields 0 to 3 times before it answers, and
/// refuses one check in eight.
struct Yielding {
    name: &'static str,
    counts: Counts,
    draws: AtomicU64,
}

impl Yielding {
    const fn new(name: &'static str) -> Self {
        Yielding {
            name,
            counts: Counts::new(),
            draws: AtomicU64::new(0),
        }
    }
}

impl Limiter for Yielding {
    fn try_acquire(&self, _now: Instant) -> Result<(), LimitExceeded> {
        self.counts.granted.fetch_add(1, SeqCst);
        Ok(())
    }
    fn release(&self, _now: Instant, _rtt: Duration, _completion: Completion) {
        self.counts.returned.fetch_add(1, SeqCst);
    }
    fn name(&self) -> &'static str {
        self.name
    }
    fn try_acquire_async(&self, _now: Instant) -> Option<AcquireFuture<'_>> {
        let drawn = draw(&self.draws);
        Some(Box::pin(async move {
            let unanswered = Unanswered(Some(&self.counts.abandoned));
            for _ in 0..drawn % 4 {
                tokio::task::yield_now().await;
            }
            unanswered.answered();
            if drawn % 8 == 7 {
                return Err(LimitExceeded::new(self.name, None));
            }
            self.counts.granted.fetch_add(1, SeqCst);
            Ok(())
        }))
    }
}

/// Polls `call` at most `polls` times, waking itself after each pending
/// poll so that the count, not a wake, decides when it is cut; then drops
/// it. `true` if it ended first.
struct Cut<F> {
    call: Pin<Box<F>>,
    polls: u64,
}

impl<F: Future> Future for Cut<F> {
    type Output = bool;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        if self.polls == 0 {
            return Poll::Ready(false);
        }
        self.polls -= 1;
        match self.call.as_mut().poll(cx) {
            Poll::Ready(_) => Poll::Ready(true),
            Poll::Pending => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }
}

static POOL: Bulkhead = Bulkhead::new(6).named("hammer.pool");
static CHECK: Yielding = Yielding::new("hammer.check");
static ADAPTIVE: AdaptiveLimit = AdaptiveLimit::aimd()
    .initial(5)
    .min(1)
    .max(8)
    .named("hammer.adaptive");
static QUOTA: Yielding = Yielding::new("hammer.quota");
static LAST: Bulkhead = Bulkhead::new(4).named("hammer.last");
static HAMMERED: [&dyn Limiter; 5] = [&POOL, &CHECK, &ADAPTIVE, &QUOTA, &LAST];

/// 10 000 calls through five limiters (two of them with async checks that
/// yield), each cut after a random number of polls (up to 11, or 2 000 for
/// a fifth of them), sixteen at a time on four threads: while a check is
/// pending, while waiting for a permit, while the attempt runs or between
/// retries. At the end every permit is back; some calls ended, some were
/// refused, and some were cut while each async check was pending.
#[test]
fn ten_thousand_calls_cut_at_random_points_return_every_permit() {
    const CALLS: u64 = 10_000;
    const TASKS: u64 = 16;
    // Enough for most calls to end, waits for a permit included; a call
    // waiting for a permit that never comes back is cut there too, so
    // that a leak fails the test on the counts rather than hanging it.
    const UNCUT: u64 = 2_000;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    static DRAWS: AtomicU64 = AtomicU64::new(1 << 32);
    static ENDED: AtomicU64 = AtomicU64::new(0);
    static REFUSED: AtomicU64 = AtomicU64::new(0);
    // The waits are bounded on this clock, which only the backoff's
    // sleeps move: a waiter waits for a release, never for time.
    let clock = FakeClock::new();
    runtime.block_on(async {
        let tasks: Vec<_> = (0..TASKS)
            .map(|_| {
                let clock = clock.clone();
                tokio::spawn(async move {
                    for _ in 0..CALLS / TASKS {
                        let drawn = draw(&DRAWS);
                        let call = Operation::new()
                            .max_attempts(3)
                            .backoff(Backoff::constant(MS))
                            .clock(clock.clone())
                            .limit(&HAMMERED)
                            .limit_wait(MS * 10)
                            .run_async(move |attempt| async move {
                                for _ in 0..(drawn >> 8) % 3 {
                                    tokio::task::yield_now().await;
                                }
                                if (drawn >> 16).is_multiple_of(3) && attempt.number() < 2 {
                                    return Err(CallError::Transient);
                                }
                                Ok(())
                            });
                        let call = async move {
                            let outcome = call.await;
                            if outcome.report().stop_reason() == StopReason::LimitExceeded {
                                REFUSED.fetch_add(1, SeqCst);
                            }
                        };
                        let polls = match drawn % 5 {
                            0 => UNCUT,
                            _ => (drawn >> 4) % 12,
                        };
                        let cut = Cut {
                            call: Box::pin(call),
                            polls,
                        };
                        if cut.await {
                            ENDED.fetch_add(1, SeqCst);
                        }
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    assert_eq!(POOL.available(), 6, "the pool's permits");
    assert_eq!(LAST.available(), 4, "the last bulkhead's permits");
    assert_eq!(
        ADAPTIVE.in_flight(),
        Some(0),
        "the adaptive limit's permits"
    );
    assert_eq!(
        CHECK.counts.in_flight(),
        0,
        "the first async check's permits"
    );
    assert_eq!(
        QUOTA.counts.in_flight(),
        0,
        "the second async check's permits"
    );
    let ended = ENDED.load(SeqCst);
    assert!(
        (1..CALLS).contains(&ended),
        "{ended} of {CALLS} calls ended, the rest were cut"
    );
    assert!(REFUSED.load(SeqCst) > 0, "some calls were refused");
    for check in [&CHECK, &QUOTA] {
        assert!(
            check.counts.abandoned.load(SeqCst) > 0,
            "some calls were cut while {} was pending",
            check.name
        );
    }
}
