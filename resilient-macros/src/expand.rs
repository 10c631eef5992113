//! Generates the wrapped function: the user's signature with `Outcome` as
//! its return type, and a body that builds an `Operation` from the options
//! and runs the original body once per attempt.
//!
//! The body is written in three parts, each from its own function: the
//! checks that report a misfit at the user's tokens ([`checks`]), the
//! operation built from the options ([`build`]), and the run that drives it
//! ([`run`]), which alone knows how the engine is driven.
//!
//! The original body is kept intact inside a closure, so `self`, `Self`,
//! generics and `impl Trait` arguments stay in scope and `return` / `?` end
//! the attempt. Generated locals use `Span::mixed_site()` and every runtime
//! item is named by an absolute path, so nothing the user declares can
//! shadow them.

use proc_macro2::{Literal, Punct, Spacing, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, ExprPath, Ident, ItemFn, ReturnType, Type};

use crate::attr::{self, BackoffSpec, Dur, Given, Jitter, Multiplier, Options, Value};
use crate::attr::{Count, Off, RetryOn};
use crate::errors::Errors;
use crate::options::{
    CLOCK, CRATE, ErrorNeed, Expand, FALLBACK, FALLBACK_IF, FALLBACK_ON, HEDGE, IDEMPOTENCY,
    IDEMPOTENCY_FINGERPRINT, IDEMPOTENCY_KEY, IDEMPOTENCY_TTL, LIMIT, MAX_HEDGES, NAME, OptionSpec,
    REPORT, RETRY, Read, Run, Side,
};
use crate::signature::{self, Arg, Function, Ret};

/// Expands `#[resilient(attr)] item`. Never panics: on any error the item is
/// emitted as written, next to one `compile_error!` per problem.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    match read(attr, item.clone()) {
        Ok((options, function, ret)) => generate(&options, &function, &ret),
        Err(errors) => with_errors(item, &errors),
    }
}

/// The options, the function and its return type, read and checked
/// against each other; or every problem found. The return type is taken
/// out of the function once it is known to be there: a function without
/// one was reported by its signature, or is left as written.
fn read(attr: TokenStream, item: TokenStream) -> Result<(Options, Function, Ret), Errors> {
    let mut errors = Errors::default();
    let options = attr::parse(attr, &mut errors);
    let function = match signature::parse(item) {
        Ok(function) => function,
        Err(error) => {
            errors.push(error);
            return Err(errors);
        }
    };
    let mut function = signature::analyze(function, &mut errors);
    crate::valid::check(&options, &function, &mut errors);
    match function.ret.take() {
        Some(ret) if errors.is_empty() => Ok((options, function, ret)),
        _ => Err(errors),
    }
}

/// The shape `#[resilient(attr)] item` expands to, if it expands at all.
#[cfg(test)]
pub(crate) fn shape(attr: TokenStream, item: TokenStream) -> Option<Shape> {
    let (options, function, ret) = read(attr, item).ok()?;
    let names = Names::new(&options, &function, &ret);
    Some(Shape::of(&options, function.is_async, &names))
}

fn with_errors(item: TokenStream, errors: &Errors) -> TokenStream {
    let mut tokens = signature::original(item);
    tokens.extend(errors.to_compile_errors());
    tokens
}

/// What the generated code refers to: the runtime's path, the function's
/// return type, and the generated locals.
struct Names<'a> {
    root: TokenStream,
    ret: &'a Ret,
    /// The function's parameters, which an option's value may name.
    args: &'a [Arg],
    /// Whether the receiver is `&self`, whose fields an option may read
    /// as often as it likes.
    shared_self: bool,
    op: Ident,
    /// The closure that builds the operation, where it is built on demand
    /// (see [`build`]).
    make: Ident,
    /// A first attempt that did not succeed.
    first: Ident,
    exec: Ident,
    body: Ident,
    policy: Ident,
    limits: Ident,
    attempt: Ident,
    error: Ident,
    /// The `Attempt` an async attempt is given.
    given: Ident,
    /// A retry the loop runs, and its attempt's future.
    next: Ident,
    work: Ident,
    /// A result that ends the call: the outcome of a first attempt that
    /// succeeded, or one an idempotency store already holds.
    done: Ident,
    /// A copy of a `mut self` receiver as the caller passed it.
    pristine_self: Ident,
    /// The `static` of the operation's counts under its default name, which
    /// a first attempt run before the operation is built reads too (see
    /// [`unbuilt_first_attempt`]).
    tally: Ident,
    /// The function's identifier, unraw: the operation's default name.
    function_name: String,
}

impl<'a> Names<'a> {
    fn new(options: &Options, function: &'a Function, ret: &'a Ret) -> Self {
        let local = |name: &str| Ident::new(name, Span::mixed_site());
        Names {
            root: options.get::<syn::Path>(&CRATE).map_or_else(
                || quote!(::resilient),
                |krate| krate.value.to_token_stream(),
            ),
            ret,
            args: &function.args,
            shared_self: function.item.sig.receiver().is_some_and(|receiver| {
                matches!(&*receiver.ty, Type::Reference(reference) if reference.mutability.is_none())
            }),
            op: local("__resilient_op"),
            make: local("__resilient_make"),
            first: local("__resilient_first"),
            exec: local("__resilient_exec"),
            body: local("__resilient_body"),
            policy: local("__resilient_policy"),
            limits: local("__resilient_limits"),
            attempt: local("__resilient_attempt"),
            error: local("__resilient_error"),
            given: local("__resilient_given"),
            next: local("__resilient_next"),
            work: local("__resilient_work"),
            done: local("__resilient_done"),
            pristine_self: local("__resilient_self"),
            tally: Ident::new("__RESILIENT_TALLY", Span::mixed_site()),
            function_name: function.item.sig.ident.unraw().to_string(),
        }
    }

    /// Whether an option's value names a function: a path, other than one
    /// of the function's parameters (which may hold a closure).
    fn is_function(&self, value: &Expr) -> bool {
        let Expr::Path(path) = value else {
            return false;
        };
        path.qself.is_some()
            || path
                .path
                .get_ident()
                .is_none_or(|ident| !self.is_param(ident))
    }

