//! [`ResilientLayer`]: the configuration of a resilient service, set with
//! the attribute's options; `service.rs` makes it the
//! [`Layer`](::tower::Layer) that wraps a service in it.

use std::fmt;

use super::attach::NoReport;
use super::call::Call;
use super::classify::RetryErrors;
use super::hedge::EveryRequest;
use super::replay::ByClassifier;
use super::request::UseClone;
use super::shared::Shared;
use crate::clock::{Clock, TokioClock};
use crate::settings::Settings;

/// A [`Layer`](::tower::Layer) that makes a tower service resilient: each call runs through
/// the engine of `#[resilient]`, with the same counting, backoff, budget,
/// per-attempt timeout, circuit breaker, retry throttle, limits and
/// report.
///
/// Configure it with the attribute's options ([`retries`](Self::retries),
/// [`backoff`](Self::backoff), [`timeout`](Self::timeout),
/// [`budget`](Self::budget), …, or a whole [`policy`](Self::policy)) and
/// tell it what a failure is with [`classify`](Self::classify), which sees
/// the whole `Result` of each attempt.
///
/// The service it makes, [`Resilient`](super::Resilient), needs `S: Service<Req> + Clone` and
/// `Req: Clone`: each attempt calls a clone of the service with a clone of
/// the request (see [`Resilient`](super::Resilient)). A request that isn't `Clone` (a
/// `reqwest::Request`) needs [`clone_request`](Self::clone_request). Its
/// error is a [`tower::BoxError`](::tower::BoxError).
///
/// New layers make one attempt, as the attribute does without `retries`.
///
/// ```
/// use resilient::tower::ResilientLayer;
/// use resilient::{Backoff, ExecutionReport, Jitter};
/// use std::sync::{Arc, Mutex};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::time::Duration;
/// use tower::{ServiceBuilder, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), tower::BoxError> {
/// // A service that is down twice, then answers.
/// let calls = Arc::new(AtomicU32::new(0));
/// let flaky = service_fn(move |name: &'static str| {
///     let call = calls.fetch_add(1, Ordering::SeqCst) + 1;
///     async move {
///         if call < 3 { Err("down") } else { Ok(format!("hello, {name}")) }
///     }
/// });
///
/// let reports = Arc::new(Mutex::new(Vec::new()));
/// let seen = Arc::clone(&reports);
/// let layer = ResilientLayer::new()
///     .name("greeter")
///     .retries(3)
///     .backoff(Backoff::exponential(Duration::from_millis(100), Duration::from_secs(1)).jitter(Jitter::None))
///     .timeout(Duration::from_secs(2))
///     .on_report(move |report: &ExecutionReport| seen.lock().unwrap().push(report.clone()));
/// let service = ServiceBuilder::new().layer(layer).service(flaky);
///
/// assert_eq!(service.oneshot("world").await?, "hello, world");
/// let report = reports.lock().unwrap().pop().unwrap();
/// assert_eq!(report.name(), "greeter");
/// assert_eq!(report.attempt_count(), 3);
/// assert_eq!(report.delays(), [Duration::from_millis(100), Duration::from_millis(200)]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
#[must_use = "a layer does nothing until it wraps a service"]
pub struct ResilientLayer<
    Cl = RetryErrors,
    C = TokioClock,
    A = NoReport,
    R = UseClone,
    H = EveryRequest,
    P = ByClassifier,
> {
    pub(super) settings: Settings,
    pub(super) shared: Shared,
    pub(super) classifier: Cl,
    pub(super) clock: C,
    pub(super) attach: A,
    pub(super) clone_request: R,
    pub(super) hedge_if: H,
    pub(super) resend_if: P,
}

impl ResilientLayer {
    /// A layer with the engine's defaults: one attempt, exponential backoff
    /// from 100 ms to 10 s with full jitter, no caps, every error
    /// retryable and every response a success ([`RetryErrors`]), tokio's
    /// clock, the report to nobody.
    ///
    /// ```
    /// use resilient::tower::ResilientLayer;
    ///
    /// let layer = ResilientLayer::new().retries(2);
    /// # let _ = layer;
    /// ```
    pub fn new() -> Self {
        ResilientLayer {
            settings: Settings::DEFAULT,
            shared: Shared::default(),
            classifier: RetryErrors,
            clock: TokioClock,
            attach: NoReport,
            clone_request: UseClone,
            hedge_if: EveryRequest,
            resend_if: ByClassifier,
        }
    }
}

