//! The guide: one chapter per question a user arrives with, each a page of
//! prose and examples that `cargo test --workspace --all-features`
//! compiles and runs (as doctests of the `integration/` package, where
//! every feature and the crates the examples name are at hand).
//!
//! Start with [`retries`] for the attribute, or [`closures`] to retry a
//! closure; [`coming_from`] maps backon's, tower's, Polly's and
//! resilience4j's names to ours.
//!
//! | chapter | read it for |
//! |---|---|
//! | [`retries`] | every option of `#[resilient]`, the report, fallback chains, hedging |
//! | [`closures`] | retrying a closure: `.retry(&POLICY)` and its settings |
//! | [`coming_from`] | backon, tokio-retry, reqwest-retry, tower, Polly, resilience4j |
//! | [`testing`] | schedules tested in milliseconds; chaos testing |
//! | [`breaker`] | circuit breakers (one process, a fleet, across restarts), retry throttles, adaptive throttling |
//! | [`limits`] | bulkheads, rate limits, adaptive limits, shedding by priority, coalescing |
//! | [`across_services`] | calls inside calls: deadlines across services, `nested` |
//! | [`http`] | the tower layer, the reqwest middleware, state per endpoint |
//! | [`idempotency`] | an operation at most once per key, on Redis across a fleet |
//! | [`operating`] | the dashboard, metrics, configuration, manual control, readiness probes, spans |
//! | [`features`] | the crate's features, its examples, what a call costs |
//! | [`figures`] | the backoff schedules of each jitter mode and the breaker's states, drawn |

#[cfg_attr(not(doctest), doc = include_str!("guide/retries.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod retries {}

#[cfg_attr(not(doctest), doc = include_str!("guide/closures.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod closures {}

#[cfg_attr(not(doctest), doc = include_str!("guide/coming_from.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod coming_from {}

#[cfg_attr(not(doctest), doc = include_str!("guide/testing.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod testing {}

#[cfg_attr(not(doctest), doc = include_str!("guide/breaker.md"))]
#[cfg_attr(not(doctest), doc = "\n\n## The states, drawn\n\n")]
#[cfg_attr(not(doctest), doc = include_str!("guide/figures/breaker.svg"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod breaker {}

#[cfg_attr(not(doctest), doc = include_str!("guide/limits.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod limits {}

#[cfg_attr(not(doctest), doc = include_str!("guide/across_services.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod across_services {}

#[cfg_attr(not(doctest), doc = include_str!("guide/http.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod http {}

#[cfg_attr(not(doctest), doc = include_str!("guide/idempotency.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod idempotency {}

#[cfg_attr(not(doctest), doc = include_str!("guide/operating.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod operating {}

#[cfg_attr(not(doctest), doc = include_str!("guide/features.md"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod features {}

#[cfg_attr(not(doctest), doc = include_str!("guide/figures.md"))]
#[cfg_attr(not(doctest), doc = "\n\n## Jitter\n\n")]
#[cfg_attr(not(doctest), doc = include_str!("guide/figures/jitter.svg"))]
#[cfg_attr(not(doctest), doc = "\n\n## The breaker's states\n\n")]
#[cfg_attr(not(doctest), doc = include_str!("guide/figures/breaker.svg"))]
#[cfg_attr(doctest, doc = "Run as doctests of `resilient-integration`.")]
pub mod figures {}
