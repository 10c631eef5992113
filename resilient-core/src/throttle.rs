//! Throttles that keep a client's load off a dependency that is failing:
//!
//! * [`RetryThrottle`]: shared state that turns retries off while a
//!   dependency is failing for most callers, following gRPC proposal A6
//!   ("client retry throttling"); and [`RetryBudget`], what anything
//!   standing in its place provides;
//! * [`AdaptiveThrottle`]: client-side adaptive throttling after the
//!   Google SRE book, which refuses a share of the calls themselves, the
//!   first attempts included, as the backend accepts fewer of them;
//! * [`budget_default`]: one budget for every operation of the process
//!   that has none of its own (or a configuration's `[throttles.default]`).
//!
//! `retries = N` bounds what one call may do, not what all calls do
//! together. When a dependency browns out, every instance of every caller
//! sees failures at the same moment and every one of them retries: the load
//! it receives grows up to `N + 1` times exactly when its capacity is lowest,
//! which can keep it from ever recovering. A throttle shared by the calls to
//! one dependency watches their outcomes and stops retries while failures
//! dominate. It is local to a process, yet the whole fleet backs off
//! together, because every instance sees the same failures: the fleet falls
//! back to one attempt per call, and retries come back by themselves once
//! enough calls succeed again.
//!
//! # Concurrency
//!
//! The token count is one [`AtomicU32`] in thousandths of a token, and every
//! update is a single [`fetch_update`](AtomicU32::fetch_update) on it: a
//! compare-and-swap loop on one word, lock-free. No update reads or writes
//! any other state, so two updates can only be ordered one after the other,
//! never interleaved; that is why this type has a hammer test and no model
//! checker run.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::a6::{self, MAX_TOKENS_LIMIT, MILLI};
use crate::error::ConfigError;

mod adaptive;
mod default;

pub use crate::error::Rejected;
pub use adaptive::AdaptiveThrottle;
pub(crate) use adaptive::Admitted;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
pub(crate) use adaptive::Reading;
pub(crate) use default::in_force as default_in_force;
pub use default::{Unlimited, budget_default, budget_default_in_force, clear_budget_default};

/// Shared state that refuses retries while most recent attempts against one
/// dependency fail: gRPC proposal A6, "client retry throttling".
///
/// The throttle holds a token count, from 0 to `max_tokens`, starting full:
///
/// * an attempt that fails with an error classified retryable takes one
///   token ([`record_failure`](Self::record_failure)); a non-retryable
///   failure (a malformed request, say) says nothing about the dependency's
///   health and leaves the count alone;
/// * a successful attempt adds `token_ratio` tokens
///   ([`record_success`](Self::record_success));
/// * a retry, or a hedged attempt, may start only while the count is
///   **above** `max_tokens / 2` ([`allows_retry`](Self::allows_retry)).
///
/// The first attempt of a call always runs: the throttle limits the extra
/// load retries add, never the calls themselves. With `token_ratio = 0.1`,
/// retries stay on while fewer than about one attempt in eleven fails, and
/// once they are off it takes ten successes to earn back each failure.
///
/// `retries` caps one call; the throttle caps all calls sharing it, so share
/// one per dependency, as a `static` or in an [`Arc`]. The count is kept in
/// thousandths of a token, the precision A6 gives `token_ratio`.
///
/// ```
/// use resilient::RetryThrottle;
///
/// static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.1);
///
/// // Six retryable failures in a row leave 4 tokens: not above 10 / 2.
/// for _ in 0..6 {
///     THROTTLE.record_failure();
/// }
/// assert_eq!(THROTTLE.tokens(), 4.0);
/// assert!(!THROTTLE.allows_retry());
///
/// // Each success earns back a tenth of a token.
/// for _ in 0..11 {
///     THROTTLE.record_success();
/// }
/// assert_eq!(THROTTLE.tokens(), 5.1);
/// assert!(THROTTLE.allows_retry());
/// ```
pub struct RetryThrottle {
    /// The token count, in thousandths.
    tokens: AtomicU32,
    /// `max_tokens`, in thousandths.
    max: u32,
    /// What a success adds, in thousandths: at least 1, at most `max`.
    refill: u32,
    /// Its name ([`named`](Self::named)), by which an installed
    /// configuration's `[throttles.NAME]` finds it; `None`: no entry
    /// applies, and nothing is read.
    name: Option<&'static str>,
    /// Its entry in the installed configuration.
    #[cfg(feature = "config")]
    configured: crate::config::ThrottleCache,
}

