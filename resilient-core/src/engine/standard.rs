//! The operation of a blocking `#[resilient]` function whose options are
//! only `retries`, `retry_on` and `backoff`, built by one function shared
//! by every function of the same types.
//!
//! Such a function builds its operation only after its first attempt
//! failed (see [`first_attempt_unbuilt`](super::first_attempt_unbuilt)).
//! Built with [`Operation`]'s setters, each function would compile its own
//! copy of the chain, every setter moving the whole operation, for the
//! optimiser to fold: about a third of the function's build. Here the
//! function writes the few values into a [`Standard`] and one shared
//! [`build`](Standard::build) makes the operation from them.
//!
//! Nothing here is an API of its own: `#[resilient]` expands to it.

use std::marker::PhantomData;

use super::hooks::Hooks;
use super::operation::Operation;
use crate::backoff::Backoff;
use crate::clock::SystemClock;
use crate::error::ReportableError;
use crate::observe::Tally;

/// The operation a [`Standard`] with a classifier builds:
/// [`Operation::retry_if`] with a `fn` pointer.
pub type Classified<T, E> = Operation<'static, T, E, SystemClock, Hooks<fn(&E) -> bool>>;

/// The values of an operation, each `None` left at its default, and `K`
/// its classifier: `()` retries every error, a `fn(&E) -> bool` the errors
/// it selects.
#[must_use]
pub struct Standard<T, E, K = ()> {
    max_attempts: Option<u32>,
    backoff: Option<Backoff>,
    name: Option<&'static str>,
    tally: Option<&'static Tally>,
    describe: fn(&E) -> String,
    classify: K,
    types: PhantomData<fn() -> T>,
}

impl<T, E: ReportableError> Standard<T, E> {
    /// Nothing set: an operation's defaults. The one step that asks `E`
    /// to be reportable, so that an `E` that isn't is one error, here.
    #[inline]
    pub const fn new() -> Self {
        Standard {
            max_attempts: None,
            backoff: None,
            name: None,
            tally: None,
            describe: E::describe,
            classify: (),
            types: PhantomData,
        }
    }
}

impl<T, E: ReportableError> Default for Standard<T, E> {
    fn default() -> Self {
        Self::new()
    }
}

// Named as `Operation`'s setters are, so that the expansion writes the
// same calls to either.
impl<T, E, K> Standard<T, E, K> {
    /// As [`Operation::max_attempts`].
    #[inline]
    pub fn max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = Some(max_attempts);
        self
    }

    /// As [`Operation::backoff`].
    #[inline]
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = Some(backoff);
        self
    }

    /// As [`Operation::name`], for a name known at compile time.
    #[inline]
    pub fn name(mut self, name: &'static str) -> Self {
        self.name = Some(name);
        self
    }

    /// As [`Operation::tally`].
    #[inline]
    pub fn tally(mut self, tally: &'static Tally) -> Self {
        self.tally = Some(tally);
        self
    }

    /// An operation of these values, whose report renders errors with
    /// `describe`, as [`Operation::new`]'s does.
    #[inline]
    fn apply(&self) -> Operation<'static, T, E> {
        let mut op = Operation::unreported();
        op.plan.describe = Some(self.describe);
        if let Some(max_attempts) = self.max_attempts {
            op = op.max_attempts(max_attempts);
        }
        if let Some(backoff) = self.backoff {
            op = op.backoff(backoff);
        }
        if let Some(name) = self.name {
            op = op.name(name);
        }
        if let Some(tally) = self.tally {
            op = op.tally(tally);
        }
        op
    }
}

impl<T, E> Standard<T, E> {
    /// As [`Operation::retry_if`], for a `fn` pointer.
    #[inline]
    pub fn retry_if(self, classify: fn(&E) -> bool) -> Standard<T, E, fn(&E) -> bool> {
        Standard {
            max_attempts: self.max_attempts,
            backoff: self.backoff,
            name: self.name,
            tally: self.tally,
            describe: self.describe,
            classify,
            types: PhantomData,
        }
    }

    /// The operation, as the same setters would make it.
    #[inline(never)]
    pub fn build(self) -> Operation<'static, T, E> {
        self.apply()
    }
}

impl<T, E> Standard<T, E, fn(&E) -> bool> {
    /// The operation, as the same setters would make it.
    #[inline(never)]
    pub fn build(self) -> Classified<T, E> {
        self.apply().retry_if(self.classify)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::backoff::Jitter;

    static TALLY: Tally = Tally::new();

    fn transient(error: &&'static str) -> bool {
        *error == "transient"
    }

    #[test]
    fn builds_what_the_same_setters_build() {
        let backoff = Backoff::exponential(Duration::from_millis(100), Duration::from_secs(10))
            .jitter(Jitter::None);
        let chain = Operation::<u32, &'static str>::new()
            .max_attempts(4)
            .backoff(backoff)
            .retry_if(transient as fn(&_) -> bool)
            .name("call")
            .tally(&TALLY);
        let standard = Standard::<u32, &'static str>::new()
            .max_attempts(4)
            .backoff(backoff)
            .retry_if(transient)
            .name("call")
            .tally(&TALLY)
            .build();
        assert_eq!(standard.plan.settings, chain.plan.settings);
        assert_eq!(standard.plan.name, chain.plan.name);
        assert!(standard.plan.tally.is_some_and(|t| std::ptr::eq(t, &TALLY)));
        assert_eq!(
            standard.plan.describe.map(|d| d(&"x")),
            Some("x".to_owned())
        );
        assert!((standard.plan.hooks.classify)(&"transient"));
        assert!(!(standard.plan.hooks.classify)(&"fatal"));

        // Nothing set: an operation's defaults.
        let plain = Standard::<u32, &'static str>::new().build();
        let defaults = Operation::<u32, &'static str>::new();
        assert_eq!(plain.plan.settings, defaults.plan.settings);
        assert_eq!(plain.plan.name, defaults.plan.name);
        assert_eq!(plain.plan.tally.is_none(), defaults.plan.tally.is_none());
    }
}
