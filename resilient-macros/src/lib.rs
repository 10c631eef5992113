//! The `#[resilient]` attribute of the [`resilient`](https://docs.rs/resilient)
//! crate. Depend on `resilient`, which re-exports it; this crate only
//! generates code that calls into `resilient`'s runtime.
//!
//! The attribute is read in three steps, one module each: `attr` parses the
//! options, `valid` checks them against each other and against the function,
//! `expand` writes the wrapped function.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod attr;
mod duration;
mod errors;
mod expand;
mod options;
mod signature;
mod suggest;
mod valid;

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

// The attribute's reference: its options, each with an example, and what
// it expands to. Doc tests, like any rustdoc.
#[doc = include_str!("resilient.md")]
#[proc_macro_attribute]
pub fn resilient(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
