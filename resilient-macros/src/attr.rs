//! Parses the attribute's arguments, `#[resilient(key = value, …)]`, into
//! [`Options`]: each option of the table in `options.rs` set at most once,
//! keeping the key it was written under so that later errors and generated
//! calls point at it. [`Attrs`] reads them back by name, each of its type.
//!
//! Only the shape of each value is checked here, by the kind of value the
//! table gives the option; combinations are checked in `valid.rs`.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Error, Expr, ExprArray, ExprPath, Ident, Lit, LitStr, Path, Token, UnOp};

use crate::errors::Errors;
use crate::options::{self, EXPONENTIAL_ARGS, Kind, OptionSpec};
use crate::options::{
    BACKOFF, BUDGET, CHAOS, CLOCK, COALESCE, CRATE, FALLBACK, FALLBACK_IF, FALLBACK_ON, HEDGE,
    IDEMPOTENCY, IDEMPOTENCY_FINGERPRINT, IDEMPOTENCY_KEY, IDEMPOTENCY_TTL, LIMIT, MAX_ELAPSED,
    MAX_HEDGES, MIN_RETRIES, NAME, REPORT, RETRIES, RETRY, TIMEOUT,
};
use crate::suggest;

mod durations;
mod hedge;

pub(crate) use durations::Dur;
use durations::dur;
pub(crate) use hedge::HedgeSpec;
use hedge::hedge;

/// An integer literal option (`retries`, `min_retries`, …).
pub(crate) struct Count {
    pub(crate) value: u32,
    pub(crate) expr: Expr,
    /// `retries = unbounded`: as many retries as the attempts' `u32`
    /// holds, which a cap on time must end.
    pub(crate) unbounded: bool,
}

/// The literal `false` of an option that turns something off.
pub(crate) struct Off;

/// One of an option's words (`nested = "no_retry"`): the path of the
/// runtime's enum, from the crate root, and the variant it names.
pub(crate) struct Choice {
    pub(crate) of: &'static [&'static str],
    pub(crate) variant: &'static str,
    pub(crate) lit: LitStr,
}

/// `retry_on = [A, B::C]`, or `fallback_on`: variants of the error type.
pub(crate) struct RetryOn {
    pub(crate) variants: Vec<Path>,
}

pub(crate) enum BackoffSpec {
    None,
    Constant(Dur),
    Exponential(Box<Exponential>),
    Expr(Expr),
}

/// `exponential(base = …, max = …, multiplier = …, jitter = …)`; `None` means
/// the runtime's default.
#[derive(Default)]
pub(crate) struct Exponential {
    pub(crate) base: Option<Dur>,
    pub(crate) max: Option<Dur>,
    pub(crate) multiplier: Option<Multiplier>,
    /// With the span of its key.
    pub(crate) jitter: Option<(Jitter, Span)>,
}

pub(crate) enum Multiplier {
    /// Checked to be finite and at least 1.
    Literal(f64),
    Expr(Expr),
}

#[derive(Clone, Copy)]
pub(crate) enum Jitter {
    Full,
    Equal,
    None,
    Decorrelated,
    Additive,
    AdditiveUncapped,
}

/// Declares [`Value`] and, for the type of each of its variants, how to
/// read that variant back ([`OfValue`]).
macro_rules! values {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        /// A parsed value, of the kind the option's table entry says.
        pub(crate) enum Value {
            $($variant($ty)),*
        }

        /// A type an option's value can have.
        pub(crate) trait OfValue {
            fn of(value: &Value) -> Option<&Self>;
        }

        $(impl OfValue for $ty {
            fn of(value: &Value) -> Option<&Self> {
                match value {
                    Value::$variant(inner) => Some(inner),
                    _ => None,
                }
            }
        })*
    };
}

values! {
    Count(Count),
    Duration(Dur),
    Hedge(HedgeSpec),
    Expression(Expr),
    Paths(Vec<ExprPath>),
    Off(Off),
    Choice(Choice),
    RetryOn(RetryOn),
    Backoff(BackoffSpec),
    Crate(Path),
}

/// One option as written.
pub(crate) struct Given {
    pub(crate) spec: &'static OptionSpec,
    /// The key as written, unraw: the option's name or its old name.
    pub(crate) key: Ident,
    /// `None` when the value was rejected (and reported).
    pub(crate) value: Option<Value>,
}

