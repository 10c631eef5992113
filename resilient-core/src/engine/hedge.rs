//! Hedged attempts, against tail latency: when an attempt hasn't finished
//! after the hedge delay, another copy starts beside it, and the first to
//! succeed wins; the others are dropped.
//!
//! A round is one primary attempt and its hedges. It ends as soon as one
//! attempt succeeds, or fails in a way no other attempt of the round could
//! change (an error that is not retried): the others are dropped, and that
//! result ends the call, as it would without hedging. Otherwise it fails
//! when its last attempt does, and the usual rules decide whether (and
//! after which wait) another round starts. Each hedged attempt has its own
//! `Attempt` (number, deadline), is counted in `attempt_count` but never in
//! `retry_count`, and is recorded with [`AttemptKind::Hedge`].
//!
//! A round's primary attempt runs pinned in the round's own future, raced
//! against the hedge delay; the report, the list of attempts in flight and
//! the hedges' boxed futures are made only when the first hedge starts.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::Duration;

use super::attempt::run::AttemptContext;
use super::execution::{Execution, Opened};
use super::gates::{Admission, Permits, Refusal};
use super::hedge_window::HedgeWindow;
use super::hooks::HookSet;
use super::operation::Operation;
use super::plan::Plan;
use crate::attempt::Attempt;
use crate::clock::Clock;
use crate::report::{AttemptKind, Outcome};

/// An [`Operation`] whose async attempts are hedged: built by
/// [`Operation::hedge`], run with [`run_async`](Hedged::run_async).
///
/// Hedged attempts run at the same time, so the closure that makes them is
/// a `Fn`: an `async` closure that borrows what it uses.
///
/// ```
/// use resilient::{AttemptKind, Operation, TokioClock};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let start = tokio::time::Instant::now();
/// let outcome = Operation::new()
///     .clock(TokioClock)
///     .hedge(Duration::from_secs(1))
///     .run_async(async |attempt| {
///         // The first attempt is stuck for 10 s; its hedge answers in 0.5 s.
///         let took = if attempt.number() == 1 { 10_000 } else { 500 };
///         tokio::time::sleep(Duration::from_millis(took)).await;
///         Ok::<_, String>(attempt.number())
///     })
///     .await;
/// assert_eq!(outcome.result(), &Ok(2));
/// assert_eq!(start.elapsed(), Duration::from_millis(1500));
/// assert_eq!(outcome.report().retry_count(), 0);
/// assert_eq!(outcome.report().attempts()[1].kind(), AttemptKind::Hedge);
/// # }
/// ```
#[must_use = "an operation does nothing until it is run"]
pub struct Hedged<'b, T, E, C, H> {
    pub(super) op: Operation<'b, T, E, C, H>,
    /// The delay in nanoseconds (saturated): a `Duration`'s padding would
    /// make room for the window in every hedged call's future.
    delay: u64,
    max_hedges: u32,
    /// Where the delay is measured, and the cap on hedges kept.
    window: Option<&'b HedgeWindow>,
}

impl<'b, T, E, C, H> Operation<'b, T, E, C, H> {
    /// Hedges each async attempt: if it hasn't finished after `delay`,
    /// one more attempt starts beside it, up to
    /// [`max_hedges`](Hedged::max_hedges) (default 1) extra attempts in
    /// flight. The breaker and the throttle are consulted before each hedge
    /// starts.
    ///
    /// Until a hedge starts, a hedged call costs what an unhedged one
    /// does: an attempt that ends before the delay runs without an
    /// allocation, its timer made only if it is still running after its
    /// first poll. A round in which a hedge starts allocates its report
    /// and records, the list of its attempts in flight, a box for each
    /// hedge's future, and the text that records an attempt dropped when
    /// another won: six allocations for one hedge that beats its primary.
    pub fn hedge(self, delay: Duration) -> Hedged<'b, T, E, C, H> {
        Hedged {
            op: self,
            delay: crate::time::duration_nanos(delay),
            max_hedges: 1,
            window: None,
        }
    }
}

impl<'b, T, E, C: Clock, H: HookSet<T, E>> Hedged<'b, T, E, C, H> {
    /// How many hedged attempts may run beside an attempt at once
    /// (default 1; 0 turns hedging off).
    pub fn max_hedges(mut self, max_hedges: u32) -> Self {
        self.max_hedges = max_hedges;
        self
    }

    /// Takes the hedge delay from `window`: the measured percentile of the
    /// latencies of the successful attempts of every run that shares it,
    /// the delay given to [`hedge`](Operation::hedge) until enough were
    /// measured. A run hedges only while the hedges stay within the
    /// window's `max_extra_load` of its runs; its hedges are reserved as
    /// it starts, so the cap holds while attempts hang. See
    /// [`HedgeWindow`].
    pub fn window(mut self, window: &'b HedgeWindow) -> Self {
        self.window = Some(window);
        self
    }

