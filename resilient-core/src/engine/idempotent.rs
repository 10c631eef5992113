//! Idempotent operations: the whole run (retries, breaker, fallbacks) under
//! an idempotency key, through a store ([`idempotency`](crate::idempotency)).
//!
//! A stored success is replayed without running anything; a call that
//! finds the key in flight elsewhere waits for that run (bounded by the
//! operation's `budget`) and returns its value; otherwise this call claims
//! the key and runs. Only a success of the primary attempts is stored: a
//! fallback's value is returned, not stored. The report says which of the
//! three happened ([`ExecutionReport::idempotency`]).

use std::future::Future;
use std::time::Duration;

use super::hooks::HookSet;
use super::operation::Operation;
use crate::attempt::Attempt;
use crate::clock::Clock;
use crate::idempotency::{
    DEFAULT_TTL, IdempotencyError, IdempotencyFailure, IdempotencyStatus, IdempotencyStore,
    MemoryStore, run_idempotent, run_idempotent_blocking,
};
use crate::report::{ExecutionReport, Nanos, Outcome, StopReason};

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
    op: Operation<'b, T, E, C, H>,
    store: &'s S,
    key: String,
    ttl: Duration,
}

impl<'b, T, E, C, H> Operation<'b, T, E, C, H> {
    /// Runs the operation under `key` in `store`: at most one primary run
    /// per key per TTL (24 h by default), as far as the store guarantees
    /// it. See [`Idempotent`].
    pub fn idempotent<'s, S>(
        self,
        store: &'s S,
        key: impl Into<String>,
    ) -> Idempotent<'s, 'b, S, T, E, C, H> {
        Idempotent {
            op: self,
            store,
            key: key.into(),
            ttl: DEFAULT_TTL,
        }
    }
}

impl<S, T, E, C: Clock, H: HookSet<T, E>> Idempotent<'_, '_, S, T, E, C, H>
where
    E: IdempotencyFailure,
{
    /// How long a success is replayed (default 24 h).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Runs the async `f` as [`Operation::run_async`] does, under the key.
    pub async fn run_async<F, Fut>(self, f: F) -> Outcome<T, E>
    where
        S: IdempotencyStore<T>,
        F: FnMut(Attempt) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let Idempotent {
            op,
            store,
            key,
            ttl,
        } = self;
        op.idempotent_async(store, &key, ttl, async || {
            match op.run_primary_async(f).await {
                Ok(outcome) => outcome,
                Err(exec) => exec.finish(),
            }
        })
        .await
    }

    /// Runs the blocking `f` as [`Operation::run`] does, under the key.
    pub fn run<F>(self, f: F) -> Outcome<T, E>
    where
        S: AsRef<MemoryStore<T>>,
        T: Clone,
        F: FnMut(Attempt) -> Result<T, E>,
    {
        let Idempotent {
            op,
            store,
            key,
            ttl,
        } = self;
        op.idempotent_blocking(store.as_ref(), &key, ttl, || {
            op.run_primary(f).unwrap_or_else(super::Execution::finish)
        })
    }
}

impl<T> AsRef<MemoryStore<T>> for MemoryStore<T> {
    fn as_ref(&self) -> &MemoryStore<T> {
        self
    }
}

impl<T, E, C: Clock, H> Operation<'_, T, E, C, H>
where
    E: IdempotencyFailure,
{
    /// Runs `run` (a run of this operation, to its outcome) under `key` in
    /// `store`; waits for a run of the key elsewhere no longer than the
    /// operation's budget. What `#[resilient(idempotency = …)]` expands to.
    pub async fn idempotent_async<S, F, Fut>(
        &self,
        store: &S,
        key: &str,
        ttl: Duration,
        run: F,
    ) -> Outcome<T, E>
    where
        S: IdempotencyStore<T>,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Outcome<T, E>>,
    {
        let start = self.clock.now_nanos();
        let mut report = None;
        let ran = run_idempotent(
            store,
            key,
            ttl,
            self.settings.budget,
            &self.clock,
            async || split(run().await, &mut report),
        )
        .await;
        let end = self.clock.now_nanos();
        self.settle_idempotent(ran, report, end.saturating_sub(start))
    }

    /// [`idempotent_async`](Operation::idempotent_async) for blocking code,
    /// on the in-memory store.
    pub fn idempotent_blocking<F>(
        &self,
        store: &MemoryStore<T>,
        key: &str,
        ttl: Duration,
        run: F,
    ) -> Outcome<T, E>
    where
        T: Clone,
        F: FnOnce() -> Outcome<T, E>,
    {
        let start = self.clock.now_nanos();
        let mut report = None;
        let ran =
            run_idempotent_blocking(store, key, ttl, self.settings.budget, &self.clock, || {
                split(run(), &mut report)
            });
        let end = self.clock.now_nanos();
        self.settle_idempotent(ran, report, end.saturating_sub(start))
    }

    /// The outcome of an idempotent call: this run's report when it ran,
    /// or an empty one saying why nothing ran.
    fn settle_idempotent(
        &self,
        ran: Result<(Result<T, E>, IdempotencyStatus), IdempotencyError>,
        report: Option<ExecutionReport>,
        elapsed: u64,
    ) -> Outcome<T, E> {
        let empty = |stop| {
            let mut report = ExecutionReport::new(self.name.clone());
            report.elapsed = Nanos::from_u64(elapsed);
            report.stop_reason = stop;
            report
        };
        match ran {
            Ok((result, status)) => {
                let mut report = match (status, report) {
                    (IdempotencyStatus::Executed, Some(report)) => report,
                    _ => empty(StopReason::Succeeded),
                };
                report.idempotency = Some(status);
                Outcome::new(result, report)
            }
            Err(error) => {
                let (error, stop) = match error {
                    IdempotencyError::InFlight(in_flight) => {
                        (E::in_flight(in_flight), StopReason::BudgetExhausted)
                    }
                    IdempotencyError::Store(store) => (E::store(store), StopReason::NotRetryable),
                };
                Outcome::new(Err(error), empty(stop))
            }
        }
    }
}

/// An outcome as the coordinator takes it: the result, and whether to
/// store it (a success of the primary attempts only); the report goes to
/// `report`.
fn split<T, E>(
    outcome: Outcome<T, E>,
    report: &mut Option<ExecutionReport>,
) -> (Result<T, E>, bool) {
    let (result, finished) = outcome.into_parts();
    let storable = result.is_ok() && finished.stop_reason() == StopReason::Succeeded;
    *report = Some(finished);
    (result, storable)
}
