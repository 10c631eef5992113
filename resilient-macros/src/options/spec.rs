//! What a row of the option table is made of: the kind of value an option
//! takes, how it expands, what it needs and conflicts with, when the run
//! reads it, and [`OptionSpec`] with the `const` builders the rows are
//! written with.

/// The kind of value an option takes, which decides how it is parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An integer literal that fits a `u32`.
    Count,
    /// A count of retries: a `Count` whose attempts, one more, fit too.
    Retries,
    /// A literal with a unit (`"250ms"`) or an expression of type `Duration`.
    Duration,
    /// A `Duration` as above, or a percentile of measured latencies: `p95`.
    Hedge,
    /// Any expression, evaluated inside the function on every call.
    Expression,
    /// The path of a function, or a list of them in brackets.
    Path,
    /// The literal `false`, turning off something on by default.
    Off,
    /// A list of variants of the error type in brackets; an empty one is
    /// refused, since it would `nothing`, where leaving the option out
    /// would `every`.
    Variants {
        nothing: &'static str,
        every: &'static str,
    },
    /// `exponential(…)`, `constant(…)` and the other backoff schedules.
    Backoff,
    /// A path to the runtime, as a string.
    CratePath,
    /// One of a few words, in a string, each naming a variant of the
    /// runtime's enum at `of` (a path from the crate root).
    Choice {
        of: &'static [&'static str],
        choices: &'static [(&'static str, &'static str)],
    },
}

/// How an option becomes builder calls on the operation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expand {
    /// The value to one builder method: `.method(value)`.
    Method(&'static str),
    /// `.max_attempts(retries + 1)`.
    Attempts,
    /// `.policy(…)`: the policy, bound to a local before the chain.
    Policy,
    /// `.limit(&…)`: the limiters, bound to a local array before the chain.
    Limits,
    /// `.method(…)`: a test of the variants listed (`retry_on` becomes
    /// `.retry_if(…)`, `ignore_on` `.ignore_if(…)`).
    VariantTest(&'static str),
    /// `.method(value)`, after `.interrupt_at_deadline()` where the
    /// function's error converts the timeout, so that the deadline cuts the
    /// attempt in flight too.
    Deadline(&'static str),
    /// `.method(|| …)`: a closure that makes the value to inject, of the
    /// function's error type or of its success type, from a value or a
    /// closure.
    Inject { method: &'static str, of: Side },
    /// No builder call: the option shapes another part of the expansion
    /// (the clock, the fallbacks, the hedge, the idempotent run).
    Elsewhere,
}

impl Expand {
    /// Whether the value is bound to a local before the operation, which
    /// borrows it: evaluated once per call, whatever the value is.
    pub(crate) fn binds_a_local(self) -> bool {
        matches!(self, Expand::Policy | Expand::Limits)
    }
}

/// How an option changes the run from the engine's plain one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Run {
    /// It doesn't: the options set the operation only.
    Plain,
    /// Attempts are hedged: the run owns a hedged operation.
    Hedged,
    /// The whole run is the body of an idempotency store's call, under a
    /// key.
    Keyed,
}

/// One side of the function's `Result`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Success,
    Error,
}

/// The builder method and `__private` check of a value that may take the
/// function's error as well as what the option's own method takes: a
/// closure of two parameters does, and a function named by path may, which
/// only its signature says.
#[derive(Clone, Copy)]
pub(crate) struct WithError {
    /// For a closure of two parameters.
    pub(crate) closure: (&'static str, &'static str),
    /// For a path, either shape: the check takes the error type and
    /// infers the shape.
    pub(crate) path: (&'static str, &'static str),
}

/// Another option that must be written for this one to mean anything.
pub(crate) struct Need {
    /// Any one of these satisfies the need; the first is the one to suggest.
    pub(crate) any_of: &'static [&'static str],
    /// What to write, after "`option` needs `first`: ".
    pub(crate) how: &'static str,
}

/// Another option this one can't be combined with.
#[derive(Clone, Copy)]
pub(crate) struct Conflict {
    pub(crate) with: &'static str,
    /// Why, after "`option` can't be combined with `with`: "; `{name}`
    /// stands for the option.
    pub(crate) why: &'static str,
}

