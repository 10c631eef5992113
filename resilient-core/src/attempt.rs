//! [`Attempt`]: what the engine tells an attempt about itself.

use std::time::Duration;

/// Facts about the attempt being run, handed to each call of the body.
///
/// With the attribute, mark a parameter `#[attempt]` to receive it; it is
/// removed from the function's external signature.
///
/// ```
/// use resilient::{Backoff, RetryPolicy};
///
/// let policy = RetryPolicy::builder()
///     .max_attempts(3)
///     .backoff(Backoff::none())
///     .build()
///     .unwrap();
/// let mut seen = Vec::new();
/// let _ = policy.run(|attempt| {
///     seen.push((attempt.number(), attempt.retry_number()));
///     Err::<(), _>("again")
/// });
/// assert_eq!(seen, [(1, 0), (2, 1), (3, 2)]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    pub(crate) number: u32,
    pub(crate) retry_number: u32,
    pub(crate) deadline: Option<Duration>,
    pub(crate) fallback: bool,
    /// Whether the calls made inside it leave their retries to this call,
    /// which can retry ([`Nested::NoRetry`](crate::deadline::Nested)).
    pub(crate) holds_retries: bool,
}

impl Attempt {
    /// The first attempt, granted `deadline`.
    #[inline]
    pub(crate) const fn first(deadline: Option<Duration>) -> Attempt {
        Attempt {
            number: 1,
            retry_number: 0,
            deadline,
            fallback: false,
            holds_retries: false,
        }
    }

    /// The attempt's number, 1-based, counting every attempt made so far
    /// (the fallback included).
    pub fn number(&self) -> u32 {
        self.number
    }

    /// How many primary attempts came before this one: 0 on the first
    /// attempt. The fallback keeps the count of the attempts before it.
    pub fn retry_number(&self) -> u32 {
        self.retry_number
    }

    /// The time granted to this attempt, `min(timeout, budget - elapsed)`,
    /// or `None` when neither limit is set.
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline
    }

    /// Whether this is the fallback attempt.
    pub fn is_fallback(&self) -> bool {
        self.fallback
    }
}
