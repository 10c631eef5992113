//! The shape of the generated code: which of the ways to build the
//! operation and to drive the run the expansion writes, decided once from
//! the flags of the options' rows (`options.rs`) and from whether their
//! values are constants.

use syn::Expr;

use crate::attr::{BackoffSpec, Dur, HedgeSpec, Multiplier, Options, Value};
use crate::options::Run;

use super::names::Names;

/// The shape of the generated code, one variant per way the run is
/// written: decided once, from the flags of the options' rows
/// (`options.rs`) and from whether their values are constants.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Expansion {
    /// A blocking function built on demand, wherever it is read: for
    /// values of constants, a first success builds nothing.
    BlockingOnDemand { recipe: bool },
    /// An async function built on demand: where a gate must admit the
    /// first attempt, that attempt runs unboxed, outside the retry loop.
    AsyncOnDemand { gated: bool, recipe: bool },
    /// The operation built once, before the run.
    Built(Built),
    /// The operation built once, and the whole run under an idempotency
    /// key.
    Idempotent(Built),
}

/// The run of an operation built once.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Built {
    Blocking,
    /// `gated`: a gate may have to admit the first attempt.
    Async {
        gated: bool,
    },
    /// Attempts are hedged: the run owns the hedged operation.
    AsyncHedged,
}

impl Expansion {
    /// The shape of `function`'s expansion with `options`.
    ///
    /// The operation is built on demand, by a closure called wherever it
    /// is read, only where building it again changes nothing: every
    /// option's value a constant (see [`Names::is_constant`]) or bound to a
    /// local before the operation, and the run the engine's plain one.
    pub(super) fn of(options: &Options, is_async: bool, names: &Names) -> Expansion {
        let given = options.given();
        let runs = |run: Run| given.iter().any(|given| given.spec.run == run);
        let on_demand = !runs(Run::Hedged)
            && !runs(Run::Keyed)
            && given.iter().all(|given| {
                given.spec.expand.binds_a_local()
                    || given
                        .value
                        .as_ref()
                        .is_none_or(|value| is_made_of(value, &|expr| names.is_constant(expr)))
            });
        let gated = given.iter().any(|given| given.spec.gate);
        if !on_demand {
            let built = match (is_async, runs(Run::Hedged)) {
                (false, _) => Built::Blocking,
                (true, false) => Built::Async { gated },
                (true, true) => Built::AsyncHedged,
            };
            return if runs(Run::Keyed) {
                Expansion::Idempotent(built)
            } else {
                Expansion::Built(built)
            };
        }
        let recipe = given.iter().all(|given| given.spec.recipe);
        if is_async {
            return Expansion::AsyncOnDemand {
                gated,
                recipe: recipe && !gated,
            };
        }
        Expansion::BlockingOnDemand { recipe }
    }

    /// Whether the operation is built by a closure, called wherever it is
    /// read, rather than once.
    pub(super) fn on_demand(self) -> bool {
        !matches!(self, Expansion::Built(_) | Expansion::Idempotent(_))
    }

    /// Whether the operation is built by `__private::Recipe`, one
    /// function for every function of the same types, rather than by a
    /// chain of setters of its own. The run is the same either way: only
    /// what `make` writes differs.
    pub(super) fn recipe(self) -> bool {
        matches!(
            self,
            Expansion::BlockingOnDemand { recipe: true }
                | Expansion::AsyncOnDemand { recipe: true, .. }
        )
    }
}

/// Whether every expression written in `value` is one that `constant`
/// accepts.
pub(super) fn is_made_of(value: &Value, constant: &dyn Fn(&Expr) -> bool) -> bool {
    let constant_dur = |dur: &Dur| match dur {
        Dur::Literal { .. } => true,
        Dur::Expr(expr) => constant(expr),
    };
    match value {
        Value::Expression(expr) => constant(expr),
        Value::Duration(dur) | Value::Hedge(HedgeSpec::Delay(dur)) => constant_dur(dur),
        Value::Hedge(HedgeSpec::Percentile { .. }) => true,
        Value::Backoff(BackoffSpec::None) => true,
        Value::Backoff(BackoffSpec::Constant(dur)) => constant_dur(dur),
        Value::Backoff(BackoffSpec::Exponential(exponential)) => {
            exponential.base.as_ref().is_none_or(constant_dur)
                && exponential.max.as_ref().is_none_or(constant_dur)
                && exponential
                    .multiplier
                    .as_ref()
                    .is_none_or(|multiplier| match multiplier {
                        Multiplier::Literal(_) => true,
                        Multiplier::Expr(expr) => constant(expr),
                    })
        }
        Value::Backoff(BackoffSpec::Expr(expr)) => constant(expr),
        Value::Count(_)
        | Value::Off(_)
        | Value::Choice(_)
        | Value::RetryOn(_)
        | Value::Paths(_)
        | Value::Crate(_) => true,
    }
}
