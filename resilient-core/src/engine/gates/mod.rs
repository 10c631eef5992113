//! Gates: the admission concerns consulted around each attempt (the retry
//! throttle, the circuit breaker, the adaptive throttle, the limiters,
//! chaos).
//!
//! A gate implements [`Gate`]. Before an attempt starts (a primary attempt,
//! a retry or a hedge; never a fallback), the engine asks every gate of the
//! operation, in the order of the table below, to [`admit`](Gate::admit)
//! it. Each admitted attempt holds one [`Permits`] value, a permit from each
//! gate, until it ends; then every gate [`settle`](Gate::settle)s its permit
//! with how the attempt ended ([`Settlement`]). A gate that refuses returns a
//! [`Refusal`]: the failure kind recorded for the attempt, the stop reason
//! it gives the call, and the error it becomes. The permits already taken
//! are settled as [`End::NotRun`]. Besides, before a retry is scheduled or
//! a hedge starts, every gate is asked whether it [allows a
//! retry](Gate::allows_retry), after every other rule said yes.
//!
//! # Adding a gate
//!
//! 1. **A new file** `gates/<name>.rs` with a type that implements
//!    [`Gate<T, E>`](Gate): its permit, `admit` (and `admit_blocking` /
//!    `admit_async` when it may wait for room: the wait happens before the
//!    attempt starts, so it counts against the budget and not against the
//!    attempt's deadline; [`Admission::remaining`] says how long the
//!    budget lets it wait), `settle` (the permit comes back with the
//!    attempt's kind, its round-trip time and how it ended, see
//!    [`End::dropped`]), and, when it needs them, `free_permit` (the gate
//!    never refuses a call's first attempt, so the fast path keeps running
//!    without asking it), `allows_retry`, and `inject` (the attempt's body
//!    replaced by a result, or run after a delay, inside its deadline).
//! 2. **A setter** on [`Operation`](crate::Operation) that stores the gate
//!    in `self.gates.<name>`, with the bound on `E` its refusal needs
//!    (`E: From<…>`). For a gate of one shared value and an error maker,
//!    that is a row of `shared_gates!` (below), with the setter's docs
//!    and an example of a layer: the row makes `Operation`'s setter, the
//!    closure API's, the tower layer's and the reqwest middleware's, and
//!    the field those hold it in, which every call's operation takes
//!    (`HeldGates`, `tower/shared.rs`). Then the attribute's option row.
//! 3. **A row** in the `gates!` table at the bottom of this file:
//!    `<name>: <type>,`. The row's position is the gate's order: gates
//!    are asked in the table's order and the first refusal wins.
//!
//! Nothing else changes: `Gates` and `Permits` are made from the table,
//! and the execution only ever calls `Gates::admit*`, `Gates::inject`,
//! `Gates::settle` and `Gates::allows_retry`.

use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

use crate::clock::Clock;
use crate::limit::LimitExceeded;
use crate::report::{AttemptKind, FailureKind, StopReason};

mod adaptive;
mod breaker;
mod chaos;
mod limit;
mod throttle;

pub(crate) use adaptive::AdaptiveGate;
pub(crate) use breaker::BreakerGate;
pub(crate) use chaos::{ChaosGate, Fault};
pub(crate) use limit::LimitGate;

/// One admission concern: admits or refuses each attempt, and hears how
/// each admitted attempt ended.
pub(crate) trait Gate<T, E> {
    /// What an admitted attempt holds until it ends.
    type Permit: Send;

    /// Admits the attempt described by `at`, or refuses it, without
    /// waiting.
    fn admit<C: Clock>(&self, clock: &C, at: &Admission) -> Result<Self::Permit, Refusal<E>>;

    /// [`admit`](Gate::admit) in blocking code: a gate that queues
    /// attempts may wait here (with `clock.sleep`), at most
    /// [`at.remaining`](Admission::remaining).
    fn admit_blocking<C: Clock>(
        &self,
        clock: &C,
        at: &Admission,
    ) -> Result<Self::Permit, Refusal<E>> {
        self.admit(clock, at)
    }