    /// Runs the hedged attempts made by `f` until one succeeds or the
    /// operation stops.
    // Not an `async fn`: see the block below.
    #[allow(clippy::manual_async_fn)]
    pub fn run_async<F, Fut>(self, f: F) -> impl Future<Output = Outcome<T, E>>
    where
        F: Fn(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        // A block rather than an `async fn`, which would keep the operation
        // in its future twice: as the argument, and as the local it moves to.
        async move {
            match self.run_primary_async(f).await {
                Ok(outcome) => outcome,
                Err(exec) => exec.finish(),
            }
        }
    }

    /// Runs the hedged primary attempts: the outcome if one succeeded, or
    /// else the failed execution, ready for fallbacks and
    /// [`finish`](Execution::finish).
    // The large `Err` is the failure path, moved once to the fallbacks.
    #[allow(clippy::result_large_err)]
    pub async fn run_primary_async<F, Fut>(
        &self,
        f: F,
    ) -> Result<Outcome<T, E>, Execution<'_, 'b, T, E, C, H>>
    where
        F: Fn(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut exec = self.op.start();
        // `None`: the window let this run no hedge.
        let delay = self.measured().map(|delay| exec.hedge_delay(delay));
        while exec.next_async().await {
            // Admitted here, not in the round: the wait for admission and
            // the round are then never in this future at once.
            let at = exec.admission(AttemptKind::Primary);
            let plan = exec.plan();
            let admitted = plan.gates.admit_async(&plan.clock, &at).await;
            if let Some(primary) = begin_hedged(&mut exec, AttemptKind::Primary, admitted) {
                let (delay, max_hedges) = match delay {
                    Some(delay) => (delay, self.max_hedges),
                    None => (Duration::MAX, 0),
                };
                hedged_round(&mut exec, primary, &f, delay, max_hedges).await;
            }
        }
        let started = exec.hedges_started();
        let settled = exec.settled();
        if let Some(window) = self.window {
            // What `begin` reserved: the run's hedges, if it may hedge.
            let reserved = if delay.is_some() { self.max_hedges } else { 0 };
            let now = self.op.plan.clock.now_nanos();
            let succeeded = settled.as_ref().ok().map(Outcome::report);
            window.end(now, reserved, started, succeeded);
        }
        settled
    }

    /// The run's hedge delay: the window's, which reserves the run's
    /// hedges, or `None` if it has none to spare; the fixed one without a
    /// window.
    fn measured(&self) -> Option<Duration> {
        let Some(window) = self.window else {
            return Some(Duration::from_nanos(self.delay));
        };
        let now = self.op.plan.clock.now_nanos();
        window.begin(now, Duration::from_nanos(self.delay), self.max_hedges)
    }
}

/// An attempt in flight beside others.
struct Running<'p, 'b, A, T, E> {
    work: Work<'p, A>,
    /// Where its record is in the report.
    index: usize,
    permits: Permits<'b, T, E>,
}

/// The work of an attempt in flight: the primary's stays pinned where the
/// round made it, a hedge's is boxed.
enum Work<'p, A> {
    Primary(Pin<&'p mut A>),
    Hedge(Pin<Box<A>>),
}

impl<A: Future> Work<'_, A> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<A::Output> {
        match self {
            Work::Primary(work) => work.as_mut().poll(cx),
            Work::Hedge(work) => work.as_mut().poll(cx),
        }
    }
}

/// What woke the round up.
enum Woken<R> {
    /// The attempt at this position of the running list ended.
    Ended(usize, R),
    /// The hedge delay passed.
    Hedge,
}

// The round's steps: free functions over the execution, which they drive
// through its own methods.

/// Begins an attempt of `kind` that its gates answered with
/// `admitted`; `None` if it doesn't start.
fn begin_hedged<'b, T, E, C: Clock, H: HookSet<T, E>>(
    exec: &mut Execution<'_, 'b, T, E, C, H>,
    kind: AttemptKind,
    admitted: Result<Permits<'b, T, E>, Refusal<E>>,
) -> Option<Opened<'b, T, E>> {
    exec.open(kind, admitted)
}

/// Asks the gates, limiters among them, to admit a hedge without waiting
/// for room: a hedge starts now or not at all, since waiting would hold
/// back the attempts already running. A limiter's check may take a round
/// trip (`RedisRateLimiter`): it is made asynchronously, never on the
/// runtime's thread, with the `running` attempts polled beside it; if one
/// of them ends first, the admission is dropped (its permits go back) and
/// the attempt's end comes back as `Err`.
async fn admit_hedge<'b, T, E, C: Clock, H, A>(
    plan: &Plan<'b, T, E, C, H>,
    mut at: Admission,
    running: &mut [Running<'_, 'b, A, T, E>],
) -> Result<Result<Permits<'b, T, E>, Refusal<E>>, Woken<A::Output>>
where
    A: Future,
{
    at.remaining = Some(Duration::ZERO);
    let mut admission = pin!(plan.gates.admit_async(&plan.clock, &at));
    poll_fn(|cx| {
        if let Poll::Ready(admitted) = admission.as_mut().poll(cx) {
            return Poll::Ready(Ok(admitted));
        }
        for (position, attempt) in running.iter_mut().enumerate() {
            if let Poll::Ready(result) = attempt.work.poll(cx) {
                return Poll::Ready(Err(Woken::Ended(position, result)));
            }
        }
        Poll::Pending
    })
    .await
}

