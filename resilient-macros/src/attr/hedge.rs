//! `hedge`'s value: a delay, or a percentile of measured latencies.

use syn::{Error, Expr, Ident};

use super::{Dur, dur, single_ident};

/// `hedge = "200ms"`, a fixed delay, or `hedge = p95`, a percentile of
/// the latencies of the function's successful attempts.
pub(crate) enum HedgeSpec {
    Delay(Dur),
    /// In thousandths: `p95` is 950, `p999` is 999.
    Percentile {
        per_mille: u32,
        ident: Ident,
    },
}

impl HedgeSpec {
    pub(crate) fn span(&self) -> proc_macro2::Span {
        match self {
            HedgeSpec::Delay(Dur::Literal { lit, .. }) => lit.span(),
            HedgeSpec::Delay(Dur::Expr(expr)) => syn::spanned::Spanned::span(expr),
            HedgeSpec::Percentile { ident, .. } => ident.span(),
        }
    }
}

/// A hedge's delay, or the percentile it is measured at: an identifier
/// `p` and two digits (`p50`, `p95`, `p99`), or three beginning with 99
/// (`p999`, 99.9 %). Any other identifier is an expression.
pub(super) fn hedge(name: &str, value: Expr) -> syn::Result<HedgeSpec> {
    let Some(ident) = single_ident(&value) else {
        return dur(name, value).map(HedgeSpec::Delay);
    };
    let text = ident.to_string();
    let Some(digits) = text.strip_prefix('p') else {
        return dur(name, value).map(HedgeSpec::Delay);
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return dur(name, value).map(HedgeSpec::Delay);
    }
    let per_mille = match digits.len() {
        2 if digits != "00" => digits.parse::<u32>().ok().map(|n| n * 10),
        3 if digits.starts_with("99") => digits.parse::<u32>().ok(),
        _ => None,
    };
    match per_mille {
        Some(per_mille) => Ok(HedgeSpec::Percentile {
            per_mille,
            ident: ident.clone(),
        }),
        None => Err(Error::new(
            ident.span(),
            format!(
                "`{name} = {text}` is not a percentile: write `p` and two digits (`p50`, `p95`, `p99`), or `p999` for 99.9 %"
            ),
        )),
    }
}
