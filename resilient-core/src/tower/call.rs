//! One call through the engine, whatever sends its attempts: a tower
//! service ([`Resilient`](super::Resilient)) or the rest of a reqwest
//! middleware chain (`crate::reqwest`). [`Call::run`] gives each attempt
//! its copy of the request, judges each result with the classifier, and
//! turns the engine's outcome back into what the caller expects: the last
//! response, or the last error. A call with no gate before its first
//! attempt and no hedge ([`Call::is_plain`]) may instead run its first
//! attempt in the caller's own future: [`Call::first_started`] and
//! [`Call::first_ended`] time it, judge it and write the report of a
//! success without the engine, and [`Call::after_first`] runs the retries
//! after a failure.
//!
//! The engine retries on errors, while a service's failures may be
//! responses (a `503` is an `Ok` to the service). So an attempt whose
//! verdict is not a success travels through the engine as a [`Unsuccessful`],
//! which keeps the response or the error, and is turned back at the end.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ::tower::BoxError;

use super::classify::{Classifier, Verdict};
use super::hedge::Hedgeable;
use super::replay::{Reach, Resendable};
use super::request::CloneRequest;
use super::shared::{ChaosSpec, Shared};
use crate::clock::Clock;
use crate::engine::Operation;
use crate::engine::hooks::HookSet;
use crate::error::{CircuitOpen, TimedOut};
use crate::limit::{Completion, LimitExceeded, Limiter};
use crate::policy::RetryPolicy;
use crate::report::ExecutionReport;
use crate::settings::Settings;

/// What one call runs with: a layer's or a middleware's configuration,
/// borrowed.
pub(crate) struct Call<'a, Cl, C> {
    pub(crate) settings: &'a Settings,
    pub(crate) shared: &'a Shared,
    pub(crate) classifier: &'a Cl,
    pub(crate) clock: &'a C,
    /// Where the request goes, if known: each attempt's record and span
    /// say so.
    pub(crate) endpoint: Option<Arc<str>>,
    /// The request's own priority, in place of the settings', if it has one.
    pub(crate) priority: Option<crate::limit::Priority>,
    /// The call's way through the replicas: each attempt chooses one
    /// (see [`Route::latest`](crate::endpoint::Route::latest)), which the
    /// sender sends the request to.
    pub(crate) route: Option<&'a crate::endpoint::Route<'a>>,
    /// Whether a request that could be copied can't be any more (a
    /// streamed body past its replay buffer), asked once an attempt
    /// failed: no other attempt follows it then.
    pub(crate) committed: Option<&'a Committed<'a>>,
}

/// Says whether a call's request is committed: sent once, for good.
pub(crate) type Committed<'a> = dyn Fn() -> bool + Send + Sync + 'a;

impl<'a, Cl, C: Clock> Call<'a, Cl, C> {
    /// The call, sent to `endpoint`.
    pub(crate) fn at(self, endpoint: Option<Arc<str>>) -> Self {
        Call { endpoint, ..self }
    }

    /// The call, each attempt of which goes to a replica along `route`.
    pub(crate) fn routed(self, route: Option<&'a crate::endpoint::Route<'a>>) -> Self {
        Call { route, ..self }
    }

    /// The call, whose request is committed once `committed` says so.
    #[cfg(feature = "reqwest")]
    pub(crate) fn committed_by(self, committed: Option<&'a Committed<'a>>) -> Self {
        Call { committed, ..self }
    }

    /// The call, of the request's own `priority` if it has one.
    pub(crate) fn of_priority(self, priority: Option<crate::limit::Priority>) -> Self {
        Call { priority, ..self }
    }

