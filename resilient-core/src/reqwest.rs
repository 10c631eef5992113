//! A reqwest-middleware [`Middleware`] (feature `reqwest`):
//! [`ResilientMiddleware`] runs each request of a
//! `reqwest_middleware::ClientWithMiddleware` through the engine of
//! `#[resilient]` and of the tower layer: the same counting, backoff,
//! Retry-After path, per-attempt timeout, budget, circuit breaker,
//! throttle, hedging of idempotent requests and report, configured with
//! the layer's names.
//!
//! It takes the place of reqwest-retry's `RetryTransientMiddleware` in a
//! chain; what the two classify differently is listed in the guide's HTTP chapter (`resilient::guide::http`).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use ::reqwest::{Request, Response};
use ::reqwest_middleware::{Error, Middleware, Next};
use http::Extensions;

use crate::clock::{Clock, TokioClock};
use crate::deadline::header::{DeadlineHeader, HoldHeader};
use crate::endpoint::EndpointBreakers;
use crate::error::TimedOut;
use crate::settings::Settings;
use crate::tower::{
    Call, Classifier, EngineError, FirstFailed, HttpClassifier, ReportExtension, Shared,
};
use crate::tower::{Hedgeable, IdempotentRequests, Resendable};
use crate::tower::{attach_to, per_endpoint_setters, resilient_setters};

mod coalesce;
mod error;
mod replay;
mod replicas;

use coalesce::Coalescing;

/// How a middleware sends each request, beside the engine's settings:
/// whether it coalesces, its replicas, its replay buffer.
#[derive(Clone, Default)]
struct Sending {
    coalesce: Option<Coalescing>,
    routing: Option<crate::endpoint::Routing>,
    /// The most bytes of a streamed body kept to send it again.
    replay: Option<usize>,
}

