//! Options whose value is a duration: a literal with a unit, read at
//! expansion time, or an expression of type `Duration`.

use syn::{Error, Expr, Lit, LitStr, UnOp};

use super::peel;
use crate::duration::{self, Nanos};

/// A duration: a literal read at expansion time, or an expression of type
/// `Duration` evaluated at run time.
pub(crate) enum Dur {
    Literal { nanos: Nanos, lit: LitStr },
    Expr(Expr),
}

pub(super) fn dur(name: &str, value: Expr) -> syn::Result<Dur> {
    match peel(&value) {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(text) => match duration::parse(&text.value()) {
                Ok(nanos) => Ok(Dur::Literal {
                    nanos,
                    lit: text.clone(),
                }),
                Err(reason) => Err(Error::new(
                    text.span(),
                    format!(
                        "`{name}`: \"{}\" is not a duration: {reason}; {}",
                        text.value(),
                        duration::HOW_TO
                    ),
                )),
            },
            Lit::Int(_) | Lit::Float(_) => {
                let number = quote::ToTokens::to_token_stream(&lit.lit).to_string();
                Err(Error::new_spanned(
                    &value,
                    format!(
                        "`{name}` needs a unit: write `{name} = \"{number}s\"` or `{name} = \"{number}ms\"`, or pass a `std::time::Duration`"
                    ),
                ))
            }
            _ => Err(Error::new_spanned(
                &value,
                format!("`{name}` takes a duration: {}", duration::HOW_TO),
            )),
        },
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => Err(Error::new_spanned(
            &value,
            format!("`{name}` can't be negative: {}", duration::HOW_TO),
        )),
        _ => Ok(Dur::Expr(value)),
    }
}