/// An option's value together with the key it was written under.
pub(crate) struct Opt<'a, T> {
    pub(crate) key: &'a Ident,
    pub(crate) value: &'a T,
}

impl<T> Clone for Opt<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Opt<'_, T> {}

impl<T> Opt<'_, T> {
    pub(crate) fn span(&self) -> Span {
        self.key.span()
    }
}

/// The options of one attribute, in the order written.
#[derive(Default)]
pub(crate) struct Options {
    given: Vec<Given>,
}

impl Options {
    /// The options written, in order, with their values if accepted.
    pub(crate) fn given(&self) -> &[Given] {
        &self.given
    }

    fn find(&self, spec: &OptionSpec) -> Option<&Given> {
        self.given.iter().find(|given| given.spec.name == spec.name)
    }

    /// The key of the option if it was written, even with a bad value.
    pub(crate) fn key(&self, spec: &OptionSpec) -> Option<&Ident> {
        self.find(spec).map(|given| &given.key)
    }

    /// The key of the option called `name`, if it was written.
    pub(crate) fn key_named(&self, name: &str) -> Option<&Ident> {
        options::find(name).and_then(|spec| self.key(spec))
    }

    /// Where the option called `name` came in the attribute, counting from 0.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.given.iter().position(|given| given.spec.name == name)
    }

    /// The option's accepted value, with its key.
    fn value(&self, spec: &OptionSpec) -> Option<Opt<'_, Value>> {
        let given = self.find(spec)?;
        Some(Opt {
            key: &given.key,
            value: given.value.as_ref()?,
        })
    }

    /// The option's accepted value, of the type its kind parses to.
    fn get<T: OfValue>(&self, spec: &OptionSpec) -> Option<Opt<'_, T>> {
        let Opt { key, value } = self.value(spec)?;
        Some(Opt {
            key,
            value: T::of(value)?,
        })
    }
}

/// Declares [`Attrs`], one field for each option named.
macro_rules! attrs {
    ($($field:ident: $ty:ty = $spec:ident),* $(,)?) => {
        /// The options that the checks and the expansion read by name, each
        /// a field of the type its row's kind parses to, as thiserror's
        /// `Attrs`: `None` where the option is not written, or its value
        /// was rejected. The passes that dispatch on the rows' fields walk
        /// [`Options::given`] instead, and a check that an option is written
        /// at all, even with a bad value, reads [`Options::key`].
        pub(crate) struct Attrs<'a> {
            /// Every option as written, in order.
            pub(crate) options: &'a Options,
            $(pub(crate) $field: Option<Opt<'a, $ty>>,)*
        }

        impl<'a> Attrs<'a> {
            pub(crate) fn of(options: &'a Options) -> Self {
                Attrs {
                    options,
                    $($field: options.get(&$spec),)*
                }
            }

            /// The options that have a field, with whether theirs is set.
            #[cfg(test)]
            fn fields(&self) -> Vec<(&'static str, bool)> {
                vec![$(($spec.name, self.$field.is_some())),*]
            }
        }
    };
}

attrs! {
    krate: Path = CRATE,
    retries: Count = RETRIES,
    backoff: BackoffSpec = BACKOFF,
    retry: Expr = RETRY,
    timeout: Dur = TIMEOUT,
    budget: Dur = BUDGET,
    max_elapsed: Dur = MAX_ELAPSED,
    min_retries: Count = MIN_RETRIES,
    clock: Expr = CLOCK,
    name: Expr = NAME,
    report: Expr = REPORT,
    limit: Expr = LIMIT,
    fallback: Vec<ExprPath> = FALLBACK,
    fallback_on: RetryOn = FALLBACK_ON,
    fallback_if: Expr = FALLBACK_IF,
    chaos: Expr = CHAOS,
    hedge: HedgeSpec = HEDGE,
    max_hedges: Count = MAX_HEDGES,
    idempotency: Expr = IDEMPOTENCY,
    idempotency_key: Expr = IDEMPOTENCY_KEY,
    idempotency_ttl: Dur = IDEMPOTENCY_TTL,
    idempotency_fingerprint: Expr = IDEMPOTENCY_FINGERPRINT,
    coalesce: Expr = COALESCE,
}

