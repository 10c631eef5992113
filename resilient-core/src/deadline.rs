//! Deadlines that reach the calls made inside an attempt.
//!
//! While an attempt's body runs (a blocking body, or each poll of an async
//! body's future), the deadline it was granted is this thread's
//! [`remaining`] time; a resilient call made inside it grants none of its
//! own attempts more, and starts none once nothing is left. A call inside
//! a call never outlives its caller's deadline.
//!
//! ```
//! use resilient::{FakeClock, Operation, TimedOut};
//! use std::time::Duration;
//!
//! #[derive(Debug, PartialEq)]
//! struct Late;
//! impl std::fmt::Display for Late {
//!     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str("late") }
//! }
//! impl From<TimedOut> for Late {
//!     fn from(_: TimedOut) -> Self { Late }
//! }
//!
//! let clock = FakeClock::new();
//! let outer = Operation::new()
//!     .clock(&clock)
//!     .budget(Duration::from_secs(2))
//!     .run(|_| {
//!         assert_eq!(resilient::deadline::remaining(), Some(Duration::from_secs(2)));
//!         clock.advance(Duration::from_millis(1500));
//!         // The inner call's own timeout is 10 s; it is granted what is left.
//!         let inner = Operation::new()
//!             .clock(&clock)
//!             .timeout(Duration::from_secs(10))
//!             .run(|attempt| Ok::<_, Late>(attempt.deadline()));
//!         inner.into_result()
//!     });
//! assert_eq!(outer.into_result(), Ok(Some(Duration::from_millis(500))));
//! assert_eq!(resilient::deadline::remaining(), None);
//! ```
//!
//! A task spawned from an attempt does not inherit its deadline: it may
//! outlive the attempt on purpose. [`carry`] hands it over where it should.
//!
//! The same context carries one more fact, for a call that holds the
//! retries of the calls made inside it ([`Nested::NoRetry`] on a call that
//! can retry): while any of its attempts runs, a call made inside does not
//! retry a failure of its own, and leaves it to that caller
//! ([`StopReason::LeftToCaller`](crate::StopReason::LeftToCaller)); nor do
//! the calls made inside that one. `header::HoldHeader` carries the same
//! fact to another service.

pub mod header;

use std::cell::{Cell, RefCell};
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::{Clock, Mark, ReadsSince, Timeline};

/// The deadline of the attempt whose body is running: granted `granted`
/// from `started`, on a clock's timeline.
#[derive(Clone)]
pub(crate) struct Scope {
    at: At,
    /// The clock of a timeline of its own ([`Timeline::Shared`]), which
    /// `at` names only as [`Line::Shared`].
    shared: Option<Arc<dyn ReadsSince>>,
}

/// A scope as the thread keeps it: `Copy` data in a `Cell`, so that
/// entering and leaving it, once per poll of every attempt with a
/// deadline, is a few moves, with no borrow flag to check and nothing to
/// drop.
#[derive(Debug, Clone, Copy)]
struct At {
    started: Mark,
    granted: Duration,
    line: Line,
}

/// A [`Timeline`] without its shared clock, which `SHARED` holds.
#[derive(Debug, Clone, Copy)]
enum Line {
    System,
    Tokio,
    #[cfg(feature = "quanta")]
    Tsc,
    Frozen,
    Shared,
}

impl Scope {
    /// The deadline of an attempt started at `started` (a mark of `clock`)
    /// and granted `granted`, if it was granted one.
    #[inline]
    pub(crate) fn of<C: Clock>(
        clock: &C,
        started: Mark,
        granted: Option<Duration>,
    ) -> Option<Self> {
        let granted = granted?;
        let (line, shared) = match clock.timeline() {
            Timeline::System => (Line::System, None),
            Timeline::Tokio => (Line::Tokio, None),
            #[cfg(feature = "quanta")]
            Timeline::Tsc => (Line::Tsc, None),
            Timeline::Frozen => (Line::Frozen, None),
            Timeline::Shared(clock) => (Line::Shared, Some(clock)),
        };
        let at = At {
            started,
            granted,
            line,
        };
        Some(Scope { at, shared })
    }

