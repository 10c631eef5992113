//! [`Plan`]: what an execution borrows from its operation (the settings,
//! the name, the clock, the hooks, the gates and the error conversions),
//! so that the execution depends on this and not on the builder.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use super::attempt::open::Open;
pub(crate) use super::attempt::terms::{Entry, Read, entry};
use super::events;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
use super::gates::{AdaptiveGate, BreakerGate, LimitGate};
use super::gates::{End, Gates, Settlement};
use crate::clock::Clock;
use crate::observe::Tally;
use crate::report::{AttemptKind, ExecutionReport, Outcome, StopReason};
use crate::settings::Settings;
use crate::time::Nanos;

/// Everything one run of an operation reads; built by
/// [`Operation`](crate::Operation)'s setters, which hold it.
pub(crate) struct Plan<'b, T, E, C, H> {
    pub(crate) settings: Settings,
    pub(crate) name: Cow<'static, str>,
    pub(crate) clock: C,
    pub(crate) hooks: H,
    /// Makes the error of an interrupted attempt; `None`: never interrupt.
    pub(crate) timed_out: Option<fn() -> E>,
    /// The admission concerns asked around each attempt.
    pub(crate) gates: Gates<'b, T, E>,
    pub(crate) invalid: Option<fn() -> E>,
    /// Renders an error for the report; `None` where no report is kept.
    pub(crate) describe: Option<fn(&E) -> String>,
    /// Its counts for metrics and the dashboard; `None`: found by name.
    pub(crate) tally: Option<&'static Tally>,
    pub(crate) value: PhantomData<fn() -> T>,
}

impl<T, E, C, H> Plan<'_, T, E, C, H> {
    /// The report's text for `error`; empty where no report is kept.
    pub(crate) fn describe(&self, error: &E) -> String {
        self.describe
            .map(|describe| describe(error))
            .unwrap_or_default()
    }

    /// Counts a call that ended with `report` and a result that was `ok`
    /// or not, for metrics and the dashboard.
    #[inline]
    pub(crate) fn observe(&self, report: &ExecutionReport, ok: bool) {
        #[cfg(any(feature = "metrics", feature = "dashboard"))]
        crate::observe::finished(self.name.as_ref(), self.used(), report, ok);
        #[cfg(not(any(feature = "metrics", feature = "dashboard")))]
        let _ = (report, ok);
    }

    /// The name of its attempts' spans, unless its caller makes them.
    #[inline(always)]
    pub(crate) fn span_name(&self) -> super::span::SpanName<'_> {
        super::span::SpanName::of(&self.name, self.settings.spans_elsewhere)
    }

    /// What the operation uses, for its counts.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    #[inline]
    pub(crate) fn used(&self) -> crate::observe::Used<'_> {
        let used = used(self.tally, &self.gates);
        #[cfg(feature = "dashboard")]
        let used = crate::observe::Used {
            settings: crate::observe::SettingsOf::Built(&self.settings),
            ..used
        };
        used
    }
}

impl<T, E, C: Clock, H> super::attempt::run::RunsOn for Plan<'_, T, E, C, H> {
    type Clock = C;

    #[inline(always)]
    fn clock(&self) -> &C {
        &self.clock
    }

    #[inline(always)]
    fn span_name(&self) -> super::span::SpanName<'_> {
        Plan::span_name(self)
    }
}

/// What an operation of `tally` and `gates` uses, for its counts.
#[cfg(any(feature = "metrics", feature = "dashboard"))]
#[inline]
fn used<'a, T, E>(
    tally: Option<&'static Tally>,
    gates: &'a Gates<'_, T, E>,
) -> crate::observe::Used<'a> {
    crate::observe::Used {
        tally,
        breaker: gates.breaker.as_ref().map(BreakerGate::breaker),
        throttle: gates.throttle,
        limiters: gates.limit.as_ref().map_or(&[], LimitGate::limiters),
        adaptive: gates.adaptive.as_ref().map(AdaptiveGate::throttle),
        #[cfg(feature = "dashboard")]
        settings: crate::observe::SettingsOf::Unknown,
    }
}

/// Who hears of a call whose first attempt succeeded: the operation's
/// name and tally, its gates (each gives its free permit back) and, unless
/// the report is deferred to the caller, the report hook. A plan lends
/// them ([`Operation::first_report`](crate::Operation)); a layer's call
/// lends its own, without building a plan for a success; a [`NamedListeners`]
/// stands for them where a first success needs nothing but a name and a
/// tally. Every first success's report is written here.
pub(crate) struct Listeners<'p, 'b, T, E, C> {
    pub(crate) name: &'p Cow<'static, str>,
    pub(crate) tally: Option<&'static Tally>,
    pub(crate) gates: &'p Gates<'b, T, E>,
    pub(crate) clock: &'p C,
    /// The operation's settings, for its tile.
    #[cfg(feature = "dashboard")]
    pub(crate) settings: crate::observe::SettingsOf<'p>,
}