/// Reads the attribute's tokens. Never fails as a whole: each bad option is
/// reported and skipped, so that every mistake shows up in one build.
pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> Options {
    let mut options = Options::default();
    let parser = |input: ParseStream| -> syn::Result<()> {
        while !input.is_empty() {
            if let Err(error) = parse_option(input, &mut options, errors) {
                errors.push(error);
                skip_to_comma(input)?;
            }
            if input.is_empty() {
                break;
            }
            if let Err(error) = input.parse::<Token![,]>() {
                errors.push(Error::new(
                    error.span(),
                    "expected `,` between options, as in `retries = 3, timeout = \"1s\"`",
                ));
                skip_to_comma(input)?;
                let _: Option<Token![,]> = input.parse()?;
            }
        }
        Ok(())
    };
    if let Err(error) = parser.parse2(tokens) {
        errors.push(error);
    }
    options
}

/// Moves past everything up to (not including) the next top-level comma.
fn skip_to_comma(input: ParseStream) -> syn::Result<()> {
    input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, proc_macro2::TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    })
}

fn parse_option(input: ParseStream, options: &mut Options, errors: &mut Errors) -> syn::Result<()> {
    let key = input
        .call(Ident::parse_any)
        .map_err(|error| Error::new(error.span(), "expected an option, as in `retries = 3`"))?;
    let key = key.unraw();
    let name = key.to_string();
    let Some(spec) = options::find(&name) else {
        return Err(unknown_option(&key, &name));
    };
    if !input.peek(Token![=]) {
        return Err(Error::new(
            key.span(),
            format!("`{name}` needs a value: `{name} = {}`", spec.example),
        ));
    }
    input.parse::<Token![=]>()?;
    let value: Expr = input.parse()?;
    if let Some(first) = options.key(spec) {
        errors.push(given_twice(spec, first, &key));
        return Ok(());
    }
    // The value's messages name the option as it was written.
    let value = match spec.kind {
        Kind::Count | Kind::Retries => count(spec, &name, value).map(Value::Count),
        Kind::Duration => dur(&name, value).map(Value::Duration),
        Kind::Hedge => hedge(&name, value).map(Value::Hedge),
        Kind::Expression => Ok(Value::Expression(value)),
        Kind::Path => function_paths(spec, &name, value).map(Value::Paths),
        Kind::Off => off(&name, &value).map(Value::Off),
        Kind::Variants { nothing, every } => {
            variants(&name, value, (nothing, every)).map(Value::RetryOn)
        }
        Kind::Backoff => backoff(value).map(Value::Backoff),
        Kind::CratePath => crate_path(value).map(Value::Crate),
        Kind::Choice { of, choices } => choice(&name, &value, of, choices).map(Value::Choice),
    };
    options.given.push(Given {
        spec,
        key,
        value: errors.ok(value),
    });
    Ok(())
}

/// A repeated option, reported at its second key: an option given under
/// its name and its old name too, since the two name one option.
fn given_twice(spec: &OptionSpec, first: &Ident, second: &Ident) -> Error {
    let message = match spec.old_name {
        Some(old) if first != second => {
            let name = spec.name;
            format!("`{name}` is given twice: `{old}` is its old name; keep only `{name}`")
        }
        _ => format!("`{second}` is given twice: keep only one"),
    };
    Error::new(second.span(), message)
}

fn unknown_option(key: &Ident, name: &str) -> Error {
    let names: Vec<&str> = options::names().collect();
    let hint = if ["max_attempts", "attempts", "max_tries", "tries"].contains(&name) {
        "; write `retries = N`, the retries after the first attempt (`max_attempts` is N + 1)"
            .to_owned()
    } else if ["max_retries", "retry_count", "num_retries"].contains(&name) {
        "; did you mean `retries`?".to_owned()
    } else if EXPONENTIAL_ARGS.contains(&name) || name == "delay" {
        format!(
            "; `{name}` goes inside `backoff`, as in `backoff = exponential(base = \"100ms\", max = \"10s\", multiplier = 2.0, jitter = full)`"
        )
    } else {
        // An old name that is close is suggested by the option's name.
        let spellings: Vec<&str> = options::spellings().collect();
        suggest::closest(name, &spellings)
            .and_then(|close| Some((close, options::find(close)?.name)))
            .map(|(close, name)| {
                if close == name {
                    format!("; did you mean `{name}`?")
                } else {
                    format!("; did you mean `{name}` (formerly `{close}`)?")
                }
            })
            .unwrap_or_default()
    };
    Error::new(
        key.span(),
        format!(
            "unknown option `{name}`{hint}\nthe options are: {}",
            names.join(", ")
        ),
    )
}

