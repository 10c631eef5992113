//! Reads the item under the attribute: checks that it is a function the
//! attribute can wrap, and extracts what the expansion needs from its
//! signature (the `Result` type, the `#[attempt]` parameter, the `mut`
//! parameters to re-initialise per attempt, the arguments to forward to a
//! fallback).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::punctuated::Punctuated;
use syn::{
    Attribute, Error, FnArg, GenericArgument, Ident, Item, ItemFn, Pat, PathArguments, ReturnType,
    Token, TraitItemFn, Type,
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
    /// The bindings declared `mut` in the parameters, now bound without
    /// `mut` in the signature: each attempt rebinds a clone of its own.
    pub(crate) mut_bindings: Vec<MutBinding>,
    /// The `mut` of a `mut self` receiver, which the signature keeps: each
    /// attempt assigns `self` a clone of the caller's.
    pub(crate) mut_self: Option<Token![mut]>,
}

/// A parameter binding written `mut x`.
pub(crate) struct MutBinding {
    pub(crate) mutability: Token![mut],
    pub(crate) ident: Ident,
}

/// The return type: `Result<T, E>` or any type that is one once resolved
/// (`io::Result<T>`, `AppResult<T>`, an associated type).
pub(crate) struct Ret {
    pub(crate) ty: Type,
    /// `(T, E)` when written as `…Result<T, E>`.
    pub(crate) ok_err: Option<(Type, Type)>,
}

/// An error type known from its name not to be an enum.
pub(crate) struct NonEnum {
    /// As a user would write it.
    pub(crate) error: String,
    /// How its errors are told apart, for the message.
    pub(crate) told_by: ToldBy,
}

/// How the errors of a type that is not an enum are told apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ToldBy {
    /// `std::io::Error`: by `kind()`, an `io::ErrorKind`.
    IoKind,
    /// `tonic::Status`: by `code()`, a `tonic::Code`.
    GrpcCode,
    /// `resilient::http::HttpError`: `resilient::http::retryable` classes
    /// it.
    Http,
    /// Anything else: by a test the user writes.
    Test,
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

    /// The error type, when its name says it is not an enum: a bare
    /// variant name or a variant path can't match it.
    pub(crate) fn known_non_enum(&self) -> Option<NonEnum> {
        let known = |error: &str, told_by: ToldBy| {
            Some(NonEnum {
                error: error.to_owned(),
                told_by,
            })
        };
        let Some((_, err)) = &self.ok_err else {
            // An alias whose error type its name gives away.
            let idents = path_idents(&self.ty)?;
            let names: Vec<&str> = idents.iter().map(String::as_str).collect();
            return match names.as_slice() {
                [.., "io", "Result"] => known(IO_ERROR, ToldBy::IoKind),
                [.., "fmt", "Result"] => known("std::fmt::Error", ToldBy::Test),
                [.., "anyhow", "Result"] => known("anyhow::Error", ToldBy::Test),
                [.., "eyre", "Result"] => known("eyre::Report", ToldBy::Test),
                [.., "serde_json", "Result"] => known("serde_json::Error", ToldBy::Test),
                _ => None,
            };
        };
        match peel(err) {
            Type::Path(_) => {
                let idents = path_idents(err)?;
                let names: Vec<&str> = idents.iter().map(String::as_str).collect();
                match names.as_slice() {
                    [.., "io", "Error"] => known(IO_ERROR, ToldBy::IoKind),
                    [.., "fmt", "Error"] => known("std::fmt::Error", ToldBy::Test),
                    [.., "anyhow", "Error"] => known("anyhow::Error", ToldBy::Test),
                    [.., "eyre", "Report"] => known("eyre::Report", ToldBy::Test),
                    // Structs of the standard library and of the crates a
                    // caller of a network meets, by their whole path: a
                    // shorter one may name an enum of the user's own.
                    ["tonic", "Status"] => known("tonic::Status", ToldBy::GrpcCode),
                    ["resilient", "http", "HttpError"] => known(&written(err), ToldBy::Http),
                    ["reqwest" | "hyper" | "serde_json", "Error"]
                    | ["redis", "RedisError"]
                    | ["tokio", "time", "error", "Elapsed"]
                    | ["tokio", "task", "JoinError"]
                    | [
                        "std" | "core",
                        "num",
                        "ParseIntError" | "ParseFloatError" | "TryFromIntError",
                    ]
                    | ["std" | "core", "str", "Utf8Error"]
                    | ["std" | "alloc", "string", "FromUtf8Error"]
                    | ["std" | "core", "net", "AddrParseError"]
                    | ["std", "time", "SystemTimeError"]
                    // Owning pointers and strings, whatever they hold.
                    | [.., "String" | "Box" | "Arc" | "Rc"] => known(&written(err), ToldBy::Test),
                    _ => None,
                }
            }
            Type::Reference(_)
            | Type::TraitObject(_)
            | Type::Tuple(_)
            | Type::Slice(_)
            | Type::Array(_) => known(&written(err), ToldBy::Test),
            _ => None,
        }
    }
}