    /// [`admit`](Gate::admit) in async code: a gate that queues attempts
    /// may wait here, on `clock`, at most
    /// [`at.remaining`](Admission::remaining).
    fn admit_async<C: Clock>(
        &self,
        clock: &C,
        at: &Admission,
    ) -> impl Future<Output = Result<Self::Permit, Refusal<E>>> + Send {
        std::future::ready(self.admit(clock, at))
    }

    /// The permit of a call's first attempt, when this gate grants it
    /// without being asked; `None` (the default): the first attempt must
    /// be admitted. An operation whose gates all grant it keeps the fast
    /// path, and settles these permits after the first attempt ran.
    fn free_permit(&self) -> Option<Self::Permit> {
        None
    }

    /// How long the attempt holding `permit` waited for it, in
    /// nanoseconds: recorded as the attempt's queued time.
    fn queued(&self, permit: &Self::Permit) -> u64 {
        let _ = permit;
        0
    }

    /// What replaces or delays the body of the attempt holding `permit`.
    fn inject(&self, permit: &mut Self::Permit) -> Option<Interference<T, E>> {
        let _ = permit;
        None
    }

    /// Whether a retry (or a hedge) may start: asked last, once every other
    /// rule allows it, and the answer may spend what it allows.
    fn allows_retry(&self) -> bool {
        true
    }

    /// The attempt that held `permit` ended as `ended` says.
    fn settle<C: Clock>(&self, clock: &C, permit: Self::Permit, ended: &Settlement);
}

/// The attempt a gate is asked to admit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Admission {
    /// A primary attempt (the first or a retry) or a hedge.
    pub(crate) kind: AttemptKind,
    /// What is left of the operation's budget, if it has one: the longest
    /// a gate may make the attempt wait.
    pub(crate) remaining: Option<Duration>,
    /// The call's priority, which a limiter that sheds by priority reads.
    pub(crate) priority: crate::limit::Priority,
}

/// A gate's refusal of an attempt.
pub(crate) struct Refusal<E> {
    /// How the refused attempt is recorded.
    pub(crate) kind: FailureKind,
    /// Why the call stops: a refused attempt is never retried.
    pub(crate) stop: StopReason,
    /// Makes the error the refused attempt fails with.
    pub(crate) error: MakeError<E>,
}

/// How a refusal makes its error: from a marker (`E::from(CircuitOpen)`),
/// or from what the refusal says (`E::from(LimitExceeded)`).
pub(crate) enum MakeError<E> {
    Marker(fn() -> E),
    Limit(fn(LimitExceeded) -> E, LimitExceeded),
}

impl<E> Refusal<E> {
    /// What a limiter said when it refused; `None` for another gate.
    pub(crate) fn limit_exceeded(&self) -> Option<&LimitExceeded> {
        match &self.error {
            MakeError::Limit(_, refusal) => Some(refusal),
            MakeError::Marker(_) => None,
        }
    }

    /// The error the refused attempt fails with.
    pub(crate) fn error(&self) -> E {
        match self.error {
            MakeError::Marker(make) => make(),
            MakeError::Limit(make, refusal) => make(refusal),
        }
    }
}

/// What a gate makes of an attempt instead of running its body as is:
/// a delay first, which counts against the attempt's deadline, then the
/// body, or a result in its place.
pub(crate) struct Interference<T, E> {
    /// Waited before the attempt goes on.
    pub(crate) delay: Option<Duration>,
    /// The attempt's result, and whether it is an injected fault or
    /// outcome; its body does not run.
    pub(crate) result: Option<(crate::chaos::Injection, Result<T, E>)>,
}

/// How an admitted attempt ended, as its gates hear it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Settlement {
    pub(crate) kind: AttemptKind,
    /// From the attempt's start to its end.
    pub(crate) rtt: Duration,
    pub(crate) end: End,
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// It succeeded.
    Success,
    /// It failed; `retryable` is the classifier's verdict, `throttled`
    /// whether its error carried a Retry-After hint.
    Failure {
        kind: FailureKind,
        retryable: bool,
        throttled: bool,
    },
    /// It was dropped because another attempt ended its round.
    Cancelled,
    /// A later gate refused it, and its body never ran; or its error is
    /// one the operation ignores. Either way it counts as an attempt that
    /// did not run: a gate gives its permit back, and counts nothing.
    NotRun,
}