/// Looks through the invisible groups of `macro_rules!` fragments and
/// parentheses.
pub(crate) fn peel(mut expr: &Expr) -> &Expr {
    loop {
        match expr {
            Expr::Group(group) => expr = &group.expr,
            Expr::Paren(paren) => expr = &paren.expr,
            _ => return expr,
        }
    }
}

fn count(spec: &OptionSpec, name: &str, value: Expr) -> syn::Result<Count> {
    let example = spec.example;
    let wrong = |message: String| Err(Error::new_spanned(&value, message));
    if spec.kind == Kind::Retries && single_ident(&value).is_some_and(|ident| ident == "unbounded")
    {
        return Ok(Count {
            value: u32::MAX - 1,
            expr: value,
            unbounded: true,
        });
    }
    match peel(&value) {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(int) => match int.base10_parse::<u32>() {
                Ok(n) if spec.kind == Kind::Retries && n == u32::MAX => wrong(format!(
                    "`retries = {n}` is too many: the attempts ({n} + 1) must fit a `u32`"
                )),
                Ok(n) => Ok(Count {
                    value: n,
                    expr: value,
                    unbounded: false,
                }),
                Err(_) => wrong(format!(
                    "`{name}` must fit a `u32`: write a smaller count, like `{name} = {example}`"
                )),
            },
            Lit::Bool(_) => wrong(format!(
                "`{name}` is a count, not a bool: write a number, like `{name} = {example}`"
            )),
            Lit::Str(_) => wrong(format!(
                "`{name}` is a count, not a string: write the number without quotes, like `{name} = {example}`"
            )),
            Lit::Float(_) => wrong(format!(
                "`{name}` is a whole count: write an integer, like `{name} = {example}`"
            )),
            _ => wrong(format!(
                "`{name}` takes an integer literal, like `{name} = {example}`"
            )),
        },
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => wrong(format!(
            "`{name}` can't be negative: write `{name} = 0` for none, or a positive count like `{name} = {example}`"
        )),
        _ => wrong(format!(
            "`{name}` takes an integer literal, like `{name} = {example}`; for a count known only at run time, build a `RetryPolicy` and pass it as `retry = POLICY`"
        )),
    }
}

/// `retry_on = [A, B::C]`, and `fallback_on`, read the same way.
fn variants(name: &str, value: Expr, (would, remove): (&str, &str)) -> syn::Result<RetryOn> {
    let Expr::Array(ExprArray { elems, .. }) = peel(&value) else {
        return Err(Error::new_spanned(
            &value,
            format!(
                "`{name}` takes a list of variants in brackets: `{name} = [Timeout, Transient]`"
            ),
        ));
    };
    if elems.is_empty() {
        return Err(Error::new_spanned(
            &value,
            format!(
                "`{name} = []` would {would}: name at least one variant, as in `{name} = [Timeout]`, or remove `{name}` to {remove}"
            ),
        ));
    }
    let mut errors = Errors::default();
    let mut variants = Vec::new();
    for elem in elems {
        match peel(elem) {
            Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
                variants.push(path.path.clone());
            }
            other => errors.push(Error::new_spanned(
                other,
                format!("each entry of `{name}` is an enum variant, by name (`Timeout`) or by path (`MyError::Timeout`); its fields are matched whatever they hold"),
            )),
        }
    }
    errors.into_result().map(|()| RetryOn { variants })
}

fn single_ident(expr: &Expr) -> Option<&Ident> {
    match peel(expr) {
        Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => path.path.get_ident(),
        _ => None,
    }
}