const IO_ERROR: &str = "std::io::Error";

/// The identifiers of a plain type path, `None` for any other type.
fn path_idents(ty: &Type) -> Option<Vec<String>> {
    match peel(ty) {
        Type::Path(path) if path.qself.is_none() => Some(
            path.path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect(),
        ),
        _ => None,
    }
}

/// Tokens as their author would write them, for messages.
fn written(tokens: &dyn ToTokens) -> String {
    tokens
        .to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& ", "&")
}

/// The parameter marked `#[attempt]`, as the user wrote it.
pub(crate) struct AttemptParam {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) pat: Pat,
    pub(crate) ty: Type,
}

/// How a parameter is passed on to the fallback.
pub(crate) enum Arg {
    /// The receiver: `self` in whatever form it was declared, and whether
    /// it is a unique borrow (`&mut self`), which a fallback chain reborrows
    /// for each candidate.
    Receiver(syn::token::SelfValue, bool),
    /// A named parameter, and whether its type is a unique borrow (`&mut T`).
    Named(syn::Ident, bool),
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
    // `#[async_trait]` on the `impl` ran first and made this `async fn` a
    // `fn` returning a boxed future: say so once, rather than let the
    // return type and the body fail on their own.
    let rewritten = sig
        .generics
        .lifetimes()
        .any(|param| param.lifetime.ident == "async_trait");
    if rewritten {
        errors.push(Error::new_spanned(
            &sig.ident,
            "`#[resilient]` can't wrap a method that `#[async_trait]` has rewritten into a boxed future: remove `#[async_trait]` from the trait and from this `impl`, and write the method as a native `async fn` in the trait (Rust 1.75 and later), which `#[resilient]` wraps; add `report = hook` to keep the trait's return type",
        ));
    }
    let ret = if rewritten {
        None
    } else {
        errors.ok(return_type(&sig.output, sig))
    };

    if let Some(ret) = &ret {
        reject_impl_trait(&ret.ty, errors);
    }

    let mut attempt = None;
    let mut args = Vec::new();
    let mut mut_bindings = Vec::new();
    let mut mut_self = None;
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
                let unique = match (&receiver.reference, &receiver.colon_token) {
                    (Some(_), _) => receiver.mutability.is_some(),
                    (None, Some(_)) => is_unique_borrow(&receiver.ty),
                    (None, None) => false,
                };
                args.push(Arg::Receiver(receiver.self_token, unique));
                if receiver.reference.is_none() {
                    mut_self = receiver.mutability;
                }
                kept.push_value(FnArg::Receiver(receiver));
            }
            FnArg::Typed(mut typed) => {
                let markers: Vec<&Attribute> =
                    typed.attrs.iter().filter(|attr| is_attempt(attr)).collect();
                if markers.is_empty() {
                    args.push(match peel_pat(&typed.pat) {
                        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                            Arg::Named(ident.ident.clone(), is_unique_borrow(&typed.ty))
                        }
                        _ => Arg::Pattern(typed.pat.clone()),
                    });
                    take_mut(&mut typed.pat, &mut mut_bindings);
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
    // A comma left behind by an `#[attempt]` parameter that came last.
    if kept.trailing_punct() {
        kept.pop_punct();
    }
    item.sig.inputs = kept;

    Function {
        item,
        is_async,
        ret,
        attempt,
        args,
        mut_bindings,
        mut_self,
    }
}

/// Moves the `mut` of every binding in `pat` into `found`. A `ref mut`
/// binding borrows rather than binds a value, and stays as written.
fn take_mut(pat: &mut Pat, found: &mut Vec<MutBinding>) {
    match pat {
        Pat::Ident(binding) => {
            if binding.by_ref.is_none()
                && let Some(mutability) = binding.mutability.take()
            {
                found.push(MutBinding {
                    mutability,
                    ident: binding.ident.clone(),
                });
            }
            if let Some((_, sub)) = &mut binding.subpat {
                take_mut(sub, found);
            }
        }
        Pat::Paren(paren) => take_mut(&mut paren.pat, found),
        Pat::Reference(reference) => take_mut(&mut reference.pat, found),
        Pat::Tuple(syn::PatTuple { elems, .. })
        | Pat::TupleStruct(syn::PatTupleStruct { elems, .. })
        | Pat::Slice(syn::PatSlice { elems, .. }) => {
            elems.iter_mut().for_each(|elem| take_mut(elem, found));
        }
        Pat::Struct(fields) => fields
            .fields
            .iter_mut()
            .for_each(|field| take_mut(&mut field.pat, found)),
        Pat::Or(or) => or.cases.iter_mut().for_each(|case| take_mut(case, found)),
        Pat::Type(typed) => take_mut(&mut typed.pat, found),
        _ => {}
    }
}

