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

/// Declares, once, the setters that [`ResilientLayer`] and the reqwest
/// middleware share: the attribute's options and the hooks, for a type
/// with `settings: Settings` and `shared: Shared` fields. `$Type` and
/// `$path` name the type in the examples. A new option shared by both is
/// a field of `Settings` or `Shared` and a setter here.
macro_rules! resilient_setters {
    ($Type:ident, $path:literal) => {
        $crate::settings::settings_setters!();

        /// Retries after the first attempt, as the attribute's `retries = N`:
        /// `N + 1` attempts on the backoff path.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(3);")]
        /// # let _ = layer;
        /// ```
        pub fn retries(self, retries: u32) -> Self {
            self.max_attempts(retries.saturating_add(1))
        }

        /// Takes attempts, backoff, caps and Retry-After limits from a
        /// prebuilt policy; the [`timeout`](Self::timeout) stays.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::{Backoff, RetryPolicy};
        /// use std::time::Duration;
        ///
        /// let policy = RetryPolicy::builder()
        ///     .max_attempts(4)
        ///     .backoff(Backoff::constant(Duration::from_millis(250)))
        ///     .budget(Duration::from_secs(5))
        ///     .build()?;
        #[doc = concat!("let layer = ", stringify!($Type), "::new().policy(&policy);")]
        /// # let _ = layer;
        /// # Ok::<(), resilient::ConfigError>(())
        /// ```
        pub fn policy(mut self, policy: &$crate::RetryPolicy) -> Self {
            let timeout = self.settings.timeout;
            self.settings = policy.settings;
            self.settings.timeout = timeout;
            self
        }

        /// Per-attempt timeout. An attempt still running at its deadline,
        /// `min(timeout, budget - elapsed)`, is dropped (its response future
        /// with it) and fails with [`TimedOut`](crate::TimedOut), which is
        /// retryable. A call whose last attempt timed out returns that
        /// `TimedOut` as its error.
        ///
        /// Without a timeout an attempt is still cut at the
        /// [`budget`](Self::budget), if there is one.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).timeout(Duration::from_secs(3));")]
        /// # let _ = layer;
        /// ```
        pub fn timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.settings.timeout = Some(timeout);
            self
        }

        /// Names the operation: the report and every event carry the name
        /// (default `"operation"`). A `&'static str` costs nothing per call; an
        /// owned name is cloned into each call's report.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().name(\"billing.charge\");")]
        /// # let _ = layer;
        /// ```
        pub fn name(mut self, name: impl ::std::convert::Into<::std::borrow::Cow<'static, str>>) -> Self {
            self.shared.name = Some(name.into());
            self
        }

        /// Consults `breaker` before each attempt and reports each result to
        /// it: a `&'static CircuitBreaker` (a `static`) or an
        /// `Arc<CircuitBreaker>`, shared by every call. A rejected attempt
        /// doesn't run and fails with [`CircuitOpen`](crate::CircuitOpen): the
        /// call ends there, without a retry, and returns that `CircuitOpen` as
        /// its error, with stop reason `CircuitOpen`.
        ///
        /// Every attempt that ran counts: a [`Success`](crate::tower::Verdict::Success)
        /// as a success, any other verdict as a failure, retryable or
        /// [`Fatal`](crate::tower::Verdict::Fatal).
        ///
        /// ```
        /// use resilient::CircuitBreaker;
        #[doc = concat!("use ", $path, ";")]
        /// use std::sync::Arc;
        /// use std::time::Duration;
        ///
        /// let breaker = Arc::new(
        ///     CircuitBreaker::builder()
        ///         .failure_threshold(5)
        ///         .break_duration(Duration::from_secs(30))
        ///         .build()?,
        /// );
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).circuit_breaker(Arc::clone(&breaker));")]
        /// # let _ = layer;
        /// # Ok::<(), resilient::ConfigError>(())
        /// ```
        pub fn circuit_breaker<B>(mut self, breaker: B) -> Self
        where
            B: ::std::ops::Deref<Target = $crate::CircuitBreaker> + Send + Sync + 'static,
        {
            self.shared.breaker = Some(::std::sync::Arc::new(breaker));
            self
        }

        /// Shares a retry budget with other calls: a
        /// [`RetryThrottle`](crate::RetryThrottle) as a `&'static` or in an
        /// `Arc`, or, since this feature is on, tower's `TpsBudget`. A refused
        /// retry ends the call with stop reason `Throttled`.
        ///
        /// ```
        /// use resilient::RetryThrottle;
        #[doc = concat!("use ", $path, ";")]
        ///
        /// static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.1);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(3).throttle(&THROTTLE);")]
        /// # let _ = layer;
        /// ```
        pub fn throttle<B>(mut self, budget: B) -> Self
        where
            B: $crate::RetryBudget + 'static,
        {
            self.shared.throttle = Some(::std::sync::Arc::new(budget));
            self
        }

        /// Takes a permit from `limiter` before each attempt (the first, a
        /// retry or a hedge) and returns it when the attempt ends, as the
        /// attribute's `limit`: a `&'static` limiter, one in an `Arc`, or
        /// one the layer owns, shared by every call. Called again, it adds
        /// another limiter, taken after the ones before it.
        ///
        /// An attempt refused a permit doesn't run: the call ends there,
        /// without a retry, with [`LimitExceeded`](crate::LimitExceeded) as
        /// its error and stop reason `LimitExceeded`. It takes no throttle
        /// token and the breaker doesn't count it. By default a refused
        /// attempt doesn't wait: see [`limit_wait`](Self::limit_wait).
        ///
        /// ```
        /// use resilient::limit::{Bulkhead, RateLimiter};
        #[doc = concat!("use ", $path, ";")]
        ///
        /// static POOL: Bulkhead = Bulkhead::new(32).named("pool");
        /// static QUOTA: RateLimiter = RateLimiter::per_minute(60).named("quota");
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).limit(&POOL).limit(&QUOTA);")]
        /// # let _ = layer;
        /// ```
        pub fn limit<L>(mut self, limiter: L) -> Self
        where
            L: $crate::limit::Limiter + 'static,
        {
            self.shared.limiters.push(::std::sync::Arc::new(limiter));
            self
        }

        /// How long an attempt may wait for the permits of its
        /// [`limit`](Self::limit)s: up to `wait`, and never past the
        /// budget. The wait counts against the budget and is the attempt's
        /// [`queued`](crate::AttemptRecord::queued) time in the report.
        /// Default: 0, don't wait.
        ///
        /// ```
        /// use resilient::limit::Bulkhead;
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        /// static POOL: Bulkhead = Bulkhead::new(32);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().limit(&POOL).limit_wait(Duration::from_millis(100));")]
        /// # let _ = layer;
        /// ```
        pub fn limit_wait(mut self, wait: ::std::time::Duration) -> Self {
            self.shared.limit_wait = wait;
            self
        }

        /// Injects chaos into the attempts, as the attribute's `chaos`: `switches`
        /// (a `&'static` [`Chaos`](crate::chaos::Chaos), or an array of one per
        /// kind, in the order fault, latency) decide attempt by attempt, and
        /// [`chaos_fault`](Self::chaos_fault) and
        /// [`chaos_latency`](Self::chaos_latency) say what to inject. While
        /// every switch is off, an attempt pays one relaxed load per switch.
        /// The report marks each injected attempt
        /// ([`AttemptRecord::injected`](crate::AttemptRecord::injected)).
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::chaos::Chaos;
        /// use std::time::Duration;
        ///
        /// // Off until a test or a staging config switches it on.
        /// static UPSTREAM: Chaos = Chaos::new().injection_rate(0.05);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new()")]
        ///     .retries(2)
        ///     .chaos(&UPSTREAM)
        ///     .chaos_fault(|| "injected outage")
        ///     .chaos_latency(Duration::from_millis(300));
        /// # let _ = layer;
        /// ```
        pub fn chaos(mut self, switches: impl ::std::convert::Into<$crate::chaos::Switches<'static>>) -> Self {
            self.shared.chaos.get_or_insert_with(::std::default::Default::default).switches =
                Some(switches.into());
            self
        }

        /// The error an injected fault fails the attempt with, made anew for
        /// each injection; the request is not sent. An injected fault is a
        /// retryable failure, as a dropped connection would be: the call
        /// retries it, the breaker counts it, and a call whose last attempt
        /// it was returns it. Needs [`chaos`](Self::chaos).
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::chaos::Chaos;
        ///
        /// static FAULTS: Chaos = Chaos::new().injection_rate(1.0);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().chaos(&FAULTS).chaos_fault(|| \"injected\");")]
        /// # let _ = layer;
        /// ```
        pub fn chaos_fault<F, X>(mut self, fault: F) -> Self
        where
            F: Fn() -> X + Send + Sync + 'static,
            X: ::std::convert::Into<::tower::BoxError>,
        {
            self.shared.chaos.get_or_insert_with(::std::default::Default::default).fault =
                Some(::std::sync::Arc::new(move || fault().into()));
            self
        }

        /// How long an injected attempt waits before it is sent, on the
        /// layer's clock and inside its deadline: a
        /// [`timeout`](Self::timeout) cuts it. Needs [`chaos`](Self::chaos).
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::chaos::Chaos;
        /// use std::time::Duration;
        ///
        /// static SLOW: Chaos = Chaos::new().injection_rate(0.1);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().chaos(&SLOW).chaos_latency(Duration::from_secs(2));")]
        /// # let _ = layer;
        /// ```
        pub fn chaos_latency(mut self, latency: ::std::time::Duration) -> Self {
            self.shared.chaos.get_or_insert_with(::std::default::Default::default).latency =
                Some(latency);
            self
        }

        /// Hedges slow attempts, as the attribute's `hedge`: an attempt
        /// still running after `delay` gets another beside it, with its own
        /// copy of the request, and the first to succeed is the answer; the
        /// other is dropped. Only requests that can be copied and that
        /// [`hedge_if`](Self::hedge_if) accepts are hedged; the others are
        /// sent one attempt at a time. A hedge counts in `attempt_count`,
        /// never in `retry_count`; the report records it as
        /// [`AttemptKind::Hedge`](crate::AttemptKind::Hedge), and the attempt
        /// it beat as cancelled. The breaker and the throttle are consulted
        /// before each hedge.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).hedge(Duration::from_millis(300));")]
        /// # let _ = layer;
        /// ```
        pub fn hedge(mut self, delay: ::std::time::Duration) -> Self {
            self.shared.hedge = Some(delay);
            self
        }

        /// How many hedges may run beside an attempt, one more after each
        /// [`hedge`](Self::hedge) delay, as the attribute's `max_hedges`
        /// (default 1; 0 turns hedging off).
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().hedge(Duration::from_millis(300)).max_hedges(2);")]
        /// # let _ = layer;
        /// ```
        pub fn max_hedges(mut self, max_hedges: u32) -> Self {
            self.shared.max_hedges = Some(max_hedges);
            self
        }

        /// Calls `listener` before each wait, as the attribute's `on_retry`.
        ///
        /// ```
        /// use resilient::RetryEvent;
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new()")]
        ///     .retries(2)
        ///     .on_retry(|event: &RetryEvent<'_>| eprintln!("attempt {} failed; waiting {:?}", event.attempt(), event.delay()));
        /// # let _ = layer;
        /// ```
        pub fn on_retry<F>(mut self, listener: F) -> Self
        where
            F: Fn(&$crate::RetryEvent<'_>) + Send + Sync + 'static,
        {
            self.shared.on_retry = Some(::std::sync::Arc::new(listener));
            self
        }

        /// Hands the report of every call to `hook`, when the call ends and
        /// before its result is returned, whatever the result.
        ///
        /// The hook is shared by every call, so it cannot tell which request a
        /// report is about; each report also rides on its response with the
        /// layer's [`attach_report`](crate::tower::ResilientLayer::attach_report),
        /// and always with the reqwest middleware.
        ///
        /// ```
        /// use resilient::ExecutionReport;
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new()")]
        ///     .retries(2)
        ///     .on_report(|report: &ExecutionReport| eprintln!("{report}"));
        /// # let _ = layer;
        /// ```
        pub fn on_report<F>(mut self, hook: F) -> Self
        where
            F: Fn(&$crate::ExecutionReport) + Send + Sync + 'static,
        {
            self.shared.on_report = Some(::std::sync::Arc::new(hook));
            self
        }
    };
}

#[cfg(feature = "reqwest")]
pub(crate) use resilient_setters;

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