impl RetryThrottle {
    /// A full throttle of `max_tokens` tokens, gaining `token_ratio` tokens
    /// per success. A `const fn`, so it can initialise a `static` directly.
    ///
    /// Never panics: values A6 does not allow are brought to the nearest
    /// allowed one, so use [`try_new`](Self::try_new) to have them rejected
    /// instead.
    ///
    /// * `max_tokens` is clamped to `1..=1000`: 0 becomes 1, anything above
    ///   1000 (`u32::MAX` included) becomes 1000.
    /// * `token_ratio` is rounded to the nearest thousandth, then kept at
    ///   least 0.001 (so NaN, zero, negative ratios and ratios below 0.0005
    ///   give 0.001: the slowest refill) and at most `max_tokens` (a larger
    ///   ratio, infinity included, refills the throttle in one success
    ///   either way).
    ///
    /// ```
    /// use resilient::RetryThrottle;
    ///
    /// let throttle = RetryThrottle::new(0, f64::NAN);
    /// assert_eq!(throttle.max_tokens(), 1);
    /// assert_eq!(throttle.token_ratio(), 0.001);
    ///
    /// let throttle = RetryThrottle::new(u32::MAX, f64::INFINITY);
    /// assert_eq!(throttle.max_tokens(), 1000);
    /// assert_eq!(throttle.token_ratio(), 1000.0);
    /// ```
    pub const fn new(max_tokens: u32, token_ratio: f64) -> Self {
        let max_tokens = if max_tokens == 0 {
            1
        } else if max_tokens > MAX_TOKENS_LIMIT {
            MAX_TOKENS_LIMIT
        } else {
            max_tokens
        };
        let max = max_tokens * MILLI;
        Self {
            tokens: AtomicU32::new(max),
            max,
            refill: a6::refill_of(token_ratio, max),
            name: None,
            #[cfg(feature = "config")]
            configured: crate::config::ThrottleCache::new(),
        }
    }

    /// Like [`new`](Self::new), but rejects what A6 does not allow instead
    /// of clamping it: `max_tokens` outside `1..=1000`
    /// ([`ConfigError::InvalidMaxTokens`]), and a `token_ratio` that is not
    /// finite or that rounds to less than one thousandth
    /// ([`ConfigError::InvalidTokenRatio`]). A ratio above `max_tokens` is
    /// accepted: one success refills the throttle.
    ///
    /// A `const fn` too, so a `static` can check its values at compile time:
    ///
    /// ```
    /// use resilient::{ConfigError, RetryThrottle};
    ///
    /// static THROTTLE: RetryThrottle = match RetryThrottle::try_new(10, 0.1) {
    ///     Ok(throttle) => throttle,
    ///     Err(_) => panic!("invalid retry throttle"),
    /// };
    /// assert_eq!(THROTTLE.max_tokens(), 10);
    ///
    /// assert_eq!(
    ///     RetryThrottle::try_new(0, 0.1).unwrap_err(),
    ///     ConfigError::InvalidMaxTokens(0),
    /// );
    /// assert_eq!(
    ///     RetryThrottle::try_new(10, -0.5).unwrap_err(),
    ///     ConfigError::InvalidTokenRatio(-0.5),
    /// );
    /// ```
    pub const fn try_new(max_tokens: u32, token_ratio: f64) -> Result<Self, ConfigError> {
        if let Err(error) = a6::check_max_tokens(max_tokens) {
            return Err(error);
        }
        if let Err(error) = a6::check_token_ratio(token_ratio) {
            return Err(error);
        }
        Ok(Self::new(max_tokens, token_ratio))
    }