impl Default for ResilientLayer {
    fn default() -> Self {
        Self::new()
    }
}

use super::setters::resilient_setters;

impl<Cl, C, A, R, H, P> ResilientLayer<Cl, C, A, R, H, P> {
    resilient_setters!(ResilientLayer, "resilient::tower::ResilientLayer");

    /// Decides what each attempt's result means: a [`Classifier`] of the
    /// whole `Result<S::Response, S::Error>`, such as `HttpClassifier`
    /// (feature `http`) or a closure returning a
    /// [`Verdict`](super::Verdict). Default:
    /// [`RetryErrors`].
    ///
    /// A closure names its argument's type, since the layer learns the
    /// service's types only when it wraps one.
    ///
    /// ```
    /// use resilient::tower::{ResilientLayer, Verdict};
    /// use std::time::Duration;
    ///
    /// /// A service answering `(status, retry-after seconds)`.
    /// fn classify(result: &Result<(u16, Option<u64>), std::io::Error>) -> Verdict {
    ///     match result {
    ///         Ok((status, _)) if *status < 400 => Verdict::Success,
    ///         Ok((429 | 503, wait)) => Verdict::Retryable { retry_after: wait.map(Duration::from_secs) },
    ///         Ok(_) => Verdict::Fatal,
    ///         Err(_) => Verdict::Retryable { retry_after: None },
    ///     }
    /// }
    ///
    /// let layer = ResilientLayer::new().retries(3).classify(classify);
    /// # let _ = layer;
    /// ```
    ///
    /// [`Classifier`]: super::Classifier
    pub fn classify<Cl2>(self, classifier: Cl2) -> ResilientLayer<Cl2, C, A, R, H, P> {
        ResilientLayer {
            settings: self.settings,
            shared: self.shared,
            classifier,
            clock: self.clock,
            attach: self.attach,
            clone_request: self.clone_request,
            hedge_if: self.hedge_if,
            resend_if: self.resend_if,
        }
    }

    /// The time source for deadlines, waits and the report; default
    /// [`TokioClock`], which follows tokio's paused test time.
    ///
    /// ```
    /// use resilient::tower::ResilientLayer;
    /// use resilient::SystemClock;
    ///
    /// let layer = ResilientLayer::new().clock(SystemClock);
    /// # let _ = layer;
    /// ```
    pub fn clock<C2: Clock>(self, clock: C2) -> ResilientLayer<Cl, C2, A, R, H, P> {
        ResilientLayer {
            settings: self.settings,
            shared: self.shared,
            classifier: self.classifier,
            clock,
            attach: self.attach,
            clone_request: self.clone_request,
            hedge_if: self.hedge_if,
            resend_if: self.resend_if,
        }
    }

    /// Hands each call's report to the response it returns, through an
    /// [`AttachReport`](super::AttachReport) such as `ReportExtension`
    /// (feature `http`), which inserts it into an `http::Response`'s
    /// extensions.
    ///
    /// ```
    /// use resilient::ExecutionReport;
    /// use resilient::tower::{AttachReport, ResilientLayer};
    ///
    /// struct Answer {
    ///     text: String,
    ///     retries: u32,
    /// }
    ///
    /// struct CountRetries;
    ///
    /// impl AttachReport<Answer> for CountRetries {
    ///     fn attach(&self, answer: &mut Answer, report: ExecutionReport) {
    ///         answer.retries = report.retry_count();
    ///     }
    /// }
    ///
    /// let layer = ResilientLayer::new().retries(2).attach_report(CountRetries);
    /// # let _ = layer;
    /// ```
    pub fn attach_report<A2>(self, attach: A2) -> ResilientLayer<Cl, C, A2, R, H, P> {
        ResilientLayer {
            settings: self.settings,
            shared: self.shared,
            classifier: self.classifier,
            clock: self.clock,
            attach,
            clone_request: self.clone_request,
            hedge_if: self.hedge_if,
            resend_if: self.resend_if,
        }
    }

