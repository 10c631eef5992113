//! What the people running a service can see of its operations and
//! breakers while it runs: the `metrics` series (feature `metrics`) and
//! the live dashboard (feature `dashboard`).
//!
//! * `tally.rs`: [`Tally`], one operation's counts in atomics, and the
//!   keys of its series;
//! * `cardinality.rs`: the tallies of operations found by name, at most
//!   a limit of them, and the overflow's, where the names past it are
//!   counted; public as [`resilient::cardinality`](crate::cardinality);
//! * `sketch.rs`: the estimate of how many names were folded so;
//! * `registry.rs`: the operations the dashboard shows, which enter on
//!   their own, on their first call (the breakers in use list themselves
//!   when built: `breaker::View::live`);
//! * `limits.rs`: the limiters in use, which enter with the first call
//!   that uses them: their latest in-flight count and limit, and each
//!   operation's refusals;
//! * `health.rs`: the breakers' and limiters' health for readiness
//!   probes; public as [`resilient::health`](crate::health);
//! * `replicas.rs`: the replica sets with an outlier detection in use,
//!   by operation: their ejections' series and event, and what the
//!   dashboard and its control panel show and do of them;
//! * `series.rs`: the series, their help text and units, the keys a call
//!   records them with, and the refresh of breaker gauges; public as
//!   [`resilient::metrics`](crate::metrics);
//! * `dashboard/`: the rolling windows, the page and its event stream;
//!   public as [`resilient::dashboard`](crate::dashboard).
//!
//! Without either feature, nothing here is compiled in but an empty
//! [`Tally`].

#[cfg(any(feature = "metrics", feature = "dashboard"))]
pub mod cardinality;
#[cfg(feature = "dashboard")]
pub mod dashboard;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
pub mod health;
#[cfg(feature = "metrics")]
pub(crate) mod keys;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
mod levels;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
pub(crate) mod limits;
#[cfg(feature = "dashboard")]
mod registry;
pub(crate) mod replicas;
#[cfg(feature = "metrics")]
pub mod series;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
mod sketch;
mod tally;

#[cfg(feature = "dashboard")]
use std::sync::Arc;

pub use tally::Tally;

#[cfg(any(feature = "metrics", feature = "dashboard"))]
use crate::breaker::CircuitBreaker;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
use crate::report::ExecutionReport;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
use crate::throttle::{AdaptiveThrottle, RetryBudget};

/// What an operation used, beyond its name and report, for the counts.
#[cfg(any(feature = "metrics", feature = "dashboard"))]
pub(crate) struct Used<'a> {
    /// Its own tally; `None` to find it by name.
    pub(crate) tally: Option<&'static Tally>,
    #[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
    pub(crate) breaker: Option<&'a CircuitBreaker>,
    #[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
    pub(crate) throttle: Option<&'a dyn RetryBudget>,
    /// Its limiters, in order; empty without `limit`.
    pub(crate) limiters: &'a [&'a dyn crate::limit::Limiter],
    /// Its adaptive throttle.
    pub(crate) adaptive: Option<&'a AdaptiveThrottle>,
    /// Its operation's settings, for its tile.
    #[cfg(feature = "dashboard")]
    pub(crate) settings: SettingsOf<'a>,
}