    /// The same throttle under a name, by which an installed
    /// configuration's `[throttles.NAME]` (feature `config`) sets its
    /// `max_tokens` and `token_ratio` at run time. The token count
    /// survives a reload, cut to a smaller `max_tokens`. A named throttle
    /// reads its entry with one generation check per use; an unnamed one
    /// reads nothing.
    ///
    /// ```
    /// use resilient::RetryThrottle;
    ///
    /// static PAYMENTS: RetryThrottle = RetryThrottle::new(10, 0.1).named("payments");
    /// assert_eq!(PAYMENTS.name(), Some("payments"));
    /// assert_eq!(RetryThrottle::new(10, 0.1).name(), None);
    /// ```
    #[must_use]
    pub const fn named(self, name: &'static str) -> Self {
        Self {
            name: Some(name),
            ..self
        }
    }

    /// Its name, from [`named`](Self::named).
    #[must_use]
    pub const fn name(&self) -> Option<&'static str> {
        self.name
    }

    /// `max` and `refill` in force: the builder's, or for a named throttle
    /// its entry's in the installed configuration.
    #[inline(always)]
    fn in_force(&self) -> (u32, u32) {
        #[cfg(feature = "config")]
        if let Some(name) = self.name {
            return self
                .configured
                .read(name, (self.max, self.refill), &self.tokens);
        }
        (self.max, self.refill)
    }

    /// Takes one token (none below zero): an attempt failed with an error
    /// classified retryable. Call it for the last attempt of a call too:
    /// A6 counts every failure, whether a retry follows or not.
    ///
    /// ```
    /// use resilient::RetryThrottle;
    ///
    /// let throttle = RetryThrottle::new(2, 0.5);
    /// for _ in 0..3 {
    ///     throttle.record_failure();
    /// }
    /// assert_eq!(throttle.tokens(), 0.0);
    /// ```
    pub fn record_failure(&self) {
        // Relaxed suffices: the count publishes no other data, and
        // read-modify-writes on one atomic never lose each other's updates
        // whatever their ordering. Declining to write at zero keeps a
        // drained throttle's failures from contending for its cache line
        // (so `>` and `>=` count alike: zero less a token is zero).
        let _ = self
            .tokens
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |tokens| {
                (tokens > 0).then_some(tokens.saturating_sub(MILLI))
            });
    }

    /// Adds `token_ratio` tokens (none above `max_tokens`): an attempt
    /// succeeded.
    ///
    /// ```
    /// use resilient::RetryThrottle;
    ///
    /// let throttle = RetryThrottle::new(2, 0.3);
    /// throttle.record_failure();
    /// for _ in 0..4 {
    ///     throttle.record_success();
    /// }
    /// assert_eq!(throttle.tokens(), 2.0); // 1.0 + 4 × 0.3, capped at 2
    /// ```
    pub fn record_success(&self) {
        // A healthy dependency keeps the throttle full, so declining to
        // write at the cap leaves the common path a plain load. A count
        // above the cap (a success counted by the old cap as a reload cut
        // it) comes down to it.
        let (max, refill) = self.in_force();
        let _ = self
            .tokens
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |tokens| {
                (tokens != max).then_some(tokens.saturating_add(refill).min(max))
            });
    }

    /// Whether a retry or a hedged attempt may start now: the token count is
    /// above `max_tokens / 2`. Reading it changes nothing.
    ///
    /// ```
    /// use resilient::RetryThrottle;
    ///
    /// let throttle = RetryThrottle::new(4, 0.1);
    /// throttle.record_failure();
    /// assert!(throttle.allows_retry()); // 3 > 2
    /// throttle.record_failure();
    /// assert!(!throttle.allows_retry()); // 2 is not above 2
    /// ```
    #[must_use]
    pub fn allows_retry(&self) -> bool {
        self.tokens.load(Ordering::Relaxed) > self.in_force().0 / 2
    }

    /// The current token count, exact to the thousandth (it is kept in
    /// thousandths), for tests and dashboards.
    ///
    /// ```
    /// use resilient::RetryThrottle;
    ///
    /// let throttle = RetryThrottle::new(3, 0.25);
    /// assert_eq!(throttle.tokens(), 3.0);
    /// throttle.record_failure();
    /// throttle.record_success();
    /// assert_eq!(throttle.tokens(), 2.25);
    /// ```
    #[must_use]
    pub fn tokens(&self) -> f64 {
        let max = self.in_force().0;
        thousandths_to_tokens(self.tokens.load(Ordering::Relaxed).min(max))
    }

    /// The most tokens the throttle holds, and where it starts; after the
    /// clamping of [`new`](Self::new). This is the built value: an
    /// installed `[throttles.NAME] max_tokens` overrides it for a named
    /// throttle, which [`RetryBudget::level`] reports.
    ///
    /// ```
    /// use resilient::RetryThrottle;
    ///
    /// assert_eq!(RetryThrottle::new(10, 0.1).max_tokens(), 10);
    /// assert_eq!(RetryThrottle::new(5000, 0.1).max_tokens(), 1000);
    /// ```
    #[must_use]
    pub const fn max_tokens(&self) -> u32 {
        self.max / MILLI
    }

    /// What each success adds, as built: rounded to the thousandth and
    /// clamped by [`new`](Self::new). An installed `[throttles.NAME]
    /// token_ratio` overrides it for a named throttle.
    ///
    /// ```
    /// use resilient::RetryThrottle;
    ///
    /// assert_eq!(RetryThrottle::new(10, 0.1).token_ratio(), 0.1);
    /// assert_eq!(RetryThrottle::new(10, 0.12345).token_ratio(), 0.123);
    /// ```
    #[must_use]
    pub fn token_ratio(&self) -> f64 {
        thousandths_to_tokens(self.refill)
    }
}