    /// Tells the layer how to copy a request for each attempt, for requests
    /// that aren't `Clone`, as tower's `Policy::clone_request` does: a
    /// function of the request returning `Some(copy)`, or `None` when it
    /// can only be sent once. A request it can't copy is sent once, as it
    /// is: the call makes one attempt whatever its result, and the
    /// report's text of a failure ends with "(not retried: the request
    /// can't be cloned)".
    ///
    /// Without it, a layer clones requests, and a request type that isn't
    /// `Clone` is a compile error naming `Clone` and this method wherever
    /// the request type meets the bound: `service.oneshot(request)`
    /// ([`Resilient::oneshot`](super::Resilient::oneshot)),
    /// `BoxService::new(service)`, a function taking `impl Service<Req>`.
    /// (Other `ServiceExt` methods, such as `ready`, called as methods,
    /// get only rustc's "trait bounds were not satisfied".) With it, the
    /// layer wraps a `reqwest::Client`:
    ///
    #[cfg_attr(feature = "reqwest", doc = "```")]
    #[cfg_attr(not(feature = "reqwest"), doc = "```ignore")]
    /// use resilient::tower::{HttpClassifier, ReportExtension, ResilientLayer};
    /// use std::time::Duration;
    /// use tower::ServiceBuilder;
    ///
    /// let client = ServiceBuilder::new()
    ///     .layer(
    ///         ResilientLayer::new()
    ///             .retries(3)
    ///             .timeout(Duration::from_secs(2))
    ///             .classify(HttpClassifier)
    ///             .attach_report(ReportExtension)
    ///             // A streaming body can't be copied: such a request is sent once.
    ///             .clone_request(|request: &reqwest::Request| request.try_clone()),
    ///     )
    ///     .service(reqwest::Client::new());
    /// # let _ = client;
    /// ```
    ///
    /// Here an upload read from a file is sent once, while a buffered one
    /// is retried:
    ///
    /// ```
    /// use resilient::tower::ResilientLayer;
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use tower::{Layer, ServiceExt, service_fn};
    ///
    /// enum Upload {
    ///     Buffered(Vec<u8>),
    ///     Streamed(std::io::Empty),
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let calls = Arc::new(AtomicU32::new(0));
    /// let counted = Arc::clone(&calls);
    /// let busy = service_fn(move |_: Upload| {
    ///     counted.fetch_add(1, Ordering::SeqCst);
    ///     async { Err::<(), _>(std::io::Error::other("busy")) }
    /// });
    /// let layer = ResilientLayer::new().retries(2).clone_request(|upload: &Upload| match upload {
    ///     Upload::Buffered(bytes) => Some(Upload::Buffered(bytes.clone())),
    ///     Upload::Streamed(_) => None,
    /// });
    ///
    /// let _ = layer.layer(busy.clone()).oneshot(Upload::Buffered(vec![7])).await;
    /// assert_eq!(calls.swap(0, Ordering::SeqCst), 3);
    ///
    /// let _ = layer.layer(busy).oneshot(Upload::Streamed(std::io::empty())).await;
    /// assert_eq!(calls.load(Ordering::SeqCst), 1);
    /// # }
    /// ```
    pub fn clone_request<Req, R2>(self, clone_request: R2) -> ResilientLayer<Cl, C, A, R2, H, P>
    where
        R2: Fn(&Req) -> Option<Req>,
    {
        ResilientLayer {
            settings: self.settings,
            shared: self.shared,
            classifier: self.classifier,
            clock: self.clock,
            attach: self.attach,
            clone_request,
            hedge_if: self.hedge_if,
            resend_if: self.resend_if,
        }
    }

    /// Which requests may be [hedged](Self::hedge): a [`Hedgeable`](super::Hedgeable)
    /// rule, such as `IdempotentRequests` (feature `http`) for
    /// `http::Request`s and `reqwest::Request`s, or a closure of the
    /// request returning whether it may be sent twice. Default:
    /// [`EveryRequest`], since the layer can't know what a request of any
    /// type means. A request the rule refuses, or that can't be copied,
    /// is sent one attempt at a time.
    ///
    /// ```
    /// use resilient::tower::ResilientLayer;
    /// use std::time::Duration;
    ///
    /// enum Command {
    ///     Get(String),
    ///     Set(String, String),
    /// }
    ///
    /// let layer = ResilientLayer::new()
    ///     .hedge(Duration::from_millis(200))
    ///     .hedge_if(|command: &Command| matches!(command, Command::Get(_)));
    /// # let _ = layer;
    /// ```
    pub fn hedge_if<H2>(self, rule: H2) -> ResilientLayer<Cl, C, A, R, H2, P> {
        ResilientLayer {
            settings: self.settings,
            shared: self.shared,
            classifier: self.classifier,
            clock: self.clock,
            attach: self.attach,
            clone_request: self.clone_request,
            hedge_if: rule,
            resend_if: self.resend_if,
        }
    }