/// A reqwest-middleware [`Middleware`] that makes each request resilient:
/// retries with backoff and jitter, Retry-After waits that spend no
/// retry, a per-attempt timeout within an overall budget, a circuit
/// breaker, a retry throttle, limits on concurrency and rate, and an [`ExecutionReport`](crate::ExecutionReport)
/// of every request in its response's extensions.
///
/// Its builder has [`ResilientLayer`](crate::tower::ResilientLayer)'s
/// names. New middlewares make one attempt, as the attribute does without
/// `retries`.
///
/// ```
/// use resilient::ExecutionReport;
/// use resilient::reqwest::ResilientMiddleware;
/// use std::time::Duration;
///
/// # async fn get() -> Result<(), reqwest_middleware::Error> {
/// let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
///     .with(ResilientMiddleware::new().retries(3).timeout(Duration::from_secs(2)).budget(Duration::from_secs(10)))
///     .build();
///
/// let response = client.get("http://127.0.0.1:8080/users/7").send().await?;
/// let report = response.extensions().get::<ExecutionReport>().unwrap();
/// println!("{} after {} attempt(s)", response.status(), report.attempt_count());
/// # Ok(())
/// # }
/// ```
///
/// # What is retried
///
/// [`HttpClassifier`] decides, by the table of
/// [`http::is_retryable`](crate::http::is_retryable): a retryable status
/// (408, 429, most 5xx) is retried, and its `Retry-After` wait (seconds or
/// an HTTP-date) is waited exactly, without spending a retry; another 4xx
/// or 5xx is returned after one attempt. An error is retried (connect,
/// timeout, a connection reset), except a request that can't be built or
/// that follows too many redirects, and an error from another middleware.
/// [`classify`](Self::classify) takes your own rule.
///
/// A retry sends the request again, so a POST or a PATCH (without an
/// `Idempotency-Key` header) is retried only when the server said it did
/// not process it: a refused connection, a `408`, a `429`, a `503` with
/// `Retry-After`. After a timeout, another retryable status (a `500`, a
/// `502`) or a connection cut once the request was written, the server
/// may have run it, and it is sent once: its attempt records
/// `retryable() == false`, its text ends with "(not retried: the server
/// may have processed it, and the request is not idempotent)", and the
/// call stops with `StopReason::NotRetryable`. GET, HEAD, OPTIONS, TRACE,
/// PUT and DELETE, and a request of any method with an `Idempotency-Key`
/// header, are retried as the classifier says.
/// [`resend_if`](Self::resend_if) changes which requests may be sent
/// again.
///
/// # What the caller gets
///
/// The last response, whatever its status (a `503` once the retries are
/// spent is still the server's answer), with the report in its extensions;
/// or the last error: reqwest's, or the engine's
/// [`TimedOut`], [`CircuitOpen`](crate::CircuitOpen) or
/// [`LimitExceeded`](crate::LimitExceeded) (a [`limit`](Self::limit)
/// refused the request before it was sent) as an `Error::Middleware`,
/// which downcasts to them.
///
/// # Requests that can't be cloned
///
/// Each attempt sends a copy of the request (`Request::try_clone`). A
/// request with a streaming body can't be copied: it is sent once, as it
/// is, and its response or error is the caller's, with no retry whatever
/// the classifier says; the report's text of that failure ends with "(not
/// retried: the request can't be cloned)". (reqwest-retry fails such a
/// request with an error instead.) With
/// [`replay_buffer`](Self::replay_buffer), a streamed body is kept as it
/// is sent, up to a limit, and sent again while it fits.
///
/// # Hedging
///
/// With [`hedge`](Self::hedge), a request still running after the delay
/// gets a copy sent beside it, and the first to succeed is the answer.
/// Only requests that may be sent twice are hedged: by default
/// ([`IdempotentRequests`]) those whose method is idempotent by RFC 9110
/// (GET, HEAD, OPTIONS, TRACE, PUT, DELETE), and those that carry an
/// `Idempotency-Key` header, which is how a caller says that a POST is
/// safe to repeat. Any other request, and one with a streaming body, is
/// sent one attempt at a time. [`hedge_if`](Self::hedge_if) takes another
/// rule.
///
/// ```
/// use resilient::reqwest::ResilientMiddleware;
/// use std::time::Duration;
///
/// # async fn get() -> Result<(), reqwest_middleware::Error> {
/// let client = reqwest_middleware::ClientBuilder::new(reqwest::Client::new())
///     .with(ResilientMiddleware::new().retries(2).timeout(Duration::from_secs(2)).hedge(Duration::from_millis(300)))
///     .build();
///
/// // Hedged after 300 ms.
/// let user = client.get("http://127.0.0.1:8080/users/7").send().await?;
/// // Never hedged: a POST without an `Idempotency-Key`.
/// let order = client.post("http://127.0.0.1:8080/orders").body("{}").send().await?;
/// // Hedged: the server runs a key once.
/// let paid = client.post("http://127.0.0.1:8080/payments").header("idempotency-key", "order-8e2f").body("{}").send().await?;
/// # let _ = (user, order, paid);
/// # Ok(())
/// # }
/// ```
///
/// # Extensions
///
/// Each attempt runs the rest of the chain with a copy of the extensions
/// the middleware was given; those of the last attempt to finish are
/// handed back.
#[derive(Clone)]
#[must_use = "a middleware does nothing until it is added to a client"]
pub struct ResilientMiddleware<
    Cl = HttpClassifier,
    C = TokioClock,
    H = IdempotentRequests,
    P = IdempotentRequests,
> {
    settings: Settings,
    shared: Shared,
    classifier: Cl,
    clock: C,
    hedge_if: H,
    resend_if: P,
    sending: Sending,
}

impl ResilientMiddleware {
    /// A middleware with the engine's defaults: one attempt, exponential
    /// backoff from 100 ms to 10 s with full jitter, no caps,
    /// [`HttpClassifier`], tokio's clock.
    ///
    /// ```
    /// use resilient::reqwest::ResilientMiddleware;
    ///
    /// let middleware = ResilientMiddleware::new().retries(2);
    /// # let _ = middleware;
    /// ```
    pub fn new() -> Self {
        ResilientMiddleware {
            settings: Settings::DEFAULT,
            shared: Shared::default(),
            classifier: HttpClassifier,
            clock: TokioClock,
            hedge_if: IdempotentRequests,
            resend_if: IdempotentRequests,
            sending: Sending::default(),
        }
    }
}

impl Default for ResilientMiddleware {
    fn default() -> Self {
        Self::new()
    }
}

impl<Cl, C, H, P> ResilientMiddleware<Cl, C, H, P> {
    resilient_setters!(
        ResilientMiddleware,
        "resilient::reqwest::ResilientMiddleware"
    );