/// A count of thousandths as tokens. The division is correctly rounded, so
/// the result equals the decimal literal with the same digits (2100 gives
/// exactly `2.1`), and tests may compare it with `==`.
fn thousandths_to_tokens(thousandths: u32) -> f64 {
    f64::from(thousandths) / f64::from(MILLI)
}

impl fmt::Debug for RetryThrottle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (max, refill) = self.in_force();
        let mut shown = f.debug_struct("RetryThrottle");
        if let Some(name) = self.name {
            shown.field("name", &name);
        }
        shown
            .field("tokens", &self.tokens())
            .field("max_tokens", &(max / MILLI))
            .field("token_ratio", &thousandths_to_tokens(refill))
            .finish()
    }
}

/// What a retry throttle does for the calls sharing it, so that something
/// other than [`RetryThrottle`] can serve in its place: a budget of
/// retries, not of time.
///
/// The caller reports each attempt's outcome, then asks before a retry:
///
/// 1. after an attempt fails with an error classified retryable:
///    [`record_failure`](Self::record_failure) (non-retryable failures are
///    not reported);
/// 2. after an attempt succeeds: [`record_success`](Self::record_success);
/// 3. when every other rule (attempts left, time caps) has decided that a
///    retry or a hedged attempt follows: [`allows_retry`](Self::allows_retry),
///    once, right before starting it. `false` means the call makes no
///    further attempt and ends with the last attempt's error. The first
///    attempt of a call is never asked about.
///
/// An implementation may spend the retry when it answers `true` (tower's
/// `TpsBudget` does; [`RetryThrottle`] only reads its count), which is why
/// the question is asked once and only when the retry would really start.
///
/// Implemented by [`RetryThrottle`], by references and [`Arc`]s of any
/// implementation, and, with the feature `tower`, by
/// `tower::retry::budget::TpsBudget`:
///
/// * `record_success` deposits;
/// * `record_failure` does nothing, since a `TpsBudget` charges retries
///   rather than failures;
/// * `allows_retry` withdraws, so it spends one retry of the budget when it
///   answers `true`.
///
/// Its `retry_percent` is then a share of the successful attempts, and
/// with no success at all only its `min_per_sec` reserve allows retries.
///
/// ```
/// use resilient::{RetryBudget, RetryThrottle};
/// use std::sync::Arc;
///
/// /// A caller's loop, by hand: how many attempts a call that always fails
/// /// gets from a budget.
/// fn attempts_of_a_failing_call(budget: &dyn RetryBudget, retries: u32) -> u32 {
///     let mut attempts = 1;
///     budget.record_failure();
///     while attempts <= retries && budget.allows_retry() {
///         attempts += 1;
///         budget.record_failure();
///     }
///     attempts
/// }
///
/// let throttle = Arc::new(RetryThrottle::new(4, 0.1));
/// assert_eq!(attempts_of_a_failing_call(&throttle, 5), 2);
/// assert_eq!(attempts_of_a_failing_call(&throttle, 5), 1);
/// assert_eq!(throttle.tokens(), 1.0);
/// ```
pub trait RetryBudget: Send + Sync {
    /// An attempt failed with an error classified retryable.
    fn record_failure(&self);

