//! The run, an expression of the `Outcome`: one function per [`Shape`],
//! the only part of the expansion that knows how the engine is driven.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use crate::attr::Attrs;

use super::build::{duration, variants_closure};
use super::names::Names;
use super::shape::{Built, Shape};

/// The fallbacks, each called while one is due, behind the test of
/// `fallback_on` or `fallback_if` if either is given, so that they answer
/// the errors it selects only and any other is returned as it is. Nothing
/// without fallbacks.
pub(super) fn fallbacks_due(
    attrs: &Attrs,
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
    match fallback_filter(attrs, names) {
        Some(filter) => quote! {
            if #exec.error().is_some_and(#filter) {
                #fallbacks
            }
        },
        None => fallbacks,
    }
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
pub(super) fn run(
    attrs: &Attrs,
    shape: Shape,
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    match shape {
        Shape::BlockingRecipe => blocking_recipe(names, attempt),
        Shape::BlockingUnbuiltFirst => blocking_unbuilt_first(names, attempt, fallbacks),
        Shape::BlockingOnDemand => blocking_on_demand(names, attempt, fallbacks),
        Shape::AsyncRecipe => async_recipe(grants_no_deadline(attrs), names, attempt, fallbacks),
        Shape::AsyncOnDemand { gated } => {
            async_on_demand(gated, grants_no_deadline(attrs), names, attempt, fallbacks)
        }
        Shape::Built(built) => run_built(built, names, attempt, fallbacks),
        Shape::Idempotent(built) => {
            let run = run_built(built, names, attempt, fallbacks);
            idempotent(attrs, built, names, run)
        }
    }
}

/// Whether the options grant the first attempt no deadline: neither a
/// timeout nor a budget, nor a policy that may bring one. Its future then
/// has no room for a timer (`first_untimed_async_of`); were a deadline
/// granted all the same, the first attempt would run on the general path.
fn grants_no_deadline(attrs: &Attrs) -> bool {
    attrs.timeout.is_none() && attrs.budget.is_none() && attrs.retry.is_none()
}

/// [`Shape::BlockingRecipe`]: one call, `run_blocking_recipe`: the first
/// attempt unbuilt; a failure finished by one call, compiled once for
/// every function of the operation's types, on the values `make` writes.
fn blocking_recipe(names: &Names, attempt: &TokenStream) -> TokenStream {
    let run = unbuilt_run(names, "run_blocking_recipe");
    blocking_run(names, attempt, &run)
}