    /// Gives each endpoint (`host:port` of the request's URL, with the
    /// scheme's default port when it has none) a breaker of its own from
    /// `breakers`, in place of any set with `circuit_breaker`: one sick host
    /// opens its own breaker and no other. See [`crate::endpoint`] for how
    /// the map stays bounded.
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use resilient::endpoint::EndpointBreakers;
    /// use resilient::reqwest::ResilientMiddleware;
    /// use std::sync::Arc;
    ///
    /// let breakers = Arc::new(
    ///     EndpointBreakers::builder("payments")
    ///         .template(CircuitBreaker::builder().failure_threshold(5))
    ///         .build()?,
    /// );
    /// let middleware = ResilientMiddleware::new().retries(2).per_endpoint(breakers);
    /// # let _ = middleware;
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    pub fn per_endpoint(mut self, breakers: std::sync::Arc<EndpointBreakers>) -> Self {
        self.shared.per_key.breakers = Some(breakers);
        self
    }

    /// [`per_endpoint`](Self::per_endpoint), with the key of each
    /// request's breaker made by `key` rather than its `host:port`: a
    /// tenant, a shard, a route.
    ///
    /// ```
    /// use resilient::endpoint::EndpointBreakers;
    /// use resilient::reqwest::ResilientMiddleware;
    /// use std::sync::Arc;
    ///
    /// let breakers = Arc::new(EndpointBreakers::builder("search").build()?);
    /// // One breaker per shard, named by the first segment of the path.
    /// let middleware = ResilientMiddleware::new().per_endpoint_by(breakers, |request: &reqwest::Request| {
    ///     request.url().path_segments().and_then(|mut s| s.next()).unwrap_or("").to_owned()
    /// });
    /// # let _ = middleware;
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    pub fn per_endpoint_by<F>(self, breakers: std::sync::Arc<EndpointBreakers>, key: F) -> Self
    where
        F: Fn(&Request) -> String + Send + Sync + 'static,
    {
        self.per_endpoint(breakers).endpoint_key(key)
    }

    per_endpoint_setters!(
        ResilientMiddleware,
        "resilient::reqwest::ResilientMiddleware"
    );

    /// Names each request's endpoint by `key` rather than its `host:port`,
    /// for all the state kept per endpoint
    /// ([`per_endpoint`](Self::per_endpoint),
    /// [`per_endpoint_throttle`](Self::per_endpoint_throttle),
    /// [`per_endpoint_limits`](Self::per_endpoint_limits)).
    ///
    /// ```
    /// use resilient::endpoint::EndpointThrottles;
    /// use resilient::reqwest::ResilientMiddleware;
    /// use std::sync::Arc;
    ///
    /// let throttles = Arc::new(EndpointThrottles::builder("search").build()?);
    /// // A throttle per tenant, named by a header.
    /// let middleware = ResilientMiddleware::new()
    ///     .retries(2)
    ///     .per_endpoint_throttle(throttles)
    ///     .endpoint_key(|request: &reqwest::Request| {
    ///         let tenant = request.headers().get("x-tenant").and_then(|v| v.to_str().ok());
    ///         tenant.unwrap_or("").to_owned()
    ///     });
    /// # let _ = middleware;
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    pub fn endpoint_key<F>(mut self, key: F) -> Self
    where
        F: Fn(&Request) -> String + Send + Sync + 'static,
    {
        self.shared.per_key.key = Some(crate::endpoint::key_fn(key));
        self
    }

    /// Sends each attempt's deadline downstream in `header`: what the
    /// attempt has left when it is sent, `min(timeout, budget left,
    /// deadline inherited from the call around it)` less the time already
    /// spent in it. An attempt without a deadline sends no header (a value
    /// the request already carries stays). Off by default.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    /// use resilient::reqwest::ResilientMiddleware;
    /// use std::time::Duration;
    ///
    /// // `grpc-timeout: 2S` on the first attempt, less on a retry late in the budget.
    /// let grpc = ResilientMiddleware::new()
    ///     .retries(2)
    ///     .timeout(Duration::from_secs(2))
    ///     .budget(Duration::from_secs(5))
    ///     .send_deadline(DeadlineHeader::grpc_timeout());
    /// // `x-request-timeout-ms: 2000`.
    /// let millis = ResilientMiddleware::new()
    ///     .timeout(Duration::from_secs(2))
    ///     .send_deadline(DeadlineHeader::millis(http::HeaderName::from_static("x-request-timeout-ms")));
    /// # let _ = (grpc, millis);
    /// ```
    pub fn send_deadline(mut self, header: DeadlineHeader) -> Self {
        self.shared.send_deadline = Some(header);
        self
    }

