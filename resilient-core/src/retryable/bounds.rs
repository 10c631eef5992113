//! What [`Retryable::retry`](super::Retryable::retry) takes and asks of
//! the closure's error: [`PolicyArg`], a policy by value or by reference,
//! and [`DebugError`], an error the report can describe.

use std::fmt;

use super::{Hooks, sealed};
use crate::policy::RetryPolicy;

/// An error the closure API can describe in the report: every `Debug`
/// type. Named in [`Retryable::retry`](super::Retryable::retry)'s bound so that a generic caller
/// that leaves out `E: Debug` is told so, where the closure is retried.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `Debug`, and `.retry(…)` records each failed attempt's error in the report by its `Debug` text",
    label = "the closure's error type must be `Debug` here",
    note = "add `{Self}: std::fmt::Debug` to the bounds of the function that calls `.retry(…)`, or describe the error yourself: `.retry_described_by(&POLICY, |error| …)`"
)]
pub trait DebugError: fmt::Debug {}

impl<E: fmt::Debug> DebugError for E {}

/// A [`RetryPolicy`] by value or by reference, what
/// [`Retryable::retry`](super::Retryable::retry) takes: `policy`, `&policy`, or a reference to the
/// `static` a library keeps it in, a `LazyLock` (a policy is built by a
/// builder that checks it, at run time) or an `Arc`.
///
/// ```
/// use resilient::{RetryPolicy, Retryable};
/// use std::sync::LazyLock;
///
/// static POLICY: LazyLock<RetryPolicy> =
///     LazyLock::new(|| RetryPolicy::builder().max_attempts(3).build().expect("a valid policy"));
///
/// let outcome = (|| Ok::<_, std::io::Error>(7)).retry(&POLICY).call();
/// assert_eq!(outcome.into_result().unwrap(), 7);
/// ```
pub trait PolicyArg: sealed::Policy {
    /// The hooks a retry starts with: none. Named in `retry`'s return
    /// type, so that `.retry(&POLICY)` reads as a borrow that matters
    /// (clippy's `needless_borrows_for_generic_args` leaves it alone), as
    /// it does for a policy that isn't `'static`.
    type Hooks;

    /// The policy.
    #[doc(hidden)]
    fn policy(&self) -> &RetryPolicy;
}

impl PolicyArg for RetryPolicy {
    type Hooks = Hooks;

    fn policy(&self) -> &RetryPolicy {
        self
    }
}

impl PolicyArg for &RetryPolicy {
    type Hooks = Hooks;

    fn policy(&self) -> &RetryPolicy {
        self
    }
}

impl PolicyArg for &std::sync::LazyLock<RetryPolicy> {
    type Hooks = Hooks;

    fn policy(&self) -> &RetryPolicy {
        self
    }
}

impl PolicyArg for &std::sync::Arc<RetryPolicy> {
    type Hooks = Hooks;

    fn policy(&self) -> &RetryPolicy {
        self
    }
}