    /// Runs the attempts, each sending its copy of `request` with `send`,
    /// until one succeeds or the engine stops; returns what the caller
    /// gets (the last response, or the last error) and the report.
    ///
    /// A request that `clone_request` can't copy is sent once, as it is:
    /// the call makes one attempt, and the text of its failure says why.
    /// A request that can be copied and that `hedge_if` accepts is hedged,
    /// if the configuration asks for hedges; after a failure that may have
    /// reached the server, it is sent again only if `resend_if` accepts it.
    pub(crate) async fn run<Req, Res, Err, E, Fut>(
        self,
        request: Req,
        clone_request: &impl CloneRequest<Req>,
        hedge_if: &impl Hedgeable<Req>,
        resend_if: &impl Resendable<Req, Res, Err, Cl>,
        send: impl Fn(Req) -> Fut,
    ) -> (Result<Res, E>, ExecutionReport)
    where
        Fut: Future<Output = Result<Res, Err>>,
        Err: Into<E>,
        E: EngineError,
        Cl: Classifier<Res, Err>,
    {
        let shared = self.shared;
        let hedge = shared
            .hedge_delay()
            .filter(|_| hedge_if.hedgeable(&request));
        let resend = resend_if.resendable(&request);
        let requests = Requests::new(request, clone_request);
        let cloneable = requests.cloneable;
        // Hedged attempts ask for their copies while others run.
        let requests = Mutex::new(requests);
        let spent = AtomicBool::new(false);
        let op = self.operation::<Res, Err, E>(cloneable, resend, &spent);
        let op = shared.gates.on(op);
        let limiters = LimiterRefs::new(&shared.limiters);
        let op = match limiters.as_slice() {
            [] => op,
            limiters => op.limit(limiters).limit_wait(shared.limit_wait),
        };
        let op = match &shared.chaos {
            Some(chaos) => with_chaos(op, chaos),
            None => op,
        };

        let window = shared.hedge_window.as_deref();
        let max_hedges = shared.max_hedges.unwrap_or(1);
        let endpoint = self.endpoint.as_deref();
        let (route, clock, committed) = (self.route, self.clock, self.committed);
        let attempt = |attempt: crate::Attempt| {
            let this = (shared, attempt.number(), endpoint);
            let routed = route.map(|route| (route, clock));
            self::attempt(
                &requests,
                (&spent, committed),
                cloneable,
                &send,
                self.classifier,
                this,
                routed,
            )
        };
        let outcome = match hedge {
            Some(delay) if cloneable => {
                let hedged = op.hedge(delay).max_hedges(max_hedges);
                let hedged = match window {
                    // A measured delay, within the cap on hedges.
                    Some(window) => hedged.window(window),
                    None => hedged,
                };
                hedged.run_async(attempt).await
            }
            _ => op.run_async(attempt).await,
        };
        let (result, mut report) = outcome.into_parts();
        if let Some(route) = route {
            report.each_went_to(|number| route.endpoint_of(number));
            // An attempt cut at its deadline never ended in `attempt`: its
            // replica gave no answer, a failure to the outlier detection.
            route.cut_short(&report, self.clock.now());
        }
        (result.or_else(Unsuccessful::into_result), report)
    }