    /// Sends `header` (`1`) on each attempt that holds the retries of the
    /// calls below, so that the service it reaches, with a
    /// [`ServerHoldLayer`](crate::tower::ServerHoldLayer), makes its own
    /// calls decline their retries: every attempt of this middleware when
    /// it has `.nested(Nested::NoRetry)` and retries, its last one
    /// included, and every request sent from inside an attempt that holds
    /// them (a handler run with the hold, a `nested = "no_retry"` call).
    /// Other attempts send no header (a value the request already carries
    /// stays). Off by default.
    ///
    /// ```
    /// use resilient::deadline::{Nested, header::{DeadlineHeader, HoldHeader}};
    /// use resilient::reqwest::ResilientMiddleware;
    /// use std::time::Duration;
    ///
    /// // `x-caller-retries: 1` and `grpc-timeout` on each of the 4 attempts.
    /// let middleware = ResilientMiddleware::new()
    ///     .retries(3)
    ///     .timeout(Duration::from_secs(2))
    ///     .nested(Nested::NoRetry)
    ///     .send_deadline(DeadlineHeader::grpc_timeout())
    ///     .send_hold(HoldHeader::default());
    /// # let _ = middleware;
    /// ```
    pub fn send_hold(mut self, header: HoldHeader) -> Self {
        self.shared.send_hold = Some(header);
        self
    }

    /// Decides what each attempt's result means: a
    /// [`Classifier`] of
    /// `Result<reqwest::Response, reqwest_middleware::Error>`, such as a
    /// closure returning a [`Verdict`](crate::tower::Verdict). Default:
    /// [`HttpClassifier`].
    ///
    /// ```
    /// use resilient::reqwest::ResilientMiddleware;
    /// use resilient::tower::Verdict;
    ///
    /// // Retries only 503s; anything else is the answer.
    /// fn only_503(result: &Result<reqwest::Response, reqwest_middleware::Error>) -> Verdict {
    ///     match result {
    ///         Ok(response) if response.status() == 503 => Verdict::Retryable { retry_after: None },
    ///         Ok(_) => Verdict::Success,
    ///         Err(_) => Verdict::Fatal,
    ///     }
    /// }
    ///
    /// let middleware = ResilientMiddleware::new().retries(2).classify(only_503);
    /// # let _ = middleware;
    /// ```
    pub fn classify<Cl2>(self, classifier: Cl2) -> ResilientMiddleware<Cl2, C, H, P> {
        ResilientMiddleware {
            settings: self.settings,
            shared: self.shared,
            classifier,
            clock: self.clock,
            hedge_if: self.hedge_if,
            resend_if: self.resend_if,
            sending: self.sending,
        }
    }

    /// The time source for deadlines, waits and the report; default
    /// [`TokioClock`], which follows tokio's paused test time.
    ///
    /// ```
    /// use resilient::SystemClock;
    /// use resilient::reqwest::ResilientMiddleware;
    ///
    /// let middleware = ResilientMiddleware::new().clock(SystemClock);
    /// # let _ = middleware;
    /// ```
    pub fn clock<C2: Clock>(self, clock: C2) -> ResilientMiddleware<Cl, C2, H, P> {
        ResilientMiddleware {
            settings: self.settings,
            shared: self.shared,
            classifier: self.classifier,
            clock,
            hedge_if: self.hedge_if,
            resend_if: self.resend_if,
            sending: self.sending,
        }
    }

