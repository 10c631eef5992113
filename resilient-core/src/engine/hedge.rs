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

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use super::execution::Execution;
use super::gates::Permits;
use super::hooks::HookSet;
use super::operation::Operation;
use super::race::gated;
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
    delay: Duration,
    max_hedges: u32,
}

impl<'b, T, E, C, H> Operation<'b, T, E, C, H> {
    /// Hedges each async attempt: if it hasn't finished after `delay`,
    /// one more attempt starts beside it, up to
    /// [`max_hedges`](Hedged::max_hedges) (default 1) extra attempts in
    /// flight. The breaker and the throttle are consulted before each hedge
    /// starts.
    pub fn hedge(self, delay: Duration) -> Hedged<'b, T, E, C, H> {
        Hedged {
            op: self,
            delay,
            max_hedges: 1,
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

    /// Runs the hedged attempts made by `f` until one succeeds or the
    /// operation stops.
    pub async fn run_async<F, Fut>(self, f: F) -> Outcome<T, E>
    where
        F: Fn(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        match self.run_primary_async(f).await {
            Ok(outcome) => outcome,
            Err(exec) => exec.finish(),
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
        exec.keep_every_record();
        while exec.next_async().await {
            exec.hedged_round(&f, self.delay, self.max_hedges).await;
        }
        if exec.succeeded() {
            Ok(exec.finish())
        } else {
            Err(exec)
        }
    }
}

/// One attempt in flight.
struct Running<'b, A, T, E> {
    work: Pin<Box<A>>,
    /// Where the attempt's record is in the report.
    index: usize,
    permits: Permits<'b, T, E>,
}

/// What woke the round up.
enum Woken<R> {
    /// The attempt at this position of the running list ended.
    Ended(usize, R),
    /// The hedge delay passed.
    Hedge,
}

impl<'b, T, E, C: Clock, H: HookSet<T, E>> Execution<'_, 'b, T, E, C, H> {
    /// Runs one round: a primary attempt, and a hedge each time `delay`
    /// passes without an end while fewer than `1 + max_hedges` run.
    async fn hedged_round<F, Fut>(&mut self, f: &F, delay: Duration, max_hedges: u32)
    where
        F: Fn(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let plan = self.plan();
        let start = async |exec: &mut Self, kind| {
            let at = exec.admission(kind);
            // A hedge starts now or not at all: waiting for room would
            // stall the attempts already running, which are not polled
            // meanwhile.
            let admitted = match kind {
                AttemptKind::Hedge => plan.gates.admit(&plan.clock, &at),
                _ => plan.gates.admit_async(&plan.clock, &at).await,
            };
            let (attempt, index, mut permits) = exec.begin(kind, admitted)?;
            let started = crate::clock::Mark::nanos(exec.latest_reading());
            let injection = exec.inject(attempt, &mut permits, index);
            let work = Box::pin(gated(
                &plan.clock,
                attempt,
                started,
                plan.timed_out,
                injection,
                f,
            ));
            Some(Running {
                work,
                index,
                permits,
            })
        };
        let Some(first) = start(self, AttemptKind::Primary).await else {
            return;
        };
        let mut running = vec![first];
        let limit = 1 + usize::try_from(max_hedges).unwrap_or(usize::MAX);
        let mut timer = (running.len() < limit).then(|| Box::pin(plan.clock.deadline_async(delay)));
        loop {
            let woken = poll_fn(|cx| {
                for (position, attempt) in running.iter_mut().enumerate() {
                    if let Poll::Ready(result) = attempt.work.as_mut().poll(cx) {
                        return Poll::Ready(Woken::Ended(position, result));
                    }
                }
                match timer.as_mut().map(|timer| timer.as_mut().poll(cx)) {
                    Some(Poll::Ready(())) => Poll::Ready(Woken::Hedge),
                    _ => Poll::Pending,
                }
            })
            .await;
            match woken {
                Woken::Ended(position, result) => {
                    let ended = running.swap_remove(position);
                    self.read_clock();
                    let last = running.is_empty();
                    self.settle(ended.index, result, ended.permits, last);
                    if self.stopped() {
                        // A success, or a failure that ends the call: the
                        // others are dropped.
                        for other in running {
                            self.cancel(other.index, other.permits);
                        }
                        return;
                    }
                    if last {
                        return;
                    }
                }
                Woken::Hedge => {
                    timer = None;
                    if self.allows_retry()
                        && let Some(hedge) = start(self, AttemptKind::Hedge).await
                    {
                        running.push(hedge);
                    }
                    if running.len() < limit {
                        timer = Some(Box::pin(plan.clock.deadline_async(delay)));
                    }
                }
            }
        }
    }
}
