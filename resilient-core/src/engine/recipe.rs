//! [`Recipe`]: the values of a `#[resilient]` function's operation of the
//! commonest options, which one function shared by every function of the
//! same types builds the operation from.
//!
//! Built with [`Operation`]'s setters, each function would compile its own
//! copy of the chain, every setter moving the whole operation, for the
//! optimiser to fold, and would type-check each setter of a type of five
//! parameters: about a third of the function's build. Here the function
//! writes the few values into a [`Recipe`] and one shared
//! [`build`](Recipe::build) makes the operation from them. Its setters
//! are `const fn`s: where every value is a constant, the function has the
//! compiler write them (a `const` block), and compiles one constant.
//!
//! A function of such options, blocking or async, reads its first
//! attempt's terms (the deadline, the error of a cut attempt) from the
//! `Recipe` itself, built again where each is read
//! ([`first_attempt_of`](super::first::first_attempt_of),
//! [`first_attempt_async_of`](super::first::first_attempt_async_of)), so
//! that they fold into constants; the operation is built only once that
//! attempt failed. The run is the one of any operation built on demand
//! ([`FirstReads`]).
//!
//! Nothing here is an API of its own: `#[resilient]` expands to it.

use std::marker::PhantomData;
use std::time::Duration;

use super::attempt::terms::FirstTerms;
use super::execution::Execution;
use super::first::{FirstFailure, FirstReads, FirstSuccess};
use super::hooks::{HookSet, Hooks, RetryIf};
use super::operation::Operation;
use super::plan::NamedListeners;
use crate::attempt::Attempt;
use crate::clock::{Clock, SystemClock};
use crate::error::{ReportableError, TimeoutError};
use crate::observe::Tally;
use crate::report::{Outcome, UNNAMED};
use crate::settings::Settings;

/// The values of an operation, each left at its default until set: `K` is
/// its classifier (`()` retries every error, a `fn(&E) -> bool` the errors
/// it selects) and `C` its clock.
#[must_use]
pub struct Recipe<T, E, K = (), C = SystemClock> {
    settings: Settings,
    name: Option<&'static str>,
    tally: Option<&'static Tally>,
    describe: fn(&E) -> String,
    /// The error of an attempt cut at its deadline, once the operation
    /// interrupts there.
    timed_out: Option<fn() -> E>,
    classify: K,
    clock: C,
    types: PhantomData<fn() -> T>,
}

impl<T, E: ReportableError> Recipe<T, E> {
    /// Nothing set: an operation's defaults. The one step that asks `E`
    /// to be reportable, so that an `E` that isn't is one error, here.
    #[inline]
    pub const fn new() -> Self {
        Recipe::described_by(E::describe)
    }
}

impl<T, E> Recipe<T, E> {
    /// Nothing set, the report rendering errors with `describe`: what
    /// `#[resilient]` starts from, with the text it picks for the error
    /// type (`Display`, or `Debug` for a type without it).
    #[inline]
    pub const fn described_by(describe: fn(&E) -> String) -> Self {
        Recipe {
            settings: Settings::DEFAULT,
            name: None,
            tally: None,
            describe,
            timed_out: None,
            classify: (),
            clock: SystemClock,
            types: PhantomData,
        }
    }
}

impl<T, E, K, C> Recipe<T, E, K, C> {
    /// How the report renders each error.
    #[inline]
    pub fn describe(mut self, describe: fn(&E) -> String) -> Self {
        self.describe = describe;
        self
    }
}

impl<T, E: ReportableError> Default for Recipe<T, E> {
    fn default() -> Self {
        Self::new()
    }
}

// Named as `Operation`'s setters are, so that the expansion writes the
// same calls to either.
impl<T, E, K, C> Recipe<T, E, K, C> {
    crate::settings::settings_setters!();

    /// As [`Operation::timeout`].
    #[inline]
    pub const fn timeout(mut self, timeout: Duration) -> Self
    where
        E: TimeoutError,
    {
        self.settings.timeout = Some(timeout);
        self.interrupt_at_deadline()
    }