    /// Whether `ident` is one of the function's named parameters.
    fn is_param(&self, ident: &Ident) -> bool {
        self.args
            .iter()
            .any(|arg| matches!(arg, Arg::Named(name, _) if name == ident))
    }

    /// Whether evaluating `expr` again gives an equal value and does
    /// nothing else, and neither moves nor holds what it reads: a literal,
    /// a path other than a parameter, a borrow of a place, a field of a
    /// constant or of `&self`.
    fn is_constant(&self, expr: &Expr) -> bool {
        self.is_constant_reading(expr, self.shared_self)
    }

    /// Whether `expr` is a constant (see [`is_constant`](Self::is_constant))
    /// that the compiler can evaluate: one that reads no field of `self`.
    fn is_compile_time(&self, expr: &Expr) -> bool {
        self.is_constant_reading(expr, false)
    }

    /// [`is_constant`](Self::is_constant), where fields of `self` count
    /// as constant if `reads_self`.
    fn is_constant_reading(&self, expr: &Expr, reads_self: bool) -> bool {
        match expr {
            Expr::Lit(_) => true,
            Expr::Path(path) => {
                !is_self(expr)
                    && path
                        .path
                        .get_ident()
                        .is_none_or(|ident| !self.is_param(ident))
            }
            Expr::Reference(reference) => {
                reference.mutability.is_none() && is_place(&reference.expr)
            }
            Expr::Field(field) => {
                self.is_constant_reading(&field.base, reads_self)
                    || (reads_self && is_self(&field.base))
            }
            Expr::Paren(paren) => self.is_constant_reading(&paren.expr, reads_self),
            _ => false,
        }
    }

    /// The runtime's path, spanned at `span`.
    fn root_at(&self, span: Span) -> TokenStream {
        respan(self.root.clone(), span)
    }

    /// The success type `T` and the error type `E`: as written, or through
    /// the return type's alias, spanned at the return type so that a type
    /// that is not a `Result` is reported there.
    fn ok_err(&self) -> (TokenStream, TokenStream) {
        if let Some((ok, err)) = &self.ret.ok_err {
            return (ok.to_token_stream(), err.to_token_stream());
        }
        let ty = &self.ret.ty;
        (self.over("OkOf", ty), self.over("ErrOf", ty))
    }

    /// `__private::alias<ty>`, spanned from the first token of `ty` to its
    /// last, so that an error about it underlines the whole type.
    fn over(&self, alias: &str, ty: &Type) -> TokenStream {
        let mut tokens = ty.to_token_stream().into_iter();
        let first = tokens
            .next()
            .map_or_else(Span::call_site, |tree| tree.span());
        let last = tokens.last().map_or(first, |tree| tree.span());
        let root = self.root_at(first);
        let alias = Ident::new(alias, first);
        let mut close = Punct::new('>', Spacing::Alone);
        close.set_span(last);
        quote_spanned!(first=> #root::__private::#alias<#ty #close)
    }

    /// `Result<T, E>`: the return type as written, or resolved from its
    /// alias (which makes a type that is not a `Result` an error at it).
    fn result(&self) -> TokenStream {
        let ty = &self.ret.ty;
        if self.ret.ok_err.is_some() {
            return ty.to_token_stream();
        }
        self.over("ResultOf", ty)
    }

    /// The error type `E`, every token of it at `span`.
    fn error_at(&self, span: Span) -> TokenStream {
        respan(self.ok_err().1, span)
    }

    /// The success type `T`, every token of it at `span`.
    fn ok_at(&self, span: Span) -> TokenStream {
        respan(self.ok_err().0, span)
    }
}

/// Whether `expr` is a place, a path or a field of one: borrowing it
/// reads nothing and moves nothing.
fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(_) => true,
        Expr::Field(field) => is_place(&field.base),
        Expr::Paren(paren) => is_place(&paren.expr),
        _ => false,
    }
}

/// Whether `expr` is `self`.
fn is_self(expr: &Expr) -> bool {
    matches!(expr, Expr::Path(path) if path.path.is_ident("self"))
}

/// `tokens` with every span, in groups too, set to `span`: an error about
/// them is reported there, as one stretch of the user's source.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = inner.into();
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}

fn generate(options: &Options, function: &Function, ret: &Ret) -> TokenStream {
    let names = Names::new(options, function, ret);
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
        ..
    } = &function.item;
    let (inner_attrs, outer_attrs): (Vec<_>, Vec<_>) = attrs
        .iter()
        .partition(|attr| matches!(attr.style, syn::AttrStyle::Inner(_)));

    let mut sig = sig.clone();
    let root = &names.root;
    let outcome = match &ret.ok_err {
        Some((ok, err)) => quote!(#root::Outcome<#ok, #err>),
        // At the return type: one that is not a `Result` is reported there,
        // with `ResultLike`'s message.
        None => names.over("OutcomeOf", &ret.ty),
    };
    // With a report hook, the function keeps its declared return type.
    let keeps_signature = options.key(&REPORT).is_some();
    if let ReturnType::Type(arrow, _) = &sig.output
        && !keeps_signature
    {
        sig.output = ReturnType::Type(*arrow, Box::new(Type::Verbatim(outcome)));
    }

    let shape = Shape::of(options, function.is_async, &names);
    let checks = checks(options, function, &names);
    let build = build(options, function, shape, &names);
    let attempt = attempt_closure(function, &names);
    let fallbacks = fallback_closures(options, function, &names);
    let fallbacks = fallbacks_due(options, function.is_async, &names, &fallbacks);
    let run = run(options, shape, &names, &attempt, &fallbacks);
    // The run is the body's value, moved nowhere on the way out.
    let finish = if keeps_signature {
        quote!(#run.into_result())
    } else {
        run
    };

    let body = quote! {
        #(#inner_attrs)*
        #checks
        #build
        #finish
    };
    let mut braced = TokenStream::new();
    block
        .brace_token
        .surround(&mut braced, |tokens| tokens.extend(body));
    quote! {
        #(#outer_attrs)*
        #vis #sig #braced
    }
}

/// What the options and the signature ask of the types, each checked where
/// it is written, through a trait whose message says what to write: the
/// error conversions the options need (at the option), and a copy of a
/// `mut self` for the attempts to start from (at the receiver).
///
/// The builder call that needs the same bound is spanned at the same
/// tokens, so the compiler reports the two as one error, with this
/// check's note-free message.
fn checks(options: &Options, function: &Function, names: &Names) -> TokenStream {
    let root = &names.root;
    // The report records each error's text, at the error type.
    let (_, error) = names.ok_err();
    let mut checks = quote! {
        let _ = <#error as #root::__private::ReportableError>::describe;
    };
    for given in options.given() {
        let Some(need) = error_need(given, options, function) else {
            continue;
        };
        let span = given.key.span();
        let error = names.error_at(span);
        let bound = Ident::new(need.bound, span);
        let function = Ident::new(need.function, span);
        checks.extend(quote_spanned! {span=>
            let _ = <#error as #root::__private::#bound>::#function;
        });
    }
    if let Some(mutability) = &function.mut_self {
        let pristine = &names.pristine_self;
        let at = names.root_at(mutability.span);
        checks.extend(quote_spanned! {mutability.span=>
            let #pristine = #at::__private::FreshPerAttempt::fresh(#at::__private::Argument::of(&self));
        });
    }
    checks
}

/// The conversion of the error type that `given`'s builder calls need in
/// this function, if any. With `timeout`, the budget makes no such call
/// (`timeout` already interrupts the attempt in flight), so a missing
/// conversion is reported once, at `timeout`, wherever the two are written.
fn error_need<'a>(
    given: &'a Given,
    options: &Options,
    function: &Function,
) -> Option<&'a ErrorNeed> {
    let need = given.spec.error_needs.as_ref()?;
    let covered = need
        .unless
        .is_some_and(|other| options.key_named(other).is_some());
    let applies = (function.is_async || !need.only_async) && !covered;
    applies.then_some(need)
}

