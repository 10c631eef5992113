//! Generates the wrapped function: the user's signature with `Outcome` as
//! its return type, and a body that builds an `Operation` from the options
//! and runs the original body once per attempt.
//!
//! The body is written in three parts, each from its own function: the
//! checks that report a misfit at the user's tokens ([`checks`]), the
//! operation built from the options ([`build::build`]), and the run that
//! drives it ([`run::run`]), one call of the `__private` macro of its
//! shape, which alone knows how the engine is driven.
//! Where the parts are written:
//!
//! * `expansion.rs`: the [`Expansion`] of the generated code, decided once from the
//!   options' rows, which the build and the run follow;
//! * `names.rs`: what the generated code names (the runtime's path, the
//!   function's types, the generated locals) and which values are
//!   constants;
//! * `build.rs`: the operation, a chain of builder calls;
//! * `closures.rs`: the closures the run calls, the attempt and the
//!   fallbacks;
//! * `run.rs`: the run, the call of its shape's macro.
//!
//! The original body is kept intact inside a closure, so `self`, `Self`,
//! generics and `impl Trait` arguments stay in scope and `return` / `?` end
//! the attempt. Generated locals use `Span::mixed_site()` and every runtime
//! item is named by an absolute path, so nothing the user declares can
//! shadow them.

mod build;
mod closures;
mod expansion;
mod names;
mod run;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, ReturnType, Type};

use crate::attr::{self, Attrs, Given, Options};
use crate::errors::Errors;
use crate::options::ErrorNeed;
use crate::signature::{self, Function, Ret};

#[cfg(test)]
pub(crate) use expansion::Built;
pub(crate) use expansion::Expansion;
use names::Names;

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
pub(crate) fn shape(attr: TokenStream, item: TokenStream) -> Option<Expansion> {
    let (options, function, ret) = read(attr, item).ok()?;
    let names = Names::new(&Attrs::of(&options), &function, &ret);
    Some(Expansion::of(&options, function.is_async, &names))
}

fn with_errors(item: TokenStream, errors: &Errors) -> TokenStream {
    let mut tokens = signature::original(item);
    tokens.extend(errors.to_compile_errors());
    tokens
}

fn generate(options: &Options, function: &Function, ret: &Ret) -> TokenStream {
    let attrs = Attrs::of(options);
    let names = Names::new(&attrs, function, ret);
    let ItemFn {
        attrs: item_attrs,
        vis,
        sig,
        block,
        ..
    } = &function.item;
    let (inner_attrs, outer_attrs): (Vec<_>, Vec<_>) = item_attrs
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
    let keeps_signature = attrs.report.is_some();
    if let ReturnType::Type(arrow, _) = &sig.output
        && !keeps_signature
    {
        sig.output = ReturnType::Type(*arrow, Box::new(Type::Verbatim(outcome)));
    }

    let shape = Expansion::of(options, function.is_async, &names);
    let checks = checks(options, function, &names);
    let build = build::build(&attrs, function, shape, &names);
    let attempt = closures::attempt_closure(function, &names);
    let fallbacks = closures::fallback_closures(&attrs, function, &names);
    let fallbacks = run::fallbacks(&attrs, &names, &fallbacks);
    let run = run::run(&attrs, shape, &names, &attempt, &fallbacks);
    let run = match attrs.coalesce {
        Some(key) => coalesced(key.value, &names, quote!(#checks #build #run)),
        None => quote!(#checks #build #run),
    };
    // The run is the body's value, moved nowhere on the way out.
    let finish = if keeps_signature {
        quote!({ #run }.into_result())
    } else {
        run
    };

    let body = quote! {
        #(#inner_attrs)*
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

/// The `run` of a coalesced function (`coalesce = key`): the key read
/// from the arguments, then the run moved into the one execution that
/// the calls of that key share, through a `static` group of the
/// function's own.
fn coalesced(key: &syn::Expr, names: &Names, run: TokenStream) -> TokenStream {
    let span = key.span();
    let at = names.root_at(span);
    let (ok, error) = (names.ok_at(span), names.error_at(span));
    let name = proc_macro2::Literal::string(&names.function_name);
    let group = Ident::new("__RESILIENT_COALESCED", proc_macro2::Span::mixed_site());
    let shared = Ident::new("key", proc_macro2::Span::mixed_site());
    quote_spanned! {span=>
        static #group: #at::coalesce::Coalesce<#ok, #error> =
            #at::coalesce::Coalesce::new().named(#name);
        let #shared = ::core::convert::Into::<::std::string::String>::into(#key);
        #group.run(#shared, move || async move { #run }).await
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
    let mut checks = TokenStream::new();
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
pub(super) fn error_need<'a>(
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