    /// The error an attempt fails with when it is cut at a deadline it
    /// inherited from the attempt its call was made inside, where the
    /// function's error makes one (`maker`) and nothing set it yet.
    #[inline(always)]
    pub const fn expiring(mut self, maker: Option<fn() -> E>) -> Self {
        if self.timed_out.is_none() {
            self.timed_out = maker;
        }
        self
    }

    /// As [`Operation::interrupt_at_deadline`].
    #[inline]
    pub const fn interrupt_at_deadline(mut self) -> Self
    where
        E: TimeoutError,
    {
        self.timed_out = Some(E::timed_out);
        self
    }

    /// As [`Operation::name`], for a name known at compile time.
    #[inline]
    pub const fn name(mut self, name: &'static str) -> Self {
        self.name = Some(name);
        self
    }

    /// As [`Operation::tally`].
    #[inline]
    pub const fn tally(mut self, tally: &'static Tally) -> Self {
        self.tally = Some(tally);
        self
    }

    /// Who hears of a first success: nothing but the name and the counts,
    /// since a `Recipe` sets no gate and no report hook.
    #[inline(always)]
    fn named_listeners(&self) -> NamedListeners {
        NamedListeners::ending(self.name.unwrap_or(UNNAMED), self.tally)
    }
}

/// The same values, with the classifier `classify` and the clock
/// `clock`: a `const` move of every other field.
macro_rules! with_parts {
    ($recipe:ident, $classify:expr, $clock:expr) => {
        Recipe {
            settings: $recipe.settings,
            name: $recipe.name,
            tally: $recipe.tally,
            describe: $recipe.describe,
            timed_out: $recipe.timed_out,
            classify: $classify,
            clock: $clock,
            types: PhantomData,
        }
    };
}

impl<T, E> Recipe<T, E> {
    /// As [`Operation::clock`], for a clock that is `Copy`, as the default
    /// ones are.
    #[inline]
    pub const fn clock<C: Clock + Copy>(self, clock: C) -> Recipe<T, E, (), C> {
        with_parts!(self, self.classify, clock)
    }
}

impl<T, E, C: Copy> Recipe<T, E, (), C> {
    /// As [`Operation::retry_if`], for a `fn` pointer.
    #[inline]
    pub const fn retry_if(self, classify: fn(&E) -> bool) -> Recipe<T, E, fn(&E) -> bool, C> {
        with_parts!(self, classify, self.clock)
    }
}

impl<T, E, K, C: Clock> Recipe<T, E, K, C> {
    /// An operation of these values but the classifier, whose report
    /// renders errors with `describe`, as [`Operation::new`]'s does.
    #[inline]
    fn apply(self) -> (Operation<'static, T, E, C>, K) {
        let mut op = Operation::unreported().clock(self.clock);
        op.plan.settings = self.settings;
        op.plan.describe = Some(self.describe);
        op.plan.timed_out = self.timed_out;
        if let Some(name) = self.name {
            op = op.name(name);
        }
        if let Some(tally) = self.tally {
            op = op.tally(tally);
        }
        (op, self.classify)
    }
}

impl<T, E, K: ErrorTest<E>, C: Clock> FirstReads<T, E> for Recipe<T, E, K, C>
where
    K::Hooks: HookSet<T, E>,
{
    type Clock = C;
    type Built = Operation<'static, T, E, C, K::Hooks>;

    #[inline(always)]
    fn built(self) -> Self::Built {
        self.build()
    }

    /// All a `Recipe`'s first success tells is its name and its counts,
    /// which `make` writes: nothing is built, but for the tile of its
    /// tally while it has no settings to show.
    #[inline(always)]
    fn outcome_from(first: FirstSuccess<T, E>, make: &impl Fn() -> Self) -> Outcome<T, E> {
        let read = first.read();
        let heard = make().named_listeners();
        let settings = || make().settings;
        first.outcome_heard_by(
            heard.from(read),
            crate::observe::SettingsOf::Made(&settings),
        )
    }

    #[inline(always)]
    fn finish_after(
        make: &impl Fn() -> Self,
        first: FirstFailure<T, E>,
        f: &mut dyn FnMut(Attempt) -> Result<T, E>,
    ) -> Outcome<T, E> {
        make().finish_after(first, f)
    }

    #[inline(always)]
    fn first_terms(&self) -> FirstTerms<E> {
        let entry = super::plan::entry(self.name.unwrap_or(UNNAMED), self.tally);
        // No gate: a `Recipe` holds none.
        FirstTerms::of(&self.settings, entry, (false, true), self.timed_out)
    }

    #[inline(always)]
    fn into_clock(self) -> C {
        self.clock
    }

    #[inline(always)]
    fn accepts(&self, _: &T) -> bool {
        true
    }

    #[inline(always)]
    fn named_listeners(&self) -> Option<NamedListeners> {
        Some(self.named_listeners())
    }

    #[cold]
    fn cancelled(self, elapsed: u64) {
        self.build().cancelled(elapsed);
    }
}