    /// The engine's operation for one call, before the gates that ask
    /// before an attempt: the settings, the clock, the verdicts, the
    /// hooks, the name and the throttle. Built in place, field by field,
    /// rather than moved through a setter per option.
    ///
    /// A request that can't be copied gets one attempt, whatever its
    /// verdict: the record keeps the classifier's verdict (and the breaker
    /// and throttle count it), and its text says why nothing followed. A
    /// failure that may have reached the server is retried only if the
    /// request may be sent again (`resend`).
    pub(super) fn operation<'o, Res, Err, E>(
        &self,
        cloneable: bool,
        resend: bool,
        spent: &'o AtomicBool,
    ) -> Operation<'o, Res, Unsuccessful<Res, E>, &'o C, impl HookSet<Res, Unsuccessful<Res, E>> + 'o>
    where
        'a: 'o,
        E: EngineError,
        Cl: Classifier<Res, Err>,
    {
        let classifier = self.classifier;
        let shared = self.shared;
        let mut settings = *self.settings;
        // Each attempt's span is the layer's own (`span.rs`).
        settings.spans_elsewhere = true;
        if let Some(priority) = self.priority {
            settings.priority = priority;
        }
        if !cloneable {
            settings.max_attempts = 1;
            settings.max_retry_after_retries = 0;
            settings.attempts_fixed = true;
        }
        // A request sent once is not declined a retry it can't have.
        let resend = resend || !cloneable;
        let on_retry = shared.on_retry.as_deref();
        let on_report = shared.on_report.as_deref();
        let committed = self.committed;
        let mut op = Operation::new()
            .policy(&RetryPolicy { settings })
            .clock(self.clock)
            // A future can always be dropped, so the budget holds while an
            // attempt runs, with or without a timeout.
            .interrupt_at_deadline()
            // A copy refused after others were made leaves the original to
            // the last attempt: nothing may follow it.
            .retry_if(move |failed: &Unsuccessful<Res, E>| {
                failed.retryable
                    && !spent.load(Relaxed)
                    && failed.reach.allows_retry(resend)
                    && !committed.is_some_and(|committed| committed())
            })
            .retry_after(|failed: &Unsuccessful<Res, E>| failed.retry_after)
            .on_retry(move |event| {
                if let Some(hook) = on_retry {
                    hook(event);
                }
            })
            .on_report(move |report| {
                if let Some(hook) = on_report {
                    hook(report);
                }
            })
            .status_reader(move |result: Result<&Res, &Unsuccessful<Res, E>>| {
                match result {
                    Ok(response) => classifier.status(response),
                    Err(failed) => failed.status(classifier),
                }
                .unwrap_or(0)
            })
            .endpoint(self.endpoint.clone());
        // `policy` keeps the operation's own timeout.
        op.plan.settings.timeout = settings.timeout;
        if let Some(name) = &shared.name {
            op.plan.name = name.clone();
        }
        op.plan.gates.throttle = shared.throttle.as_deref();
        op
    }
}

/// One attempt of a call: the next copy of the request sent with `send`,
/// and its result judged by `classifier`. With the `tracing` feature it
/// runs in its span (`span.rs`), attempt `number` of the call `shared`
/// names.
#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
pub(super) fn attempt<'r, Req, R, S, Res, Err, E, Fut, Cl, C>(
    requests: &'r Mutex<Requests<'_, Req, R>>,
    (spent, committed): (&'r AtomicBool, Option<&'r Committed<'r>>),
    cloneable: bool,
    send: &S,
    classifier: &'r Cl,
    (shared, number, endpoint): (&Shared, u32, Option<&str>),
    routed: Option<Routed<'r, C>>,
) -> impl Future<Output = Result<Res, Unsuccessful<Res, E>>> + use<'r, Req, R, S, Res, Err, E, Fut, Cl, C>
where
    C: Clock,
    R: CloneRequest<Req>,
    S: Fn(Req) -> Fut,
    Fut: Future<Output = Result<Res, Err>>,
    Err: Into<E>,
    E: EngineError,
    Cl: Classifier<Res, Err>,
{
    #[cfg(feature = "tracing")]
    let span = super::span::attempt(shared.name.as_deref(), number, endpoint);
    #[cfg(feature = "tracing")]
    let entered = span.enter();
    let next = requests.lock().unwrap_or_else(|e| e.into_inner()).next();
    // Chosen right before `send`, which reads it as the route's latest.
    let replica = routed.and_then(|(route, clock)| route.choose(number, clock.now()));
    let sending = next.map(|(request, last)| {
        if last && cloneable {
            spent.store(true, Relaxed);
        }
        (send(request), last)
    });
    #[cfg(feature = "tracing")]
    drop(entered);
    #[cfg(feature = "tracing")]
    let of_attempt = span.clone();
    let attempt = async move {
        let Some((response, last)) = sending else {
            return Err(Unsuccessful::engine(RequestSpent, false));
        };
        let response = response.await;
        if let (Some((route, clock)), Some(replica)) = (routed, &replica) {
            // Envoy's outlier detection counts a 5xx, or no response.
            let failed = match &response {
                Ok(response) => classifier
                    .status(response)
                    .is_some_and(|status| status >= 500),
                Err(_) => true,
            };
            route.ended(replica, failed, clock.now());
        }
        let judged = Unsuccessful::judge(classifier, response);
        #[cfg(feature = "tracing")]
        if let Err(failed) = &judged {
            super::span::failed(&of_attempt, failed.error_type::<Err, Cl>(classifier));
        }
        judged.map_err(|failed| {
            let not_again = if last {
                Some(NOT_CLONED)
            } else if committed.is_some_and(|committed| committed()) {
                Some(COMMITTED)
            } else {
                None
            };
            Unsuccessful {
                not_again,
                ..failed
            }
        })
    };
    #[cfg(feature = "tracing")]
    let attempt = tracing::Instrument::instrument(attempt, span);
    attempt
}

