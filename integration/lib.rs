//! Nothing to use: this package holds the examples and tests that talk to
//! real servers on 127.0.0.1 (`examples/`, `tests/`), so that their heavy
//! dependencies stay out of the `resilient` package's first build.

/// The guide's chapters (`resilient::guide`), whose examples run here as
/// doctests: every feature is on, and the crates the chapters name (axum,
/// reqwest, reqwest-middleware, tower, hyper) are this package's.
#[cfg(doctest)]
pub mod guide {
    #[doc = include_str!("../src/guide/retries.md")]
    pub struct Retries;
    #[doc = include_str!("../src/guide/closures.md")]
    pub struct Closures;
    #[doc = include_str!("../src/guide/coming_from.md")]
    pub struct ComingFrom;
    #[doc = include_str!("../src/guide/testing.md")]
    pub struct Testing;
    #[doc = include_str!("../src/guide/breaker.md")]
    pub struct Breaker;
    #[doc = include_str!("../src/guide/limits.md")]
    pub struct Limits;
    #[doc = include_str!("../src/guide/across_services.md")]
    pub struct AcrossServices;
    #[doc = include_str!("../src/guide/http.md")]
    pub struct Http;
    #[doc = include_str!("../src/guide/idempotency.md")]
    pub struct Idempotency;
    #[doc = include_str!("../src/guide/operating.md")]
    pub struct Operating;
    #[doc = include_str!("../src/guide/features.md")]
    pub struct Features;
    #[doc = include_str!("../src/guide/figures.md")]
    pub struct Figures;
}