/// The operation, built from the options in the table's order: a chain of
/// builder calls, broken where a call needs a bound of the error type so
/// that its receiver is spanned at the option (see [`checks`]).
fn build(options: &Options, function: &Function, shape: Shape, names: &Names) -> TokenStream {
    let Names {
        root, op, policy, ..
    } = names;
    let mut statements = TokenStream::new();
    let bind_policy = options.get::<Expr>(&RETRY).map(|retry| {
        let value = retry.value;
        quote_spanned!(retry.span()=> let #policy = &(#value);)
    });
    statements.extend(bind_policy);
    statements.extend(bind_limits(options, names));

    let clock = match options.get::<Expr>(&CLOCK) {
        Some(clock) => {
            let value = clock.value;
            Some(quote_spanned!(clock.span()=> .clock(#value)))
        }
        None if function.is_async => Some(quote!(.clock(#root::__private::TokioClock))),
        None => None,
    };
    let (ok, error) = names.ok_err();
    let standard = shape.standard();
    let new = if standard {
        quote!(#root::__private::standard::<#ok, #error>())
    } else {
        quote!(#root::__private::operation::<#ok, #error>())
    };
    let mut chain = quote!(#new #clock);
    // The statements that build the operation itself.
    let mut steps = TokenStream::new();
    for given in options.given() {
        let Some(value) = &given.value else {
            continue;
        };
        let span = given.key.span();
        let bounded = error_need(given, options, function).is_some();
        let calls = builder_calls(given.spec, value, bounded, names, span);
        if bounded {
            // A block rather than the bare local: spanned at the option, it
            // is an expression of the user's code, which the compiler points
            // at; the local is the macro's own, and would be reported at the
            // whole attribute.
            steps.extend(quote!(let #op = #chain;));
            chain = quote_spanned!(span=> { #op } #calls);
        } else {
            chain.extend(calls);
        }
    }
    if options.key(&NAME).is_none() {
        // The function's identifier names the operation by default; its
        // counts (for metrics and the dashboard) live in a `static` of its
        // own, which a call finds for free, and which holds the labels of
        // the series a call records. A `name = …` may change from call to
        // call, so such an operation finds its counts by name.
        // The `static` stands beside the operation, not in its chain: a
        // first attempt run unbuilt reads it too (see `run`).
        let name = Literal::string(&names.function_name);
        let tally = &names.tally;
        statements.extend(quote! {
            static #tally: #root::__private::Tally = #root::__private::Tally::named(#name);
        });
        chain.extend(quote!(.name(#name)));
        // A `Standard`'s values may be written in a `const` block, which
        // can't borrow the `static`: its tally is set after.
        if !standard {
            chain.extend(quote!(.tally(&#tally)));
        }
    }
    steps.extend(quote!(let #op = #chain;));
    if standard {
        // The values, which the run builds the operation from once the
        // first attempt failed (see `run`): evaluated by the compiler where
        // every value is a constant it can evaluate, so that the function
        // compiles one copy of a constant rather than a chain of setters.
        let tally = &names.tally;
        let compile_time = options.given().iter().all(|given| {
            given
                .value
                .as_ref()
                .is_none_or(|value| is_made_of(value, &|expr| names.is_compile_time(expr)))
        });
        let values = if compile_time {
            quote!((const { #steps #op }))
        } else {
            quote!({ #steps #op })
        };
        let make = &names.make;
        statements.extend(quote!(let #make = || #values.tally(&#tally);));
        return statements;
    }
    // A hedged operation owns its operation: made here, so that the run
    // (under an idempotency key too) only borrows it.
    if let Some(hedge) = options.get::<Dur>(&HEDGE) {
        let delay = duration(hedge.value);
        let hedge = quote_spanned!(hedge.span()=> .hedge(#delay));
        let max_hedges = options.get::<Count>(&MAX_HEDGES).map(|max| {
            let count = Literal::u32_suffixed(max.value.value);
            quote_spanned!(max.span()=> .max_hedges(#count))
        });
        steps.extend(quote!(let #op = #op #hedge #max_hedges;));
    }
    if shape.on_demand() {
        // Built where it is read, again each time: the success path reads
        // constants, and the operation is stored only once an attempt fails
        // (see `Operation::first_attempt_async_of`).
        let make = &names.make;
        statements.extend(quote!(let #make = || { #steps #op };));
    } else if function.is_async && !options.given().iter().any(leaves_its_expression) {
        // Built in a closure of its own: the optimiser folds the builder's
        // steps into one write there, where written straight into the
        // future each step copies the whole operation (`memcpy` calls on
        // every call, most of the cost of an async success).
        statements.extend(quote!(let #op = (|| { #steps #op })();));
    } else {
        statements.extend(steps);
    }
    statements
}

/// The shape of the generated code, one variant per way the run is
/// written: decided once, from the flags of the options' rows
/// (`options.rs`) and from whether their values are constants.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Shape {
    /// A blocking function built on demand whose every option a `Standard`
    /// holds: the first attempt runs unbuilt, and a failure is finished by
    /// the one function every function of the same types shares.
    BlockingStandard,
    /// A blocking function built on demand whose options are all read only
    /// after a failure: the first attempt runs before the operation is
    /// built, so that its success path holds no copy of the builder.
    BlockingUnbuiltFirst,
    /// A blocking function built on demand, for its first attempt too.
    BlockingOnDemand,
    /// An async function built on demand whose every option a `Standard`
    /// holds: its first attempt reads its terms from the `Standard`.
    AsyncStandard,
    /// An async function built on demand: where a gate must admit the
    /// first attempt, that attempt runs unboxed, outside the retry loop.
    AsyncOnDemand { gated: bool },
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
    Async,
    /// Attempts are hedged: the run owns the hedged operation.
    AsyncHedged,
}

impl Shape {
    /// The shape of `function`'s expansion with `options`.
    ///
    /// The operation is built on demand, by a closure called wherever it
    /// is read, only where building it again changes nothing: every
    /// option's value a constant (see [`Names::is_constant`]) or bound to a
    /// local before the operation, and the run the engine's plain one.
    fn of(options: &Options, is_async: bool, names: &Names) -> Shape {
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
        if !on_demand {
            let built = match (is_async, runs(Run::Hedged)) {
                (false, _) => Built::Blocking,
                (true, false) => Built::Async,
                (true, true) => Built::AsyncHedged,
            };
            return if runs(Run::Keyed) {
                Shape::Idempotent(built)
            } else {
                Shape::Built(built)
            };
        }
        let standard = given.iter().all(|given| given.spec.standard);
        if is_async {
            let gated = given.iter().any(|given| given.spec.gate);
            return if standard && !gated {
                Shape::AsyncStandard
            } else {
                Shape::AsyncOnDemand { gated }
            };
        }
        let unbuilt = given
            .iter()
            .all(|given| given.spec.read != Read::EveryAttempt);
        match (unbuilt, standard) {
            (true, true) => Shape::BlockingStandard,
            (true, false) => Shape::BlockingUnbuiltFirst,
            (false, _) => Shape::BlockingOnDemand,
        }
    }

    /// Whether the operation is built by a closure, called wherever it is
    /// read, rather than once.
    fn on_demand(self) -> bool {
        !matches!(self, Shape::Built(_) | Shape::Idempotent(_))
    }

    /// Whether the operation is built by `__private::Standard`, one
    /// function for every function of the same types, rather than by a
    /// chain of setters of its own.
    fn standard(self) -> bool {
        matches!(self, Shape::BlockingStandard | Shape::AsyncStandard)
    }
}

/// Whether every expression written in `value` is one that `constant`
/// accepts.
fn is_made_of(value: &Value, constant: &dyn Fn(&Expr) -> bool) -> bool {
    let constant_dur = |dur: &Dur| match dur {
        Dur::Literal { .. } => true,
        Dur::Expr(expr) => constant(expr),
    };
    match value {
        Value::Expression(expr) => constant(expr),
        Value::Duration(dur) => constant_dur(dur),
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
        Value::Count(_) | Value::Off(_) | Value::RetryOn(_) | Value::Paths(_) | Value::Crate(_) => {
            true
        }
    }
}

/// The outcome of a first attempt that succeeded (`done`), on an
/// operation built on demand: a `Standard`'s tells only its name and its
/// counts, which the function knows, so nothing of it is built again.
fn outcome_from(standard: bool, names: &Names) -> TokenStream {
    let Names {
        root,
        make,
        tally,
        done,
        ..
    } = names;
    if standard {
        let name = Literal::string(&names.function_name);
        quote!(#root::__private::Standard::outcome_from(#done, #name, &#tally))
    } else {
        quote!(#root::Operation::outcome_from(#done, &#make))
    }
}

/// Whether an option's value may leave the expression it is written in
/// (`?`, `return`, `.await`, `break`, `continue`), which it could not from
/// inside a closure.
fn leaves_its_expression(given: &Given) -> bool {
    fn leaves(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|tree| match tree {
            proc_macro2::TokenTree::Group(group) => leaves(group.stream()),
            proc_macro2::TokenTree::Punct(punct) => punct.as_char() == '?',
            proc_macro2::TokenTree::Ident(ident) => {
                ["return", "await", "break", "continue", "yield"]
                    .iter()
                    .any(|word| ident == word)
            }
            proc_macro2::TokenTree::Literal(_) => false,
        })
    }
    matches!(&given.value, Some(Value::Expression(expr)) if leaves(expr.to_token_stream()))
}

/// `limit = &A` or `limit = [&A, &B]`, bound to a local array of
/// `&dyn Limiter` that outlives the operation borrowing it.
fn bind_limits(options: &Options, names: &Names) -> Option<TokenStream> {
    let limit = options.get::<Expr>(&LIMIT)?;
    let value = limit.value;
    let limiters: Vec<&Expr> = match value {
        Expr::Array(array) => array.elems.iter().collect(),
        single => vec![single],
    };
    let count = Literal::usize_suffixed(limiters.len());
    let at = names.root_at(value.span());
    let limits = &names.limits;
    Some(quote_spanned! {value.span()=>
        let #limits: [&dyn #at::limit::Limiter; #count] = [#(#limiters),*];
    })
}

/// The builder calls of one option, spanned at its key so that a type
/// error about a call points there: what its row's `Expand` says.
fn builder_calls(
    spec: &OptionSpec,
    value: &Value,
    bounded: bool,
    names: &Names,
    span: Span,
) -> TokenStream {
    match (spec.expand, value) {
        (Expand::Method(method), _) => method_call(spec, method, value, names, span),
        (Expand::Deadline(method), _) => {
            // Where the function converts the timeout (see `error_need`),
            // the deadline also cuts the attempt in flight. That call comes
            // first, so that its receiver is the one spanned at the option
            // (see `build`).
            let interrupt = bounded.then(|| quote_spanned!(span=> .interrupt_at_deadline()));
            let call = method_call(spec, method, value, names, span);
            quote!(#interrupt #call)
        }
        (Expand::Attempts, Value::Count(retries)) => {
            let attempts = Literal::u32_suffixed(retries.value.saturating_add(1));
            quote_spanned!(span=> .max_attempts(#attempts))
        }
        (Expand::Policy, _) => {
            let policy = &names.policy;
            quote_spanned!(span=> .policy(#policy))
        }
        (Expand::Limits, _) => {
            let limits = &names.limits;
            quote_spanned!(span=> .limit(&#limits))
        }
        (Expand::Inject { method, of }, Value::Expression(expr)) => {
            inject(method, of, expr, names, span)
        }
        (Expand::RetryIf, Value::RetryOn(retry_on)) => {
            let classify = variants_closure(retry_on, names, span);
            // A plain `fn` pointer, not the closure's own type: every
            // function with the same error type then shares one copy of the
            // engine's failure path, instead of compiling one each.
            quote_spanned! {span=>
                .retry_if((#classify) as fn(&_) -> ::core::primitive::bool)
            }
        }
        // The option shapes the rest of the expansion; or its kind of
        // value is not the one its step reads, which the table's test rules
        // out.
        _ => TokenStream::new(),
    }
}

/// `.method(value)`: the value as the method takes it.
fn method_call(
    spec: &OptionSpec,
    method: &str,
    value: &Value,
    names: &Names,
    span: Span,
) -> TokenStream {
    let method = Ident::new(method, span);
    let value = match value {
        // Computed literals keep the macro's span: lints that read the
        // user's source text (e.g. on `0`) must not judge them.
        Value::Count(count) => Literal::u32_suffixed(count.value).into_token_stream(),
        Value::Duration(dur) => duration(dur),
        Value::Expression(expr) => match spec.checked_by {
            Some(check) => {
                let value_span = expr.span();
                let at = names.root_at(value_span);
                let error = names.error_at(value_span);
                if names.is_function(expr) {
                    let check = format_ident!("{check}_fn", span = value_span);
                    quote_spanned!(value_span=> #at::__private::#check::<#error>(#expr))
                } else {
                    let check = Ident::new(check, value_span);
                    quote_spanned!(value_span=> #at::__private::#check::<#error, _>(#expr))
                }
            }
            None => expr.to_token_stream(),
        },
        Value::Backoff(backoff) => backoff_value(backoff, &names.root, span),
        // An option that turns something off calls its method bare.
        Value::Off(Off) => return quote_spanned!(span=> .#method()),
        Value::Paths(_) | Value::RetryOn(_) | Value::Crate(_) => TokenStream::new(),
    };
    quote_spanned!(span=> .#method(#value))
}

/// `|error: &_| matches!(error, A { .. } | B { .. })`: whether an error is
/// one of the variants listed.
fn variants_closure(variants: &RetryOn, names: &Names, span: Span) -> TokenStream {
    let error = &names.error;
    let patterns = variants
        .variants
        .iter()
        .map(|variant| variant_pattern(variant, names));
    quote_spanned! {span=>
        |#error: &_| ::core::matches!(#error, #(#patterns)|*)
    }
}

/// The test of `fallback_on` or `fallback_if`, if either is given.
fn fallback_filter(options: &Options, names: &Names) -> Option<TokenStream> {
    if let Some(on) = options.get::<RetryOn>(&FALLBACK_ON) {
        return Some(variants_closure(on.value, names, on.span()));
    }
    options.get::<Expr>(&FALLBACK_IF).map(|test| {
        let value = test.value;
        quote_spanned!(value.span()=> #value)
    })
}

/// `.chaos_fault(…)` or `.chaos_outcome(…)`: a closure that makes the
/// value to inject from the option's expression, anew for each injection.
/// The expression is a value of the type, or a closure making one; which
/// of the two is settled by `__private::Inject`, whose message is reported
/// at the expression.
fn inject(method: &str, of: Side, expr: &Expr, names: &Names, span: Span) -> TokenStream {
    let (ok, error) = names.ok_err();
    let ty = match of {
        Side::Success => ok,
        Side::Error => error,
    };
    let value_span = expr.span();
    let at = names.root_at(value_span);
    let ty = respan(ty, value_span);
    let make = quote_spanned! {value_span=>
        <#at::__private::Injected<_> as #at::__private::Inject<#ty, _>>::make(#at::__private::Injected(#expr))
    };
    let method = Ident::new(method, span);
    quote_spanned!(span=> .#method(|| #make))
}

/// `Variant { .. }`, matching whatever the fields hold. A bare name is a
/// variant of the error type: its path as written, or the alias's error
/// type when the signature doesn't spell it out.
fn variant_pattern(variant: &syn::Path, names: &Names) -> TokenStream {
    let Some(name) = variant.get_ident() else {
        return quote!(#variant { .. });
    };
    match names.ret.error_path() {
        // At the name: an error about the variant points there only.
        Some(path) => {
            let path = respan(path.to_token_stream(), name.span());
            quote_spanned!(name.span()=> #path::#name { .. })
        }
        None => {
            let root = &names.root;
            let ret = &names.ret.ty;
            quote_spanned!(name.span()=> #root::__private::ErrOf::<#ret>::#name { .. })
        }
    }
}

/// The closure that runs one attempt: the original body, after binding the
/// `#[attempt]` parameter and a fresh copy of each `mut` parameter.
///
/// The closure always takes `Attempt`; the user's own pattern and type are
/// bound inside it, so that a wrong type is reported at that type rather
/// than as a closure signature mismatch at the attribute. It is spanned at
/// the body, so a body that moves an argument is reported at the body.
fn attempt_closure(function: &Function, names: &Names) -> TokenStream {
    let root = &names.root;
    let ret = names.result();
    let block = &function.item.block;
    let given = &names.attempt;
    let mut prelude = TokenStream::new();
    if let Some(param) = &function.attempt {
        let attrs = &param.attrs;
        let pat = &param.pat;
        let ty = &param.ty;
        let given = Ident::new(
            &given.to_string(),
            Span::mixed_site().located_at(pat.span()),
        );
        prelude.extend(quote!(#(#attrs)* let #pat: #ty = #given;));
    }
    // The user's own `mut` and name: `unused_mut` and `unused_variables`
    // still speak of the parameter.
    for binding in &function.mut_bindings {
        let (mutability, ident) = (&binding.mutability, &binding.ident);
        let span = ident.span();
        let at = names.root_at(span);
        let fresh = quote_spanned! {span=>
            #at::__private::FreshPerAttempt::fresh(#at::__private::Argument::of(&#ident))
        };
        prelude.extend(quote!(let #mutability #ident = #fresh;));
    }
    if let Some(mutability) = &function.mut_self {
        let pristine = &names.pristine_self;
        let at = names.root_at(mutability.span);
        prelude.extend(quote_spanned! {mutability.span=>
            self = #at::__private::FreshPerAttempt::fresh(#at::__private::Argument::of(&#pristine));
        });
    }
    let param = if function.attempt.is_some() {
        given.to_token_stream()
    } else {
        quote!(_)
    };
    let body = if prelude.is_empty() {
        block.to_token_stream()
    } else {
        quote!({ #prelude #block })
    };
    let span = block.span();
    let asyncness = function.is_async.then(|| quote_spanned!(span=> async));
    quote_spanned! {span=>
        #asyncness |#param: #root::Attempt| -> #ret #body
    }
}

/// The closures that run the fallbacks, in order, with the function's
/// arguments (a `mut self` as the caller passed it), then the error that
/// ended the attempts and the `Attempt` if a fallback takes them. Which it
/// takes, and whether its signature fits at all, is settled by the
/// `__private` fallback traits, whose message is reported at the
/// fallback's path.
fn fallback_closures(options: &Options, function: &Function, names: &Names) -> Vec<TokenStream> {
    let Some(fallbacks) = options.get::<Vec<ExprPath>>(&FALLBACK) else {
        return Vec::new();
    };
    let root = &names.root;
    let ret = names.result();
    let (_, err) = names.ok_err();
    let (attempt, error) = (&names.attempt, &names.error);
    // Each argument, and whether it is a unique borrow.
    let args: Vec<(TokenStream, bool)> = function
        .args
        .iter()
        .filter_map(|arg| match arg {
            Arg::Receiver(..) if function.mut_self.is_some() => {
                Some((names.pristine_self.to_token_stream(), false))
            }
            Arg::Receiver(token, unique) => Some((token.to_token_stream(), *unique)),
            Arg::Named(ident, unique) => Some((ident.to_token_stream(), *unique)),
            Arg::Pattern(_) => None,
        })
        .collect();
    let count = fallbacks.value.len();
    fallbacks
        .value
        .iter()
        .enumerate()
        .map(|(i, path)| {
            // The call is spanned at the path: a fallback that doesn't fit
            // is reported there, with the fallback traits' message.
            let span = path.span();
            let at = names.root_at(span);
            // Every candidate but the last gets copies (a unique borrow is
            // lent again, since the candidates run one after another): the
            // last takes the arguments themselves.
            let last = i + 1 == count;
            let args: Vec<TokenStream> = args
                .iter()
                .map(|(arg, unique)| {
                    let span = arg.span();
                    let at = names.root_at(span);
                    match (last, unique) {
                        (true, _) => arg.clone(),
                        (false, true) => quote_spanned!(span=> &mut *#arg),
                        (false, false) => quote_spanned! {span=>
                            #at::__private::PassedToEach::for_one(#at::__private::Argument::of(&#arg))
                        },
                    }
                })
                .collect();
            if function.is_async {
                let call = quote_spanned! {span=>
                    #at::__private::AsyncFallback::<_, #err, #ret, _>::call((#(#args,)*), #path, #error, #attempt)
                };
                quote!(async |#error: &#err, #attempt: #root::Attempt| -> #ret { #call.await })
            } else {
                let call = quote_spanned! {span=>
                    #at::__private::BlockingFallback::<_, #err, #ret, _>::call((#(#args,)*), #path, #error, #attempt)
                };
                quote!(|#error: &#err, #attempt: #root::Attempt| -> #ret { #call })
            }
        })
        .collect()
}

/// The run under an idempotency key, when the options give one: the
/// whole run (retries, breaker, fallbacks) becomes the body that the store
/// runs at most once per key.
fn idempotent(options: &Options, built: Built, names: &Names, run: TokenStream) -> TokenStream {
    let (Some(store), Some(key)) = (
        options.get::<Expr>(&IDEMPOTENCY),
        options.get::<Expr>(&IDEMPOTENCY_KEY),
    ) else {
        return run;
    };
    let is_async = built != Built::Blocking;
    let Names { root, op, done, .. } = names;
    let store_value = store.value;
    let key_value = key.value;
    let store = if is_async {
        // The store as a trait object of the function's value: a store that
        // can't keep it (a `RedisStore` of a value without serde) is then
        // one error, here, rather than one at each use of the store.
        let span = store_value.span();
        let at = names.root_at(span);
        let ok = names.ok_at(span);
        quote_spanned!(span=> #at::__private::idempotency_store::<#ok, _>(#store_value))
    } else {
        quote_spanned!(store.span()=> #store_value)
    };
    let key = quote_spanned! {key.span()=>
        ::core::convert::Into::<::std::string::String>::into(#key_value)
    };
    let ttl = options.get::<Dur>(&IDEMPOTENCY_TTL).map_or_else(
        || quote!(#root::__private::DEFAULT_TTL),
        |ttl| duration(ttl.value),
    );
    let fingerprint = options
        .get::<Expr>(&IDEMPOTENCY_FINGERPRINT)
        .map(|fingerprint| {
            let span = fingerprint.span();
            let value = fingerprint.value;
            let error = names.error_at(span);
            let at = names.root_at(span);
            quote_spanned! {span=>
                .fingerprint(#at::__private::idempotency_fingerprint::<#error, _>(&(#value)))
            }
        });
    let call = Ident::new("__resilient_call", Span::mixed_site());
    let held = Ident::new("__resilient_held", Span::mixed_site());
    // The run borrows the operation from the call, which owns it: under
    // the claim, `op` names that borrow.
    let (claim, under_claim) = if is_async {
        (
            quote!(#call.claim().await),
            quote!(#call.run(#held, async { #run }).await),
        )
    } else {
        (
            quote!(#call.claim_blocking()),
            quote!(#call.run_blocking(#held, || #run)),
        )
    };
    quote! {
        {
            let mut #call = #root::__private::IdempotentCall::new(#op, #store, #key, #ttl) #fingerprint;
            match #claim {
                ::core::result::Result::Ok(#held) => {
                    let #op = #call.operation();
                    #under_claim
                }
                ::core::result::Result::Err(#done) => #done,
            }
        }
    }
}

/// The fallbacks, each called while one is due, behind the test of
/// `fallback_on` or `fallback_if` if either is given, so that they answer
/// the errors it selects only and any other is returned as it is. Nothing
/// without fallbacks.
fn fallbacks_due(
    options: &Options,
    is_async: bool,
    names: &Names,
    fallbacks: &[TokenStream],
) -> TokenStream {
    let exec = &names.exec;
    let fallbacks = if is_async {
        quote! {
            #(if #exec.needs_fallback() {
                #exec.fallback_async(#fallbacks).await;
            })*
        }
    } else {
        quote! {
            #(if #exec.needs_fallback() {
                #exec.fallback_blocking(#fallbacks);
            })*
        }
    };
    match fallback_filter(options, names) {
        Some(filter) => quote! {
            if #exec.error().is_some_and(#filter) {
                #fallbacks
            }
        },
        None => fallbacks,
    }
}

/// The run, an expression of the `Outcome`, as its shape writes it: the
/// first attempt straight, the retries only after a failure, then each
/// fallback while one is due (`fallbacks`, see [`fallbacks_due`]). This is
/// the only part of the expansion that knows how the engine is driven.
///
/// The attempt closure is made once: a blocking run calls it through
/// `&mut`; an async one calls it once per attempt from a fresh closure
/// (`|attempt| body(attempt)`), so that its future borrows the closure for
/// that attempt only and stays `Send`. Hedged attempts run at once, so
/// theirs is called through `&`.
fn run(
    options: &Options,
    shape: Shape,
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    match shape {
        Shape::BlockingStandard => blocking_standard(names, attempt),
        Shape::BlockingUnbuiltFirst => blocking_unbuilt_first(names, attempt, fallbacks),
        Shape::BlockingOnDemand => blocking_on_demand(names, attempt, fallbacks),
        Shape::AsyncStandard => async_standard(names, attempt, fallbacks),
        Shape::AsyncOnDemand { gated } => async_on_demand(gated, names, attempt, fallbacks),
        Shape::Built(built) => run_built(built, names, attempt, fallbacks),
        Shape::Idempotent(built) => {
            let run = run_built(built, names, attempt, fallbacks);
            idempotent(options, built, names, run)
        }
    }
}

/// [`Shape::BlockingStandard`]: the first attempt unbuilt; a failure
/// finished by one call, compiled once for every function of the
/// operation's types, on the values `make` writes.
fn blocking_standard(names: &Names, attempt: &TokenStream) -> TokenStream {
    let Names {
        make, first, body, ..
    } = names;
    let failed = quote!(#make().finish_after(#first, &mut #body));
    let first_attempt = unbuilt_first_attempt(names);
    blocking_first(names, attempt, &first_attempt, true, &failed)
}

/// [`Shape::BlockingUnbuiltFirst`]: the first attempt unbuilt, the rest
/// on the operation `make` builds.
fn blocking_unbuilt_first(
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let failed = blocking_failure(names, fallbacks);
    let first_attempt = unbuilt_first_attempt(names);
    blocking_first(names, attempt, &first_attempt, false, &failed)
}

/// [`Shape::BlockingOnDemand`]: every attempt on the operation `make`
/// builds.
fn blocking_on_demand(
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let Names { make, body, .. } = names;
    let failed = blocking_failure(names, fallbacks);
    let first_attempt = quote!(#make().first_attempt(&mut #body));
    blocking_first(names, attempt, &first_attempt, false, &failed)
}

/// A blocking first attempt that reads nothing of the operation, run
/// before it is built: its counts are the function's `static`.
fn unbuilt_first_attempt(names: &Names) -> TokenStream {
    let Names {
        root, tally, body, ..
    } = names;
    let name = Literal::string(&names.function_name);
    quote!(#root::__private::first_attempt_unbuilt(#name, &#tally, &mut #body))
}

/// A blocking run on an operation built on demand: `first_attempt`, then
/// its outcome if it succeeded, or `failed` with the failure as `first`.
fn blocking_first(
    names: &Names,
    attempt: &TokenStream,
    first_attempt: &TokenStream,
    standard: bool,
    failed: &TokenStream,
) -> TokenStream {
    let Names {
        root,
        first,
        body,
        done,
        ..
    } = names;
    let succeeded = outcome_from(standard, names);
    quote! {
        {
            let mut #body = #root::__private::attempt_blocking(#attempt);
            match #first_attempt {
                ::core::result::Result::Ok(#done) => #succeeded,
                ::core::result::Result::Err(#first) => { #failed }
            }
        }
    }
}

/// The rest of a blocking run built on demand, after a first attempt
/// that failed (`first`): without fallbacks one call, compiled once for
/// every function of the operation's types.
fn blocking_failure(names: &Names, fallbacks: &TokenStream) -> TokenStream {
    let Names {
        root,
        op,
        make,
        first,
        exec,
        body,
        done,
        ..
    } = names;
    if fallbacks.is_empty() {
        return quote!(#root::Operation::finish_after(&#make, #first, &mut #body));
    }
    quote! {
        let #op = #make();
        match #op.run_after(#first, &mut #body) {
            ::core::result::Result::Ok(#done) => #done,
            ::core::result::Result::Err(mut #exec) => {
                #fallbacks
                #exec.finish()
            }
        }
    }
}

/// [`Shape::AsyncStandard`]: the first attempt reads its terms from the
/// `Standard`, which builds the operation once it failed.
fn async_standard(names: &Names, attempt: &TokenStream, fallbacks: &TokenStream) -> TokenStream {
    let Names {
        root,
        make,
        op,
        first,
        ..
    } = names;
    let recipe = quote!(#root::__private::Standard);
    let built = quote!(#make().build());
    let resume = quote!(#op.resume(#first));
    async_first(names, attempt, (&recipe, &built), true, &resume, fallbacks)
}

/// [`Shape::AsyncOnDemand`]: the first attempt on the operation `make`
/// builds. A first attempt that a gate must admit runs unboxed, so that
/// one that succeeds allocates nothing; without gates, the first attempt
/// has always run by now, and the retry loop's own copy of the attempt
/// serves every retry.
fn async_on_demand(
    gated: bool,
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let Names {
        root,
        make,
        op,
        first,
        body,
        given,
        ..
    } = names;
    let resume = if gated {
        quote!(#op.resume_async(#first, |#given: #root::Attempt| #body(#given)).await)
    } else {
        quote!(#op.resume(#first))
    };
    let recipe = quote!(#root::Operation);
    let built = quote!(#make());
    async_first(names, attempt, (&recipe, &built), false, &resume, fallbacks)
}

/// An async run on an operation built on demand: the first attempt by
/// `recipe`, then its outcome if it succeeded, or the operation `built`
/// to `resume` the run after it.
fn async_first(
    names: &Names,
    attempt: &TokenStream,
    (recipe, built): (&TokenStream, &TokenStream),
    standard: bool,
    resume: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let Names {
        root,
        op,
        make,
        first,
        exec,
        body,
        given,
        done,
        ..
    } = names;
    let succeeded = outcome_from(standard, names);
    let rest = async_rest(names, fallbacks);
    quote! {
        {
            let mut #body = #root::__private::attempt_async(#attempt);
            match #recipe::first_attempt_async_of(&#make, |#given: #root::Attempt| #body(#given)).await {
                ::core::result::Result::Ok(#done) => #succeeded,
                ::core::result::Result::Err(#first) => {
                    let #op = #built;
                    let mut #exec = #resume;
                    #rest
                }
            }
        }
    }
}

/// After a first async attempt that failed: the retries, then the
/// fallbacks and the outcome. The loop is part of the function's own
/// future, whose states overlap: a future of its own on the heap would
/// spare a call that succeeds at once nothing, and would be a second
/// coroutine for every function to compile.
fn async_rest(names: &Names, fallbacks: &TokenStream) -> TokenStream {
    let Names {
        exec,
        body,
        next,
        work,
        ..
    } = names;
    quote! {
        while let ::core::option::Option::Some(mut #next) = #exec.next_running().await {
            let #work = ::core::pin::pin!(#body(#next.attempt()));
            #exec.drive(&mut #next, #work).await;
        }
        #fallbacks
        #exec.finish()
    }
}

/// [`Shape::Built`]: the run of the operation built once, `op`.
fn run_built(
    built: Built,
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let Names {
        root,
        op,
        exec,
        body,
        given,
        done,
        ..
    } = names;
    match built {
        Built::Blocking => quote! {
            {
                let mut #body = #root::__private::attempt_blocking(#attempt);
                match #op.run_primary(&mut #body) {
                    ::core::result::Result::Ok(#done) => #done,
                    ::core::result::Result::Err(mut #exec) => {
                        #fallbacks
                        #exec.finish()
                    }
                }
            }
        },
        // `op` is the hedged operation (see `build`).
        Built::AsyncHedged => quote! {
            {
                let #body = #attempt;
                match #op.run_primary_async(|#given: #root::Attempt| #body(#given)).await {
                    ::core::result::Result::Ok(#done) => #done,
                    ::core::result::Result::Err(mut #exec) => {
                        #fallbacks
                        #exec.finish()
                    }
                }
            }
        },
        // `__private::attempt_async` makes the closure an `AsyncFnMut`: a
        // body that moves an argument is then reported at the use that
        // moves it, with a `.clone()` hint.
        Built::Async => {
            let rest = async_rest(names, fallbacks);
            quote! {
                {
                    let mut #body = #root::__private::attempt_async(#attempt);
                    match #op.first_attempt_async(|#given: #root::Attempt| #body(#given)).await {
                        ::core::result::Result::Ok(#done) => #op.outcome_of(#done),
                        ::core::result::Result::Err(mut #exec) => {
                            #rest
                        }
                    }
                }
            }
        }
    }
}

fn duration(dur: &Dur) -> TokenStream {
    match dur {
        Dur::Literal { nanos, lit } => nanos.to_tokens(lit.span()),
        Dur::Expr(expr) => expr.to_token_stream(),
    }
}

/// The `Backoff` value. An `exponential` names the runtime's defaults for
/// what isn't written, and sets the multiplier and jitter only when given:
/// `Backoff::exponential` already defaults them.
fn backoff_value(spec: &BackoffSpec, root: &TokenStream, span: Span) -> TokenStream {
    let backoff = quote_spanned!(span=> #root::__private::Backoff);
    match spec {
        BackoffSpec::None => quote_spanned!(span=> #backoff::none()),
        BackoffSpec::Constant(delay) => {
            let delay = duration(delay);
            quote_spanned!(span=> #backoff::constant(#delay))
        }
        BackoffSpec::Exponential(spec) => {
            let base = spec
                .base
                .as_ref()
                .map_or_else(|| quote_spanned!(span=> #backoff::DEFAULT_BASE), duration);
            let max = spec
                .max
                .as_ref()
                .map_or_else(|| quote_spanned!(span=> #backoff::DEFAULT_MAX), duration);
            let multiplier = spec.multiplier.as_ref().map(|multiplier| {
                let value = match multiplier {
                    Multiplier::Literal(value) => Literal::f64_suffixed(*value).into_token_stream(),
                    Multiplier::Expr(expr) => expr.to_token_stream(),
                };
                quote_spanned!(span=> .multiplier(#value))
            });
            let jitter = spec.jitter.map(|(jitter, jitter_span)| {
                let variant = match jitter {
                    Jitter::Full => quote_spanned!(jitter_span=> Full),
                    Jitter::Equal => quote_spanned!(jitter_span=> Equal),
                    Jitter::None => quote_spanned!(jitter_span=> None),
                };
                quote_spanned!(span=> .jitter(#root::__private::Jitter::#variant))
            });
            quote_spanned!(span=> #backoff::exponential(#base, #max) #multiplier #jitter)
        }
        BackoffSpec::Expr(expr) => expr.to_token_stream(),
    }
}