/// A `Recipe`'s classifier: `()` retries every error, a `fn` pointer
/// the errors it selects.
pub trait ErrorTest<E> {
    /// The hooks of the operation built: none, or this classifier.
    type Hooks;

    /// `op`, classifying errors with this.
    fn classify<'b, T, C>(self, op: Operation<'b, T, E, C>) -> Operation<'b, T, E, C, Self::Hooks>;
}

impl<E> ErrorTest<E> for () {
    type Hooks = Hooks;

    #[inline(always)]
    fn classify<'b, T, C>(self, op: Operation<'b, T, E, C>) -> Operation<'b, T, E, C> {
        op
    }
}

impl<E> ErrorTest<E> for fn(&E) -> bool {
    type Hooks = RetryIf<Self>;

    #[inline(always)]
    fn classify<'b, T, C>(
        self,
        op: Operation<'b, T, E, C>,
    ) -> Operation<'b, T, E, C, RetryIf<Self>> {
        op.retry_if(self)
    }
}

impl<T, E, K: ErrorTest<E>, C: Clock> Recipe<T, E, K, C>
where
    K::Hooks: HookSet<T, E>,
{
    /// The operation, as the same setters would make it.
    #[inline(never)]
    pub fn build(self) -> Operation<'static, T, E, C, K::Hooks> {
        let (op, classify) = self.apply();
        classify.classify(op)
    }

    /// [`__private::finish_after`](crate::__private::finish_after) on the operation of these values: the
    /// failure path of a blocking function, one copy for every function
    /// of the same types.
    #[inline(never)]
    pub fn finish_after(
        self,
        first: FirstFailure<T, E>,
        f: &mut dyn FnMut(Attempt) -> Result<T, E>,
    ) -> Outcome<T, E> {
        let op = self.build();
        op.run_after(first, f).unwrap_or_else(Execution::finish)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::backoff::{Backoff, Jitter};
    use crate::clock::TokioClock;
    use crate::error::TimedOut;

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
        let recipe = Recipe::<u32, &'static str>::new()
            .max_attempts(4)
            .backoff(backoff)
            .retry_if(transient)
            .name("call")
            .tally(&TALLY)
            .build();
        assert_eq!(recipe.plan.settings, chain.plan.settings);
        assert_eq!(recipe.plan.name, chain.plan.name);
        assert!(recipe.plan.tally.is_some_and(|t| std::ptr::eq(t, &TALLY)));
        assert_eq!(recipe.plan.describe.map(|d| d(&"x")), Some("x".to_owned()));
        assert!((recipe.plan.hooks.hook)(&"transient"));
        assert!(!(recipe.plan.hooks.hook)(&"fatal"));

        // Nothing set: an operation's defaults.
        let plain = Recipe::<u32, &'static str>::new().build();
        let defaults = Operation::<u32, &'static str>::new();
        assert_eq!(plain.plan.settings, defaults.plan.settings);
        assert_eq!(plain.plan.name, defaults.plan.name);
        assert_eq!(plain.plan.tally.is_none(), defaults.plan.tally.is_none());
    }

    #[derive(Debug, Clone, PartialEq)]
    enum FetchError {
        Timeout,
        Transient,
    }

    impl std::fmt::Display for FetchError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{self:?}")
        }
    }

    impl std::error::Error for FetchError {}

    impl From<TimedOut> for FetchError {
        fn from(_: TimedOut) -> Self {
            FetchError::Timeout
        }
    }

    fn is_transient(error: &FetchError) -> bool {
        *error == FetchError::Transient
    }

    /// The values an async function writes: a clock, a timeout and a
    /// budget besides the blocking ones.
    fn async_recipe() -> Recipe<u32, FetchError, fn(&FetchError) -> bool, TokioClock> {
        // Evaluated by the compiler, as `#[resilient]` writes them; the
        // tally, a `static` the counts live in, is set after, since a
        // constant can't borrow it.
        const VALUES: Recipe<u32, FetchError, fn(&FetchError) -> bool, TokioClock> = Recipe::new()
            .clock(TokioClock)
            .max_attempts(3)
            .backoff(Backoff::constant(Duration::from_millis(50)))
            .retry_if(is_transient)
            .timeout(Duration::from_secs(2))
            .budget(Duration::from_secs(5))
            .jitter_seed(7)
            .name("fetch");
        VALUES.tally(&TALLY)
    }

    #[test]
    fn builds_what_the_same_setters_build_with_a_clock_and_deadlines() {
        let chain = Operation::<u32, FetchError>::new()
            .clock(TokioClock)
            .max_attempts(3)
            .backoff(Backoff::constant(Duration::from_millis(50)))
            .retry_if(is_transient as fn(&_) -> bool)
            .timeout(Duration::from_secs(2))
            .budget(Duration::from_secs(5))
            .jitter_seed(7)
            .name("fetch")
            .tally(&TALLY);
        let recipe = async_recipe().build();
        assert_eq!(recipe.plan.settings, chain.plan.settings);
        assert_eq!(recipe.plan.name, chain.plan.name);
        assert_eq!(
            recipe.plan.timed_out.map(|t| t()),
            Some(FetchError::Timeout)
        );
        assert!((recipe.plan.hooks.hook)(&FetchError::Transient));
        assert!(!(recipe.plan.hooks.hook)(&FetchError::Timeout));

        // A budget alone cuts an attempt only once asked to.
        let budget = Recipe::<u32, FetchError>::new().budget(Duration::from_secs(5));
        assert!(budget.timed_out.is_none());
        assert!(
            budget
                .interrupt_at_deadline()
                .build()
                .plan
                .timed_out
                .is_some()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_first_async_attempt_reads_its_deadline_from_the_values() {
        let make = async_recipe;
        // The first attempt is granted min(timeout, budget), and its
        // success is told under the function's name without a build.
        let mut granted = Vec::new();
        let first = super::super::first::first_attempt_async_of(&make, |attempt: Attempt| {
            granted.push(attempt.deadline());
            async { Ok(9) }
        })
        .await;
        let Ok(first) = first else {
            panic!("the attempt succeeded")
        };
        // Its name and counts are the values' own.
        let outcome: Outcome<u32, FetchError> = FirstReads::outcome_from(first, &make);
        assert_eq!(granted, [Some(Duration::from_secs(2))]);
        assert_eq!(outcome.report().name(), "fetch");
        assert_eq!(
            outcome.report().attempts()[0].deadline(),
            Some(Duration::from_secs(2))
        );
        assert_eq!(outcome.into_result(), Ok(9));

        // A failure goes on on the operation built from the same values:
        // the retry waits the constant backoff and is granted what is
        // left of the budget, capped by the timeout.
        let mut calls = 0;
        let mut body = async |_: Attempt| {
            calls += 1;
            if calls < 3 {
                Err(FetchError::Transient)
            } else {
                Ok(calls)
            }
        };
        let Err(first) = super::super::first::first_attempt_async_of(&make, |a| body(a)).await
        else {
            panic!("the first attempt failed")
        };
        let op = make().build();
        let mut exec = op.resume(first);
        while let Some(mut next) = exec.next_running().await {
            let work = std::pin::pin!(body(next.attempt()));
            exec.drive(&mut next, work).await;
        }
        let outcome = exec.finish();
        let report = outcome.report();
        assert_eq!(report.attempt_count(), 3);
        assert_eq!(
            report.delays(),
            [Duration::from_millis(50), Duration::from_millis(50)]
        );
        let granted: Vec<_> = report.attempts().iter().map(|a| a.deadline()).collect();
        assert_eq!(granted, [Some(Duration::from_secs(2)); 3]);
        assert_eq!(outcome.into_result(), Ok(3));
    }
}
