//! Idempotent operations: the whole run (retries, breaker, hedges,
//! fallbacks) under an idempotency key, through a store
//! ([`idempotency`](crate::idempotency)).
//!
//! A stored success is replayed without running anything; a call that
//! finds the key in flight elsewhere waits for that run (bounded by the
//! operation's `budget`, which covers the wait and whatever runs after it)
//! and returns its value; otherwise this call claims the key and runs. Only
//! a success of the primary attempts is stored: a fallback's value is
//! returned, not stored. Every call's report, whichever of these happened,
//! says so ([`ExecutionReport::idempotency`],
//! [`ExecutionReport::idempotency_stored`]), reaches the report hook once
//! and is counted by the metrics.

use std::future::Future;
use std::hash::Hash;
use std::time::Duration;

use super::events;
use super::hedge::Hedged;
use super::hooks::HookSet;
use super::operation::Operation;
use crate::attempt::Attempt;
use crate::chaos::Injection;
use crate::clock::Clock;
use crate::idempotency::{
    Acquired, DEFAULT_TTL, Held, HeldInMemory, IdempotencyConflict, IdempotencyConflictFailure,
    IdempotencyFailure, IdempotencyStatus, IdempotencyStore, IdempotencyStored, MemoryStore,
    Refused, Request, acquire, acquire_blocking, fingerprint_of, run_held, run_held_blocking,
};
use crate::report::{ExecutionReport, Outcome, StopReason};
use crate::time::Nanos;

/// An [`Operation`] run under an idempotency key: built by
/// [`Operation::idempotent`], run with [`run_async`](Idempotent::run_async)
/// (any store) or [`run`](Idempotent::run) (the in-memory store, for
/// blocking code).
///
/// ```
/// use resilient::Operation;
/// use resilient::idempotency::{IdempotencyInFlight, IdempotencyStatus, MemoryStore, StoreError};
///
/// #[derive(Debug, PartialEq)]
/// struct PaymentError(String);
/// impl std::fmt::Display for PaymentError {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         f.write_str(&self.0)
///     }
/// }
/// impl From<IdempotencyInFlight> for PaymentError {
///     fn from(e: IdempotencyInFlight) -> Self { PaymentError(e.to_string()) }
/// }
/// impl From<StoreError> for PaymentError {
///     fn from(e: StoreError) -> Self { PaymentError(e.to_string()) }
/// }
///
/// static PAYMENTS: MemoryStore<String> = MemoryStore::new();
///
/// let charge = || {
///     Operation::new()
///         .max_attempts(3)
///         .idempotent(&PAYMENTS, "order-42")
///         .run(|_| Ok::<_, PaymentError>("charged 9.99".to_owned()))
/// };
/// let first = charge();
/// assert_eq!(first.report().idempotency(), Some(IdempotencyStatus::Executed));
/// let again = charge();
/// assert_eq!(again.result(), &Ok("charged 9.99".to_owned()));
/// assert_eq!(again.report().idempotency(), Some(IdempotencyStatus::Replayed));
/// assert_eq!(again.report().attempt_count(), 0);
/// ```
#[must_use = "an operation does nothing until it is run"]
pub struct Idempotent<'s, 'b, S, T, E, C, H> {
    call: IdempotentCall<'s, Operation<'b, T, E, C, H>, S, E>,
}

impl<'b, T, E, C: Clock, H> Operation<'b, T, E, C, H> {
    /// Runs the operation under `key` in `store`: at most one primary run
    /// per key per TTL (24 h by default), as far as the store guarantees
    /// it. See [`Idempotent`].
    pub fn idempotent<'s, S>(
        self,
        store: &'s S,
        key: impl Into<String>,
    ) -> Idempotent<'s, 'b, S, T, E, C, H> {
        Idempotent {
            call: IdempotentCall::new(self, store, key, DEFAULT_TTL),
        }
    }
}

