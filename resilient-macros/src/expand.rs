//! Generates the wrapped function: the user's signature with `Outcome` as
//! its return type, and a body that builds an `Operation` from the options
//! and runs the original body once per attempt.
//!
//! The original body is kept intact inside a closure, so `self`, `Self`,
//! generics and `impl Trait` arguments stay in scope and `return` / `?` end
//! the attempt. Generated locals use `Span::mixed_site()` and every runtime
//! item is named by an absolute path, so nothing the user declares can
//! shadow them.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, ReturnType, Type};

use crate::attr::{self, BackoffSpec, Dur, Jitter, Multiplier, Options};
use crate::errors::Errors;
use crate::signature::{self, Arg, Function};

/// Expands `#[resilient(attr)] item`. Never panics: on any error the item is
/// emitted as written, next to one `compile_error!` per problem.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let options = attr::parse(attr, &mut errors);
    let function = match signature::parse(item.clone()) {
        Ok(function) => function,
        Err(error) => {
            errors.push(error);
            return with_errors(item, &errors);
        }
    };
    let function = signature::analyze(function, &mut errors);
    crate::valid::check(&options, &function, &mut errors);
    if !errors.is_empty() {
        return with_errors(item, &errors);
    }
    match &function.ret {
        Some(ret) => generate(&options, &function, &ret.ty, ret.ok_err.as_ref()),
        None => with_errors(item, &errors),
    }
}

fn with_errors(item: TokenStream, errors: &Errors) -> TokenStream {
    let mut tokens = signature::original(item);
    tokens.extend(errors.to_compile_errors());
    tokens
}

