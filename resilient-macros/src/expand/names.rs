//! What the generated code names: the runtime's path, the function's
//! success and error types, and the generated locals, each spanned so that
//! an error points at the user's tokens; and which of the options' values
//! are constants, the same however often they are read.

use proc_macro2::{Punct, Spacing, Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{Expr, Ident, Type};

use crate::attr::Attrs;
use crate::signature::{Arg, Function, Ret};

/// What the generated code refers to: the runtime's path, the function's
/// return type, and the generated locals.
pub(super) struct Names<'a> {
    pub(super) root: TokenStream,
    pub(super) ret: &'a Ret,
    /// The function's parameters, which an option's value may name.
    pub(super) args: &'a [Arg],
    /// Whether the receiver is `&self`, whose fields an option may read
    /// as often as it likes.
    pub(super) shared_self: bool,
    pub(super) op: Ident,
    /// The closure that builds the operation, where it is built on demand
    /// (see `build.rs`).
    pub(super) make: Ident,
    pub(super) policy: Ident,
    pub(super) limits: Ident,
    pub(super) attempt: Ident,
    pub(super) error: Ident,
    /// A copy of a `mut self` receiver as the caller passed it.
    pub(super) pristine_self: Ident,
    /// The `static` of the operation's counts under its default name, which
    /// a first attempt run before the operation is built reads too (see
    /// `__private::blocking_unbuilt`).
    pub(super) tally: Ident,
    /// The function's identifier, unraw: the operation's default name.
    pub(super) function_name: String,
}

impl<'a> Names<'a> {
    pub(super) fn new(attrs: &Attrs, function: &'a Function, ret: &'a Ret) -> Self {
        let local = |name: &str| Ident::new(name, Span::mixed_site());
        Names {
            root: attrs.krate.map_or_else(
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
            policy: local("__resilient_policy"),
            limits: local("__resilient_limits"),
            attempt: local("__resilient_attempt"),
            error: local("__resilient_error"),
            pristine_self: local("__resilient_self"),
            tally: Ident::new("__RESILIENT_TALLY", Span::mixed_site()),
            function_name: function.item.sig.ident.unraw().to_string(),
        }
    }

    /// Whether an option's value names a function: a path, other than one
    /// of the function's parameters (which may hold a closure).
    pub(super) fn is_function(&self, value: &Expr) -> bool {
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
    pub(super) fn is_constant(&self, expr: &Expr) -> bool {
        self.is_constant_reading(expr, self.shared_self)
    }

    /// Whether `expr` is a constant (see [`is_constant`](Self::is_constant))
    /// that the compiler can evaluate: one that reads no field of `self`.
    pub(super) fn is_compile_time(&self, expr: &Expr) -> bool {
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
    pub(super) fn root_at(&self, span: Span) -> TokenStream {
        respan(self.root.clone(), span)
    }

    /// The success type `T` and the error type `E`: as written, or through
    /// the return type's alias, spanned at the return type so that a type
    /// that is not a `Result` is reported there.
    pub(super) fn ok_err(&self) -> (TokenStream, TokenStream) {
        if let Some((ok, err)) = &self.ret.ok_err {
            return (ok.to_token_stream(), err.to_token_stream());
        }
        let ty = &self.ret.ty;
        (self.over("OkOf", ty), self.over("ErrOf", ty))
    }

    /// The error type, where the return type writes it out
    /// (`Result<T, E>`).
    pub(super) fn written_error(&self) -> Option<TokenStream> {
        let (_, err) = self.ret.ok_err.as_ref()?;
        Some(err.to_token_stream())
    }

    /// `__private::alias<ty>`, spanned from the first token of `ty` to its
    /// last, so that an error about it underlines the whole type.
    pub(super) fn over(&self, alias: &str, ty: &Type) -> TokenStream {
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
    pub(super) fn result(&self) -> TokenStream {
        let ty = &self.ret.ty;
        if self.ret.ok_err.is_some() {
            return ty.to_token_stream();
        }
        self.over("ResultOf", ty)
    }

    /// The error type `E`, every token of it at `span`.
    pub(super) fn error_at(&self, span: Span) -> TokenStream {
        respan(self.ok_err().1, span)
    }

    /// The success type `T`, every token of it at `span`.
    pub(super) fn ok_at(&self, span: Span) -> TokenStream {
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
pub(super) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
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
