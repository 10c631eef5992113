//! Checks the options against each other and against the function: what
//! each option needs, what can't be combined, and the literal values that
//! contradict one another.

use syn::Error;

use crate::attr::{BackoffSpec, DEFAULT_BASE, DEFAULT_MAX, Dur, Options};
use crate::errors::Errors;
use crate::signature::{Arg, Function};

pub(crate) fn check(options: &Options, function: &Function, errors: &mut Errors) {
    needs_retries(options, errors);
    conflicts(options, errors);
    durations(options, function, errors);
    counts(options, errors);
    backoff(options, errors);
    retry_on_names(options, function, errors);
    fallback_args(options, function, errors);
}

/// Options that shape retries are meaningless with a single attempt.
fn needs_retries(options: &Options, errors: &mut Errors) {
    if options.key("retries").is_some() || options.key("retry").is_some() {
        return;
    }
    for name in ["retry_on", "retry_if", "backoff", "min_retries"] {
        if let Some(key) = options.key(name) {
            errors.push(Error::new(
                key.span(),
                format!(
                    "`{name}` needs `retries`: add `retries = N`, the number of retries after the first attempt"
                ),
            ));
        }
    }
}

fn conflicts(options: &Options, errors: &mut Errors) {
    if options.key("retry").is_some() {
        for name in ["retries", "retry_on", "retry_if", "backoff"] {
            if let Some(key) = options.key(name) {
                errors.push(Error::new(
                    key.span(),
                    format!(
                        "`{name}` can't be combined with `retry`: the `RetryPolicy` passed to `retry` already decides it; configure it on the policy, or remove `retry` and use `{name}`"
                    ),
                ));
            }
        }
    }
    if let (Some(on), Some(when)) = (options.position("retry_on"), options.position("retry_if")) {
        let (later, earlier) = if on > when {
            ("retry_on", "retry_if")
        } else {
            ("retry_if", "retry_on")
        };
        if let Some(key) = options.key(later) {
            errors.push(Error::new(
                key.span(),
                format!(
                    "`{later}` can't be combined with `{earlier}`: both decide which errors are retried; keep one (a `retry_if` closure can test variants with `matches!`)"
                ),
            ));
        }
    }
}

fn durations(options: &Options, function: &Function, errors: &mut Errors) {
    if !function.is_async
        && let Some(key) = options.key("timeout")
    {
        errors.push(Error::new(
            key.span(),
            "a blocking fn can't be interrupted; `timeout` needs an `async fn` (use `budget` for a cap on the whole operation)",
        ));
    }
    for (name, opt) in [("budget", &options.budget), ("timeout", &options.timeout)] {
        if let Some(opt) = opt
            && let Dur::Literal { nanos, lit } = &opt.value
            && nanos.is_zero()
        {
            errors.push(Error::new(
                lit.span(),
                format!(
                    "`{name} = \"{}\"` leaves no time to run an attempt: give it a positive duration, like `{name} = \"30s\"`",
                    lit.value()
                ),
            ));
        }
    }
    if let (Some(budget), Some(soft)) = (&options.budget, &options.max_elapsed)
        && let (
            Dur::Literal { nanos: hard, lit },
            Dur::Literal {
                nanos: cap,
                lit: cap_lit,
            },
        ) = (&budget.value, &soft.value)
        && hard < cap
        && !hard.is_zero()
    {
        errors.push(Error::new(
            lit.span(),
            format!(
                "`budget = \"{}\"` is below `max_elapsed = \"{}\"`: the hard cap must be at least the soft cap; raise `budget` or lower `max_elapsed`",
                lit.value(),
                cap_lit.value()
            ),
        ));
    }
}

fn counts(options: &Options, errors: &mut Errors) {
    if let (Some(retries), Some(min)) = (&options.retries, &options.min_retries)
        && min.value.value > retries.value.value
    {
        errors.push(Error::new_spanned(
            &min.value.expr,
            format!(
                "`min_retries = {}` is more than `retries = {}`: the floor can't exceed the retries there are; lower `min_retries` or raise `retries`",
                min.value.value, retries.value.value
            ),
        ));
    }
}

/// `base` above `max`, counting the defaults of the one not written.
fn backoff(options: &Options, errors: &mut Errors) {
    let Some(opt) = &options.backoff else {
        return;
    };
    let BackoffSpec::Exponential(spec) = &opt.value else {
        return;
    };
    let written = |dur: &Option<Dur>| match dur {
        Some(Dur::Literal { nanos, lit }) => Some((*nanos, Some(lit.clone()))),
        _ => None,
    };
    let base = match &spec.base {
        None => Some((DEFAULT_BASE, None)),
        some => written(some),
    };
    let max = match &spec.max {
        None => Some((DEFAULT_MAX, None)),
        some => written(some),
    };
    let (Some((base, base_lit)), Some((max, max_lit))) = (base, max) else {
        return;
    };
    if base <= max {
        return;
    }
    let show = |lit: &Option<syn::LitStr>, default: &str| match lit {
        Some(lit) => format!("\"{}\"", lit.value()),
        None => format!("\"{default}\" by default"),
    };
    let message = format!(
        "the backoff's `base` ({}) is above its `max` ({}): the first delay would already exceed the cap; lower `base` or raise `max`",
        show(&base_lit, "100ms"),
        show(&max_lit, "10s"),
    );
    let span = match (&base_lit, &max_lit) {
        (Some(lit), _) | (None, Some(lit)) => lit.span(),
        (None, None) => opt.span(),
    };
    errors.push(Error::new(span, message));
}

/// A bare variant name is resolved against the error type of the signature,
/// which must therefore be written out.
fn retry_on_names(options: &Options, function: &Function, errors: &mut Errors) {
    let Some(retry_on) = &options.retry_on else {
        return;
    };
    let Some(ret) = &function.ret else {
        return;
    };
    let resolvable = ret.error_path().is_some();
    for variant in &retry_on.value.variants {
        if variant.get_ident().is_some() && !resolvable {
            errors.push(Error::new_spanned(
                variant,
                if ret.ok_err.is_some() {
                    "bare variant names need an enum as the error type in the signature; write the full path, e.g. `MyError::Timeout`"
                } else {
                    "bare variant names need the error type in the signature; write the full path, e.g. `MyError::Timeout`"
                },
            ));
        }
    }
}

/// The fallback is called with the function's arguments by name.
fn fallback_args(options: &Options, function: &Function, errors: &mut Errors) {
    if options.fallback.is_none() {
        return;
    }
    for arg in &function.args {
        if let Arg::Pattern(pat) = arg {
            errors.push(Error::new_spanned(
                pat,
                "`fallback` is called with this function's arguments, so each parameter needs a name: write `name: Type` and destructure `name` inside the body",
            ));
        }
    }
}