    /// An attempt succeeded.
    fn record_success(&self);

    /// Whether the retry (or hedged attempt) about to start may run. Asked
    /// once per retry, right before it starts, never for a call's first
    /// attempt; an implementation may spend the retry in answering `true`.
    fn allows_retry(&self) -> bool;

    /// The tokens left and the most there can be, for the dashboard's
    /// tile of an operation using this budget (feature `dashboard`). The
    /// default, `None`, is a budget without a count worth showing.
    ///
    /// ```
    /// use resilient::{RetryBudget, RetryThrottle};
    ///
    /// let throttle = RetryThrottle::new(10, 0.1);
    /// throttle.record_failure();
    /// assert_eq!(RetryBudget::level(&throttle), Some((9.0, 10.0)));
    /// ```
    fn level(&self) -> Option<(f64, f64)> {
        None
    }
}

impl RetryBudget for RetryThrottle {
    fn record_failure(&self) {
        RetryThrottle::record_failure(self);
    }

    fn record_success(&self) {
        RetryThrottle::record_success(self);
    }

    fn allows_retry(&self) -> bool {
        RetryThrottle::allows_retry(self)
    }

    fn level(&self) -> Option<(f64, f64)> {
        // One read of the maximum, so that the pair is one generation's.
        let max = self.in_force().0;
        let tokens = self.tokens.load(Ordering::Relaxed).min(max);
        Some((thousandths_to_tokens(tokens), f64::from(max / MILLI)))
    }
}

/// Implements [`RetryBudget`] for pointers to one, so that `&THROTTLE` and
/// an `Arc` shared between tasks serve as well as the budget itself.
macro_rules! forward_to_pointee {
    ($($pointer:ty),*) => {$(
        impl<B: RetryBudget + ?Sized> RetryBudget for $pointer {
            fn record_failure(&self) {
                (**self).record_failure();
            }

            fn record_success(&self) {
                (**self).record_success();
            }

            fn allows_retry(&self) -> bool {
                (**self).allows_retry()
            }

            fn level(&self) -> Option<(f64, f64)> {
                (**self).level()
            }
        }
    )*};
}

forward_to_pointee!(&B, Arc<B>);

#[cfg(feature = "tower")]
impl RetryBudget for tower::retry::budget::TpsBudget {
    fn record_failure(&self) {
        // A `TpsBudget` is charged by `withdraw`, for each retry it allows;
        // charging failures as well would count every failed call twice.
    }

    fn record_success(&self) {
        tower::retry::budget::Budget::deposit(self);
    }

