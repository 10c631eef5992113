//! The run, an expression of the `Outcome`: one call of the `__private`
//! macro of its [`Expansion`], with what the function gives it. How the engine
//! is driven, step by step, is written in that macro (`src/shapes.rs` of
//! the `resilient` crate), next to the engine.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use crate::attr::Attrs;

use super::build::{duration, variants_closure};
use super::expansion::{Built, Expansion};
use super::names::Names;

/// The fallbacks as a shape's macro takes them: `[filter], [fallback, …]`,
/// the test of `fallback_on` or `fallback_if` if either is given (the
/// fallbacks then answer the errors it selects only, and any other is
/// returned as it is), then the closures that run the fallbacks, in order.
pub(super) fn fallbacks(attrs: &Attrs, names: &Names, fallbacks: &[TokenStream]) -> TokenStream {
    let filter = fallback_filter(attrs, names);
    quote!([#filter], [#(#fallbacks),*])
}

/// The test of `fallback_on` or `fallback_if`, if either is given.
fn fallback_filter(attrs: &Attrs, names: &Names) -> Option<TokenStream> {
    if let Some(on) = attrs.fallback_on {
        return Some(variants_closure(on.value, names, on.span()));
    }
    attrs.fallback_if.map(|test| {
        let value = test.value;
        quote_spanned!(value.span()=> #value)
    })
}

/// The run, an expression of the `Outcome`: the call of `shape`'s macro
/// on the attempt closure, made once, and the fallbacks (see
/// [`fallbacks`]).
pub(super) fn run(
    attrs: &Attrs,
    shape: Expansion,
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let root = &names.root;
    let (entry, args) = entry(attrs, shape, names, attempt, fallbacks);
    quote!(#root::__private::#entry!(#args))
}

/// The `__private` macro of `shape`, and what it is given.
fn entry(
    attrs: &Attrs,
    shape: Expansion,
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> (Ident, TokenStream) {
    let Names { make, .. } = names;
    let timing = if grants_no_deadline(attrs) {
        quote!(untimed)
    } else {
        quote!(timed)
    };
    let (entry, args) = match shape {
        Expansion::BlockingOnDemand { .. } => {
            ("blocking_on_demand", quote!(#make, #attempt, #fallbacks))
        }
        Expansion::AsyncOnDemand { gated, .. } => {
            let gated = gate_word(gated);
            (
                "async_on_demand",
                quote!(#gated, #timing, #make, #attempt, #fallbacks),
            )
        }
        Expansion::Built(built) => (
            built_entry(built),
            built_args(built, names, &timing, (attempt, fallbacks), true),
        ),
        Expansion::Idempotent(built) => match idempotent(attrs, built, names) {
            Some(held) => {
                let inner = format_ident!("{}", built_entry(built));
                // Under the claim, the operation is the call's, lent.
                let args = built_args(built, names, &timing, (attempt, fallbacks), false);
                ("idempotent", quote!(#held, #inner!(#args)))
            }
            None => (
                built_entry(built),
                built_args(built, names, &timing, (attempt, fallbacks), true),
            ),
        },
    };
    (Ident::new(entry, Span::call_site()), args)
}

/// What the macro of the run of an operation built once takes: a
/// function runs as one built on demand does, on a `make` that lends the
/// operation (`owned`: the function's own, else one lent to it); a hedged
/// one runs on the hedged operation.
fn built_args(
    built: Built,
    names: &Names,
    timing: &TokenStream,
    (attempt, fallbacks): (&TokenStream, &TokenStream),
    owned: bool,
) -> TokenStream {
    let op = &names.op;
    let make = if owned {
        quote!((|| &#op))
    } else {
        quote!((|| #op))
    };
    match built {
        Built::Blocking => quote!(#make, #attempt, #fallbacks),
        Built::Async { gated } => {
            let gated = gate_word(gated);
            quote!(#gated, #timing, #make, #attempt, #fallbacks)
        }
        Built::AsyncHedged => quote!(#op, #attempt, #fallbacks),
    }
}

/// How an async run's macro is told whether a gate may admit the first
/// attempt.
fn gate_word(gated: bool) -> TokenStream {
    if gated {
        quote!(gated)
    } else {
        quote!(ungated)
    }
}

/// The macro of the run of an operation built once.
fn built_entry(built: Built) -> &'static str {
    match built {
        Built::Blocking => "blocking_on_demand",
        Built::Async { .. } => "async_on_demand",
        // `op` is the hedged operation (see `build.rs`).
        Built::AsyncHedged => "built_hedged",
    }
}

/// Whether the options grant the first attempt no deadline: neither a
/// timeout nor a budget, nor a policy that may bring one. Its future then
/// has no room for a timer (`first_untimed_async_of`); were a deadline
/// granted all the same, the first attempt would run on the general path.
fn grants_no_deadline(attrs: &Attrs) -> bool {
    attrs.timeout.is_none() && attrs.budget.is_none() && attrs.retry.is_none()
}

/// What `__private::idempotent` takes before the run it holds under the
/// key: blocking or async, the operation, the store, the key, its time to
/// live and the request's fingerprint if one is given; nothing without a
/// store and a key.
fn idempotent(attrs: &Attrs, built: Built, names: &Names) -> Option<TokenStream> {
    let (Some(store), Some(key)) = (attrs.idempotency, attrs.idempotency_key) else {
        return None;
    };
    let is_async = built != Built::Blocking;
    let Names { root, op, .. } = names;
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
    let ttl = attrs.idempotency_ttl.map_or_else(
        || quote!(#root::__private::DEFAULT_TTL),
        |ttl| duration(ttl.value),
    );
    let fingerprint = attrs.idempotency_fingerprint.map(|fingerprint| {
        let span = fingerprint.span();
        let value = fingerprint.value;
        let error = names.error_at(span);
        let at = names.root_at(span);
        quote_spanned! {span=>
            #at::__private::idempotency_fingerprint::<#error, _>(&(#value))
        }
    });
    let kind = if is_async {
        quote!(async)
    } else {
        quote!(blocking)
    };
    Some(quote!(#kind, #op, #store, #key, #ttl, [#fingerprint]))
}