    /// Which requests may be sent again after an attempt that may have
    /// reached the server failed: a timeout, a `500` or another failing
    /// status, a connection reset once the request was written, after
    /// which a retry would have the server run the request twice. A
    /// [`Resendable`](super::Resendable) rule, such as `IdempotentRequests`
    /// (feature `http`), [`EveryRequest`] or a closure of the request
    /// returning whether it may run twice.
    ///
    /// Default: [`ByClassifier`], the classifier's rule. With
    /// `HttpClassifier`, a GET, HEAD, OPTIONS, TRACE, PUT or DELETE is
    /// retried as the classifier says, and so is a request of any method
    /// with an `Idempotency-Key` header; a POST or a PATCH without one is
    /// sent once, unless the server said it did not process it (a refused
    /// connection, a `408`, a `429`, a `503` with `Retry-After`; see
    /// [`Classifier::unprocessed`](super::Classifier::unprocessed)). The
    /// attempt that was not retried records `retryable() == false`, its
    /// text ends with "(not retried: the server may have processed it, and
    /// the request is not idempotent)", and the call stops with
    /// `StopReason::NotRetryable`. With another classifier, every request
    /// is retried as the classifier says, as the layer can't know what a
    /// request of any type means.
    ///
    /// A client whose POSTs are all safe to repeat (the server dedupes
    /// them) opts in with `EveryRequest`:
    ///
    #[cfg_attr(feature = "http", doc = "```")]
    #[cfg_attr(not(feature = "http"), doc = "```ignore")]
    /// use resilient::tower::{EveryRequest, HttpClassifier, ResilientLayer};
    ///
    /// let layer = ResilientLayer::new().retries(3).classify(HttpClassifier).resend_if(EveryRequest);
    /// # let _ = layer;
    /// ```
    ///
    /// A rule of your own sees each request; here the searches, POSTs
    /// that change nothing, are sent again too:
    ///
    #[cfg_attr(feature = "http", doc = "```")]
    #[cfg_attr(not(feature = "http"), doc = "```ignore")]
    /// use http::Request;
    /// use resilient::http::is_idempotent;
    /// use resilient::tower::{HttpClassifier, ResilientLayer};
    ///
    /// let layer = ResilientLayer::new()
    ///     .retries(3)
    ///     .classify(HttpClassifier)
    ///     .resend_if(|request: &Request<String>| {
    ///         is_idempotent(request.method(), request.headers()) || request.uri().path() == "/search"
    ///     });
    /// # let _ = layer;
    /// ```
    pub fn resend_if<P2>(self, rule: P2) -> ResilientLayer<Cl, C, A, R, H, P2> {
        ResilientLayer {
            settings: self.settings,
            shared: self.shared,
            classifier: self.classifier,
            clock: self.clock,
            attach: self.attach,
            clone_request: self.clone_request,
            hedge_if: self.hedge_if,
            resend_if: rule,
        }
    }

    /// What each call runs with: the layer's configuration, with `shared`
    /// (the layer's own, or a copy with an endpoint's breaker).
    pub(super) fn call_with<'a>(&'a self, shared: &'a Shared) -> Call<'a, Cl, C> {
        Call {
            settings: &self.settings,
            shared,
            classifier: &self.classifier,
            clock: &self.clock,
            endpoint: None,
            priority: None,
            route: None,
            committed: None,
        }
    }
}

impl<Cl, C, A, R, H, P> fmt::Debug for ResilientLayer<Cl, C, A, R, H, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResilientLayer")
            .field("settings", &self.settings)
            .field("shared", &self.shared)
            .field("classifier", &std::any::type_name::<Cl>())
            .field("clock", &std::any::type_name::<C>())
            .field("attach", &std::any::type_name::<A>())
            .field("clone_request", &std::any::type_name::<R>())
            .field("hedge_if", &std::any::type_name::<H>())
            .field("resend_if", &std::any::type_name::<P>())
            .finish()
    }
}