    fn allows_retry(&self) -> bool {
        tower::retry::budget::Budget::withdraw(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_throttle_keeps_its_name_and_ratio_and_a_budget_without_a_count_shows_none() {
        assert_eq!(
            RetryThrottle::new(10, 0.1).named("payments").name(),
            Some("payments")
        );
        assert_eq!(RetryThrottle::new(10, 0.1).name(), None);
        assert_eq!(RetryThrottle::new(10, 0.25).token_ratio(), 0.25);
        struct Always;
        impl RetryBudget for Always {
            fn record_failure(&self) {}
            fn record_success(&self) {}
            fn allows_retry(&self) -> bool {
                true
            }
        }
        assert_eq!(Always.level(), None);
        let throttle = RetryThrottle::new(10, 0.1);
        throttle.record_failure();
        assert_eq!(RetryBudget::level(&throttle), Some((9.0, 10.0)));
    }

    #[test]
    fn new_clamps_max_tokens_into_a6_range() {
        let cases = [(0, 1), (1, 1), (10, 10), (1000, 1000), (1001, 1000)];
        for (given, kept) in cases.into_iter().chain([(u32::MAX, 1000)]) {
            let throttle = RetryThrottle::new(given, 0.1);
            assert_eq!(throttle.max_tokens(), kept, "max_tokens {given}");
            assert_eq!(throttle.tokens(), f64::from(kept), "max_tokens {given}");
        }
    }

    #[test]
    fn new_rounds_ratio_to_thousandths_then_clamps() {
        let cases = [
            (0.1, 100),
            (0.3, 300),
            (0.12345, 123),
            (0.0015, 2),
            (0.0005, 1),
            (0.0004, 1),
            (0.0, 1),
            (-0.0, 1),
            (-2.5, 1),
            (f64::NAN, 1),
            (f64::NEG_INFINITY, 1),
            (10.0, 10_000),
            (10.5, 10_000),
            (1e300, 10_000),
            (f64::INFINITY, 10_000),
        ];
        for (ratio, refill) in cases {
            assert_eq!(
                RetryThrottle::new(10, ratio).refill,
                refill,
                "ratio {ratio}"
            );
        }
    }

    #[test]
    fn try_new_accepts_a6_values_and_keeps_them_exactly() {
        let throttle = RetryThrottle::try_new(1000, 0.001).unwrap();
        assert_eq!((throttle.max, throttle.refill), (1_000_000, 1));
        let throttle = RetryThrottle::try_new(1, 0.0005).unwrap();
        assert_eq!((throttle.max, throttle.refill), (1000, 1));
        // Above max_tokens is allowed (a success refills completely).
        let throttle = RetryThrottle::try_new(2, 7.5).unwrap();
        assert_eq!((throttle.max, throttle.refill), (2000, 2000));
    }

    #[test]
    fn try_new_rejects_max_tokens_outside_a6_range() {
        for max_tokens in [0, 1001, u32::MAX] {
            assert_eq!(
                RetryThrottle::try_new(max_tokens, 0.1).unwrap_err(),
                ConfigError::InvalidMaxTokens(max_tokens)
            );
        }
    }

    #[test]
    fn try_new_rejects_ratios_that_are_not_finite_or_round_to_zero() {
        for ratio in [0.0, -0.0, -0.1, 0.0004, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(
                RetryThrottle::try_new(10, ratio).unwrap_err(),
                ConfigError::InvalidTokenRatio(ratio),
                "ratio {ratio}"
            );
        }
        // NaN is not equal to itself, so the payload is checked apart.
        let err = RetryThrottle::try_new(10, f64::NAN).unwrap_err();
        assert!(
            matches!(err, ConfigError::InvalidTokenRatio(r) if r.is_nan()),
            "{err:?}"
        );
    }

    #[test]
    fn debug_shows_count_and_configuration_in_tokens() {
        let throttle = RetryThrottle::new(4, 0.1);
        throttle.record_failure();
        throttle.record_success();
        assert_eq!(
            format!("{throttle:?}"),
            "RetryThrottle { tokens: 3.1, max_tokens: 4, token_ratio: 0.1 }"
        );
    }

    #[derive(Debug, Clone, Copy)]
    enum Op {
        Failure,
        Success,
    }

    proptest! {
        /// The count follows a model kept in signed whole thousandths and
        /// clamped after every step, and the threshold is strict.
        #[test]
        fn count_follows_a_clamped_model(
            max_tokens in 1u32..=1000,
            refill in 1u32..=3000,
            ops in proptest::collection::vec(
                prop_oneof![Just(Op::Failure), Just(Op::Success)],
                0..300,
            ),
        ) {
            let ratio = f64::from(refill) / 1000.0;
            let throttle = RetryThrottle::new(max_tokens, ratio);
            let max = i64::from(max_tokens) * 1000;
            let mut model = max;
            for op in ops {
                match op {
                    Op::Failure => {
                        throttle.record_failure();
                        model = (model - 1000).max(0);
                    }
                    Op::Success => {
                        throttle.record_success();
                        model = (model + i64::from(refill)).min(max);
                    }
                }
                prop_assert_eq!(i64::from(throttle.tokens.load(Ordering::Relaxed)), model);
                prop_assert_eq!(throttle.allows_retry(), 2 * model > max);
            }
        }
    }
}
