//! A tower layer (feature `tower`): [`ResilientLayer`] makes any
//! `Service<Req> + Clone` resilient (with `Req: Clone`, or a
//! [`clone_request`](ResilientLayer::clone_request) function), each call running
//! through the engine of `#[resilient]`: the same counting, backoff,
//! budget, per-attempt timeout, circuit breaker, throttle and report.
//!
//! * `layer.rs`: [`ResilientLayer`], the configuration;
//! * `setters.rs`: the setters it shares with the reqwest middleware;
//! * `shared.rs`: what every call of a layer or of the middleware shares,
//!   whatever the layer's type parameters (the breaker, the throttle, the
//!   limiters, the hooks, chaos);
//! * `service.rs`: [`Resilient`], the service, the [`Layer`](::tower::Layer)
//!   that makes it, and how it sends each attempt;
//! * `call.rs`: one call through the engine, for the service and the
//!   reqwest middleware alike: a copy of the request per attempt, the
//!   verdicts, the result; and the smaller path of a call with no gate
//!   before its first attempt and no hedge, which the middleware takes;
//! * `request.rs`: [`CloneRequest`], how each attempt gets its copy of the
//!   request ([`UseClone`] by default, or a function, for requests that
//!   aren't `Clone`);
//! * `per_endpoint.rs`: a breaker, a throttle and limits per endpoint, by
//!   a key function of the request (`ResilientLayer::per_endpoint_by`,
//!   `per_endpoint_throttle`, `per_endpoint_limits`, `endpoint_key`);
//! * `deadline.rs` (feature `http`): deadlines across services, sent in a
//!   header of each attempt (`SendDeadlineLayer`,
//!   `ResilientLayer::send_deadline`) and read by a server
//!   (`ServerDeadlineLayer`);
//! * `hold.rs` (feature `http`): retries that don't multiply across
//!   services, the hold header sent on attempts that hold the retries
//!   below (`SendHoldLayer`, `ResilientLayer::send_hold`) and read by a
//!   server (`ServerHoldLayer`);
//! * `stamp.rs` (feature `http`): the service both send layers make, which
//!   stamps their header on each request as it is sent;
//! * `hedge.rs`: [`Hedgeable`], which requests may be hedged
//!   ([`EveryRequest`] by default, or, with `http`, `IdempotentRequests`);
//! * `replay.rs`: [`Resendable`], which requests may be sent again after
//!   a failure that may have reached the server ([`ByClassifier`] by
//!   default: with `HttpClassifier`, not a POST or a PATCH without an
//!   `Idempotency-Key`), and what a failure says of the server;
//! * `classify.rs`: [`Verdict`] and [`Classifier`], what an attempt's whole
//!   `Result` means (a `503` response fails; a `Retry-After` header sets
//!   the wait), with [`RetryErrors`] and, with `http`, `HttpClassifier`;
//! * `attach.rs`: [`AttachReport`], the report handed to the response
//!   (with `http`, `ReportExtension` puts it in an `http::Response`'s
//!   extensions).
//!
//! A response can fail: the classifier sees each attempt's whole `Result`
//! and may ask for a wait. Here a service answers `Busy(wait)` twice before
//! its answer; the caller gets the answer, and the report shows the two
//! waits the service asked for:
//!
//! ```
//! use resilient::tower::{ResilientLayer, Verdict};
//! use resilient::{DelaySource, ExecutionReport};
//! use std::convert::Infallible;
//! use std::sync::{Arc, Mutex};
//! use std::sync::atomic::{AtomicU32, Ordering};
//! use std::time::Duration;
//! use tower::{ServiceBuilder, ServiceExt, service_fn};
//!
//! #[derive(Debug, PartialEq)]
//! enum Reply {
//!     Busy(Duration),
//!     Answer(u32),
//! }
//!
//! fn classify(result: &Result<Reply, Infallible>) -> Verdict {
//!     match result {
//!         Ok(Reply::Busy(wait)) => Verdict::Retryable { retry_after: Some(*wait) },
//!         Ok(Reply::Answer(_)) => Verdict::Success,
//!         Err(never) => match *never {},
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() -> Result<(), tower::BoxError> {
//! let calls = Arc::new(AtomicU32::new(0));
//! let service = service_fn(move |question: u32| {
//!     let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
//!     let reply = if call < 3 { Reply::Busy(Duration::from_secs(call.into())) } else { Reply::Answer(question * 2) };
//!     async move { Ok::<_, Infallible>(reply) }
//! });
//!
//! let reports = Arc::new(Mutex::new(Vec::new()));
//! let seen = Arc::clone(&reports);
//! let client = ServiceBuilder::new()
//!     .layer(
//!         ResilientLayer::new()
//!             .classify(classify)
//!             .on_report(move |report: &ExecutionReport| seen.lock().unwrap().push(report.clone())),
//!     )
//!     .service(service);
//!
//! assert_eq!(client.oneshot(21).await?, Reply::Answer(42));
//!
//! // Waits the service asked for spend no retry: one attempt was allowed.
//! let report = reports.lock().unwrap().pop().unwrap();
//! assert_eq!(report.attempt_count(), 3);
//! let waits: Vec<_> = report.attempts().iter().filter_map(|a| a.delay_before()).map(|d| (d.source(), d.duration())).collect();
//! assert_eq!(waits, [(DelaySource::RetryAfter, Duration::from_secs(1)), (DelaySource::RetryAfter, Duration::from_secs(2))]);
//! # Ok(())
//! # }
//! ```

mod attach;
mod call;
mod classify;
mod coalesce;
#[cfg(feature = "http")]
mod deadline;
mod hedge;
#[cfg(feature = "http")]
mod hold;
mod layer;
mod layer_replicas;
mod per_endpoint;
#[cfg(feature = "reqwest")]
mod plain;
mod replay;
mod replicas;
mod request;
mod service;
mod setters;
mod shared;
#[cfg(feature = "tracing")]
mod span;
#[cfg(feature = "http")]
mod stamp;

#[cfg(feature = "http")]
pub use attach::ReportExtension;
pub use attach::{AttachReport, NoReport};
#[cfg(feature = "http")]
pub use classify::HttpClassifier;
pub use classify::{Classifier, RetryErrors, Verdict};
#[cfg(feature = "http")]
pub use coalesce::SafeRequests;
pub use coalesce::{CoalesceKey, CoalesceLayer, CoalesceService, Coalesced};
#[cfg(feature = "http")]
pub use deadline::{
    SendDeadline, SendDeadlineLayer, ServerDeadline, ServerDeadlineFuture, ServerDeadlineLayer,
};
#[cfg(feature = "http")]
pub use hedge::IdempotentRequests;
pub use hedge::{EveryRequest, Hedgeable};
#[cfg(feature = "http")]
pub use hold::{SendHold, SendHoldLayer, ServerHold, ServerHoldLayer};
pub use layer::ResilientLayer;
pub use replay::{ByClassifier, Resendable};
pub use replicas::OtherRequestType;
pub use request::{CloneRequest, UseClone};
pub use service::{Resilient, ResponseFuture};

// The reqwest middleware runs its calls the same way.
#[cfg(feature = "reqwest")]
pub(crate) use attach::attach_to;
#[cfg(feature = "reqwest")]
pub(crate) use call::{Call, Committed, EngineError};
#[cfg(feature = "reqwest")]
pub(crate) use per_endpoint::per_endpoint_setters;
#[cfg(feature = "reqwest")]
pub(crate) use plain::FirstFailed;
// Named by `resilient_setters!` wherever it expands, the layer included.
pub(crate) use setters::layer_gate_setters;
#[cfg(feature = "reqwest")]
pub(crate) use setters::resilient_setters;
#[cfg(feature = "reqwest")]
pub(crate) use shared::Shared;