    /// The scope current on this thread, if any.
    fn current() -> Option<Self> {
        let at = CURRENT.get()?;
        let shared = match at.line {
            Line::Shared => SHARED.with_borrow(Clone::clone),
            _ => None,
        };
        Some(Scope { at, shared })
    }

    /// Makes this scope the thread's, and says what was current before.
    fn enter(self) -> Before {
        Before {
            at: CURRENT.replace(Some(self.at)),
            shared: self.shared.map(|clock| SHARED.replace(Some(clock))),
        }
    }
}

impl At {
    /// What is left of it now.
    fn left(self) -> Duration {
        let timeline = match self.line {
            Line::System => Timeline::System,
            Line::Tokio => Timeline::Tokio,
            #[cfg(feature = "quanta")]
            Line::Tsc => Timeline::Tsc,
            Line::Frozen => Timeline::Frozen,
            Line::Shared => match SHARED.with_borrow(Clone::clone) {
                Some(clock) => Timeline::Shared(clock),
                None => Timeline::Frozen,
            },
        };
        let spent = Duration::from_nanos(timeline.nanos_since(self.started));
        self.granted.saturating_sub(spent)
    }
}

/// What [`Scope::enter`] replaced, put back by [`Restore`].
struct Before {
    at: Option<At>,
    /// The shared clock before, if the scope entered had one.
    shared: Option<Option<Arc<dyn ReadsSince>>>,
}

thread_local! {
    static CURRENT: Cell<Option<At>> = const { Cell::new(None) };
    /// The shared clock of the current scope, while its line is
    /// [`Line::Shared`] (a [`FakeClock`](crate::FakeClock)'s); whatever
    /// it holds otherwise is not read.
    static SHARED: RefCell<Option<Arc<dyn ReadsSince>>> = const { RefCell::new(None) };
    /// Whether a call around the running body holds the retries of the
    /// calls made inside it (`Nested::NoRetry`, and retries to make).
    static CALLER_RETRIES: Cell<bool> = const { Cell::new(false) };
}

/// What a call does with a retryable failure of the calls made inside its
/// attempts (set with `nested` on the attribute, [`Operation`](crate::Operation),
/// [`RetryPolicy`](crate::RetryPolicy) and the tower layer).
///
/// Three layers of calls that each make 4 attempts turn one failure at
/// the bottom into 4 × 4 × 4 = 64 calls. With [`NoRetry`](Nested::NoRetry)
/// on a call that can retry (retries above 0), a call made inside any of
/// its attempts, its last one included, does not retry: it fails with its
/// own error after one attempt, its report's stop reason
/// [`LeftToCaller`](crate::StopReason::LeftToCaller), and the call that
/// asked retries it, or, on its last attempt, fails with it. A call made
/// inside that inner call is held too: only the outermost call that
/// retries does, and the bottom sees one request per attempt of the top,
/// 4 instead of 64. On a call without retries, `NoRetry` changes nothing.
///
/// ```
/// use resilient::deadline::Nested;
/// use resilient::{Backoff, FakeClock, Operation, StopReason};
/// use std::cell::Cell;
///
/// let clock = FakeClock::new();
/// let calls = Cell::new(0);
/// let mut inner_stops = Vec::new();
/// let outer = Operation::new()
///     .clock(&clock)
///     .max_attempts(2)
///     .backoff(Backoff::none())
///     .nested(Nested::NoRetry)
///     .run(|_| {
///         let inner = Operation::new()
///             .clock(&clock)
///             .max_attempts(2)
///             .backoff(Backoff::none())
///             .run(|_| {
///                 calls.set(calls.get() + 1);
///                 Err::<(), _>("down")
///             });
///         inner_stops.push(inner.report().stop_reason());
///         inner.into_result()
///     });
/// assert_eq!(outer.into_result(), Err("down"));
/// // Both inner calls left their retry to the outer one, the one made on
/// // its last attempt too: one call per outer attempt.
/// assert_eq!(inner_stops, [StopReason::LeftToCaller; 2]);
/// assert_eq!(calls.get(), 2);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Nested {
    /// Calls made inside retry as their own settings say: the default.
    #[default]
    Retry,
    /// Calls made inside any attempt of this call, if it can retry, don't
    /// retry, nor do the calls made inside them: they leave the retry to
    /// this call.
    NoRetry,
}

