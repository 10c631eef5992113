//! Checks the options against each other and against the function: what
//! each option needs, what can't be combined (both read from the table in
//! `options.rs`), and the literal values that contradict one another.

use syn::{Error, Expr, Path};

use crate::attr::{Attrs, BackoffSpec, Dur, Options, Value};
use crate::duration::Nanos;
use crate::errors::Errors;
use crate::options::{
    self, BUDGET, CHAOS_FAULT, CHAOS_LATENCY, CHAOS_OUTCOME, COALESCE, DEFAULT_BASE, DEFAULT_MAX,
    FALLBACK, HEDGE, REPORT, RETRY_ON, TIMEOUT,
};
use crate::signature::{Arg, Function, NonEnum, Ret, ToldBy};

/// The most parameters a fallback can be called with (`__private`
/// implements its traits up to this arity).
const FALLBACK_ARITY: usize = 12;

pub(crate) fn check(options: &Options, function: &Function, errors: &mut Errors) {
    let attrs = Attrs::of(options);
    needs(options, errors);
    conflicts(options, errors);
    async_only(options, function, errors);
    durations(&attrs, errors);
    counts(&attrs, errors);
    backoff(&attrs, errors);
    retry_on_names(&attrs, function, errors);
    fallback_args(options, function, errors);
    hedged_borrows(options, function, errors);
    coalesced_types(options, function, errors);
    instrument_below(options, function, errors);
    chaos_switches(&attrs, errors);
}

/// `#[tracing::instrument(err)]` written below `#[resilient]` would wrap
/// the function the attribute makes, which returns an `Outcome`, and `err`
/// needs a `Result`.
fn instrument_below(options: &Options, function: &Function, errors: &mut Errors) {
    if options.key(&REPORT).is_some() {
        return;
    }
    let instrument = function.item.attrs.iter().find(|attr| {
        let is_instrument = attr
            .path()
            .segments
            .last()
            .is_some_and(|last| last.ident == "instrument");
        let mut logs_errors = false;
        if is_instrument && let syn::Meta::List(list) = &attr.meta {
            logs_errors =
                list.tokens.clone().into_iter().any(
                    |tree| matches!(tree, proc_macro2::TokenTree::Ident(ident) if ident == "err"),
                );
        }
        logs_errors
    });
    if let Some(attr) = instrument {
        errors.push(Error::new_spanned(
            attr,
            "`#[instrument(err)]` below `#[resilient]` would instrument the function the attribute makes, which returns `resilient::Outcome`, not a `Result`: write `#[tracing::instrument(err)]` above `#[resilient(…)]`, so that each attempt is instrumented and its error logged, or add `report = hook` to keep the `Result`",
        ));
    }
}

/// `chaos` is one switch for every kind given, or a list of one per kind,
/// in the order fault, outcome, latency. One switch draws once per
/// attempt, and an attempt can't both fail and succeed: a fault and an
/// outcome need a switch each.
fn chaos_switches(attrs: &Attrs, errors: &mut Errors) {
    let Some(chaos) = attrs.chaos else {
        return;
    };
    let options = attrs.options;
    let kinds: Vec<&str> = [&CHAOS_FAULT, &CHAOS_OUTCOME, &CHAOS_LATENCY]
        .into_iter()
        .filter(|spec| options.key(spec).is_some())
        .map(|spec| spec.name)
        .collect();
    if kinds.is_empty() {
        return;
    }
    match crate::attr::peel(chaos.value) {
        Expr::Array(list) if list.elems.len() != kinds.len() => {
            let switches = list.elems.len();
            errors.push(Error::new_spanned(
                list,
                format!(
                    "`chaos` lists {switches} switch{} for {} kind{} of injection (`{}`): list one switch per kind, in the order fault, outcome, latency, or give one for all of them, `chaos = &CHAOS`",
                    if switches == 1 { "" } else { "es" },
                    kinds.len(),
                    if kinds.len() == 1 { "" } else { "s" },
                    kinds.join("`, `"),
                ),
            ));
        }
        Expr::Array(_) => {}
        _ => {
            if let (Some(_), Some(outcome)) =
                (options.key(&CHAOS_FAULT), options.key(&CHAOS_OUTCOME))
            {
                errors.push(Error::new(
                    outcome.span(),
                    "`chaos_fault` and `chaos_outcome` can't share one switch: an injected attempt either fails or succeeds. Give each kind its own switch, in the order fault, outcome, latency: `chaos = [&FAULTS, &OUTCOMES]`",
                ));
            }
        }
    }
}

