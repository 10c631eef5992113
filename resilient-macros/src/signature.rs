//! Reads the item under the attribute: checks that it is a function the
//! attribute can wrap, and extracts what the expansion needs from its
//! signature (the `Result` type, the `#[attempt]` parameter, the arguments to
//! forward to a fallback).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::punctuated::Punctuated;
use syn::{
    Attribute, Error, FnArg, GenericArgument, Item, ItemFn, Pat, PathArguments, ReturnType,
    TraitItemFn, Type,
};

use crate::errors::Errors;

/// The function under the attribute, ready to be wrapped.
pub(crate) struct Function {
    /// The function with the `#[attempt]` parameter removed.
    pub(crate) item: ItemFn,
    pub(crate) is_async: bool,
    /// `None` when the return type was rejected.
    pub(crate) ret: Option<Ret>,
    pub(crate) attempt: Option<AttemptParam>,
    /// The parameters, receiver first, without the `#[attempt]` one.
    pub(crate) args: Vec<Arg>,
}

/// The return type: `Result<T, E>` or an alias such as `io::Result<T>`.
pub(crate) struct Ret {
    pub(crate) ty: Type,
    /// `(T, E)` when written as `…Result<T, E>`.
    pub(crate) ok_err: Option<(Type, Type)>,
}

impl Ret {
    /// The path of `E` with generic arguments dropped, for patterns such as
    /// `MyError::Timeout { .. }`; `None` when `E` is not a plain path.
    pub(crate) fn error_path(&self) -> Option<syn::Path> {
        let (_, err) = self.ok_err.as_ref()?;
        let Type::Path(path) = peel(err) else {
            return None;
        };
        if path.qself.is_some() {
            return None;
        }
        let mut path = path.path.clone();
        for segment in &mut path.segments {
            segment.arguments = PathArguments::None;
        }
        Some(path)
    }
}

/// The parameter marked `#[attempt]`, as the user wrote it.
pub(crate) struct AttemptParam {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) pat: Pat,
    pub(crate) ty: Type,
}

/// How a parameter is passed on to the fallback.
pub(crate) enum Arg {
    /// The receiver: `self` in whatever form it was declared.
    Receiver(syn::token::SelfValue),
    Named(syn::Ident),
    /// A destructuring pattern, which has no name to forward.
    Pattern(Box<Pat>),
}

/// What to emit when the expansion fails: the item as written, minus the
/// `#[attempt]` markers that only this attribute understands, so that the
/// only errors are the attribute's own.
pub(crate) fn original(item: TokenStream) -> TokenStream {
    match syn::parse2::<ItemFn>(item.clone()) {
        Ok(mut function) => {
            for input in &mut function.sig.inputs {
                if let FnArg::Typed(typed) = input {
                    typed.attrs.retain(|attr| !is_attempt(attr));
                }
            }
            function.into_token_stream()
        }
        Err(_) => item,
    }
}

/// Parses the item; an item that isn't a function with a body is an error.
pub(crate) fn parse(item: TokenStream) -> syn::Result<ItemFn> {
    if let Ok(function) = syn::parse2::<ItemFn>(item.clone()) {
        return Ok(function);
    }
    if let Ok(declaration) = syn::parse2::<TraitItemFn>(item.clone())
        && declaration.default.is_none()
    {
        return Err(Error::new_spanned(
            &declaration.sig,
            "`#[resilient]` needs the function's body: put it on the function in the `impl`, not on a declaration",
        ));
    }
    let message = |what: &str| {
        format!(
            "`#[resilient]` goes on a `fn` or an `async fn` that returns `Result<T, E>`, not on {what}"
        )
    };
    let error = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Struct(s)) => {
            Error::new_spanned(head(&s.struct_token, &s.ident), message("a struct"))
        }
        Ok(Item::Enum(e)) => Error::new_spanned(head(&e.enum_token, &e.ident), message("an enum")),
        Ok(Item::Union(u)) => {
            Error::new_spanned(head(&u.union_token, &u.ident), message("a union"))
        }
        Ok(Item::Trait(t)) => {
            Error::new_spanned(head(&t.trait_token, &t.ident), message("a trait"))
        }
        Ok(Item::Impl(i)) => Error::new_spanned(
            head(&i.impl_token, &i.self_ty),
            message("an `impl` block; put it on each method instead"),
        ),
        Ok(Item::Mod(m)) => Error::new_spanned(head(&m.mod_token, &m.ident), message("a module")),
        Ok(Item::Const(c)) => {
            Error::new_spanned(head(&c.const_token, &c.ident), message("a const"))
        }
        Ok(Item::Static(s)) => {
            Error::new_spanned(head(&s.static_token, &s.ident), message("a static"))
        }
        Ok(Item::Type(t)) => {
            Error::new_spanned(head(&t.type_token, &t.ident), message("a type alias"))
        }
        Ok(other) => Error::new_spanned(other, message("this item")),
        Err(_) => Error::new_spanned(item, message("this item")),
    };
    Err(error)
}