/// Whether a call around the body running on this thread holds the
/// retries of the calls made inside it ([`Nested::NoRetry`]): read by a
/// call only once it would retry a failure, and by a client that sends
/// the hold downstream ([`header::HoldHeader`]).
#[inline]
pub(crate) fn caller_retries() -> bool {
    CALLER_RETRIES.get()
}

/// Inside an attempt, the time left of its deadline: `min(timeout,
/// budget - elapsed)` as it was granted, less the time spent since, and
/// no more than the attempt around it (if any) has left. `None` outside
/// any attempt, or inside one without a deadline.
///
/// ```
/// use resilient::deadline;
///
/// assert_eq!(deadline::remaining(), None);
/// ```
pub fn remaining() -> Option<Duration> {
    CURRENT.get().map(At::left)
}

/// Whether an attempt's body is running on this thread with a deadline:
/// then a call made here inherits it, and takes the engine's general path,
/// which grants it.
#[inline]
pub(crate) fn enclosed() -> bool {
    CURRENT.get().is_some()
}

/// Runs `f` with `scope` as this thread's deadline, and, if
/// `caller_retries`, with the calls inside told that a caller holds their
/// retries; what was current before back afterwards, however `f`
/// ends. Without either, `f` runs as it is: an attempt without a deadline
/// has none to inherit either, and one that doesn't hold the retries of
/// the calls inside leaves them what the calls around it said.
#[inline]
pub(crate) fn within<R>(scope: Option<Scope>, caller_retries: bool, f: impl FnOnce() -> R) -> R {
    if scope.is_none() && !caller_retries {
        return f();
    }
    let _back = Restore {
        scope: scope.map(Scope::enter),
        caller_retries: caller_retries.then(|| CALLER_RETRIES.replace(true)),
    };
    f()
}

/// What [`within`] does around `f`, as a guard: `scope` made this
/// thread's deadline and, if `caller_retries`, the calls inside told that
/// a caller holds their retries, until the guard drops; nothing without
/// either. For a blocking attempt, whose body is then called as it is
/// rather than through one more closure compiled for every body.
///
/// [`within`] writes the same lines itself rather than calling this: made
/// of this guard, it lets LLVM inline it into every async attempt's poll,
/// and one more async function then costs rustc 77 million instructions
/// instead of 67 (`python3 benches/compile_cost.py --instructions`).
#[inline]
pub(crate) fn entered(scope: Option<Scope>, caller_retries: bool) -> Option<Restore> {
    if scope.is_none() && !caller_retries {
        return None;
    }
    Some(Restore {
        scope: scope.map(Scope::enter),
        caller_retries: caller_retries.then(|| CALLER_RETRIES.replace(true)),
    })
}

/// Puts what was current back when dropped: the scope and the caller's
/// retry, each where it was replaced.
pub(crate) struct Restore {
    scope: Option<Before>,
    caller_retries: Option<bool>,
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(before) = self.scope.take() {
            CURRENT.set(before.at);
            if let Some(shared) = before.shared {
                // The clock replaced drops after the borrow ends.
                let _within = SHARED.replace(shared);
            }
        }
        if let Some(before) = self.caller_retries {
            CALLER_RETRIES.set(before);
        }
    }
}

/// `future`, run with a deadline of `budget` from now on `clock`, as if an
/// attempt had been granted it (never more than the deadline around it has
/// left): [`remaining`] reads it, and every resilient call the future
/// makes grants its attempts no more. For a server that takes its budget
/// from the request, with [`header::budget_from`]. It does not cut
/// `future` itself: the calls it makes end by it.
///
/// ```
/// use resilient::deadline::{self, header::{Format, budget_from}};
/// use resilient::{Operation, TokioClock};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// // The caller said it has 800 ms left; this server allows at most 5 s.
/// let budget = budget_from(Some(b"800"), Format::Millis, Duration::from_secs(5));
/// let seen = deadline::with_budget(&TokioClock, budget, async {
///     tokio::time::sleep(Duration::from_millis(300)).await;
///     // A call with a 10 s timeout is granted what the request has left.
///     Operation::new()
///         .clock(TokioClock)
///         .timeout(Duration::from_secs(10))
///         .run_async(async |_| Ok::<_, resilient::TimedOut>(deadline::remaining()))
///         .await
///         .into_result()
/// })
/// .await;
/// assert_eq!(seen, Ok(Some(Duration::from_millis(500))));
/// # }
/// ```
pub fn with_budget<C: Clock, F: Future>(
    clock: &C,
    budget: Duration,
    future: F,
) -> impl Future<Output = F::Output> {
    polled_within(budget_scope(clock, budget), false, future)
}