/// Hedged attempts run at the same time, and each borrows the arguments:
/// none of them can be a unique borrow, nor a `mut self` each attempt
/// starts over from.
fn hedged_borrows(options: &Options, function: &Function, errors: &mut Errors) {
    let Some(key) = options.key(&HEDGE) else {
        return;
    };
    let unique = function
        .args
        .iter()
        .any(|arg| matches!(arg, Arg::Receiver(_, true) | Arg::Named(_, true)));
    if unique || function.mut_self.is_some() {
        errors.push(Error::new(
            key.span(),
            "hedged attempts run at the same time, and each one borrows the arguments: `hedge` can't take `&mut self`, `mut self` or a `&mut` parameter; hedge a function that takes `&self` and shared references",
        ));
    }
}

/// The calls of a coalesced function share a `static` group of one value
/// and one error type, which a type parameter would make many; and their
/// one execution may outlive the caller that started it, so it can't hold
/// a borrow of `self` or of the caller's arguments.
fn coalesced_types(options: &Options, function: &Function, errors: &mut Errors) {
    let Some(key) = options.key(&COALESCE) else {
        return;
    };
    let generics = &function.item.sig.generics;
    let generic = generics
        .params
        .iter()
        .any(|param| !matches!(param, syn::GenericParam::Lifetime(_)));
    let impl_trait = function.item.sig.inputs.iter().any(|input| {
        matches!(input, syn::FnArg::Typed(typed) if matches!(*typed.ty, syn::Type::ImplTrait(_)))
    });
    if generic || impl_trait {
        errors.push(Error::new(
            key.span(),
            "coalesced calls share one `static` group, of one value and one error type: `coalesce` needs a function without type parameters or `impl Trait` arguments",
        ));
    }
    let borrowed = function.item.sig.inputs.iter().any(|input| {
        let ty = match input {
            syn::FnArg::Receiver(receiver) => &receiver.ty,
            syn::FnArg::Typed(typed) => &typed.ty,
        };
        matches!(**ty, syn::Type::Reference(_))
    });
    let lifetime = generics
        .params
        .iter()
        .any(|param| matches!(param, syn::GenericParam::Lifetime(_)));
    if borrowed || lifetime {
        errors.push(Error::new(
            key.span(),
            "a coalesced execution may outlive the caller that started it, while others wait on it, so it owns what it runs on: `coalesce` needs a function of owned arguments, without `&self` or borrows (take a `String`, not a `&str`; `self: Arc<Self>` or an `Arc` for shared state)",
        ));
    }
}

/// Options that refine another one mean nothing without it. Each message
/// names the option as it was written, and the one it needs by its name.
fn needs(options: &Options, errors: &mut Errors) {
    for given in options.given() {
        let Some(need) = &given.spec.needs else {
            continue;
        };
        if need
            .any_of
            .iter()
            .all(|other| options.key_named(other).is_none())
        {
            let name = &given.key;
            errors.push(Error::new(
                name.span(),
                format!("`{name}` needs `{}`: {}", need.any_of[0], need.how),
            ));
        }
    }
}

/// Each conflict is reported once: at the option that declares it, or at
/// the later of the two when both declare it; both named as written.
fn conflicts(options: &Options, errors: &mut Errors) {
    for (at, given) in options.given().iter().enumerate() {
        let name = given.spec.name;
        let written = given.key.to_string();
        for conflict in given.spec.conflicts {
            let Some(other) = options.position(conflict.with) else {
                continue;
            };
            let mutual = options::find(conflict.with)
                .is_some_and(|spec| spec.conflicts.iter().any(|back| back.with == name));
            if mutual && at < other {
                continue;
            }
            errors.push(Error::new(
                given.key.span(),
                format!(
                    "`{written}` can't be combined with `{}`: {}",
                    options.given()[other].key,
                    conflict.why.replace("{name}", &written)
                ),
            ));
        }
    }
}

fn async_only(options: &Options, function: &Function, errors: &mut Errors) {
    if function.is_async {
        return;
    }
    for given in options.given() {
        if let Some(why) = given.spec.async_only {
            errors.push(Error::new(given.key.span(), why));
        }
    }
}