impl<S, T, E, C: Clock, H: HookSet<T, E>> Idempotent<'_, '_, S, T, E, C, H>
where
    E: IdempotencyFailure,
{
    /// How long a success is replayed (default 24 h). Zero stores nothing
    /// for later calls, but calls in flight at the same time still join.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.call.ttl = ttl;
        self
    }

    /// Fails a call that reuses the key with other parameters, while the
    /// first is in flight or stored, with `E::from(IdempotencyConflict)`,
    /// rather than return the first call's value. `parameters` is anything
    /// `Hash` (bytes too); see
    /// [`fingerprint_of`](crate::idempotency::fingerprint_of).
    ///
    /// ```
    /// use resilient::Operation;
    /// use resilient::idempotency::{IdempotencyConflict, IdempotencyInFlight, MemoryStore, StoreError};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum PayError { Conflict, Other }
    /// impl std::fmt::Display for PayError {
    ///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "{self:?}") }
    /// }
    /// impl From<IdempotencyConflict> for PayError { fn from(_: IdempotencyConflict) -> Self { PayError::Conflict } }
    /// impl From<IdempotencyInFlight> for PayError { fn from(_: IdempotencyInFlight) -> Self { PayError::Other } }
    /// impl From<StoreError> for PayError { fn from(_: StoreError) -> Self { PayError::Other } }
    ///
    /// static PAYMENTS: MemoryStore<u64> = MemoryStore::new();
    /// let pay = |cents: u64| {
    ///     Operation::new()
    ///         .idempotent(&PAYMENTS, "order-7")
    ///         .fingerprint(&cents)
    ///         .run(|_| Ok::<_, PayError>(cents))
    /// };
    /// assert_eq!(pay(4200).into_result(), Ok(4200));
    /// assert_eq!(pay(4200).into_result(), Ok(4200)); // replayed
    /// assert_eq!(pay(9900).into_result(), Err(PayError::Conflict));
    /// ```
    pub fn fingerprint<V: Hash + ?Sized>(mut self, parameters: &V) -> Self
    where
        E: From<IdempotencyConflict>,
    {
        self.call = self.call.fingerprint(fingerprint(parameters));
        self
    }

    /// Runs the async `f` as [`Operation::run_async`] does, under the key.
    pub async fn run_async<F, Fut>(self, f: F) -> Outcome<T, E>
    where
        S: IdempotencyStore<T>,
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut call = self.call;
        match call.claim().await {
            Ok(held) => {
                let op = call.operation();
                let run = async {
                    match op.run_primary_async(f).await {
                        Ok(outcome) => outcome,
                        Err(exec) => exec.finish(),
                    }
                };
                call.run(held, run).await
            }
            Err(done) => done,
        }
    }

    /// Runs the blocking `f` as [`Operation::run`] does, under the key.
    pub fn run<F>(self, f: F) -> Outcome<T, E>
    where
        S: AsRef<MemoryStore<T>>,
        T: Clone,
        F: FnMut(Attempt) -> Result<T, E>,
    {
        let mut call = self.call;
        match call.claim_blocking() {
            Ok(held) => {
                let op = call.operation();
                call.run_blocking(held, || {
                    op.run_primary(f).unwrap_or_else(super::Execution::finish)
                })
            }
            Err(done) => done,
        }
    }
}

impl<T> AsRef<MemoryStore<T>> for MemoryStore<T> {
    fn as_ref(&self) -> &MemoryStore<T> {
        self
    }
}

/// The hash of a call's parameters, and the error a conflicting call
/// fails with: what `idempotency_fingerprint` gives an idempotent call.
#[doc(hidden)]
pub struct Fingerprint<E> {
    hash: u64,
    conflict: fn() -> E,
}

/// The fingerprint of `parameters`, for a call whose error converts
/// [`IdempotencyConflict`].
#[doc(hidden)]
pub fn fingerprint<E, V>(parameters: &V) -> Fingerprint<E>
where
    E: IdempotencyConflictFailure,
    V: Hash + ?Sized,
{
    Fingerprint {
        hash: fingerprint_of(parameters),
        conflict: || E::conflict(IdempotencyConflict),
    }
}