/// [`Shape::BlockingUnbuiltFirst`]: the first attempt unbuilt, the rest
/// on the operation `make` builds; one call, `run_blocking_unbuilt`,
/// without fallbacks.
fn blocking_unbuilt_first(
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    if fallbacks.is_empty() {
        let run = unbuilt_run(names, "run_blocking_unbuilt");
        return blocking_run(names, attempt, &run);
    }
    let Names {
        root, tally, body, ..
    } = names;
    let name = Literal::string(&names.function_name);
    let first_attempt = quote!(#root::__private::first_attempt_unbuilt(#name, &#tally, &mut #body));
    blocking_with_fallbacks(names, attempt, &first_attempt, fallbacks)
}

/// The call of `entry`, a whole blocking run whose first attempt runs
/// unbuilt: named by the function, counted in its `static`, on the
/// operation `make` builds after a failure.
fn unbuilt_run(names: &Names, entry: &str) -> TokenStream {
    let Names {
        root,
        make,
        tally,
        body,
        ..
    } = names;
    let name = Literal::string(&names.function_name);
    let entry = Ident::new(entry, Span::call_site());
    quote!(#root::__private::#entry(#name, &#tally, &#make, &mut #body))
}

/// [`Shape::BlockingOnDemand`]: every attempt on the operation `make`
/// builds; one call, `run_blocking_on_demand`, without fallbacks.
fn blocking_on_demand(
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let Names {
        root, make, body, ..
    } = names;
    if fallbacks.is_empty() {
        let run = quote!(#root::__private::run_blocking_on_demand(&#make, &mut #body));
        return blocking_run(names, attempt, &run);
    }
    let first_attempt = quote!(#root::__private::first_attempt(&#make(), &mut #body));
    blocking_with_fallbacks(names, attempt, &first_attempt, fallbacks)
}

/// A blocking run that is one call of the engine, `run`, on the attempt
/// closure.
fn blocking_run(names: &Names, attempt: &TokenStream, run: &TokenStream) -> TokenStream {
    let Names { root, body, .. } = names;
    quote! {
        {
            let mut #body = #root::__private::attempt_blocking(#attempt);
            #run
        }
    }
}

/// A blocking run on an operation built on demand, with fallbacks: its
/// `first_attempt`, then its outcome if it succeeded, or else the
/// attempts after it and each fallback while one is due. The fallbacks
/// are written here, after the attempts: the last one takes the
/// arguments themselves, which the attempt closure borrows.
fn blocking_with_fallbacks(
    names: &Names,
    attempt: &TokenStream,
    first_attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
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
    let succeeded = outcome_from(false, names);
    let run = quote! {
        match #first_attempt {
            ::core::result::Result::Ok(#done) => #succeeded,
            ::core::result::Result::Err(#first) => {
                let #op = #make();
                match #root::__private::run_after(&#op, #first, &mut #body) {
                    ::core::result::Result::Ok(#done) => #done,
                    ::core::result::Result::Err(mut #exec) => {
                        #fallbacks
                        #exec.finish()
                    }
                }
            }
        }
    };
    blocking_run(names, attempt, &run)
}

/// [`Shape::AsyncRecipe`]: the first attempt reads its terms from the
/// `Recipe`, which builds the operation once it failed.
fn async_recipe(
    untimed: bool,
    names: &Names,
    attempt: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let Names {
        root,
        make,
        op,
        first,
        ..
    } = names;
    let built = quote!(#make().build());
    let resume = quote!(#root::__private::resume(&#op, #first));
    let first = First {
        built: &built,
        of_recipe: true,
        untimed,
        gated: false,
    };
    async_first(names, attempt, first, &resume, fallbacks)
}

/// [`Shape::AsyncOnDemand`]: the first attempt on the operation `make`
/// builds. A first attempt that a gate must admit runs outside the heap,
/// so that one that succeeds allocates nothing; without gates, the first
/// attempt has always run by now, and the retry loop's own copy of the
/// attempt serves every retry.
fn async_on_demand(
    gated: bool,
    untimed: bool,
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
        quote!(#root::__private::resume_async(&#op, #first, |#given: #root::Attempt| #body(#given)).await)
    } else {
        quote!(#root::__private::resume(&#op, #first))
    };
    let built = quote!(#make());
    let first = First {
        built: &built,
        of_recipe: false,
        untimed,
        gated,
    };
    async_first(names, attempt, first, &resume, fallbacks)
}

/// How an async run on an operation built on demand begins: its first
/// attempt (on a `Recipe` or not, `untimed` or not), the
/// operation `built` once it failed, and whether a gate must admit it.
struct First<'a> {
    built: &'a TokenStream,
    of_recipe: bool,
    untimed: bool,
    gated: bool,
}

/// An async run on an operation built on demand: the first attempt (see
/// [`First`]), then its outcome if it succeeded, or the operation built
/// to `resume` the run after it. Without gates, that whole rest, the
/// operation included, is on the heap ([`on_heap`]); with gates, the
/// first attempt they admit runs here, and only the retries go there.
fn async_first(
    names: &Names,
    attempt: &TokenStream,
    first_of: First,
    resume: &TokenStream,
    fallbacks: &TokenStream,
) -> TokenStream {
    let First {
        built,
        of_recipe,
        untimed,
        gated,
    } = first_of;
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
    let succeeded = outcome_from(of_recipe, names);
    let entry = if untimed {
        format_ident!("first_untimed_async_of")
    } else {
        format_ident!("first_attempt_async_of")
    };
    let rest = async_rest(names, fallbacks);
    let rest = if gated {
        let rest = on_heap(&rest, fallbacks, names);
        quote! {{
            let #op = #built;
            let mut #exec = #resume;
            #rest
        }}
    } else {
        let rest = quote! {
            let #op = #built;
            let mut #exec = #resume;
            #rest
        };
        if fallbacks.is_empty() {
            quote!(#root::__private::on_heap(async { #rest }).await)
        } else {
            quote!({ #rest })
        }
    };
    quote! {
        {
            let mut #body = #root::__private::attempt_async(#attempt);
            match #root::__private::#entry(&#make, |#given: #root::Attempt| #body(#given)).await {
                ::core::result::Result::Ok(#done) => #succeeded,
                ::core::result::Result::Err(#first) => #rest,
            }
        }
    }
}

/// The rest of an async run whose first attempt has run, `rest` (the
/// retries, the fallbacks, the outcome of `exec`): on the heap, so that
/// the function's own future holds the first attempt and not the retry
/// machinery, which every `spawn`, `Box::pin` and `block_on` of a call
/// moves whole (tests/suite/future_size.rs). An execution with nothing
/// left to run (a first attempt through a gate that succeeded) ends
/// without the allocation. A function with fallbacks keeps it all in its
/// own future: its last fallback takes the arguments themselves, which
/// the attempt's closure borrows, and a future made before the retries
/// can't hold both.
fn on_heap(rest: &TokenStream, fallbacks: &TokenStream, names: &Names) -> TokenStream {
    let Names { root, exec, .. } = names;
    if fallbacks.is_empty() {
        quote! {
            if #exec.stopped() {
                #exec.finish()
            } else {
                #root::__private::on_heap(async { #rest }).await
            }
        }
    } else {
        quote!({ #rest })
    }
}

/// After a first async attempt that failed: the retries, then the
/// fallbacks and the outcome.
fn async_rest(names: &Names, fallbacks: &TokenStream) -> TokenStream {
    let Names {
        root,
        exec,
        body,
        next,
        work,
        ..
    } = names;
    quote! {
        while let ::core::option::Option::Some(mut #next) = #root::__private::next_running(&mut #exec).await {
            let #work = ::core::pin::pin!(#body(#next.attempt()));
            #root::__private::drive(&mut #exec, &mut #next, #work).await;
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
        // `op` is the hedged operation (see `build.rs`).
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
            let rest = on_heap(&async_rest(names, fallbacks), fallbacks, names);
            quote! {
                {
                    let mut #body = #root::__private::attempt_async(#attempt);
                    match #root::__private::first_attempt_async(&#op, |#given: #root::Attempt| #body(#given)).await {
                        ::core::result::Result::Ok(#done) => #root::__private::outcome_of(&#op, #done),
                        ::core::result::Result::Err(mut #exec) => #rest,
                    }
                }
            }
        }
    }
}

/// The outcome of a first attempt that succeeded (`done`), on an
/// operation built on demand: a `Recipe`'s tells only its name and its
/// counts, which the function knows, so nothing of it is built again.
fn outcome_from(recipe: bool, names: &Names) -> TokenStream {
    let Names {
        root,
        make,
        tally,
        done,
        ..
    } = names;
    if recipe {
        let name = Literal::string(&names.function_name);
        quote!(#root::__private::Recipe::outcome_from(#done, #name, &#tally, &#make))
    } else {
        quote!(#root::__private::outcome_from(#done, &#make))
    }
}

/// The run under an idempotency key, when the options give one: the
/// whole run (retries, breaker, fallbacks) becomes the body that the store
/// runs at most once per key.
fn idempotent(attrs: &Attrs, built: Built, names: &Names, run: TokenStream) -> TokenStream {
    let (Some(store), Some(key)) = (attrs.idempotency, attrs.idempotency_key) else {
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
    let call = quote! {
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
    };
    // An async call under a key holds the store's futures and the whole
    // run: on the heap, where its key is already (tests/suite/future_size.rs).
    if is_async {
        quote!(#root::__private::on_heap(async #call).await)
    } else {
        call
    }
}
