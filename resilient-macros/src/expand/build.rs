//! The operation, built from the options: the builder calls of each
//! option as its row's `Expand` says, in the table's order, and how the
//! shape builds it (once, on demand, or as a `Recipe`'s values).

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident};

use crate::attr::{
    Attrs, BackoffSpec, Dur, Given, HedgeSpec, Jitter, Multiplier, Off, RetryOn, Value,
};
use crate::options::{Expand, OptionSpec, Side};
use crate::signature::Function;

use super::error_need;
use super::expansion::{Expansion, is_made_of};
use super::names::{Names, respan};

/// The operation, built from the options in the table's order: a chain of
/// builder calls, broken where a call needs a bound of the error type so
/// that its receiver is spanned at the option (see [`checks`](super::checks)).
pub(super) fn build(
    attrs: &Attrs,
    function: &Function,
    shape: Expansion,
    names: &Names,
) -> TokenStream {
    let Names {
        root, op, policy, ..
    } = names;
    let mut statements = TokenStream::new();
    let bind_policy = attrs.retry.map(|retry| {
        let value = retry.value;
        quote_spanned!(retry.span()=> let #policy = &(#value);)
    });
    statements.extend(bind_policy);
    statements.extend(bind_limits(attrs, names));

    let clock = match attrs.clock {
        Some(clock) => {
            let value = clock.value;
            Some(quote_spanned!(clock.span()=> .clock(#value)))
        }
        None if function.is_async => Some(quote!(.clock(#root::__private::TokioClock))),
        None => None,
    };
    let (ok, error) = names.ok_err();
    let recipe = shape.recipe();
    let describe = describer(names);
    let new = if recipe {
        quote!(#root::__private::recipe::<#ok, #error>())
    } else {
        quote!(#root::__private::operation::<#ok, #error>(#describe))
    };
    // An error that converts `TimedOut` is what an attempt fails with when
    // a deadline it inherited (a call made inside another's attempt) cuts
    // it or leaves it no time; told without requiring the conversion.
    // Spanned at the return type, where an error about the error type is
    // reported once.
    // Asked only of an error type written out (`Result<T, E>`): behind an
    // alias, a type that is not a `Result` is reported where the alias is
    // resolved, and asking again would report it twice.
    let expiring = names.written_error().map(|error| {
        quote! {{
            #[allow(unused_imports)]
            use #root::__private::{MakesNoTimeout as _, MakesTimeout as _};
            (&&#root::__private::TimeoutProbe::<#error>::NEW).maker()
        }}
    });
    let mut chain = quote!(#new #clock);
    // What the attribute alone sets on an operation, after its options.
    let mut protocol = TokenStream::new();
    if !recipe && let Some(maker) = &expiring {
        // A `Recipe`'s may be written in a `const` block: set after.
        protocol.extend(quote!(let #op = #root::__private::with_expiring(#op, #maker);));
    }
    // The statements that build the operation itself.
    let mut steps = TokenStream::new();
    let options = attrs.options;
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
    if attrs.name.is_none() {
        // The function's identifier names the operation by default; its
        // counts (for metrics and the dashboard) live in a `static` of its
        // own, which a call finds for free, and which holds the labels of
        // the series a call records. A `name = …` may change from call to
        // call, so such an operation finds its counts by name.
        // The `static` stands beside the operation, not in its chain: a
        // first attempt run unbuilt reads it too (see `run.rs`).
        let name = Literal::string(&names.function_name);
        let tally = &names.tally;
        statements.extend(quote! {
            static #tally: #root::__private::Tally = #root::__private::Tally::named(#name);
        });
        chain.extend(quote!(.name(#name)));
        // A `Recipe`'s values may be written in a `const` block, which
        // can't borrow the `static`: its tally is set after.
        if !recipe {
            protocol.extend(quote!(let #op = #root::__private::with_tally(#op, &#tally);));
        }
    }
    steps.extend(quote!(let #op = #chain;));
    steps.extend(protocol);
    if recipe {
        // The values, which the run builds the operation from once the
        // first attempt failed (see `run.rs`): evaluated by the compiler where
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
        let expiring = expiring.map(|maker| quote!(.expiring(#maker)));
        statements
            .extend(quote!(let #make = || #values.describe(#describe).tally(&#tally) #expiring;));
        return statements;
    }
    // A hedged operation owns its operation: made here, so that the run
    // (under an idempotency key too) only borrows it.
    if let Some(hedge) = attrs.hedge {
        let span = hedge.value.span();
        let hedge = match hedge.value {
            HedgeSpec::Delay(delay) => {
                let delay = duration(delay);
                quote_spanned!(hedge.span()=> .hedge(#delay))
            }
            // The function's own window, shared by its calls: until it
            // holds enough samples, the layer's fallback delay serves.
            HedgeSpec::Percentile { per_mille, .. } => {
                let root = names.root_at(span);
                let share = Literal::f64_suffixed(f64::from(*per_mille) / 1000.0);
                quote_spanned! {span=>
                    .hedge(#root::__private::HEDGE_FALLBACK)
                    .window({
                        static WINDOW: #root::HedgeWindow = #root::HedgeWindow::at_percentile(#share);
                        &WINDOW
                    })
                }
            }
        };
        let max_hedges = attrs.max_hedges.map(|max| {
            let count = Literal::u32_suffixed(max.value.value);
            quote_spanned!(max.span()=> .max_hedges(#count))
        });
        steps.extend(quote!(let #op = #op #hedge #max_hedges;));
    }
    if shape.on_demand() {
        // Built where it is read, again each time: the success path reads
        // constants, and the operation is stored only once an attempt fails
        // (see `__private::first_attempt_async_of`).
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
fn bind_limits(attrs: &Attrs, names: &Names) -> Option<TokenStream> {
    let limit = attrs.limit?;
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
        (Expand::VariantTest(method), Value::RetryOn(variants)) => {
            let test = variants_closure(variants, names, span);
            let method = Ident::new(method, span);
            // A plain `fn` pointer, not the closure's own type: every
            // function with the same error type then shares one copy of the
            // engine's failure path, instead of compiling one each.
            quote_spanned! {span=>
                .#method((#test) as fn(&_) -> ::core::primitive::bool)
            }
        }
        // The option shapes the rest of the expansion; or its kind of
        // value is not the one its step reads, which the table's test rules
        // out.
        _ => TokenStream::new(),
    }
}

/// How the report renders the error: its `Display` where it has one,
/// its `Debug` otherwise, told apart where the type is named (see
/// `__private::Describe`). Spanned at the return type, where a type with
/// neither is reported.
fn describer(names: &Names) -> TokenStream {
    let error = names.ok_err().1;
    let span = error
        .clone()
        .into_iter()
        .find(|tree| !matches!(tree, proc_macro2::TokenTree::Punct(_)))
        .map_or_else(Span::call_site, |tree| tree.span());
    let at = names.root_at(span);
    quote_spanned! {span=>
        {
            // One of the two is the one used.
            #[allow(unused_imports)]
            use #at::__private::{ByDebug as _, ByDisplay as _};
            (&&#at::__private::Describe::<#error>::NEW).describer()
        }
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
    let (method, checked_by) = match (spec.with_error, value) {
        (Some(with_error), Value::Expression(Expr::Closure(closure)))
            if closure.inputs.len() == 2 =>
        {
            let (method, check) = with_error.closure;
            (method, Some(check))
        }
        (Some(with_error), Value::Expression(expr)) if names.is_function(expr) => {
            let (method, check) = with_error.path;
            let value_span = expr.span();
            let at = names.root_at(value_span);
            let error = names.error_at(value_span);
            // The check and the call both at the value, so that a function
            // of neither shape is one error, there.
            let (method, check) = (
                Ident::new(method, value_span),
                Ident::new(check, value_span),
            );
            let value = quote_spanned!(value_span=> #at::__private::#check::<#error, _, _>(#expr));
            return quote_spanned!(value_span=> .#method(#value));
        }
        _ => (method, spec.checked_by),
    };
    let method = Ident::new(method, span);
    let value = match value {
        // Computed literals keep the macro's span: lints that read the
        // user's source text (e.g. on `0`) must not judge them.
        Value::Count(count) => Literal::u32_suffixed(count.value).into_token_stream(),
        Value::Duration(dur) => duration(dur),
        Value::Expression(expr) => match checked_by {
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
        Value::Choice(choice) => {
            let at = choice.lit.span();
            let root = names.root_at(at);
            let path = choice.of.iter().map(|part| Ident::new(part, at));
            let variant = Ident::new(choice.variant, at);
            quote_spanned!(at=> #root #(:: #path)* :: #variant)
        }
        Value::Paths(_) | Value::RetryOn(_) | Value::Crate(_) | Value::Hedge(_) => {
            TokenStream::new()
        }
    };
    quote_spanned!(span=> .#method(#value))
}

/// `|error: &_| matches!(error, A { .. } | B { .. })`: whether an error is
/// one of the variants listed.
pub(super) fn variants_closure(variants: &RetryOn, names: &Names, span: Span) -> TokenStream {
    let error = &names.error;
    let patterns = variants
        .variants
        .iter()
        .map(|variant| variant_pattern(variant, names));
    quote_spanned! {span=>
        |#error: &_| ::core::matches!(#error, #(#patterns)|*)
    }
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

pub(super) fn duration(dur: &Dur) -> TokenStream {
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
                    Jitter::Decorrelated => quote_spanned!(jitter_span=> Decorrelated),
                    Jitter::Additive => quote_spanned!(jitter_span=> Additive),
                    Jitter::AdditiveUncapped => quote_spanned!(jitter_span=> AdditiveUncapped),
                };
                quote_spanned!(span=> .jitter(#root::__private::Jitter::#variant))
            });
            quote_spanned!(span=> #backoff::exponential(#base, #max) #multiplier #jitter)
        }
        BackoffSpec::Expr(expr) => expr.to_token_stream(),
    }
}