/// What an idempotent call runs: an [`Operation`], or a [`Hedged`] one.
#[doc(hidden)]
pub trait RunsOperation<'b, T, E, C, H> {
    /// The operation.
    fn operation(&self) -> &Operation<'b, T, E, C, H>;
    /// The operation, to adjust before it runs.
    fn operation_mut(&mut self) -> &mut Operation<'b, T, E, C, H>;
}

impl<'b, T, E, C, H> RunsOperation<'b, T, E, C, H> for Operation<'b, T, E, C, H> {
    fn operation(&self) -> &Operation<'b, T, E, C, H> {
        self
    }
    fn operation_mut(&mut self) -> &mut Operation<'b, T, E, C, H> {
        self
    }
}

impl<'b, T, E, C, H> RunsOperation<'b, T, E, C, H> for Hedged<'b, T, E, C, H> {
    fn operation(&self) -> &Operation<'b, T, E, C, H> {
        &self.op
    }
    fn operation_mut(&mut self) -> &mut Operation<'b, T, E, C, H> {
        &mut self.op
    }
}

/// One idempotent call, in two steps: [`claim`](IdempotentCall::claim)
/// (which may end the call: a replay, a joined value, an error), then
/// [`run`](IdempotentCall::run) under the claim. What
/// `#[resilient(idempotency = …)]` expands to:
///
/// ```ignore
/// let mut call = IdempotentCall::new(op, &STORE, key, ttl);
/// match call.claim().await {
///     Ok(held) => {
///         let op = call.operation();
///         call.run(held, async { /* the run of `op` */ }).await
///     }
///     Err(done) => done,
/// }
/// ```
///
/// The run borrows the operation from the call, so a hedged operation (which
/// owns its operation) composes as a plain one does. The operation's report
/// goes to its hook and metrics once the call knows its idempotency status
/// and whether its value was stored.
#[doc(hidden)]
#[must_use = "an idempotent call does nothing until it is claimed and run"]
pub struct IdempotentCall<'s, O, S: ?Sized, E> {
    op: O,
    store: &'s S,
    key: String,
    ttl: Duration,
    fingerprint: Option<Fingerprint<E>>,
    /// When the call started, on the operation's clock: the budget and
    /// the report's `elapsed` count from here, the wait included.
    start: u64,
}

impl<'s, O, S: ?Sized, E> IdempotentCall<'s, O, S, E> {
    /// A call of `op` under `key` in `store`; a success is stored for `ttl`.
    pub fn new<'b, T, C: Clock, H>(
        mut op: O,
        store: &'s S,
        key: impl Into<String>,
        ttl: Duration,
    ) -> Self
    where
        O: RunsOperation<'b, T, E, C, H>,
    {
        let operation = op.operation_mut();
        operation.plan.settings.report_deferred = true;
        let start = operation.plan.clock.now_nanos();
        IdempotentCall {
            op,
            store,
            key: key.into(),
            ttl,
            fingerprint: None,
            start,
        }
    }

    /// Checks the call's parameters against those of the key's first call.
    pub fn fingerprint(mut self, fingerprint: Fingerprint<E>) -> Self {
        self.fingerprint = Some(fingerprint);
        self
    }

    /// The operation to run under the claim.
    pub fn operation(&self) -> &O {
        &self.op
    }
}