impl End {
    /// Whether the attempt says the dependency is overloaded: it timed
    /// out, or failed with a retryable error.
    pub(crate) fn dropped(self) -> bool {
        matches!(
            self,
            End::Failure {
                kind: FailureKind::Timeout,
                ..
            } | End::Failure {
                retryable: true,
                ..
            }
        )
    }
}

impl Settlement {
    pub(crate) fn new(kind: AttemptKind, rtt: u64, end: End) -> Settlement {
        Settlement {
            kind,
            rtt: Duration::from_nanos(rtt),
            end,
        }
    }
}

/// Declares the gates, in the order they are asked: makes [`Gates`] (one
/// optional gate per row) and [`Permits`] (one optional permit per row).
macro_rules! gates {
    // Asks each gate in turn with `$admit`, stopping at the first refusal;
    // `$wait` is `[]`, or `[.await]` for the async form.
    (@admit [$($name:ident: $gate:ty),*] $self:ident, $clock:ident, $at:ident, $admit:ident $wait:tt) => {{
        let mut permits = Permits::none();
        $(if let Some(gate) = &$self.$name {
            let admitted = gates!(@call $wait <$gate as Gate<T, E>>::$admit(gate, $clock, $at));
            match admitted {
                Ok(permit) => permits.$name = Some(permit),
                Err(refusal) => return Err($self.refused($clock, $at, permits, refusal)),
            }
        })*
        Ok(permits)
    }};
    (@call [] $call:expr) => { $call };
    (@call [.await] $call:expr) => { $call.await };
    ($($(#[$doc:meta])* $name:ident: $gate:ty,)*) => {
        /// The gates of one operation, each present or not.
        pub(crate) struct Gates<'b, T, E> {
            $($(#[$doc])* pub(crate) $name: Option<$gate>,)*
            value: PhantomData<fn() -> T>,
        }

        /// The permits an admitted attempt holds, one per gate that
        /// admitted it.
        pub(crate) struct Permits<'b, T, E> {
            $($name: Option<<$gate as Gate<T, E>>::Permit>,)*
            value: PhantomData<fn() -> T>,
        }

        impl<'b, T, E> Permits<'b, T, E> {
            /// No permit: an attempt that no gate admitted.
            #[inline]
            pub(crate) fn none() -> Self {
                Permits { $($name: None,)* value: PhantomData }
            }
        }

        impl<'b, T, E> Gates<'b, T, E> {
            /// No gate, written field by field: where an operation is built
            /// on the success path, its gates are then stores the optimiser
            /// reads back as constants, where a copy of a `const` of them
            /// (one block of memory) hides them from it.
            #[inline(always)]
            pub(crate) const fn none() -> Self {
                Gates { $($name: None,)* value: PhantomData }
            }

            /// Whether the operation has no gate at all: then nothing needs
            /// telling how an attempt ended.
            #[inline]
            pub(crate) fn is_empty(&self) -> bool {
                true $(&& self.$name.is_none())*
            }

            /// Whether every gate grants a call's first attempt without
            /// being asked (see [`Gate::free_permit`]).
            #[inline]
            pub(crate) fn first_is_free(&self) -> bool {
                true $(&& self.$name.as_ref().is_none_or(|gate| {
                    <$gate as Gate<T, E>>::free_permit(gate).is_some()
                }))*
            }

            /// The permits of a first attempt that every gate grants
            /// without being asked; see [`first_is_free`](Gates::first_is_free).
            #[inline]
            pub(crate) fn free_permits(&self) -> Permits<'b, T, E> {
                Permits {
                    $($name: self.$name.as_ref().and_then(<$gate as Gate<T, E>>::free_permit),)*
                    value: PhantomData,
                }
            }

            /// Asks each gate in turn to admit the attempt, without waiting.
            #[inline]
            pub(crate) fn admit<C: Clock>(
                &self,
                clock: &C,
                at: &Admission,
            ) -> Result<Permits<'b, T, E>, Refusal<E>> {
                gates!(@admit [$($name: $gate),*] self, clock, at, admit [])
            }

            /// [`admit`](Gates::admit), each gate free to wait (blocking).
            #[inline]
            pub(crate) fn admit_blocking<C: Clock>(
                &self,
                clock: &C,
                at: &Admission,
            ) -> Result<Permits<'b, T, E>, Refusal<E>> {
                gates!(@admit [$($name: $gate),*] self, clock, at, admit_blocking [])
            }

            /// [`admit`](Gates::admit), each gate free to wait (async).
            pub(crate) async fn admit_async<C: Clock>(
                &self,
                clock: &C,
                at: &Admission,
            ) -> Result<Permits<'b, T, E>, Refusal<E>> {
                gates!(@admit [$($name: $gate),*] self, clock, at, admit_async [.await])
            }

            /// The permits taken before a gate refused go back unused.
            #[cold]
            fn refused<C: Clock>(
                &self,
                clock: &C,
                at: &Admission,
                permits: Permits<'b, T, E>,
                refusal: Refusal<E>,
            ) -> Refusal<E> {
                self.settle(clock, permits, &Settlement::new(at.kind, 0, End::NotRun));
                refusal
            }

            /// What replaces or delays the body of the attempt holding
            /// `permits`: the first gate's answer that is not `None`.
            #[inline]
            pub(crate) fn inject(
                &self,
                permits: &mut Permits<'b, T, E>,
            ) -> Option<Interference<T, E>> {
                $(if let (Some(gate), Some(permit)) = (&self.$name, &mut permits.$name)
                    && let Some(injection) = <$gate as Gate<T, E>>::inject(gate, permit)
                {
                    return Some(injection);
                })*
                let _ = permits;
                None
            }

            /// How long the attempt holding `permits` waited for them, in
            /// nanoseconds.
            #[inline]
            pub(crate) fn queued(&self, permits: &Permits<'b, T, E>) -> u64 {
                0 $(+ match (&self.$name, &permits.$name) {
                    (Some(gate), Some(permit)) => <$gate as Gate<T, E>>::queued(gate, permit),
                    _ => 0,
                })*
            }

            /// Whether every gate lets a retry (or a hedge) start.
            #[inline]
            pub(crate) fn allows_retry(&self) -> bool {
                true $(&& self.$name.as_ref().is_none_or(<$gate as Gate<T, E>>::allows_retry))*
                    && self.default_budget().is_none_or(|budget| budget.allows_retry())
            }

            /// Hands each permit back to its gate with how the attempt
            /// ended.
            #[inline]
            pub(crate) fn settle<C: Clock>(
                &self,
                clock: &C,
                permits: Permits<'b, T, E>,
                ended: &Settlement,
            ) {
                $(if let (Some(gate), Some(permit)) = (&self.$name, permits.$name) {
                    <$gate as Gate<T, E>>::settle(gate, clock, permit, ended);
                })*
                if let Some(budget) = self.default_budget() {
                    <&dyn crate::throttle::RetryBudget as Gate<T, E>>::settle(&budget, clock, (), ended);
                }
            }
        }
    };
}