fn durations(attrs: &Attrs, errors: &mut Errors) {
    for (name, given) in [(BUDGET.name, attrs.budget), (TIMEOUT.name, attrs.timeout)] {
        if let Some(opt) = given
            && let Dur::Literal { nanos, lit } = opt.value
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
    if let (Some(budget), Some(soft)) = (attrs.budget, attrs.max_elapsed)
        && let (
            Dur::Literal { nanos: hard, lit },
            Dur::Literal {
                nanos: cap,
                lit: cap_lit,
            },
        ) = (budget.value, soft.value)
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

fn counts(attrs: &Attrs, errors: &mut Errors) {
    if let Some(retries) = attrs.retries
        && retries.value.unbounded
        && attrs.budget.is_none()
        && attrs.max_elapsed.is_none()
    {
        errors.push(Error::new_spanned(
            &retries.value.expr,
            "`retries = unbounded` needs a cap on time to end the attempts: add `budget = \"60s\"` or `max_elapsed = \"60s\"`",
        ));
    }
    if let (Some(retries), Some(min)) = (attrs.retries, attrs.min_retries)
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

/// `base` above `max`, counting the default of the one not written.
fn backoff(attrs: &Attrs, errors: &mut Errors) {
    let Some(opt) = attrs.backoff else {
        return;
    };
    let BackoffSpec::Exponential(spec) = opt.value else {
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
    let show = |lit: &Option<syn::LitStr>, default: Nanos| match lit {
        Some(lit) => format!("\"{}\"", lit.value()),
        None => format!("\"{default}\" by default"),
    };
    let message = format!(
        "the backoff's `base` ({}) is above its `max` ({}): the first delay would already exceed the cap; lower `base` or raise `max`",
        show(&base_lit, DEFAULT_BASE),
        show(&max_lit, DEFAULT_MAX),
    );
    let span = match (&base_lit, &max_lit) {
        (Some(lit), _) | (None, Some(lit)) => lit.span(),
        (None, None) => opt.span(),
    };
    errors.push(Error::new(span, message));
}

/// A bare variant name is resolved against the error type, written out or
/// behind an alias; an error type known not to be an enum has no variants
/// to name, bare or by path.
fn retry_on_names(attrs: &Attrs, function: &Function, errors: &mut Errors) {
    let Some(known) = function.ret.as_ref().and_then(Ret::known_non_enum) else {
        return;
    };
    for given in attrs.options.given() {
        let Some(Value::RetryOn(listed)) = &given.value else {
            continue;
        };
        let written = given.key.to_string();
        for variant in &listed.variants {
            errors.push(Error::new_spanned(
                variant,
                not_an_enum(&written, &known, variant),
            ));
        }
    }
}

fn not_an_enum(option: &str, known: &NonEnum, variant: &Path) -> String {
    let name = variant
        .segments
        .last()
        .map(|segment| segment.ident.to_string())
        .unwrap_or_default();
    let error = &known.error;
    let test = option.replace("_on", "_if");
    let instead = match known.told_by {
        ToldBy::IoKind => {
            format!("`{test} = |e: &{error}| e.kind() == std::io::ErrorKind::{name}`")
        }
        ToldBy::GrpcCode => format!("`{test} = |e: &{error}| e.code() == tonic::Code::{name}`"),
        // `retryable` answers whether to retry, not whether to fall back.
        ToldBy::Http if option == RETRY_ON.name => format!(
            "`{test} = resilient::http::retryable`, which retries transport errors and the statuses worth another try, or `{test} = |e: &{error}| …`"
        ),
        ToldBy::Http | ToldBy::Test => format!("`{test} = |e: &{error}| …`"),
    };
    format!(
        "`{option}` names variants of an error enum, but this function's error type, `{error}`, is not an enum: classify its errors with {instead}"
    )
}

/// The fallback is called with the function's arguments by name.
fn fallback_args(options: &Options, function: &Function, errors: &mut Errors) {
    let Some(key) = options.key(&FALLBACK) else {
        return;
    };
    for arg in &function.args {
        if let Arg::Pattern(pat) = arg {
            errors.push(Error::new_spanned(
                pat,
                "`fallback` is called with this function's arguments, so each parameter needs a name: write `name: Type` and destructure `name` inside the body",
            ));
        }
    }
    if function.args.len() > FALLBACK_ARITY {
        errors.push(Error::new(
            key.span(),
            format!(
                "`fallback` can pass on at most {FALLBACK_ARITY} arguments, and this function takes {}: group some of them in a struct",
                function.args.len()
            ),
        ));
    }
}