/// An attempt's route: the call's, and the clock the detection reads.
pub(super) type Routed<'r, C> = (&'r crate::endpoint::Route<'r>, &'r C);

/// A layer's chaos on the operation of one call.
fn with_chaos<'b, Res, E, C, H>(
    op: Operation<'b, Res, Unsuccessful<Res, E>, C, H>,
    chaos: &'b ChaosSpec,
) -> Operation<'b, Res, Unsuccessful<Res, E>, C, H>
where
    E: EngineError,
{
    let Some(switches) = chaos.switches else {
        return op;
    };
    let op = op.chaos(switches);
    let op = match chaos.latency {
        Some(latency) => op.chaos_latency(latency),
        None => op,
    };
    match chaos.fault {
        Some(_) => op.chaos_fault_from(injected_fault::<Res, E>, chaos),
        None => op,
    }
}

/// The fault a layer's chaos injects: its maker's error, retryable.
fn injected_fault<Res, E: EngineError>(chaos: &(dyn Any + Send + Sync)) -> Unsuccessful<Res, E> {
    let error = match chaos
        .downcast_ref::<ChaosSpec>()
        .and_then(|c| c.fault.as_ref())
    {
        Some(fault) => E::injected(fault()),
        None => E::engine(RequestSpent),
    };
    Unsuccessful {
        failure: Returned::Error(error),
        retryable: true,
        retry_after: None,
        not_again: None,
        reach: Reach::unsent(),
    }
}

