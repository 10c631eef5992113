//! The error accumulator: every problem found while reading the attribute and
//! the function is kept, so that one build reports all of them.

use proc_macro2::TokenStream;

/// Errors collected so far, combined into one `syn::Error`.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Keeps the error of a failed result, if any.
    pub(crate) fn ok<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// `Err` with everything collected, or `Ok` when nothing was.
    pub(crate) fn into_result(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// One `compile_error!` per collected error, each at its own span.
    pub(crate) fn to_compile_errors(&self) -> TokenStream {
        self.0
            .as_ref()
            .map(syn::Error::to_compile_error)
            .unwrap_or_default()
    }
}