/// Checks the function's signature and reads what the expansion needs.
pub(crate) fn analyze(mut item: ItemFn, errors: &mut Errors) -> Function {
    let sig = &item.sig;
    if let Some(constness) = &sig.constness {
        errors.push(Error::new_spanned(
            constness,
            "`#[resilient]` can't wrap a `const fn`: retries, clocks and waits only exist at run time; remove `const`",
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(Error::new_spanned(
            abi,
            "`#[resilient]` can't wrap an `extern` fn: it returns `resilient::Outcome`, which no foreign ABI can carry; put the attribute on a Rust fn and call that one",
        ));
    }
    let is_async = sig.asyncness.is_some();
    let ret = errors.ok(return_type(&sig.output, sig));

    let mut attempt = None;
    let mut args = Vec::new();
    let mut kept = Punctuated::new();
    for pair in std::mem::take(&mut item.sig.inputs).into_pairs() {
        let (input, comma) = pair.into_tuple();
        match input {
            FnArg::Receiver(mut receiver) => {
                if let Some(attr) = receiver.attrs.iter().find(|attr| is_attempt(attr)) {
                    errors.push(Error::new_spanned(
                        attr,
                        "`#[attempt]` marks a parameter of type `resilient::Attempt`, not the receiver: add one, as in `#[attempt] attempt: Attempt`",
                    ));
                    receiver.attrs.retain(|attr| !is_attempt(attr));
                }
                args.push(Arg::Receiver(receiver.self_token));
                kept.push_value(FnArg::Receiver(receiver));
            }
            FnArg::Typed(mut typed) => {
                let markers: Vec<&Attribute> =
                    typed.attrs.iter().filter(|attr| is_attempt(attr)).collect();
                if markers.is_empty() {
                    args.push(match peel_pat(&typed.pat) {
                        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                            Arg::Named(ident.ident.clone())
                        }
                        _ => Arg::Pattern(typed.pat.clone()),
                    });
                    kept.push_value(FnArg::Typed(typed));
                } else {
                    for marker in &markers {
                        if !matches!(marker.meta, syn::Meta::Path(_)) {
                            errors.push(Error::new_spanned(
                                marker,
                                "`#[attempt]` takes no arguments: write `#[attempt] attempt: Attempt`",
                            ));
                        }
                    }
                    if let (Some(_), Some(marker)) = (&attempt, markers.first()) {
                        errors.push(Error::new_spanned(
                            marker,
                            "only one parameter can be `#[attempt]`: remove this one and read the attempt from the first",
                        ));
                        continue;
                    }
                    typed.attrs.retain(|attr| !is_attempt(attr));
                    attempt = Some(AttemptParam {
                        attrs: typed.attrs,
                        pat: *typed.pat,
                        ty: *typed.ty,
                    });
                    continue;
                }
            }
        }
        if let Some(comma) = comma {
            kept.push_punct(comma);
        }
    }
    item.sig.inputs = kept;

    Function {
        item,
        is_async,
        ret,
        attempt,
        args,
    }
}

/// The first tokens of an item, enough to point at it without underlining
/// its whole body.
fn head(keyword: &dyn ToTokens, name: &dyn ToTokens) -> TokenStream {
    quote!(#keyword #name)
}

fn is_attempt(attr: &Attribute) -> bool {
    attr.path().is_ident("attempt")
}

fn return_type(output: &ReturnType, sig: &syn::Signature) -> syn::Result<Ret> {
    let ReturnType::Type(_, ty) = output else {
        return Err(Error::new(
            sig.paren_token.span.close(),
            "the return type must be a `Result<T, E>`: add one, as in `-> Result<String, MyError>`; the attribute makes the function return `resilient::Outcome<T, E>`",
        ));
    };
    let not_result = || {
        Error::new_spanned(
            ty,
            "the return type must be a `Result<T, E>` (or an alias such as `io::Result<T>`): the attribute retries on `Err` and returns `resilient::Outcome<T, E>`",
        )
    };
    let Type::Path(path) = peel(ty) else {
        return Err(not_result());
    };
    let Some(last) = path.path.segments.last() else {
        return Err(not_result());
    };
    if last.ident != "Result" {
        return Err(not_result());
    }
    let ok_err = match &last.arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 2 => {
            match (&args.args[0], &args.args[1]) {
                (GenericArgument::Type(ok), GenericArgument::Type(err)) => {
                    Some((ok.clone(), err.clone()))
                }
                _ => None,
            }
        }
        _ => None,
    };
    Ok(Ret {
        ty: (**ty).clone(),
        ok_err,
    })
}

fn peel(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Group(group) => ty = &group.elem,
            Type::Paren(paren) => ty = &paren.elem,
            _ => return ty,
        }
    }
}

fn peel_pat(mut pat: &Pat) -> &Pat {
    loop {
        match pat {
            Pat::Paren(paren) => pat = &paren.pat,
            _ => return pat,
        }
    }
}