impl<T, E, C: Clock> Listeners<'_, '_, T, E, C> {
    /// The report of a first attempt that succeeded after `elapsed`
    /// nanoseconds within `deadline` with the HTTP `status` (0: none) at
    /// `endpoint`, told to the gates, the counts and, unless it is `None`,
    /// `on_report`; the call read the configuration `read`.
    #[inline(always)]
    pub(crate) fn report(
        self,
        elapsed: u64,
        deadline: Option<Duration>,
        (status, endpoint): (u16, Option<Arc<str>>),
        on_report: Option<impl FnOnce(&ExecutionReport)>,
        read: Read,
    ) -> ExecutionReport {
        events::attempt_ended(
            self.name,
            self.tally,
            AttemptKind::Primary,
            events::OutcomeLabel::Success,
        );
        // Checked here, where it folds or costs a few loads, rather than
        // inside `settle`, which is not inlined.
        if !self.gates.is_empty() {
            let ended = Settlement::new(AttemptKind::Primary, elapsed, End::Success);
            self.gates
                .settle(self.clock, self.gates.free_permits(), &ended);
        }
        // Counted before the report exists: a report alive across the call
        // would be built on the stack and then moved, for the unwinding path.
        #[cfg(any(feature = "metrics", feature = "dashboard"))]
        {
            let used = used(self.tally, self.gates);
            #[cfg(feature = "dashboard")]
            let used = crate::observe::Used {
                settings: self.settings,
                ..used
            };
            crate::observe::succeeded_at_once(self.name.as_ref(), used, elapsed);
        }
        // Matched here rather than cloned: a name known to be borrowed
        // then folds into the report whatever the inliner makes of
        // `Cow::clone`.
        let name = match self.name {
            Cow::Borrowed(name) => Cow::Borrowed(*name),
            Cow::Owned(name) => Cow::Owned(name.clone()),
        };
        let first = Open {
            status,
            ..Open::first(Nanos::optional(deadline), 0)
        };
        let mut report = ExecutionReport::first_success(name, first.close(), elapsed);
        if let Some(endpoint) = endpoint {
            report.went_to(&endpoint);
        }
        #[cfg(feature = "config")]
        {
            report.config_read = read.packed;
        }
        #[cfg(not(feature = "config"))]
        let _ = read;
        if let Some(on_report) = on_report {
            events::finished(
                self.name,
                self.tally,
                report.elapsed(),
                StopReason::Succeeded,
            );
            on_report(&report);
        }
        report
    }
}

/// The `Listeners` of an operation without gates or a report hook,
/// named by a `&'static str`, reduced to what they are: its name and its
/// tally. What a first success keeps of its operation, copied into its
/// value before any plan exists, so that its outcome
/// (`NamedListeners::outcome`) needn't build the operation; the outcome
/// is written by the `Listeners` they stand for.
#[derive(Debug, Clone, Copy)]
pub struct NamedListeners {
    pub(crate) name: &'static str,
    pub(crate) tally: Option<&'static Tally>,
    /// Whether the call ends here, rather than in its caller (a deferred
    /// report).
    pub(crate) ends: bool,
    /// The configuration the call read.
    pub(crate) read: Read,
}

impl NamedListeners {
    /// An operation named `name`, counted in `tally`, whose call ends where
    /// its first success is written.
    #[inline(always)]
    pub(crate) const fn ending(name: &'static str, tally: Option<&'static Tally>) -> Self {
        NamedListeners {
            name,
            tally,
            ends: true,
            read: Read::NOTHING,
        }
    }

    /// The same, of a call that read the configuration `read`.
    #[inline(always)]
    pub(crate) const fn from(mut self, read: Read) -> Self {
        self.read = read;
        self
    }

    /// The outcome of a first attempt that succeeded with `result` after
    /// `elapsed` nanoseconds within `deadline`: [`Listeners::report`] of the
    /// listeners this stands for, with no gate to settle and no hook, and
    /// the settings of the operation never built for it (for its tile).
    #[inline(always)]
    pub(crate) fn outcome<T, E>(
        self,
        result: Result<T, E>,
        elapsed: u64,
        deadline: Option<Duration>,
        settings: crate::observe::SettingsOf<'_>,
    ) -> Outcome<T, E> {
        let listeners = Listeners {
            name: &Cow::Borrowed(self.name),
            tally: self.tally,
            gates: &Gates::<T, E>::none(),
            // No gate to settle, so no clock is read.
            clock: &crate::clock::SystemClock,
            #[cfg(feature = "dashboard")]
            settings,
        };
        #[cfg(not(feature = "dashboard"))]
        let _ = settings;
        let on_report = self.ends.then_some(|_: &ExecutionReport| {});
        Outcome::new(
            result,
            listeners.report(elapsed, deadline, (0, None), on_report, self.read),
        )
    }
}