impl<'s, O, S: ?Sized, E> IdempotentCall<'s, O, S, E>
where
    E: IdempotencyFailure,
{
    /// Claims the key; `Err` holds the call's outcome when nothing is to
    /// run: a replayed or joined value, or an error (the wait ran out, the
    /// fingerprint conflicts, the store failed, re-entrance).
    pub async fn claim<'b, T, C, H>(&mut self) -> Result<Held<'s, S, T>, Outcome<T, E>>
    where
        O: RunsOperation<'b, T, E, C, H>,
        S: IdempotencyStore<T>,
        C: Clock,
        H: HookSet<T, E>,
    {
        let op = self.op.operation();
        let acquired = acquire(self.store, self.request(op), &op.plan.clock).await;
        self.admitted(acquired)
    }

    /// Runs `run`, the operation's run to its outcome, under the claim
    /// `held`, and stores its value if it may be replayed.
    pub async fn run<'b, T, C, H, R>(&self, held: Held<'s, S, T>, run: R) -> Outcome<T, E>
    where
        O: RunsOperation<'b, T, E, C, H>,
        S: IdempotencyStore<T>,
        C: Clock,
        H: HookSet<T, E>,
        R: Future<Output = Outcome<T, E>>,
    {
        let op = self.op.operation();
        let mut report = None;
        let body = async { split(run.await, &mut report) };
        let (result, stored) = run_held(held, self.ttl, &op.plan.clock, body).await;
        self.settle(result, IdempotencyStatus::Executed, report, Some(stored))
    }

    /// [`claim`](IdempotentCall::claim) for blocking code, on the
    /// in-memory store.
    pub fn claim_blocking<'b, T, C, H>(&mut self) -> Result<HeldInMemory<'s, T>, Outcome<T, E>>
    where
        O: RunsOperation<'b, T, E, C, H>,
        S: AsRef<MemoryStore<T>>,
        T: Clone,
        C: Clock,
        H: HookSet<T, E>,
    {
        let op = self.op.operation();
        let acquired = acquire_blocking(self.store.as_ref(), self.request(op), &op.plan.clock);
        self.admitted(acquired)
    }

    /// The claim to run under, or the outcome of a call that ends here.
    fn admitted<'b, T, C, H, Claimed>(
        &mut self,
        acquired: Result<Acquired<T, Claimed>, Refused>,
    ) -> Result<Claimed, Outcome<T, E>>
    where
        O: RunsOperation<'b, T, E, C, H>,
        C: Clock,
        H: HookSet<T, E>,
    {
        match acquired {
            Ok(Acquired::Claim(held)) => {
                self.spend_the_wait();
                Ok(held)
            }
            Ok(Acquired::Found(value, status)) => Err(self.settle(Ok(value), status, None, None)),
            Err(refused) => Err(self.refused(refused)),
        }
    }

    /// [`run`](IdempotentCall::run) for blocking code, on the in-memory
    /// store.
    pub fn run_blocking<'b, T, C, H, R>(&self, held: HeldInMemory<'s, T>, run: R) -> Outcome<T, E>
    where
        O: RunsOperation<'b, T, E, C, H>,
        T: Clone,
        C: Clock,
        H: HookSet<T, E>,
        R: FnOnce() -> Outcome<T, E>,
    {
        let op = self.op.operation();
        let mut report = None;
        let (result, stored) =
            run_held_blocking(held, self.ttl, &op.plan.clock, || split(run(), &mut report));
        self.settle(result, IdempotencyStatus::Executed, report, Some(stored))
    }

    /// What the call asks of the store: its key, its fingerprint, and a
    /// wait no longer than the operation's budget.
    fn request<'b, T, C, H>(&self, op: &Operation<'b, T, E, C, H>) -> Request<'_> {
        Request {
            key: &self.key,
            max_wait: op.plan.settings.budget,
            fingerprint: self
                .fingerprint
                .as_ref()
                .map(|fingerprint| fingerprint.hash),
        }
    }

    /// Takes the time spent waiting for another call out of the budget (and
    /// the cap on retrying) of the run that follows: they cover the call.
    fn spend_the_wait<'b, T, C: Clock, H>(&mut self)
    where
        O: RunsOperation<'b, T, E, C, H>,
    {
        let op = self.op.operation_mut();
        let waited = Duration::from_nanos(op.plan.clock.now_nanos().saturating_sub(self.start));
        if waited.is_zero() {
            return;
        }
        let settings = &mut op.plan.settings;
        settings.budget = settings.budget.map(|budget| budget.saturating_sub(waited));
        settings.max_elapsed = settings.max_elapsed.map(|cap| cap.saturating_sub(waited));
    }

    /// The outcome of a call the store refused before anything ran.
    fn refused<'b, T, C, H>(&self, refused: Refused) -> Outcome<T, E>
    where
        O: RunsOperation<'b, T, E, C, H>,
        C: Clock,
        H: HookSet<T, E>,
    {
        let (error, stop, label) = match refused {
            Refused::InFlight => (
                E::in_flight(crate::idempotency::IdempotencyInFlight),
                StopReason::BudgetExhausted,
                "in_flight",
            ),
            Refused::Store(store) => (E::store(store), StopReason::NotRetryable, "store_error"),
            Refused::Conflict => {
                let conflict = self.fingerprint.as_ref().map(|f| f.conflict);
                let conflict = conflict.expect("only a call with a fingerprint conflicts");
                (conflict(), StopReason::NotRetryable, "conflict")
            }
        };
        let op = self.op.operation();
        let report = self.report(op, None, stop, None, None);
        events::idempotent_call(&op.plan.name, label);
        self.hand_over(op, &report);
        Outcome::new(Err(error), report)
    }

    /// The outcome of a call that got a result, its report complete.
    fn settle<'b, T, C, H>(
        &self,
        result: Result<T, E>,
        status: IdempotencyStatus,
        ran: Option<ExecutionReport>,
        stored: Option<IdempotencyStored>,
    ) -> Outcome<T, E>
    where
        O: RunsOperation<'b, T, E, C, H>,
        C: Clock,
        H: HookSet<T, E>,
    {
        let op = self.op.operation();
        let report = self.report(op, ran, StopReason::Succeeded, Some(status), stored);
        events::idempotent_call(&op.plan.name, status.as_str());
        if let Some(stored) = stored {
            events::value_not_stored(&op.plan.name, &self.key, stored);
        }
        self.hand_over(op, &report);
        Outcome::new(result, report)
    }

    /// The call's report: the run's, if it ran, or an empty one that
    /// stopped for `stop`; timed from the call's start.
    fn report<'b, T, C: Clock, H>(
        &self,
        op: &Operation<'b, T, E, C, H>,
        ran: Option<ExecutionReport>,
        stop: StopReason,
        status: Option<IdempotencyStatus>,
        stored: Option<IdempotencyStored>,
    ) -> ExecutionReport {
        let mut report = ran.unwrap_or_else(|| {
            let mut report = ExecutionReport::new(op.plan.name.clone());
            report.stop_reason = stop;
            report
        });
        report.elapsed = Nanos::from_u64(op.plan.clock.now_nanos().saturating_sub(self.start));
        report.idempotency = status;
        report.idempotency_stored = stored;
        report
    }

    /// Hands the finished report to the metrics and the hook, once.
    fn hand_over<'b, T, C, H: HookSet<T, E>>(
        &self,
        op: &Operation<'b, T, E, C, H>,
        report: &ExecutionReport,
    ) {
        events::finished(
            &op.plan.name,
            op.plan.tally,
            report.elapsed(),
            report.stop_reason(),
        );
        events::call_ended(report);
        op.plan.hooks.on_report(report);
    }
}

/// An outcome as the coordinator takes it: the result, and why not to
/// store it, if so: only a success of the body itself is stored, never a
/// fallback's value nor one chaos injected in its place; the report goes
/// to `report`.
fn split<T, E>(
    outcome: Outcome<T, E>,
    report: &mut Option<ExecutionReport>,
) -> (Result<T, E>, Option<IdempotencyStored>) {
    let (result, finished) = outcome.into_parts();
    let declined = if finished.stop_reason() != StopReason::Succeeded {
        Some(IdempotencyStored::Fallback)
    } else if succeeded_by_chaos(&finished) {
        Some(IdempotencyStored::Injected)
    } else {
        None
    };
    *report = Some(finished);
    (result, declined)
}

/// Whether the attempt that succeeded had its result injected by chaos
/// (an outcome in place of the body's).
fn succeeded_by_chaos(report: &ExecutionReport) -> bool {
    report
        .attempts()
        .iter()
        .rev()
        .find(|attempt| attempt.error().is_none())
        .is_some_and(|attempt| attempt.injected() == Some(Injection::Outcome))
}