/// The deadline [`with_budget`] runs its future within: `budget` from now
/// on `clock`, never more than the deadline around it has left.
pub(crate) fn budget_scope<C: Clock>(clock: &C, budget: Duration) -> Option<Scope> {
    let granted = remaining().map_or(budget, |left| left.min(budget));
    Scope::of(clock, clock.mark(), Some(granted))
}

/// `future`, run within the deadline current where `carry` is called, and
/// with the retry its callers hold ([`Nested::NoRetry`]): for a task
/// spawned from an attempt that should not outlive it.
///
/// ```
/// use resilient::{Operation, TokioClock};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let outcome = Operation::new()
///     .clock(TokioClock)
///     .budget(Duration::from_secs(3))
///     .run_async(async |_| {
///         let carried = tokio::spawn(resilient::deadline::carry(async {
///             resilient::deadline::remaining()
///         }));
///         let bare = tokio::spawn(async { resilient::deadline::remaining() });
///         Ok::<_, String>((carried.await.unwrap(), bare.await.unwrap()))
///     })
///     .await;
/// assert_eq!(outcome.into_result(), Ok((Some(Duration::from_secs(3)), None)));
/// # }
/// ```
pub fn carry<F: Future>(future: F) -> impl Future<Output = F::Output> {
    let caller_retries = caller_retries();
    polled_within(Scope::current(), caller_retries, future)
}

/// `future`, each poll of it run [`within`] `scope` and `caller_retries`.
pub(crate) async fn polled_within<F: Future>(
    scope: Option<Scope>,
    caller_retries: bool,
    future: F,
) -> F::Output {
    let mut future = pin!(future);
    poll_fn(|cx| within(scope.clone(), caller_retries, || future.as_mut().poll(cx))).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{SystemClock, Untimed};
    use crate::testing::FakeClock;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A scope on a clock of its own inside another's reads its own clock,
    /// and leaving it puts back the one around it, clock and all; past the
    /// last, nothing is kept.
    #[test]
    fn each_scope_reads_its_own_clock_and_leaving_it_puts_back_the_one_around() {
        let outer = FakeClock::new();
        let inner = FakeClock::new();
        within(
            Scope::of(&outer, outer.mark(), Some(ms(2000))),
            false,
            || {
                outer.advance(ms(500));
                assert_eq!(remaining(), Some(ms(1500)));
                within(
                    Scope::of(&inner, inner.mark(), Some(ms(1000))),
                    false,
                    || {
                        outer.advance(ms(300));
                        inner.advance(ms(100));
                        assert_eq!(remaining(), Some(ms(900)));
                        let frozen = Untimed(SystemClock);
                        within(
                            Scope::of(&frozen, frozen.mark(), Some(ms(50))),
                            false,
                            || {
                                inner.advance(ms(100));
                                assert_eq!(remaining(), Some(ms(50)));
                            },
                        );
                        assert_eq!(remaining(), Some(ms(800)));
                    },
                );
                assert_eq!(remaining(), Some(ms(1200)));
            },
        );
        assert_eq!(remaining(), None);
        assert!(SHARED.with_borrow(Option::is_none));
    }

    /// A scope left by a panic is put back too.
    #[test]
    fn a_panic_inside_a_scope_leaves_none_behind() {
        let clock = FakeClock::new();
        let caught = std::panic::catch_unwind(|| {
            within(Scope::of(&clock, clock.mark(), Some(ms(10))), true, || {
                assert!(caller_retries());
                panic!("the body panicked")
            })
        });
        assert!(caught.is_err());
        assert_eq!(remaining(), None);
        assert!(!caller_retries());
        assert!(SHARED.with_borrow(Option::is_none));
    }
}