fn backoff(value: Expr) -> syn::Result<BackoffSpec> {
    if let Some(ident) = single_ident(&value) {
        if ident == "none" {
            return Ok(BackoffSpec::None);
        }
        if ident == "exponential" {
            return Ok(BackoffSpec::Exponential(Box::default()));
        }
        if ident == "constant" {
            return Err(Error::new_spanned(
                &value,
                "`constant` needs its delay: `backoff = constant(\"1s\")`",
            ));
        }
    }
    let Expr::Call(call) = peel(&value) else {
        return Ok(BackoffSpec::Expr(value));
    };
    let Some(function) = single_ident(&call.func) else {
        return Ok(BackoffSpec::Expr(value));
    };
    if function == "constant" {
        if call.args.len() != 1 {
            return Err(Error::new_spanned(
                call,
                "`constant` takes one delay: `backoff = constant(\"1s\")`",
            ));
        }
        let delay = call.args.first().cloned().unwrap_or_else(|| value.clone());
        return dur("constant", delay).map(BackoffSpec::Constant);
    }
    if function == "none" && call.args.is_empty() {
        return Ok(BackoffSpec::None);
    }
    if function != "exponential" {
        return Ok(BackoffSpec::Expr(value));
    }
    let mut spec = Exponential::default();
    let mut seen: Vec<Ident> = Vec::new();
    let mut errors = Errors::default();
    for arg in &call.args {
        let (name, arg_value) = match peel(arg) {
            Expr::Assign(assign) => match single_ident(&assign.left) {
                Some(name) => (name.clone(), (*assign.right).clone()),
                None => {
                    errors.push(Error::new_spanned(
                        &assign.left,
                        "expected `base`, `max`, `multiplier` or `jitter`",
                    ));
                    continue;
                }
            },
            other => {
                errors.push(Error::new_spanned(
                    other,
                    "`exponential` takes named arguments: `exponential(base = \"100ms\", max = \"10s\", multiplier = 2.0, jitter = full)`",
                ));
                continue;
            }
        };
        let text = name.to_string();
        if !EXPONENTIAL_ARGS.contains(&text.as_str()) {
            let hint = suggest::closest(&text, EXPONENTIAL_ARGS)
                .map(|close| format!("did you mean `{close}`? "))
                .unwrap_or_default();
            errors.push(Error::new(
                name.span(),
                format!(
                    "`exponential` has no argument `{text}`; {hint}its arguments are `base`, `max` (or `max_delay`), `multiplier` and `jitter`"
                ),
            ));
            continue;
        }
        if seen.iter().any(|key| *key == text) {
            errors.push(Error::new(
                name.span(),
                format!("`{text}` is given twice: keep only one"),
            ));
            continue;
        }
        seen.push(name.clone());
        match text.as_str() {
            "base" => spec.base = errors.ok(dur("base", arg_value)),
            // `max_delay` is the top-level option's name for the same cap.
            "max" | "max_delay" if spec.max.is_some() => errors.push(Error::new(
                name.span(),
                "`max` and `max_delay` are one argument of `exponential`: keep only one",
            )),
            "max" | "max_delay" => spec.max = errors.ok(dur(&text, arg_value)),
            "multiplier" => spec.multiplier = errors.ok(multiplier(arg_value)),
            _ => {
                spec.jitter = errors
                    .ok(jitter(&arg_value))
                    .map(|value| (value, name.span()));
            }
        }
    }
    errors
        .into_result()
        .map(|()| BackoffSpec::Exponential(Box::new(spec)))
}

fn multiplier(value: Expr) -> syn::Result<Multiplier> {
    let invalid = |value: &Expr| {
        Err(Error::new_spanned(
            value,
            "`multiplier` must be a finite number of at least 1.0 (below 1 the delays would shrink): write, e.g., `multiplier = 2.0`",
        ))
    };
    match peel(&value) {
        Expr::Lit(lit) => {
            let parsed = match &lit.lit {
                Lit::Float(float) => float.base10_parse::<f64>().ok(),
                Lit::Int(int) => int.base10_parse::<f64>().ok(),
                _ => None,
            };
            match parsed {
                Some(number) if number.is_finite() && number >= 1.0 => {
                    Ok(Multiplier::Literal(number))
                }
                _ => invalid(&value),
            }
        }
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => invalid(&value),
        _ => Ok(Multiplier::Expr(value)),
    }
}

fn jitter(value: &Expr) -> syn::Result<Jitter> {
    match single_ident(value).map(Ident::to_string).as_deref() {
        Some("full") => Ok(Jitter::Full),
        Some("equal") => Ok(Jitter::Equal),
        Some("none") => Ok(Jitter::None),
        Some("decorrelated") => Ok(Jitter::Decorrelated),
        Some("additive") => Ok(Jitter::Additive),
        Some("additive_uncapped") => Ok(Jitter::AdditiveUncapped),
        _ => Err(Error::new_spanned(
            value,
            "`jitter` is `full`, `equal`, `none`, `decorrelated`, `additive` or `additive_uncapped`, as in `jitter = full`",
        )),
    }
}

