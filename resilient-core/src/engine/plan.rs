//! [`Plan`]: what an execution borrows from its operation (the settings,
//! the name, the clock, the hooks, the gates and the error conversions),
//! so that the execution depends on this and not on the builder.

use std::borrow::Cow;
use std::marker::PhantomData;

use super::gates::Gates;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
use super::gates::{BreakerGate, LimitGate};
use crate::observe::Tally;
use crate::report::ExecutionReport;
use crate::settings::Settings;

/// Everything one run of an operation reads; built by
/// [`Operation`](crate::Operation)'s setters, which hold it.
pub struct Plan<'b, T, E, C, H> {
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

    /// What the operation uses, for its counts.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    #[inline]
    pub(crate) fn used(&self) -> crate::observe::Used<'_> {
        crate::observe::Used {
            tally: self.tally,
            breaker: self.gates.breaker.as_ref().map(BreakerGate::breaker),
            throttle: self.gates.throttle,
            limiters: self.gates.limit.as_ref().map_or(&[], LimitGate::limiters),
        }
    }
}
