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

/// The operation a [`StandardIf`] builds: [`Operation::retry_if`] with a
/// `fn` pointer.
pub type Classified<T, E> = Operation<'static, T, E, SystemClock, Hooks<fn(&E) -> bool>>;

/// What a [`Standard`] operation sets, each `None` left at its default.
#[derive(Clone, Copy)]
struct Values {
    max_attempts: Option<u32>,
    backoff: Option<Backoff>,
    name: &'static str,
    tally: Option<&'static Tally>,
}

/// The values of an operation that retries every error.
#[must_use]
pub struct Standard<T, E> {
    values: Values,
    describe: fn(&E) -> String,
    types: PhantomData<fn() -> T>,
}

/// The values of an operation that retries the errors `classify` selects.
#[must_use]
pub struct StandardIf<T, E> {
    values: Values,
    describe: fn(&E) -> String,
    classify: fn(&E) -> bool,
    types: PhantomData<fn() -> T>,
}

/// The setters both kinds share, named as [`Operation`]'s are, so that the
/// expansion writes the same calls to either.
macro_rules! setters {
    () => {
        /// As [`Operation::max_attempts`].
        #[inline]
        pub fn max_attempts(mut self, max_attempts: u32) -> Self {
            self.values.max_attempts = Some(max_attempts);
            self
        }

        /// As [`Operation::backoff`].
        #[inline]
        pub fn backoff(mut self, backoff: Backoff) -> Self {
            self.values.backoff = Some(backoff);
            self
        }

        /// As [`Operation::name`], for a name known at compile time.
        #[inline]
        pub fn name(mut self, name: &'static str) -> Self {
            self.values.name = name;
            self
        }

        /// As [`Operation::tally`].
        #[inline]
        pub fn tally(mut self, tally: &'static Tally) -> Self {
            self.values.tally = Some(tally);
            self
        }
    };
}

impl<T, E: ReportableError> Standard<T, E> {
    /// Nothing set: an operation's defaults. The one step that asks `E`
    /// to be reportable, so that an `E` that isn't is one error, here.
    #[inline]
    pub const fn new() -> Self {
        Standard {
            values: Values {
                max_attempts: None,
                backoff: None,
                name: "",
                tally: None,
            },
            describe: E::describe,
            types: PhantomData,
        }
    }
}

impl<T, E> Standard<T, E> {
    setters!();

    /// As [`Operation::retry_if`], for a `fn` pointer.
    #[inline]
    pub fn retry_if(self, classify: fn(&E) -> bool) -> StandardIf<T, E> {
        StandardIf {
            values: self.values,
            describe: self.describe,
            classify,
            types: PhantomData,
        }
    }

    /// The operation, as the same setters would make it.
    #[inline(never)]
    pub fn build(self) -> Operation<'static, T, E> {
        self.values.apply(self.describe)
    }
}

impl<T, E: ReportableError> Default for Standard<T, E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, E> StandardIf<T, E> {
    setters!();

    /// The operation, as the same setters would make it.
    #[inline(never)]
    pub fn build(self) -> Classified<T, E> {
        self.values.apply(self.describe).retry_if(self.classify)
    }
}

impl Values {
    /// An operation of these values, whose report renders errors with
    /// `describe`, as [`Operation::new`]'s does.
    #[inline]
    fn apply<T, E>(self, describe: fn(&E) -> String) -> Operation<'static, T, E> {
        let mut op = Operation::unreported();
        op.plan.describe = Some(describe);
        if let Some(max_attempts) = self.max_attempts {
            op = op.max_attempts(max_attempts);
        }
        if let Some(backoff) = self.backoff {
            op = op.backoff(backoff);
        }
        op = op.name(self.name);
        if let Some(tally) = self.tally {
            op = op.tally(tally);
        }
        op
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

        // Nothing set but the name: an operation's defaults.
        let plain = Standard::<u32, &'static str>::new().name("plain").build();
        let defaults = Operation::<u32, &'static str>::new().name("plain");
        assert_eq!(plain.plan.settings, defaults.plan.settings);
        assert_eq!(plain.plan.tally.is_none(), defaults.plan.tally.is_none());
    }
}
