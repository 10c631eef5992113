//! The retry engine.
//!
//! * `operation/`: [`Operation`], the builder of one resilient call, and
//!   its `run` methods;
//! * `first.rs`: the first attempt every call makes, run before the
//!   operation is built where it can be, and the two-step protocol of
//!   `#[resilient]` made of it (`crate::__private`);
//! * `expansion.rs`: the steps `#[resilient]`'s expansion takes on an
//!   operation and its execution, as functions of `crate::__private`;
//! * `policy_runs.rs`: the plain runs of [`RetryPolicy`](crate::RetryPolicy),
//!   without a report;
//! * `plan.rs`: what an execution borrows from its operation (settings,
//!   name, clock, hooks, gates, error conversions);
//! * `execution/`: [`Execution`], one run: records attempts and carries
//!   out the decisions; it reads the plan, never the builder (`end.rs`:
//!   its fallbacks and the outcome it finishes with);
//! * `core.rs`: the untyped half of an execution, its bookkeeping (the
//!   report, the counters, the schedule, events), compiled once;
//! * `gates/`: the admission concerns asked around each attempt (the
//!   circuit breaker, the adaptive throttle, the retry throttle, the
//!   limiters, chaos), one file each, behind one trait; its `mod.rs` says
//!   how to add one;
//! * `decide.rs`: every decision of a run (a refused attempt, the end of
//!   a round, the retry rule `schedule`, the budget after a wait), pure
//!   functions;
//! * `attempt/`: the attempt as one value: its terms, and the one test of
//!   whether a first attempt may run outside the engine (`terms.rs`); the
//!   attempt in flight and the one writer of its record (`open.rs`); the
//!   attempt runner, one for blocking code and one for async, and the
//!   per-attempt context they run from (`run.rs`): every attempt of every
//!   path (a first, a retry, a hedge, the tower layer's and the reqwest
//!   middleware's) runs there;
//! * `span.rs`: the `tracing` span of each attempt (feature `tracing`),
//!   entered by the runner;
//! * `hedge.rs`: hedged attempts, several in flight at once: [`Hedged`],
//!   and a round's steps as functions that drive an [`Execution`] through
//!   its own methods;
//! * `idempotent.rs`: a whole run under an idempotency key;
//! * `recipe.rs`: [`Recipe`], the values of an operation of the commonest
//!   options, built by one function shared by every such function;
//! * `hooks.rs`: the user's pieces (classifier, ignore test, Retry-After
//!   hint, validator, listeners, endpoint), their no-op defaults, and the stack an
//!   operation holds them in; it says how to add a kind;
//! * `events.rs`: `tracing` events and `metrics` series.

pub(crate) mod attempt;
mod core;
mod decide;
pub(crate) mod events;
mod execution;
pub(crate) mod expansion;
mod first;
pub(crate) mod gates;
mod hedge;
pub(crate) mod hedge_window;
pub mod hooks;
mod idempotent;
mod operation;
pub(crate) mod plan;
mod policy_runs;
pub(crate) mod recipe;
pub(crate) mod span;

#[cfg(feature = "tracing")]
pub use events::trace_report;
pub use execution::{Execution, Next};
pub use first::{
    FirstFailure, FirstReads, FirstSuccess, MakeOperation, first_attempt_async_of,
    first_attempt_of, first_untimed_async_of,
};
pub use hedge::Hedged;
pub use idempotent::{Fingerprint, Idempotent, IdempotentCall, RunsOperation, fingerprint};
pub use operation::Operation;
pub use policy_runs::ThrottledPolicy;
pub use recipe::Recipe;
