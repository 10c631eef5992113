//! The plain path of a call: one with no gate before its first attempt
//! and no hedge ([`Call::is_plain`]), whose first attempt runs in the
//! caller's own future. [`Call::first_started`] and [`Call::first_ended`]
//! time it, judge it and write the report of a success without building
//! the engine's operation; [`Call::after_first`] runs the retries, in the
//! engine, after a failure. The reqwest middleware takes it.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::attach::AttachReport;
use super::call::{Call, EngineError, Requests, Unsuccessful};
use super::classify::{Classifier, Verdict};
use super::replay::Resendable;
use super::request::CloneRequest;
use crate::clock::Clock;
use crate::engine::attempt::run::Grant;
use crate::engine::attempt::terms;
use crate::engine::gates::Gates;
use crate::engine::plan::{Listeners, Read, entry};
use crate::error::TimedOut;
use crate::report::{ExecutionReport, FailureKind, UNNAMED};
use crate::settings::deadline;

impl<Cl, C: Clock> Call<'_, Cl, C> {
    /// Whether the call's first attempt can run outside the engine
    /// ([`first_started`](Self::first_started)): nothing the layer holds
    /// asks the engine for it ([`Shared::gated`]), and the one test of
    /// every fast path ([`terms::engaged`]) lets it.
    pub(crate) fn is_plain(&self) -> bool {
        let shared = self.shared;
        let gated = shared.gated();
        // An entry in the installed configuration is applied by the
        // engine, when the call starts; a call without a name has none.
        let configured = shared
            .name
            .as_deref()
            .is_some_and(|name| entry(name, None).general(true));
        // The layer makes each attempt's span itself.
        !terms::engaged(gated, self.settings.holds_nested(), configured, false)
    }

    /// The grant of the first attempt of a call that
    /// [`is_plain`](Self::is_plain), whose first attempt no gate is asked
    /// for: its deadline, cut with [`TimedOut`], and the clock's mark. The
    /// caller sends the attempt, awaits it within the grant
    /// ([`Grant::within`]) and hands the output to
    /// [`first_ended`](Self::first_ended): awaited in the caller's own
    /// future, the attempt needs no future of ours around it.
    pub(crate) fn first_started(&self) -> Grant<TimedOut> {
        debug_assert!(self.is_plain());
        Grant::first(
            deadline(self.settings, 0),
            self.clock.mark(),
            Some(|| TimedOut),
        )
    }

    /// How the first attempt [started](Self::first_started) ended:
    /// `output` holds its result, or `None` if it was cut at its deadline.
    /// A success is judged in place: its report is written and handed to
    /// the response by `attach`, without building the engine's operation,
    /// and the response stays in `output` for the caller to return (`None`
    /// is returned). A failure is taken out of `output` and comes back for
    /// [`after_first`](Self::after_first).
    // Inlined into the caller's future, and the response left where the
    // attempt put it, so that it moves as little as it can.
    #[inline(always)]
    pub(crate) fn first_ended<Res, Err, E>(
        &self,
        started: Grant<TimedOut>,
        output: &mut Option<Result<Res, Err>>,
        attach: &impl AttachReport<Res>,
    ) -> Option<FirstFailed<Res, E>>
    where
        Err: Into<E>,
        E: EngineError,
        Cl: Classifier<Res, Err>,
    {
        let elapsed = self.clock.nanos_since(started.started);
        let verdict = match &*output {
            Some(result) => self.classifier.classify(result),
            None => {
                let failed = (Unsuccessful::from(TimedOut), FailureKind::Timeout);
                return Some(FirstFailed {
                    failed,
                    elapsed,
                    cut: true,
                });
            }
        };
        if let (Verdict::Success, Some(Ok(response))) = (verdict, &mut *output) {
            attach.attach(
                response,
                self.first_report::<Res, E>(
                    elapsed,
                    started.attempt.deadline(),
                    self.classifier.status(response).unwrap_or(0),
                ),
            );
            return None;
        }
        let result = output.take()?;
        let failed = Unsuccessful::judged(self.classifier, verdict, result);
        let failed = (failed, FailureKind::Operation);
        Some(FirstFailed {
            failed,
            elapsed,
            cut: false,
        })
    }

    /// The retries of a plain call whose `first` attempt, a copy of
    /// `request`, failed; each later attempt sends a copy with `send`, and
    /// after a failure that may have reached the server, only if
    /// `resend_if` accepts the request.
    pub(crate) async fn after_first<Req, Res, Err, E, Fut>(
        self,
        request: Req,
        clone_request: &impl CloneRequest<Req>,
        resend_if: &impl Resendable<Req, Res, Err, Cl>,
        send: impl Fn(Req) -> Fut,
        first: FirstFailed<Res, E>,
    ) -> (Result<Res, E>, ExecutionReport)
    where
        Fut: Future<Output = Result<Res, Err>>,
        Err: Into<E>,
        E: EngineError,
        Cl: Classifier<Res, Err>,
    {
        let resend = resend_if.resendable(&request);
        let requests = Mutex::new(Requests::copied(request, clone_request));
        let spent = AtomicBool::new(false);
        let op = self.operation::<Res, Err, E>(true, resend, &spent);
        let shared = self.shared;
        let endpoint = self.endpoint.as_deref();
        let attempt = |attempt: crate::Attempt| {
            let this = (shared, attempt.number(), endpoint);
            // A routed call never takes this path: its first attempt
            // chooses a replica too.
            super::call::attempt(
                &requests,
                (&spent, None),
                true,
                &send,
                self.classifier,
                this,
                None::<super::call::Routed<'_, C>>,
            )
        };
        let outcome = op
            .after_first_async(first.elapsed, first.failed, attempt)
            .await;
        let (result, report) = outcome.into_parts();
        (result.or_else(Unsuccessful::into_result), report)
    }

    /// The report of a plain call whose first attempt succeeded after
    /// `elapsed` nanoseconds within `deadline`, told to the throttle, the
    /// counts and the report hook as the engine tells them, without
    /// building the [`operation`](Self::operation) a failure needs.
    fn first_report<Res, E>(
        &self,
        elapsed: u64,
        deadline: Option<Duration>,
        status: u16,
    ) -> ExecutionReport {
        const UNNAMED_NAME: Cow<'static, str> = Cow::Borrowed(UNNAMED);
        let shared = self.shared;
        let mut gates = Gates::<Res, Unsuccessful<Res, E>>::none();
        gates.throttle = shared.throttle.as_deref();
        let listeners = Listeners {
            name: shared.name.as_ref().unwrap_or(&UNNAMED_NAME),
            tally: None,
            gates: &gates,
            clock: self.clock,
            #[cfg(feature = "dashboard")]
            settings: crate::observe::SettingsOf::Built(self.settings),
        };
        let on_report = shared.on_report.as_deref();
        listeners.report(
            elapsed,
            deadline,
            (status, self.endpoint.clone()),
            Some(|report: &ExecutionReport| {
                if let Some(hook) = on_report {
                    hook(report);
                }
            }),
            Read::NOTHING,
        )
    }
}

#[cfg(feature = "tracing")]
impl<Cl, C: Clock> Call<'_, Cl, C> {
    /// The span of a plain call's first attempt, which runs outside the
    /// engine (see `span.rs`).
    pub(crate) fn first_span(&self) -> tracing::Span {
        super::span::attempt(self.shared.name.as_deref(), 1, self.endpoint.as_deref())
    }

    /// The plain call's `first` attempt, in `span`, failed.
    pub(crate) fn first_failed_in<Res, Err, E>(
        &self,
        span: &tracing::Span,
        first: &FirstFailed<Res, E>,
    ) where
        Cl: Classifier<Res, Err>,
    {
        let error_type = if first.cut {
            super::span::ErrorType::Named("timeout")
        } else {
            first.failed.0.error_type::<Err, Cl>(self.classifier)
        };
        super::span::failed(span, error_type);
    }
}

/// A plain call's first attempt that failed: how, after how long, and
/// whether it was cut at its deadline, which leaves what it was lent as
/// the cut attempt left it.
pub(crate) struct FirstFailed<Res, E> {
    failed: (Unsuccessful<Res, E>, FailureKind),
    elapsed: u64,
    pub(crate) cut: bool,
}