/// The layer's limiters as the engine takes them, a slice of references:
/// on the stack for up to [`INLINE`] of them, so that a call allocates
/// nothing for its limits.
enum LimiterRefs<'a> {
    Inline([&'a dyn Limiter; INLINE], usize),
    Heap(Vec<&'a dyn Limiter>),
}

/// How many limiters a call keeps on the stack.
const INLINE: usize = 4;

impl<'a> LimiterRefs<'a> {
    fn new(limiters: &'a [Arc<dyn Limiter>]) -> Self {
        if limiters.len() > INLINE {
            return LimiterRefs::Heap(limiters.iter().map(|l| &**l).collect());
        }
        // The unused slots are never read: the slice ends before them.
        let mut inline: [&'a dyn Limiter; INLINE] = [&Unused; INLINE];
        for (slot, limiter) in inline.iter_mut().zip(limiters) {
            *slot = &**limiter;
        }
        LimiterRefs::Inline(inline, limiters.len())
    }

    fn as_slice(&self) -> &[&'a dyn Limiter] {
        match self {
            LimiterRefs::Inline(inline, len) => &inline[..*len],
            LimiterRefs::Heap(heap) => heap,
        }
    }
}

/// Fills [`LimiterRefs`]' unused slots; admits everything.
struct Unused;

impl Limiter for Unused {
    fn try_acquire(&self, _: Instant) -> Result<(), LimitExceeded> {
        Ok(())
    }
    fn release(&self, _: Instant, _: Duration, _: Completion) {}
    fn name(&self) -> &'static str {
        "unused"
    }
}

/// The request of a call and the copies its attempts send.
pub(super) struct Requests<'r, Req, R> {
    original: Option<Req>,
    /// The copy made up front, for the first attempt.
    first: Option<Req>,
    /// Whether the up-front copy could be made: if not, the original is
    /// sent once.
    cloneable: bool,
    clone_request: &'r R,
}

impl<'r, Req, R: CloneRequest<Req>> Requests<'r, Req, R> {
    fn new(original: Req, clone_request: &'r R) -> Self {
        let first = clone_request.clone_request(&original);
        Requests {
            cloneable: first.is_some(),
            original: Some(original),
            first,
            clone_request,
        }
    }

    /// The request of a call whose first attempt sent a copy of it.
    #[cfg(feature = "reqwest")]
    pub(super) fn copied(original: Req, clone_request: &'r R) -> Self {
        Requests {
            original: Some(original),
            first: None,
            cloneable: true,
            clone_request,
        }
    }

    /// The request the next attempt sends, and whether it is the original,
    /// so that no other attempt can follow; `None` once the original is
    /// gone.
    fn next(&mut self) -> Option<(Req, bool)> {
        if let Some(copy) = self.first.take() {
            return Some((copy, false));
        }
        let original = self.original.take()?;
        let copy = if self.cloneable {
            self.clone_request.clone_request(&original)
        } else {
            None
        };
        match copy {
            Some(copy) => {
                self.original = Some(original);
                Some((copy, false))
            }
            None => Some((original, true)),
        }
    }
}

/// An error the engine makes, in the error type of the caller: a boxed
/// error for a tower service, reqwest-middleware's for a middleware.
pub(crate) trait EngineError: Sized + fmt::Display {
    fn engine(error: impl std::error::Error + Send + Sync + 'static) -> Self;
    /// An error injected by chaos, as its maker made it.
    fn injected(error: BoxError) -> Self;
}

impl EngineError for BoxError {
    fn engine(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Box::new(error)
    }
    fn injected(error: BoxError) -> Self {
        error
    }
}

/// An attempt asked for after the request, which could not be copied, was
/// sent: it is not sent again.
#[derive(Debug)]
struct RequestSpent;

impl fmt::Display for RequestSpent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the request was sent once and can't be copied for another attempt")
    }
}

impl std::error::Error for RequestSpent {}

/// The note of an attempt whose request could not be cloned.
const NOT_CLONED: &str = " (not retried: the request can't be cloned)";

/// The note of an attempt whose request was committed: its streamed
/// body passed the replay buffer, or ended in an error.
const COMMITTED: &str =
    " (not retried: the request is committed, its streamed body past the replay buffer)";

/// An attempt that failed, as the engine carries it: what the service
/// gave back, and the verdict on it.
pub(crate) struct Unsuccessful<Res, E> {
    failure: Returned<Res, E>,
    retryable: bool,
    retry_after: Option<Duration>,
    /// Why the request can't be sent again, when it can't: the report's
    /// text says so.
    not_again: Option<&'static str>,
    /// Whether the request may have reached the server.
    reach: Reach,
}

enum Returned<Res, E> {
    /// A response classified as a failure, and its text for the report.
    Response { response: Res, text: String },
    /// The service's error, or one the engine made (timeout, open circuit).
    Error(E),
}

impl<Res, E> Unsuccessful<Res, E> {
    /// The engine's view of one attempt's result.
    #[inline]
    fn judge<Err, Cl>(classifier: &Cl, result: Result<Res, Err>) -> Result<Res, Self>
    where
        Err: Into<E>,
        Cl: Classifier<Res, Err>,
    {
        match (classifier.classify(&result), result) {
            (Verdict::Success, Ok(response)) => Ok(response),
            (verdict, result) => Err(Unsuccessful::judged(classifier, verdict, result)),
        }
    }