/// A trait of the runtime that the option asks of the error type `E`,
/// checked where the option is written so that a missing impl is reported
/// there.
pub(crate) struct ErrorNeed {
    /// The trait, in `__private`.
    pub(crate) bound: &'static str,
    /// One of its functions, named to check the bound.
    pub(crate) function: &'static str,
    /// Asked of an `async fn` only.
    pub(crate) only_async: bool,
    /// Not asked when this other option is given, which asks it already
    /// and reports a missing impl once, at itself.
    pub(crate) unless: Option<&'static str>,
}

pub(crate) struct OptionSpec {
    pub(crate) name: &'static str,
    /// The name the option had before, still accepted. It names the same
    /// option, so that giving both is giving it twice; a message names an
    /// option as it was written, and any other by its name.
    pub(crate) old_name: Option<&'static str>,
    pub(crate) kind: Kind,
    /// A value as the user would write it, for messages.
    pub(crate) example: &'static str,
    /// How the value becomes builder calls.
    pub(crate) expand: Expand,
    pub(crate) needs: Option<Need>,
    /// Why a blocking fn can't have it, when only an `async fn` can.
    pub(crate) async_only: Option<&'static str>,
    pub(crate) conflicts: &'static [Conflict],
    pub(crate) error_needs: Option<ErrorNeed>,
    /// A `__private` function the value goes through first, which states
    /// the type the value must have: a value of another type is reported
    /// there, once, rather than again at the builder call.
    pub(crate) checked_by: Option<&'static str>,
    /// Where a value that may also take the error goes instead: a
    /// listener that sees it beside the event.
    pub(crate) with_error: Option<WithError>,
    /// Whether `__private::Recipe` holds it: a function whose every
    /// option a `Recipe` holds builds its operation with the one
    /// function shared by every function of the same types.
    pub(crate) recipe: bool,
    /// Whether it may set a gate that admits each attempt, the first
    /// included (a breaker, limiters, chaos; a policy may bring a
    /// throttle). No `Recipe` holds a gate.
    pub(crate) gate: bool,
    /// How it changes the run.
    pub(crate) run: Run,
}

impl OptionSpec {
    /// An option whose value goes to one builder method of the same name.
    pub(super) const fn call(name: &'static str, kind: Kind, example: &'static str) -> OptionSpec {
        OptionSpec {
            name,
            old_name: None,
            kind,
            example,
            expand: Expand::Method(name),
            needs: None,
            async_only: None,
            conflicts: &[],
            error_needs: None,
            checked_by: None,
            with_error: None,
            recipe: false,
            gate: false,
            run: Run::Plain,
        }
    }

    /// An option whose value becomes builder calls as `expand` says.
    pub(super) const fn new(
        name: &'static str,
        kind: Kind,
        example: &'static str,
        expand: Expand,
    ) -> OptionSpec {
        OptionSpec {
            expand,
            ..OptionSpec::call(name, kind, example)
        }
    }

    pub(super) const fn needs(self, needs: Need) -> OptionSpec {
        OptionSpec {
            needs: Some(needs),
            ..self
        }
    }

    pub(super) const fn conflicts(self, conflicts: &'static [Conflict]) -> OptionSpec {
        OptionSpec { conflicts, ..self }
    }

    pub(super) const fn checked_by(self, function: &'static str) -> OptionSpec {
        OptionSpec {
            checked_by: Some(function),
            ..self
        }
    }

    pub(super) const fn with_error(self, with_error: WithError) -> OptionSpec {
        OptionSpec {
            with_error: Some(with_error),
            ..self
        }
    }

    pub(super) const fn error_needs(self, error_needs: ErrorNeed) -> OptionSpec {
        OptionSpec {
            error_needs: Some(error_needs),
            ..self
        }
    }

    pub(super) const fn formerly(self, old_name: &'static str) -> OptionSpec {
        OptionSpec {
            old_name: Some(old_name),
            ..self
        }
    }

    pub(super) const fn in_recipe(self) -> OptionSpec {
        OptionSpec {
            recipe: true,
            ..self
        }
    }

    pub(super) const fn gate(self) -> OptionSpec {
        OptionSpec { gate: true, ..self }
    }

    pub(super) const fn run(self, run: Run) -> OptionSpec {
        OptionSpec { run, ..self }
    }
}