    /// Which requests may be [hedged](Self::hedge). Default:
    /// [`IdempotentRequests`], those whose method is idempotent by RFC 9110
    /// (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) or that carry an
    /// `Idempotency-Key` header; a POST without one is never hedged. Mark a
    /// request that is safe to send twice with that header, or give your
    /// own rule here. A request with a streaming body can't be copied, so
    /// it is never hedged, whatever the rule.
    ///
    /// ```
    /// use resilient::reqwest::ResilientMiddleware;
    /// use std::time::Duration;
    ///
    /// // Hedge the reads of the search API, POSTs included; nothing else.
    /// let middleware = ResilientMiddleware::new()
    ///     .hedge(Duration::from_millis(300))
    ///     .hedge_if(|request: &reqwest::Request| request.url().path().starts_with("/search"));
    /// # let _ = middleware;
    /// ```
    pub fn hedge_if<H2>(self, rule: H2) -> ResilientMiddleware<Cl, C, H2, P> {
        ResilientMiddleware {
            settings: self.settings,
            shared: self.shared,
            classifier: self.classifier,
            clock: self.clock,
            hedge_if: rule,
            resend_if: self.resend_if,
            sending: self.sending,
        }
    }

    /// Which requests may be sent again after an attempt that may have
    /// reached the server failed: a timeout, a `500` or another failing
    /// status, a connection reset once the request was written, after
    /// which a retry would have the server run the request twice. Default:
    /// [`IdempotentRequests`], those whose method is idempotent by RFC 9110
    /// (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) or that carry an
    /// `Idempotency-Key` header. See [What is retried](Self#what-is-retried).
    ///
    /// Every request, whatever its method, is retried after a failure the
    /// server said it did not process: a refused connection, a `408`, a `429`, a
    /// `503` with `Retry-After`.
    ///
    /// A client whose POSTs are all safe to repeat (its server dedupes
    /// them) opts in with [`EveryRequest`](crate::tower::EveryRequest):
    ///
    /// ```
    /// use resilient::reqwest::ResilientMiddleware;
    /// use resilient::tower::EveryRequest;
    ///
    /// let middleware = ResilientMiddleware::new().retries(3).resend_if(EveryRequest);
    /// # let _ = middleware;
    /// ```
    ///
    /// Or a rule of its own sees each request; here the searches, POSTs
    /// that change nothing, are sent again too:
    ///
    /// ```
    /// use resilient::http::is_idempotent;
    /// use resilient::reqwest::ResilientMiddleware;
    ///
    /// let middleware = ResilientMiddleware::new().retries(3).resend_if(|request: &reqwest::Request| {
    ///     is_idempotent(request.method(), request.headers()) || request.url().path() == "/search"
    /// });
    /// # let _ = middleware;
    /// ```
    pub fn resend_if<P2>(self, rule: P2) -> ResilientMiddleware<Cl, C, H, P2> {
        ResilientMiddleware {
            settings: self.settings,
            shared: self.shared,
            classifier: self.classifier,
            clock: self.clock,
            hedge_if: self.hedge_if,
            resend_if: rule,
            sending: self.sending,
        }
    }
}

