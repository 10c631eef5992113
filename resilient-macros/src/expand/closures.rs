//! The closures the run calls: the one that runs an attempt, the
//! original body inside it, and those that run the fallbacks.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use crate::attr::Attrs;
use crate::signature::{Arg, Function};

use super::names::Names;

/// The closure that runs one attempt: the original body, after binding the
/// `#[attempt]` parameter and a fresh copy of each `mut` parameter.
///
/// The closure always takes `Attempt`; the user's own pattern and type are
/// bound inside it, so that a wrong type is reported at that type rather
/// than as a closure signature mismatch at the attribute. It is spanned at
/// the body, so a body that moves an argument is reported at the body.
pub(super) fn attempt_closure(function: &Function, names: &Names) -> TokenStream {
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
pub(super) fn fallback_closures(
    attrs: &Attrs,
    function: &Function,
    names: &Names,
) -> Vec<TokenStream> {
    let Some(fallbacks) = attrs.fallback else {
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