impl<T, E> Gates<'_, T, E> {
    /// The process's retry budget
    /// ([`budget_default`](crate::throttle::budget_default)), for an
    /// operation without a throttle of its own: asked and told as its own
    /// would be.
    #[inline]
    fn default_budget(&self) -> Option<&'static dyn crate::throttle::RetryBudget> {
        if self.throttle.is_some() || !crate::throttle::default_in_force() {
            return None;
        }
        crate::throttle::budget_default_in_force()
    }
}

/// The gates made of one shared value (a breaker, an adaptive throttle)
/// and the error their refusal becomes, one row each, with the docs of
/// their setters: the one list every side that sets them reads.
/// `shared_gates!(then [args])` calls the macro `then` on `[args]` and
/// the rows: `gate_setters` makes `Operation`'s setters
/// (`operation/mod.rs`), `gate_forwarders` the closure API's
/// (`retryable/`), `layer_gate_setters` the tower layer's and the reqwest
/// middleware's, with the row's example of a layer (`tower/setters.rs`),
/// and `held_gates` what those hold of each gate and set on every call's
/// operation (`tower/shared.rs`). A new gate of that kind is a row here
/// and a row of `gates!` below.
macro_rules! shared_gates {
    ($($then:ident)::+ $([$($args:tt)*])?) => {
        $($then)::+! {
            [$($($args)*)?]
            /// Consults `breaker` before each attempt and reports each result to
            /// it. A rejected attempt doesn't run, fails with
            /// `E::from(CircuitOpen)` and ends the call with
            /// [`StopReason::CircuitOpen`](crate::StopReason::CircuitOpen), never
            /// retried; fallbacks still run. Every failure of an attempt that ran
            /// counts against the breaker, retryable or not.
            circuit_breaker(breaker: crate::breaker::CircuitBreaker)
                => breaker: BreakerGate, E: crate::error::CircuitOpenError, circuit_open,
                on a layer: [
                    "use resilient::CircuitBreaker;",
                    "use std::sync::Arc;",
                    "",
                    "let breaker = Arc::new(CircuitBreaker::builder().failure_threshold(5).build()?);",
                ] "Arc::clone(&breaker)";
            /// Refuses a share of the attempts locally, the first included, as
            /// `throttle` decides from how many of its recent requests the backend
            /// accepted (see [`AdaptiveThrottle`](crate::throttle::AdaptiveThrottle)).
            /// A refused attempt doesn't run: it fails with `E::from(Rejected)`
            /// and ends the call with
            /// [`StopReason::Throttled`](crate::StopReason::Throttled), never
            /// retried; the fallback, if any, runs. A success counts as an accept,
            /// a failure as a request only, an ignored error as neither.
            ///
            /// ```
            /// use resilient::throttle::{AdaptiveThrottle, Rejected};
            /// use resilient::{FakeClock, Operation, StopReason};
            ///
            /// static BACKEND: AdaptiveThrottle = AdaptiveThrottle::new().seed(1);
            ///
            /// #[derive(Debug, PartialEq)]
            /// struct Shed;
            /// impl From<Rejected> for Shed {
            ///     fn from(_: Rejected) -> Self { Shed }
            /// }
            /// impl std::fmt::Display for Shed {
            ///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str("shed") }
            /// }
            ///
            /// let clock = FakeClock::new();
            /// let call = |ok: bool| {
            ///     Operation::new()
            ///         .adaptive_throttle(&BACKEND)
            ///         .clock(clock.clone())
            ///         .run(move |_| if ok { Ok(1) } else { Err(Shed) })
            /// };
            /// // While most requests succeed, none is refused.
            /// for _ in 0..20 {
            ///     assert_eq!(call(true).into_result(), Ok(1));
            /// }
            /// assert_eq!((BACKEND.requests(), BACKEND.accepts()), (20, 20));
            /// assert_eq!(BACKEND.rejection_probability(), 0.0);
            /// ```
            adaptive_throttle(throttle: crate::throttle::AdaptiveThrottle)
                => adaptive: AdaptiveGate, E: crate::error::RejectedError, rejected,
                on a layer: [
                    "use resilient::throttle::AdaptiveThrottle;",
                    "",
                    "static BACKEND: AdaptiveThrottle = AdaptiveThrottle::new().named(\"backend\");",
                ] "&BACKEND";
        }
    };
}
pub(crate) use shared_gates;

gates! {
    /// The retry throttle: asked before each retry and hedge, told of
    /// every result.
    throttle: &'b dyn crate::throttle::RetryBudget,
    /// The circuit breaker: admits each attempt, told of its result.
    breaker: BreakerGate<'b, E>,
    /// The adaptive throttle: refuses a share of the attempts locally,
    /// after the breaker (an open circuit draws nothing) and before the
    /// limiters (a refused attempt takes no permit).
    adaptive: AdaptiveGate<'b, E>,
    /// The limiters: each attempt takes a permit from every one, after
    /// the breaker (an open circuit spends no cell of a rate limit).
    limit: LimitGate<'b, E>,
    /// Chaos: draws, as it admits each attempt, what to inject into it.
    /// Last, so that an attempt another gate refuses draws nothing.
    chaos: ChaosGate<'b, T, E>,
}