/// Runs one round from its `primary` attempt: a hedge starts each
/// time `delay` passes without an end while fewer than
/// `1 + max_hedges` run.
///
/// Until the first hedge starts, the primary runs alone, raced against
/// the hedge delay right here, as an unhedged attempt runs against its
/// deadline: a round that ends before the delay allocates nothing, and
/// its timer is made only if the attempt is still running after its
/// first poll. The first hedge makes the report (with the primary's
/// record and its own) and the list of attempts in flight, and each
/// hedge's future is boxed.
async fn hedged_round<'b, T, E, C: Clock, H: HookSet<T, E>, F, Fut>(
    exec: &mut Execution<'_, 'b, T, E, C, H>,
    primary: Opened<'b, T, E>,
    f: &F,
    delay: Duration,
    max_hedges: u32,
) where
    F: Fn(Attempt) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let plan = exec.plan();
    let work = |context: AttemptContext<T, E>| context.run_async(plan, f);
    let Opened {
        context,
        index,
        permits,
    } = primary;
    let started = context.grant.started;
    let mut primary = pin!(work(context));
    let mut timer = pin!(None);
    let alone = poll_fn(|cx| {
        if let Poll::Ready(result) = primary.as_mut().poll(cx) {
            return Poll::Ready(Some(result));
        }
        if max_hedges == 0 {
            return Poll::Pending;
        }
        if timer.is_none() {
            // Counted from the attempt's start, not from its first poll.
            let spent = Duration::from_nanos(plan.clock.nanos_since(started));
            timer.set(Some(plan.clock.deadline_async(delay.saturating_sub(spent))));
        }
        match timer.as_mut().as_pin_mut() {
            Some(timer) => timer.poll(cx).map(|()| None),
            None => Poll::Pending,
        }
    })
    .await;
    if let Some(result) = alone {
        exec.read_clock();
        exec.settle(index, result, permits, true);
        return;
    }
    let limit = 1 + usize::try_from(max_hedges).unwrap_or(usize::MAX);
    // Room for every attempt the round may run, up to a few: one
    // allocation for the usual single hedge.
    let mut running = Vec::with_capacity(limit.min(8));
    running.push(Running {
        work: Work::Primary(primary.as_mut()),
        index,
        permits,
    });
    let mut woken = Woken::Hedge;
    loop {
        match woken {
            Woken::Ended(position, result) => {
                let ended = running.swap_remove(position);
                exec.read_clock();
                let last = running.is_empty();
                exec.settle(ended.index, result, ended.permits, last);
                if exec.stopped() {
                    // A success, or a failure that ends the call: the
                    // others are dropped.
                    for other in running {
                        exec.cancel(other.index, other.permits);
                    }
                    return;
                }
                if last {
                    return;
                }
            }
            Woken::Hedge => {
                timer.set(None);
                // Without limiters every gate answers at once; a
                // limiter's check is made asynchronously, boxed, so that
                // the round's future keeps no room for it.
                let admitted = match (exec.allows_retry(), plan.gates.limit.is_some()) {
                    (false, _) => None,
                    (true, false) => Some(Ok(plan
                        .gates
                        .admit(&plan.clock, &exec.admission(AttemptKind::Hedge)))),
                    (true, true) => {
                        let at = exec.admission(AttemptKind::Hedge);
                        Some(Box::pin(admit_hedge(plan, at, &mut running)).await)
                    }
                };
                let ended = match admitted {
                    Some(Ok(admitted)) => {
                        if let Some(hedge) = begin_hedged(exec, AttemptKind::Hedge, admitted) {
                            running.push(Running {
                                work: Work::Hedge(Box::pin(work(hedge.context))),
                                index: hedge.index,
                                permits: hedge.permits,
                            });
                        }
                        None
                    }
                    // An attempt ended while the hedge was being admitted:
                    // the hedge is not started, and the attempt's end is
                    // dealt with first.
                    Some(Err(first)) => Some(first),
                    None => None,
                };
                if running.len() < limit {
                    timer.set(Some(plan.clock.deadline_async(delay)));
                }
                if let Some(first) = ended {
                    woken = first;
                    continue;
                }
            }
        }
        woken = poll_fn(|cx| {
            for (position, attempt) in running.iter_mut().enumerate() {
                if let Poll::Ready(result) = attempt.work.poll(cx) {
                    return Poll::Ready(Woken::Ended(position, result));
                }
            }
            match timer.as_mut().as_pin_mut().map(|timer| timer.poll(cx)) {
                Some(Poll::Ready(())) => Poll::Ready(Woken::Hedge),
                _ => Poll::Pending,
            }
        })
        .await;
    }
}