fn generate(
    options: &Options,
    function: &Function,
    ret: &Type,
    ok_err: Option<&(Type, Type)>,
) -> TokenStream {
    let root = match &options.krate {
        Some(krate) => krate.value.to_token_stream(),
        None => quote!(::resilient),
    };
    let op = Ident::new("__resilient_op", Span::mixed_site());
    let exec = Ident::new("__resilient_exec", Span::mixed_site());
    let policy = Ident::new("__resilient_policy", Span::mixed_site());

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
    let outcome = match ok_err {
        Some((ok, err)) => quote!(#root::Outcome<#ok, #err>),
        None => quote!(#root::__private::OutcomeOf<#ret>),
    };
    if let ReturnType::Type(arrow, _) = &sig.output {
        sig.output = ReturnType::Type(*arrow, Box::new(Type::Verbatim(outcome)));
    }

    let bind_policy = options.retry.as_ref().map(|retry| {
        let value = &retry.value;
        quote_spanned!(retry.span()=> let #policy = &(#value);)
    });
    let calls = builder_calls(options, function, &root, &policy);

    // The closure always takes `Attempt`; the user's own pattern and type are
    // bound inside it, so that a wrong type is reported at that type rather
    // than as a closure signature mismatch at the attribute.
    let (attempt_param, attempt_body) = match &function.attempt {
        Some(param) => {
            let attrs = &param.attrs;
            let pat = &param.pat;
            let ty = &param.ty;
            let given = Ident::new(
                "__resilient_attempt",
                Span::mixed_site().located_at(pat.span()),
            );
            (
                given.to_token_stream(),
                quote!({ #(#attrs)* let #pat: #ty = #given; #block }),
            )
        }
        None => (quote!(_), block.to_token_stream()),
    };

    let is_async = function.is_async;
    // The closure is spanned at the body, so a body that moves an argument
    // is reported at the body, not at the attribute.
    let body_span = block.span();
    let attempt_loop = if is_async {
        let closure = quote_spanned! {body_span=>
            async |#attempt_param: #root::Attempt| -> #ret #attempt_body
        };
        quote! {
            while #exec.next_async().await {
                #exec.attempt_async(#closure).await;
            }
        }
    } else {
        let closure = quote_spanned! {body_span=>
            |#attempt_param: #root::Attempt| -> #ret #attempt_body
        };
        quote! {
            while #exec.next_blocking() {
                #exec.attempt_blocking(#closure);
            }
        }
    };

    let fallback = options.fallback.as_ref().map(|fallback| {
        let path = &fallback.value;
        let args = function.args.iter().filter_map(|arg| match arg {
            Arg::Receiver(token) => Some(token.to_token_stream()),
            Arg::Named(ident) => Some(ident.to_token_stream()),
            Arg::Pattern(_) => None,
        });
        let call = quote!(#path(#(#args),*));
        if is_async {
            let run = quote_spanned!(fallback.span()=> fallback_async);
            quote! {
                if #exec.needs_fallback() {
                    #exec.#run(async |_: #root::Attempt| -> #ret { #call.await }).await;
                }
            }
        } else {
            let run = quote_spanned!(fallback.span()=> fallback_blocking);
            quote! {
                if #exec.needs_fallback() {
                    #exec.#run(|_: #root::Attempt| -> #ret { #call });
                }
            }
        }
    });

    let body = quote! {
        #(#inner_attrs)*
        #bind_policy
        let #op = #root::__private::operation::<#ret>() #(#calls)*;
        let mut #exec = #op.start();
        #attempt_loop
        #fallback
        #exec.finish()
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

/// One builder call per option, each spanned at its key so that a type
/// error about the call (a missing `From<TimedOut>`, say) points there.
fn builder_calls(
    options: &Options,
    function: &Function,
    root: &TokenStream,
    policy: &Ident,
) -> Vec<TokenStream> {
    let mut calls = Vec::new();
    match &options.clock {
        Some(clock) => {
            let value = &clock.value;
            calls.push(quote_spanned!(clock.span()=> .clock(#value)));
        }
        None if function.is_async => {
            calls.push(quote!(.clock(#root::__private::TokioClock)));
        }
        None => {}
    }
    if let Some(retry) = &options.retry {
        calls.push(quote_spanned!(retry.span()=> .policy(#policy)));
    }
    if let Some(retries) = &options.retries {
        // Computed literals keep the macro's span: lints that read the
        // user's source text (e.g. on `0`) must not judge them.
        let attempts = Literal::u32_suffixed(retries.value.value.saturating_add(1));
        calls.push(quote_spanned!(retries.span()=> .max_attempts(#attempts)));
    }
    if let Some(retry_on) = &options.retry_on {
        let error = Ident::new("__resilient_error", Span::mixed_site());
        let error_path = function.ret.as_ref().and_then(|ret| ret.error_path());
        let patterns = retry_on.value.variants.iter().map(|variant| {
            match (variant.get_ident(), &error_path) {
                (Some(name), Some(path)) => quote!(#path::#name { .. }),
                _ => quote!(#variant { .. }),
            }
        });
        calls.push(quote_spanned! {retry_on.span()=>
            .retry_if(|#error: &_| ::core::matches!(#error, #(#patterns)|*))
        });
    }
    if let Some(retry_if) = &options.retry_if {
        let value = &retry_if.value;
        calls.push(quote_spanned!(retry_if.span()=> .retry_if(#value)));
    }
    if let Some(backoff) = &options.backoff {
        let value = backoff_value(&backoff.value, root, backoff.span());
        calls.push(quote_spanned!(backoff.span()=> .backoff(#value)));
    }
    if let Some(timeout) = &options.timeout {
        let value = duration(&timeout.value);
        calls.push(quote_spanned!(timeout.span()=> .timeout(#value)));
    }
    if let Some(budget) = &options.budget {
        let value = duration(&budget.value);
        calls.push(quote_spanned!(budget.span()=> .budget(#value)));
        if function.is_async {
            calls.push(quote_spanned!(budget.span()=> .interrupt_at_deadline()));
        }
    }
    if let Some(max_elapsed) = &options.max_elapsed {
        let value = duration(&max_elapsed.value);
        calls.push(quote_spanned!(max_elapsed.span()=> .max_elapsed(#value)));
    }
    if let Some(min_retries) = &options.min_retries {
        let count = Literal::u32_suffixed(min_retries.value.value);
        calls.push(quote_spanned!(min_retries.span()=> .min_retries(#count)));
    }
    if let Some(rate_limit) = &options.rate_limit {
        let value = &rate_limit.value;
        calls.push(quote_spanned!(rate_limit.span()=> .rate_limit(#value)));
    }
    if let Some(wait) = &options.max_rate_limit_wait {
        let value = duration(&wait.value);
        calls.push(quote_spanned!(wait.span()=> .max_rate_limit_wait(#value)));
    }
    if let Some(breaker) = &options.circuit_breaker {
        let value = &breaker.value;
        calls.push(quote_spanned!(breaker.span()=> .circuit_breaker(#value)));
    }
    if let Some(validate) = &options.validate {
        let value = &validate.value;
        calls.push(quote_spanned!(validate.span()=> .validate(#value)));
    }
    if let Some(on_retry) = &options.on_retry {
        let value = &on_retry.value;
        calls.push(quote_spanned!(on_retry.span()=> .on_retry(#value)));
    }
    calls
}

fn duration(dur: &Dur) -> TokenStream {
    match dur {
        Dur::Literal { nanos, lit } => nanos.to_tokens(lit.span()),
        Dur::Expr(expr) => expr.to_token_stream(),
    }
}

fn backoff_value(spec: &BackoffSpec, root: &TokenStream, span: Span) -> TokenStream {
    match spec {
        BackoffSpec::None => quote_spanned!(span=> #root::__private::Backoff::none()),
        BackoffSpec::Constant(delay) => {
            let delay = duration(delay);
            quote_spanned!(span=> #root::__private::Backoff::constant(#delay))
        }
        BackoffSpec::Exponential(spec) => {
            let base = spec
                .base
                .as_ref()
                .map_or_else(|| attr::DEFAULT_BASE.to_tokens(span), duration);
            let max = spec
                .max
                .as_ref()
                .map_or_else(|| attr::DEFAULT_MAX.to_tokens(span), duration);
            let multiplier = match &spec.multiplier {
                Some(Multiplier::Literal(value)) => {
                    Literal::f64_suffixed(*value).into_token_stream()
                }
                Some(Multiplier::Expr(expr)) => expr.to_token_stream(),
                None => quote_spanned!(span=> 2.0f64),
            };
            let (jitter, jitter_span) = match &spec.jitter {
                Some(jitter) => (jitter.value, jitter.span()),
                None => (Jitter::Full, span),
            };
            let jitter = match jitter {
                Jitter::Full => quote_spanned!(jitter_span=> Full),
                Jitter::Equal => quote_spanned!(jitter_span=> Equal),
                Jitter::None => quote_spanned!(jitter_span=> None),
            };
            quote_spanned! {span=>
                #root::__private::Backoff::exponential(#base, #max)
                    .multiplier(#multiplier)
                    .jitter(#root::__private::Jitter::#jitter)
            }
        }
        BackoffSpec::Expr(expr) => expr.to_token_stream(),
    }
}