    /// The failure of a result whose `verdict` is not a success with a
    /// response to return.
    pub(super) fn judged<Err, Cl>(
        classifier: &Cl,
        verdict: Verdict,
        result: Result<Res, Err>,
    ) -> Self
    where
        Err: Into<E>,
        Cl: Classifier<Res, Err>,
    {
        let (retryable, retry_after) = match verdict {
            Verdict::Retryable { retry_after } => (true, retry_after),
            // A success with no response to return: the error ends the call.
            Verdict::Success | Verdict::Fatal => (false, None),
        };
        let reach = if classifier.unprocessed(&result) {
            Reach::unsent()
        } else {
            Reach::maybe()
        };
        let failure = match result {
            Ok(response) => Returned::Response {
                text: classifier.describe(&response),
                response,
            },
            Err(error) => Returned::Error(error.into()),
        };
        Unsuccessful {
            failure,
            retryable,
            retry_after,
            not_again: None,
            reach,
        }
    }

    /// The HTTP status of the response it keeps, if any.
    fn status<Err, Cl: Classifier<Res, Err>>(&self, classifier: &Cl) -> Option<u16> {
        match &self.failure {
            Returned::Response { response, .. } => classifier.status(response),
            Returned::Error(_) => None,
        }
    }

    /// What OpenTelemetry's `error.type` says of it: the status code of
    /// the response it keeps, `_OTHER` for one without, or the name of the
    /// service's error type.
    #[cfg(feature = "tracing")]
    pub(super) fn error_type<Err, Cl: Classifier<Res, Err>>(
        &self,
        classifier: &Cl,
    ) -> super::span::ErrorType {
        use super::span::ErrorType;
        match (&self.failure, self.status(classifier)) {
            (_, Some(code)) => ErrorType::Status(code),
            (Returned::Response { .. }, None) => ErrorType::Named("_OTHER"),
            (Returned::Error(_), None) => ErrorType::Named(std::any::type_name::<Err>()),
        }
    }

    /// What the caller gets when this was the last attempt.
    pub(super) fn into_result(self) -> Result<Res, E> {
        match self.failure {
            Returned::Response { response, .. } => Ok(response),
            Returned::Error(error) => Err(error),
        }
    }

    /// A failure the engine made rather than the service.
    fn engine(error: impl std::error::Error + Send + Sync + 'static, retryable: bool) -> Self
    where
        E: EngineError,
    {
        Unsuccessful {
            failure: Returned::Error(E::engine(error)),
            retryable,
            retry_after: None,
            not_again: None,
            reach: Reach::unsent(),
        }
    }
}

/// A late attempt: retryable, as the default classifier has every error,
/// but the request may have reached the server.
impl<Res, E: EngineError> From<TimedOut> for Unsuccessful<Res, E> {
    fn from(error: TimedOut) -> Self {
        Unsuccessful {
            reach: Reach::maybe(),
            ..Unsuccessful::engine(error, true)
        }
    }
}

/// An attempt the breaker rejected: retryable, as the default classifier
/// has every error.
impl<Res, E: EngineError> From<CircuitOpen> for Unsuccessful<Res, E> {
    fn from(error: CircuitOpen) -> Self {
        Unsuccessful::engine(error, true)
    }
}

/// An attempt the adaptive throttle refused: the call ends there,
/// whatever the classifier would say.
impl<Res, E: EngineError> From<crate::throttle::Rejected> for Unsuccessful<Res, E> {
    fn from(error: crate::throttle::Rejected) -> Self {
        Unsuccessful::engine(error, false)
    }
}

/// An attempt a limiter refused: the call ends there, whatever the
/// classifier would say.
impl<Res, E: EngineError> From<LimitExceeded> for Unsuccessful<Res, E> {
    fn from(error: LimitExceeded) -> Self {
        Unsuccessful::engine(error, false)
    }
}

/// The report's text: the response's description, or the error's own,
/// and why no retry followed when the request could not be copied or may
/// not run twice.
impl<Res, E: fmt::Display> fmt::Display for Unsuccessful<Res, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            Returned::Response { text, .. } => f.write_str(text)?,
            Returned::Error(error) => fmt::Display::fmt(error, f)?,
        }
        if let Some(note) = self.not_again {
            f.write_str(note)?;
        }
        if let Some(note) = self.reach.note() {
            f.write_str(note)?;
        }
        Ok(())
    }
}