/// `impl Trait` inside the return type, as in `Result<impl Display, E>`,
/// can't be carried into `Outcome<T, E>`.
fn reject_impl_trait(ty: &Type, errors: &mut Errors) {
    match ty {
        Type::ImplTrait(impl_trait) => {
            let bounds = &impl_trait.bounds;
            errors.push(Error::new_spanned(
                impl_trait,
                format!(
                    "`#[resilient]` can't return `impl {}` inside the `Result`: the attribute wraps the value into `resilient::Outcome<T, E>`, where `impl Trait` is not allowed; name the type, or return `Box<dyn {}>`",
                    written(bounds),
                    written(bounds),
                ),
            ));
        }
        Type::Path(path) => {
            if let Some(qself) = &path.qself {
                reject_impl_trait(&qself.ty, errors);
            }
            for segment in &path.path.segments {
                if let PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        if let GenericArgument::Type(ty) = arg {
                            reject_impl_trait(ty, errors);
                        }
                    }
                }
            }
        }
        Type::Array(array) => reject_impl_trait(&array.elem, errors),
        Type::Group(group) => reject_impl_trait(&group.elem, errors),
        Type::Paren(paren) => reject_impl_trait(&paren.elem, errors),
        Type::Ptr(ptr) => reject_impl_trait(&ptr.elem, errors),
        Type::Reference(reference) => reject_impl_trait(&reference.elem, errors),
        Type::Slice(slice) => reject_impl_trait(&slice.elem, errors),
        Type::Tuple(tuple) => tuple
            .elems
            .iter()
            .for_each(|elem| reject_impl_trait(elem, errors)),
        _ => {}
    }
}

/// The first tokens of an item, enough to point at it without underlining
/// its whole body.
fn head(keyword: &dyn ToTokens, name: &dyn ToTokens) -> TokenStream {
    quote!(#keyword #name)
}

/// Whether `ty` is written as `&mut T`.
fn is_unique_borrow(ty: &Type) -> bool {
    matches!(peel(ty), Type::Reference(reference) if reference.mutability.is_some())
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
    // A path may name a `Result` through any alias: the expansion asks the
    // compiler. Only what can never be one is rejected here.
    let may_be_result = match peel(ty) {
        Type::Path(path) => !names_std_non_result(path) && !keyword_with_arguments(path),
        Type::Macro(_) => true,
        _ => false,
    };
    if !may_be_result {
        return Err(Error::new_spanned(
            ty,
            "the return type must be a `Result<T, E>` (or an alias such as `io::Result<T>`): the attribute retries on `Err` and returns `resilient::Outcome<T, E>`",
        ));
    }
    let ok_err = match peel(ty) {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .filter(|last| last.ident == "Result")
            .and_then(|last| match &last.arguments {
                PathArguments::AngleBracketed(args) if args.args.len() == 2 => {
                    match (&args.args[0], &args.args[1]) {
                        (GenericArgument::Type(ok), GenericArgument::Type(err)) => {
                            Some((ok.clone(), err.clone()))
                        }
                        _ => None,
                    }
                }
                _ => None,
            }),
        _ => None,
    };
    Ok(Ret {
        ty: (**ty).clone(),
        ok_err,
    })
}

/// Whether a segment of `path` is a keyword (`crate`, `self`, `super`,
/// `Self`) given generic arguments, which no type is: the expansion would
/// put it where it can't even be parsed.
fn keyword_with_arguments(path: &syn::TypePath) -> bool {
    path.path.segments.iter().any(|segment| {
        let keyword = ["crate", "self", "super", "Self"]
            .iter()
            .any(|keyword| segment.ident == keyword);
        keyword && !segment.arguments.is_none()
    })
}

/// Whether `path` names one of the standard library's types that are not
/// a `Result` (`Option<T>`, `String`, `u32`, …), by its name alone or by
/// its path from `std`, `core` or `alloc`.
fn names_std_non_result(path: &syn::TypePath) -> bool {
    const NOT_RESULTS: &[&str] = &[
        "Option", "Vec", "String", "Box", "bool", "char", "str", "u8", "u16", "u32", "u64", "u128",
        "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64",
    ];
    let segments = &path.path.segments;
    let from_std = segments.len() == 1
        || segments.first().is_some_and(|first| {
            ["std", "core", "alloc"]
                .iter()
                .any(|root| first.ident == root)
        });
    path.qself.is_none()
        && from_std
        && segments
            .last()
            .is_some_and(|last| NOT_RESULTS.iter().any(|name| last.ident == name))
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