impl<Cl, C, H, P> ResilientMiddleware<Cl, C, H, P>
where
    Cl: Classifier<Response, Error> + Send + Sync,
    C: Clock,
    H: Hedgeable<Request>,
    P: Resendable<Request, Response, Error, Cl>,
{
    /// The configuration of each request's call.
    fn call(&self) -> Call<'_, Cl, C> {
        self.call_with(&self.shared)
    }

    /// Where `request` goes: the key of the key function, if one is set,
    /// or else `host:port`.
    fn endpoint_of(&self, request: &Request) -> Option<Arc<str>> {
        let key = self.shared.per_key.key_of(request).or_else(|| {
            let url = request.url();
            let host = url.host_str()?;
            Some(crate::endpoint::key_of(host, url.port_or_known_default()))
        });
        key.map(Arc::from)
    }

    /// [`call`](Self::call) with `shared` in place of the middleware's own.
    fn call_with<'a>(&'a self, shared: &'a Shared) -> Call<'a, Cl, C> {
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

    /// One request: its attempts through the engine, each running the
    /// rest of the chain with a copy of the extensions as they were given;
    /// those of the last attempt to finish are handed back.
    async fn run(
        &self,
        request: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> Result<Response, Error> {
        self.run_with(&self.shared, request, extensions, next).await
    }

    /// [`run`](Self::run) with the state of the request's endpoint, from
    /// the maps set with [`per_endpoint`](Self::per_endpoint),
    /// [`per_endpoint_throttle`](Self::per_endpoint_throttle) and
    /// [`per_endpoint_limits`](Self::per_endpoint_limits).
    async fn run_endpoint(
        &self,
        request: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> Result<Response, Error> {
        let shared = self
            .shared
            .for_endpoint(&request, |request: &Request| {
                let url = request.url();
                let host = url.host_str()?;
                Some(crate::endpoint::key_of(host, url.port_or_known_default()))
            })
            .unwrap_or_else(|| self.shared.clone());
        self.run_with(&shared, request, extensions, next).await
    }

    async fn run_with(
        &self,
        shared: &Shared,
        request: Request,
        extensions: &mut Extensions,
        next: Next<'_>,
    ) -> Result<Response, Error> {
        let given = &*extensions;
        let last = Mutex::new(None);
        let route = self
            .sending
            .routing
            .as_ref()
            .map(|routing| routing.route(shared.operation()));
        let send = sender!(next, given, last, shared, route.as_ref());
        let endpoint = self.endpoint_of(&request);
        let priority = given.get::<crate::limit::Priority>().copied();
        let mut request = request;
        let replay = replay::Replay::take(&mut request, self.sending.replay);
        let committed = replay.as_deref().map(|replay| move || replay.committed());
        let (response, report) = self
            .call_with(shared)
            .at(endpoint)
            .routed(route.as_ref())
            .of_priority(priority)
            .committed_by(
                committed
                    .as_ref()
                    .map(|c| c as &crate::tower::Committed<'_>),
            )
            .run(
                request,
                &|request: &Request| replay::copy(request, replay.as_ref()),
                &replay::UnlessStreamed(&self.hedge_if, replay.is_some()),
                &self.resend_if,
                send,
            )
            .await;
        if let Some(own) = last.into_inner().unwrap_or_else(|e| e.into_inner()) {
            *extensions = own;
        }
        attach_to(&ReportExtension, response, report)
    }

    /// [`run`](Self::run) for a middleware whose calls are plain
    /// ([`Call::is_plain`]): the first attempt runs the chain with the
    /// caller's extensions themselves, in a future that holds the request,
    /// its copy in flight and little else; only after a failure does the
    /// engine take over, boxed, each later attempt with a copy of the
    /// extensions as they were given.
    ///
    /// A function returning its future rather than an `async fn`, which
    /// would move the request once more, into a local of its own.
    #[allow(clippy::manual_async_fn)]
    fn run_plain<'a>(
        &'a self,
        request: Request,
        extensions: &'a mut Extensions,
        next: Next<'a>,
    ) -> impl Future<Output = Result<Response, Error>> + 'a {
        async move {
            let Some(copy) = request.try_clone() else {
                // Sent once, as it is: the general path says why.
                return Box::pin(self.run(request, extensions, next)).await;
            };
            let given = extensions.clone();
            let call = self.call().at(self.endpoint_of(&request));
            #[cfg(feature = "tracing")]
            let span = call.first_span();
            let started = call.first_started();
            let mut output = {
                let sent = next.clone().run(copy, extensions);
                #[cfg(feature = "tracing")]
                let sent = tracing::Instrument::instrument(sent, span.clone());
                let mut sent = sent;
                started.within(call.clock, Pin::new(&mut sent)).await
            };
            if let Some(first) = call.first_ended(started, &mut output, &ReportExtension) {
                #[cfg(feature = "tracing")]
                call.first_failed_in::<_, Error, _>(&span, &first);
                let rest = self.after_first(request, extensions, given, next, first);
                return Box::pin(rest).await;
            }
            // Only a success is left in `output`.
            output.unwrap_or_else(|| Err(Error::engine(TimedOut)))
        }
    }

    /// The attempts after a plain call's first one failed: each runs the
    /// chain with its own copy of the `given` extensions, and those of the
    /// last to finish are handed back. If none finished and the first was
    /// cut at its deadline, which may have left its marks, the extensions
    /// go back as they were given.
    async fn after_first(
        &self,
        request: Request,
        extensions: &mut Extensions,
        given: Extensions,
        next: Next<'_>,
        first: FirstFailed<Response, Error>,
    ) -> Result<Response, Error> {
        let last = Mutex::new(None);
        let cut = first.cut;
        let result = {
            let send = sender!(next, &given, last, &self.shared, None);
            let rest = self.call().at(self.endpoint_of(&request)).after_first(
                request,
                &Request::try_clone,
                &self.resend_if,
                send,
                first,
            );
            let (result, report) = rest.await;
            attach_to(&ReportExtension, result, report)
        };
        match last.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(own) => *extensions = own,
            None if cut => *extensions = given,
            None => {}
        }
        result
    }
}