/// The settings of a call's operation, for its tile, which keeps the
/// first it is told (feature `dashboard`; never read without it).
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
pub(crate) enum SettingsOf<'a> {
    /// None to tell: the call built no operation and can't build one.
    Unknown,
    /// Those it was built with.
    Built(&'a crate::settings::Settings),
    /// Those it would be built with, for a call that built no operation
    /// (a first success): made only while its tile has none, so once.
    Made(&'a dyn Fn() -> crate::settings::Settings),
}

/// An operation called `name` whose first attempt succeeded after
/// `elapsed` nanoseconds: the success path, which reads nothing of the
/// report.
#[cfg(any(feature = "metrics", feature = "dashboard"))]
#[inline]
#[cfg_attr(not(feature = "dashboard"), allow(unused_variables))]
pub(crate) fn succeeded_at_once(name: &str, used: Used<'_>, elapsed: u64) {
    let tally = tally_of(name, &used);
    if !used.limiters.is_empty() {
        limits::call_ended(cardinality::name_of(name, tally), tally, used.limiters);
    }
    if let Some(throttle) = used.adaptive {
        adaptive_read(tally, throttle);
    }
    #[cfg(feature = "dashboard")]
    {
        let counts = &tally.counts;
        counts.latency[tally::bucket(elapsed)].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(throttle) = used.throttle {
            throttled(counts, throttle);
        }
        built_with(tally, used.settings);
    }
}

/// An operation called `name` ended with `report`, and a result that was
/// `ok` or not (after any fallback).
#[cfg(any(feature = "metrics", feature = "dashboard"))]
#[cfg_attr(not(feature = "dashboard"), allow(unused_variables))]
pub(crate) fn finished(name: &str, used: Used<'_>, report: &ExecutionReport, ok: bool) {
    let tally = tally_of(name, &used);
    if !used.limiters.is_empty() {
        limits::call_ended(cardinality::name_of(name, tally), tally, used.limiters);
    }
    if let Some(throttle) = used.adaptive {
        adaptive_read(tally, throttle);
    }
    #[cfg(feature = "dashboard")]
    {
        use std::sync::atomic::Ordering::Relaxed;
        let counts = &tally.counts;
        // Latencies are of calls that ran: a call that every gate refused
        // (an open breaker, a full limit, an adaptive throttle) took no
        // time of the dependency's, and would pull the percentiles down to
        // a microsecond. It is counted apart (`rejected`).
        if ran(report) {
            let elapsed = u64::try_from(report.elapsed().as_nanos()).unwrap_or(u64::MAX);
            counts.latency[tally::bucket(elapsed)].fetch_add(1, Relaxed);
        }
        if !ok {
            counts.failed.fetch_add(1, Relaxed);
        }
        if report.retry_count() > 0 {
            counts
                .retries
                .fetch_add(u64::from(report.retry_count()), Relaxed);
        }
        if report.fallback_used() {
            counts.fallbacks.fetch_add(1, Relaxed);
        }
        if report.stop_reason() == crate::StopReason::CircuitOpen {
            counts.rejected.fetch_add(1, Relaxed);
        }
        if let Some(throttle) = used.throttle {
            throttled(counts, throttle);
        }
        built_with(tally, used.settings);
    }
}

/// Whether any primary or hedged attempt of the call ran: one that no gate
/// refused.
#[cfg(feature = "dashboard")]
#[inline]
fn ran(report: &ExecutionReport) -> bool {
    use crate::report::{AttemptKind, FailureKind};
    report.attempts().iter().any(|attempt| {
        attempt.kind() != AttemptKind::Fallback
            && !attempt.error().is_some_and(|error| {
                matches!(
                    error.kind(),
                    FailureKind::CircuitOpen | FailureKind::LimitExceeded | FailureKind::Rejected
                )
            })
    })
}

/// Keeps the settings an operation was built with, for its tile, unless
/// they are known already or the tally is the overflow's (many
/// operations', each with its own).
#[cfg(feature = "dashboard")]
#[inline]
fn built_with(tally: &'static Tally, settings: SettingsOf<'_>) {
    if !shows_settings(tally) && !cardinality::is_overflow(tally) {
        told_settings(tally, settings);
    }
}

/// [`built_with`] once the tile is known to have no settings: out of
/// line, since a call that gets here is one of its operation's first.
#[cfg(feature = "dashboard")]
#[cold]
#[inline(never)]
fn told_settings(tally: &'static Tally, settings: SettingsOf<'_>) {
    let settings = match settings {
        SettingsOf::Unknown => return,
        SettingsOf::Built(settings) => *settings,
        SettingsOf::Made(make) => make(),
    };
    let _ = tally.counts.settings.set(settings);
}

/// Whether the tile of `tally` knows its operation's settings.
#[cfg(feature = "dashboard")]
#[inline(always)]
fn shows_settings(tally: &'static Tally) -> bool {
    tally.counts.settings.get().is_some()
}

/// The keys of the series each call of the operation called `name`
/// records, kept in `tally`, its own, or (`None`) in the one found by its
/// name: the overflow's, labelled with its name, past the limit on names.
#[cfg(feature = "metrics")]
#[inline]
pub(crate) fn call_keys(name: &str, tally: Option<&'static Tally>) -> &'static keys::CallKeys {
    tally
        .unwrap_or_else(|| cardinality::tally_named(name))
        .keys()
}

/// The operation's tally, announced on its first call; for a call of a
/// name past the limit on names, the overflow's, which counts the name as
/// folded.
///
/// The name comes as a `&str`, read out of the operation, never as a
/// reference to its `Cow`: a reference into the operation would make the
/// compiler write the whole operation to memory on the success path.
#[cfg(any(feature = "metrics", feature = "dashboard"))]
#[inline]
fn tally_of(name: &str, used: &Used<'_>) -> &'static Tally {
    let tally = match used.tally {
        Some(tally) => tally,
        None => {
            let tally = cardinality::tally_named(name);
            if cardinality::is_overflow(tally) {
                cardinality::fold(name);
            }
            tally
        }
    };
    if tally.first_use() {
        first_call(cardinality::name_of(name, tally), tally, used);
    }
    tally
}

/// The first call of an operation: its series appear, at zero, and it
/// joins the dashboard.
#[cfg(any(feature = "metrics", feature = "dashboard"))]
#[cold]
#[inline(never)]
#[cfg_attr(not(feature = "dashboard"), allow(unused_variables))]
fn first_call(name: &str, tally: &'static Tally, used: &Used<'_>) {
    #[cfg(feature = "metrics")]
    {
        series::describe();
        series::zero(name, tally.keys());
        // The gauge of folded names exists from the first call, at zero.
        cardinality::folded_gauge(cardinality::folded());
    }
    // The overflow's tile shows no breaker: its calls are many
    // operations', each with its own.
    #[cfg(feature = "dashboard")]
    registry::add_operation(
        name.to_owned().into(),
        tally,
        used.breaker
            .filter(|_| !cardinality::is_overflow(tally))
            .map(|breaker| Arc::downgrade(breaker.view())),
    );
    #[cfg(feature = "dashboard")]
    built_with(tally, used.settings);
    limits::first_call(name, tally, used.limiters);
    #[cfg(feature = "metrics")]
    if let Some(throttle) = used.adaptive {
        series::adaptive_joined(name, throttle.name().unwrap_or("adaptive"));
    }
}

/// Reads the adaptive throttle a call used, as it ended: its gauge, set
/// when its probability moved, and its row on the operation's tile. Every
/// call of such an operation comes here; out of line, so that the others
/// carry none of it.
#[cfg(any(feature = "metrics", feature = "dashboard"))]
#[inline(never)]
#[cfg_attr(
    not(all(feature = "metrics", feature = "dashboard")),
    allow(unused_variables)
)]
fn adaptive_read(tally: &'static Tally, throttle: &AdaptiveThrottle) {
    let (reading, changed) = throttle.reading();
    #[cfg(feature = "metrics")]
    if changed {
        series::adaptive_level(&reading);
    }
    #[cfg(feature = "dashboard")]
    tally.counts.adaptive.keep(&reading);
}

/// Keeps the level of the throttle the call used.
#[cfg(feature = "dashboard")]
#[cold]
#[inline(never)]
fn throttled(counts: &tally::Counts, throttle: &dyn RetryBudget) {
    use std::sync::atomic::Ordering::Relaxed;
    if let Some((tokens, max)) = throttle.level() {
        // Thousandths, saturated: a budget's level is never negative.
        counts
            .throttle_milli
            .store((tokens * 1000.0) as u64, Relaxed);
        counts.throttle_max.store((max * 1000.0) as u64, Relaxed);
    }
}