/// One function's path, or several in brackets, tried in order.
fn function_paths(spec: &OptionSpec, name: &str, value: Expr) -> syn::Result<Vec<ExprPath>> {
    let example = spec.example;
    let wrong = |value: &Expr| {
        Error::new_spanned(
            value,
            format!(
                "`{name}` takes the path of a function, like `{name} = {example}` or, in an `impl`, `{name} = Self::{example}`; or a list of them, tried in order: `{name} = [{example}, stale_copy]`"
            ),
        )
    };
    let path = |value: &Expr| match peel(value) {
        Expr::Path(path) if path.attrs.is_empty() => Ok(path.clone()),
        _ => Err(wrong(value)),
    };
    match peel(&value) {
        Expr::Array(ExprArray { elems, .. }) if elems.is_empty() => Err(Error::new_spanned(
            &value,
            format!(
                "`{name} = []` names no function: give at least one, as in `{name} = [{example}]`"
            ),
        )),
        Expr::Array(ExprArray { elems, .. }) => {
            let mut errors = Errors::default();
            let paths: Vec<ExprPath> = elems
                .iter()
                .filter_map(|elem| errors.ok(path(elem)))
                .collect();
            errors.into_result().map(|()| paths)
        }
        _ => path(&value).map(|path| vec![path]),
    }
}

/// `false`, the only value of an option that turns something off.
fn off(name: &str, value: &Expr) -> syn::Result<Off> {
    match peel(value) {
        Expr::Lit(lit) if matches!(&lit.lit, Lit::Bool(b) if !b.value) => Ok(Off),
        Expr::Lit(lit) if matches!(&lit.lit, Lit::Bool(_)) => Err(Error::new_spanned(
            value,
            format!(
                "`{name}` is on by default: remove `{name} = true`, or write `{name} = false` to turn it off"
            ),
        )),
        _ => Err(Error::new_spanned(
            value,
            format!("`{name}` takes the literal `false`, as in `{name} = false`"),
        )),
    }
}

/// One of `choices`' words, in a string; another is reported with the
/// words to choose from, the closest first if it looks like a typo.
fn choice(
    name: &str,
    value: &Expr,
    of: &'static [&'static str],
    choices: &'static [(&'static str, &'static str)],
) -> syn::Result<Choice> {
    let words: Vec<&str> = choices.iter().map(|(word, _)| *word).collect();
    let listed = words
        .iter()
        .map(|word| format!("`{name} = \"{word}\"`"))
        .collect::<Vec<_>>()
        .join(" or ");
    let Expr::Lit(syn::ExprLit {
        lit: Lit::Str(lit), ..
    }) = peel(value)
    else {
        return Err(Error::new_spanned(
            value,
            format!("`{name}` takes a word in a string: {listed}"),
        ));
    };
    let text = lit.value();
    match choices.iter().find(|(word, _)| *word == text) {
        Some((_, variant)) => Ok(Choice {
            of,
            variant,
            lit: lit.clone(),
        }),
        None => {
            let hint = suggest::closest(&text, &words)
                .map(|word| format!("; did you mean `\"{word}\"`?"))
                .unwrap_or_default();
            Err(Error::new_spanned(
                lit,
                format!("unknown `{name}` value `\"{text}\"`: write {listed}{hint}"),
            ))
        }
    }
}

fn crate_path(value: Expr) -> syn::Result<Path> {
    let wrong = |value: &dyn quote::ToTokens| {
        Error::new_spanned(
            value,
            "`crate` takes the path of the `resilient` crate in a string, like `crate = \"my_crate::resilient\"`",
        )
    };
    match peel(&value) {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(text) => text
                .parse_with(Path::parse_mod_style)
                .map_err(|_| wrong(text)),
            _ => Err(wrong(&value)),
        },
        _ => Err(wrong(&value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each field of `Attrs` is of the type its option's kind parses to: its
    /// row's example, written alone, sets it.
    #[test]
    fn each_field_reads_its_options_example() {
        for spec in options::OPTIONS {
            let tokens: TokenStream = format!("{} = {}", spec.name, spec.example).parse().unwrap();
            let mut errors = Errors::default();
            let options = parse(tokens, &mut errors);
            assert!(errors.is_empty(), "`{}`'s example", spec.name);
            for (name, set) in Attrs::of(&options).fields() {
                assert_eq!(set, name == spec.name, "`{name}` given `{}`", spec.name);
            }
        }
    }
}
