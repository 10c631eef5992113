//! reqwest-middleware's error as the engine makes it: a timeout, an open
//! circuit, a fault chaos injected.

use std::fmt;

use reqwest_middleware::Error;

use crate::tower::EngineError;

impl EngineError for Error {
    fn engine(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Error::middleware(error)
    }
    fn injected(error: ::tower::BoxError) -> Self {
        Error::middleware(Injected(error))
    }
}

/// A fault chaos injected, as reqwest-middleware's error: its text and
/// source are the maker's error.
#[derive(Debug)]
struct Injected(::tower::BoxError);

impl fmt::Display for Injected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Injected {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}