/// The closure that sends one attempt's request down the rest of the
/// chain with its own copy of the `given` extensions, its deadline in the
/// `shared` deadline header if there is one, and the hold in its hold
/// header if the attempt holds the retries below, and keeps the
/// extensions in `last` when the attempt ends.
macro_rules! sender {
    ($next:ident, $given:expr, $last:ident, $shared:expr, $route:expr) => {{
        let given: &Extensions = $given;
        let last = &$last;
        let next = &$next;
        let shared: &Shared = $shared;
        let route: Option<&crate::endpoint::Route<'_>> = $route;
        let (deadline, hold) = (shared.send_deadline.as_ref(), shared.send_hold.as_ref());
        move |mut request: Request| {
            let next = next.clone();
            let mut own = given.clone();
            if let Some(replica) = route.and_then(crate::endpoint::Route::latest) {
                replicas::redirect(&mut request, &replica);
            }
            async move {
                // Polled within the attempt's deadline: what it has left
                // now, as it is sent.
                if let Some(header) = deadline {
                    header.stamp(request.headers_mut());
                }
                if let Some(header) = hold {
                    header.stamp(request.headers_mut());
                }
                let result = next.run(request, &mut own).await;
                *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(own);
                result
            }
        }
    }};
}
use sender;

impl<Cl, C, H, P> Middleware for ResilientMiddleware<Cl, C, H, P>
where
    Cl: Classifier<Response, Error> + Send + Sync + 'static,
    C: Clock + Send + Sync + 'static,
    H: Hedgeable<Request> + Send + Sync + 'static,
    P: Resendable<Request, Response, Error, Cl> + Send + Sync + 'static,
{
    fn handle<'life0, 'life1, 'life2, 'async_trait>(
        &'life0 self,
        request: Request,
        extensions: &'life1 mut Extensions,
        next: Next<'life2>,
    ) -> Pin<Box<dyn Future<Output = Result<Response, Error>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        'life2: 'async_trait,
        Self: 'async_trait,
    {
        if let Some(coalescing) = &self.sending.coalesce
            && let Some(key) = coalescing.key_of(&request)
        {
            return Box::pin(coalescing.run(key, move || self.dispatch(request, extensions, next)));
        }
        self.dispatch(request, extensions, next)
    }
}

impl<Cl, C, H, P> ResilientMiddleware<Cl, C, H, P>
where
    Cl: Classifier<Response, Error> + Send + Sync + 'static,
    C: Clock + Send + Sync + 'static,
    H: Hedgeable<Request> + Send + Sync + 'static,
    P: Resendable<Request, Response, Error, Cl> + Send + Sync + 'static,
{
    /// The call of `request` on the path that fits it.
    fn dispatch<'a>(
        &'a self,
        request: Request,
        extensions: &'a mut Extensions,
        next: Next<'a>,
    ) -> Pin<Box<dyn Future<Output = Result<Response, Error>> + Send + 'a>> {
        // Two futures, each laid out for its own path: a call with no gate
        // before its first attempt and no hedge carries none of their state.
        if self.shared.per_key.is_set() {
            Box::pin(self.run_endpoint(request, extensions, next))
        } else if self.sending.routing.is_none() && self.call().is_plain() {
            Box::pin(self.run_plain(request, extensions, next))
        } else {
            Box::pin(self.run(request, extensions, next))
        }
    }
}

impl<Cl, C, H, P> fmt::Debug for ResilientMiddleware<Cl, C, H, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResilientMiddleware")
            .field("settings", &self.settings)
            .field("shared", &self.shared)
            .field("classifier", &std::any::type_name::<Cl>())
            .field("clock", &std::any::type_name::<C>())
            .field("hedge_if", &std::any::type_name::<H>())
            .field("resend_if", &std::any::type_name::<P>())
            .finish()
    }
}
