//! The replica sets in use, by the operation whose calls they route, for
//! those who watch a running service: the `metrics` series of each
//! replica's ejection (feature `metrics`), the `replica.ejected` event
//! (feature `tracing`), the rows under the operation's dashboard tile, and
//! the control panel's ejecting and returning a replica by hand (feature
//! `dashboard`).
//!
//! A set with an outlier detection enters on the first call of an
//! operation that routes with it (`endpoint::Routing::route`), as a
//! [`Watched`] held weakly: it leaves when the last layer or middleware
//! holding it is dropped.
#![cfg_attr(not(all(feature = "metrics", feature = "dashboard")), allow(dead_code))]

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// One replica as the panels show it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReplicaRow {
    /// Its base URL.
    pub(crate) replica: String,
    /// How much longer it stays ejected; `None` when it is not.
    pub(crate) ejected_for: Option<Duration>,
    pub(crate) times_ejected: u32,
    pub(crate) consecutive_failures: u32,
}

/// A replica set with its outlier detection, as the panels reach it.
pub(crate) trait Watched: Send + Sync {
    /// Every replica of the set now, and every other the detection
    /// knows, as of `now`, sorted by URL.
    fn rows(&self, now: Instant) -> Vec<ReplicaRow>;
    /// Ejects `replica` by hand from `now`, whatever the cap, for the
    /// longest the detection ejects for; for how long.
    fn eject(&self, replica: &str, now: Instant) -> Duration;
    /// Returns `replica` by hand, its failures forgotten.
    fn restore(&self, replica: &str);
}

/// One set shown, under the operation whose calls it routes.
struct Shown {
    operation: Box<str>,
    set: Weak<dyn Watched>,
}

static SHOWN: Mutex<Vec<Shown>> = Mutex::new(Vec::new());

/// Shows `set` under `operation`, whose replicas are now `replicas`:
/// once per pair. With `metrics`, each replica's series start at zero.
pub(crate) fn watch(operation: &str, set: Weak<dyn Watched>, replicas: &[String]) {
    let mut shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
    shown.retain(|shown| shown.set.strong_count() > 0);
    if shown
        .iter()
        .any(|known| *known.operation == *operation && Weak::ptr_eq(&known.set, &set))
    {
        return;
    }
    shown.push(Shown {
        operation: operation.into(),
        set,
    });
    drop(shown);
    #[cfg(feature = "metrics")]
    for replica in replicas {
        zero(operation, replica);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = replicas;
}

/// The sets shown under `operation`, each's replicas as of `now`.
pub(crate) fn replicas_of(operation: &str, now: Instant) -> Vec<Vec<ReplicaRow>> {
    live_under(operation).map(|set| set.rows(now)).collect()
}

/// Every set shown, with its operation and its replicas as of `now`.
pub(crate) fn all(now: Instant) -> Vec<(Box<str>, Vec<ReplicaRow>)> {
    live()
        .into_iter()
        .map(|(operation, set)| (operation, set.rows(now)))
        .collect()
}

/// What a hand on the panel did to a replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ByHand {
    /// Ejected for this long.
    Ejected(Duration),
    /// Returned.
    Returned,
}

/// Ejects (`eject`) or returns `replica` of the sets shown under
/// `operation` that hold it or whose detection knows it, as of `now`.
/// `None` when none does.
pub(crate) fn by_hand(operation: &str, replica: &str, eject: bool, now: Instant) -> Option<ByHand> {
    let mut done = None;
    for set in live_under(operation) {
        if !set.rows(now).iter().any(|row| row.replica == replica) {
            continue;
        }
        if eject {
            done = Some(ByHand::Ejected(set.eject(replica, now)));
        } else {
            set.restore(replica);
            done = done.or(Some(ByHand::Returned));
        }
        #[cfg(feature = "metrics")]
        gauge(operation, replica, eject);
    }
    done
}

/// The sets still held under `operation`.
fn live_under(operation: &str) -> impl Iterator<Item = Arc<dyn Watched>> {
    live()
        .into_iter()
        .filter(move |(shown, _)| **shown == *operation)
        .map(|(_, set)| set)
}

/// The sets still held, with their operations (each read outside the
/// lock: a set asks the user's list for its replicas).
fn live() -> Vec<(Box<str>, Arc<dyn Watched>)> {
    let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
    shown
        .iter()
        .filter_map(|shown| Some((shown.operation.clone(), shown.set.upgrade()?)))
        .collect()
}

/// The detection of `operation` ejected `replica` for `time`: an `INFO`
/// event, the counter and the gauge.
#[cold]
pub(crate) fn ejected(operation: &str, replica: &str, time: Duration) {
    #[cfg(feature = "tracing")]
    tracing::info!(
        name: "replica.ejected",
        operation,
        replica,
        ejection_ms = u64::try_from(time.as_millis()).unwrap_or(u64::MAX)
    );
    #[cfg(feature = "metrics")]
    {
        ejections(operation, replica).increment(1);
        gauge(operation, replica, true);
    }
    #[cfg(not(feature = "tracing"))]
    let _ = time;
    #[cfg(not(any(feature = "tracing", feature = "metrics")))]
    let _ = (operation, replica);
}

/// Sets every replica's ejection gauge as of `now`: 0 for one whose
/// ejection ended, though no call came to notice.
#[cfg(feature = "metrics")]
pub(crate) fn refresh(now: Instant) {
    for (operation, rows) in all(now) {
        for row in rows {
            gauge(&operation, &row.replica, row.ejected_for.is_some());
        }
    }
}

#[cfg(feature = "metrics")]
fn gauge(operation: &str, replica: &str, ejected: bool) {
    ::metrics::gauge!(
        crate::catalog::REPLICA_EJECTED,
        "operation" => operation.to_owned(),
        "replica" => replica.to_owned()
    )
    .set(if ejected { 1.0 } else { 0.0 });
}

/// The counter of a replica's ejections by the detection.
#[cfg(feature = "metrics")]
fn ejections(operation: &str, replica: &str) -> ::metrics::Counter {
    ::metrics::counter!(
        crate::catalog::REPLICA_EJECTIONS,
        "operation" => operation.to_owned(),
        "replica" => replica.to_owned()
    )
}

/// A replica's series, at zero.
#[cfg(feature = "metrics")]
fn zero(operation: &str, replica: &str) {
    ejections(operation, replica).increment(0);
    gauge(operation, replica, false);
}
