//! [`Replicas`]: the endpoints of one logical service, and each attempt's
//! choice among them; [`OutlierDetection`]: Envoy's ejection of the
//! endpoints that fail, by its names.
//!
//! Each attempt of a call (a retry, a hedge) goes to a replica that is not
//! ejected and that the call hasn't tried yet, while one is left (Envoy's
//! `previous_hosts` retry predicate); among those, the next in turn (round
//! robin). Round robin rather than power of two choices: the client knows
//! no load of the replicas but its own, and a turn spreads the calls of one
//! client evenly and predictably, which tests can assert. When every
//! replica is ejected, the ejections are ignored (Envoy's panic threshold):
//! a call still goes somewhere.
//!
//! The tower layer's calls (feature `tower`) are the ones that route;
//! without it, only the public types are of use.
#![cfg_attr(not(feature = "tower"), allow(dead_code))]

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::observe::replicas::ReplicaRow;
use crate::report::FailureKind;

/// The endpoints of one logical service: base URLs (`http://10.0.0.7:8080`)
/// fixed, or read again for each call from a function, so that a list
/// from DNS or service discovery may change at run time.
///
/// ```
/// use resilient::endpoint::Replicas;
///
/// let fixed = Replicas::fixed(["http://10.0.0.1:8080", "http://10.0.0.2:8080"]);
/// assert_eq!(fixed.current().len(), 2);
/// let discovered = Replicas::dynamic(|| vec!["http://10.0.0.3:8080".to_owned()]);
/// assert_eq!(discovered.current(), ["http://10.0.0.3:8080"]);
/// ```
#[derive(Clone)]
pub struct Replicas {
    list: Arc<dyn Fn() -> Vec<String> + Send + Sync>,
}

impl fmt::Debug for Replicas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Replicas")
            .field("current", &self.current())
            .finish()
    }
}

impl Replicas {
    /// These base URLs, always.
    pub fn fixed<S: Into<String>>(urls: impl IntoIterator<Item = S>) -> Replicas {
        let urls: Vec<String> = urls.into_iter().map(Into::into).collect();
        Replicas {
            list: Arc::new(move || urls.clone()),
        }
    }

    /// The base URLs `list` returns, asked once per call.
    pub fn dynamic(list: impl Fn() -> Vec<String> + Send + Sync + 'static) -> Replicas {
        Replicas {
            list: Arc::new(list),
        }
    }

    /// The base URLs now.
    pub fn current(&self) -> Vec<String> {
        (self.list)()
    }
}

/// Ejects the replicas that fail, with Envoy's outlier detection's names
/// and defaults:
///
/// * `consecutive_5xx` (5): that many failures in a row (a 5xx, or no
///   response at all) eject a replica;
/// * `failure_percentage_threshold` (off unless set): at each `interval`
///   (10 s), a replica that took at least
///   `failure_percentage_request_volume` (50) requests, of which that
///   percentage or more failed, is ejected, when at least
///   `failure_percentage_minimum_hosts` (5) replicas took that many;
/// * an ejection lasts `base_ejection_time` (30 s) times the times the
///   replica was ejected, at most `max_ejection_time` (300 s); then the
///   replica returns;
/// * at most `max_ejection_percent` (10) percent of the set is ejected at
///   once, and always at least one replica may be, so that a brownout of
///   the whole fleet doesn't empty the set.
///
/// Its state is one entry per replica seen, dropped for a replica that
/// has left the set of a [`Replicas::dynamic`] list. An operator ejects or
/// returns a replica by hand with [`eject`](Self::eject) and
/// [`restore`](Self::restore), or from the dashboard's control panel; the
/// metrics, the trace and the dashboard show each ejection (the guide's
/// "Replicas and outlier ejection").
///
/// ```
/// use resilient::endpoint::OutlierDetection;
/// use std::time::Duration;
///
/// let detection = OutlierDetection::new()
///     .consecutive_5xx(3)
///     .base_ejection_time(Duration::from_secs(10))
///     .max_ejection_percent(50);
/// assert!(detection.ejected().is_empty());
/// ```
#[derive(Clone)]
pub struct OutlierDetection {
    consecutive_5xx: u32,
    failure_percentage_threshold: Option<u32>,
    failure_percentage_minimum_hosts: u32,
    failure_percentage_request_volume: u32,
    interval: Duration,
    base_ejection_time: Duration,
    max_ejection_time: Duration,
    max_ejection_percent: u32,
    state: Arc<Mutex<Health>>,
}

impl fmt::Debug for OutlierDetection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutlierDetection")
            .field("consecutive_5xx", &self.consecutive_5xx)
            .field("max_ejection_percent", &self.max_ejection_percent)
            .field("ejected", &self.ejected())
            .finish_non_exhaustive()
    }
}

impl Default for OutlierDetection {
    fn default() -> Self {
        OutlierDetection::new()
    }
}

/// Every replica's health, and when the current interval began.
#[derive(Default)]
struct Health {
    replicas: HashMap<String, Replica>,
    interval_began: Option<Instant>,
}

#[derive(Default)]
struct Replica {
    consecutive: u32,
    requests: u32,
    failures: u32,
    times_ejected: u32,
    ejected_until: Option<Instant>,
}

fn lock(health: &Mutex<Health>) -> std::sync::MutexGuard<'_, Health> {
    health.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Ejects `replica` from `now` for `time`, whatever the cap.
fn eject_by_hand(health: &Mutex<Health>, replica: &str, now: Instant, time: Duration) {
    let mut health = lock(health);
    let entry = health.replicas.entry(replica.to_owned()).or_default();
    entry.ejected_until = Some(after(now, time));
}

/// Returns `replica`, its failures forgotten, its ejections remembered.
fn restore_by_hand(health: &Mutex<Health>, replica: &str) {
    if let Some(entry) = lock(health).replicas.get_mut(replica) {
        *entry = Replica {
            times_ejected: entry.times_ejected,
            ..Replica::default()
        };
    }
}

/// Every replica of `set` and every other the detection knows, as of
/// `now`, sorted.
fn rows(health: &Mutex<Health>, set: &[String], now: Instant) -> Vec<ReplicaRow> {
    let health = lock(health);
    let unseen = set
        .iter()
        .filter(|url| !health.replicas.contains_key(*url))
        .map(|url| (url, None));
    let seen = health
        .replicas
        .iter()
        .map(|(url, replica)| (url, Some(replica)));
    let mut rows: Vec<ReplicaRow> = seen
        .chain(unseen)
        .map(|(url, replica)| ReplicaRow {
            replica: url.clone(),
            ejected_for: replica
                .and_then(|replica| replica.ejected_until)
                .filter(|until| *until > now)
                .map(|until| until.saturating_duration_since(now)),
            times_ejected: replica.map_or(0, |replica| replica.times_ejected),
            consecutive_failures: replica.map_or(0, |replica| replica.consecutive),
        })
        .collect();
    rows.sort_by(|a, b| a.replica.cmp(&b.replica));
    rows.dedup_by(|a, b| a.replica == b.replica);
    rows
}

/// `time` after `now`, or a century after it for a time too long to
/// count (an `Instant` has a limit, which a `Duration` can pass).
fn after(now: Instant, time: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 3600);
    now.checked_add(time)
        .or_else(|| now.checked_add(CENTURY))
        .unwrap_or(now)
}

impl OutlierDetection {
    /// Envoy's defaults.
    pub fn new() -> OutlierDetection {
        OutlierDetection {
            consecutive_5xx: 5,
            failure_percentage_threshold: None,
            failure_percentage_minimum_hosts: 5,
            failure_percentage_request_volume: 50,
            interval: Duration::from_secs(10),
            base_ejection_time: Duration::from_secs(30),
            max_ejection_time: Duration::from_secs(300),
            max_ejection_percent: 10,
            state: Arc::default(),
        }
    }

    /// Failures in a row that eject a replica (at least 1).
    pub fn consecutive_5xx(mut self, failures: u32) -> Self {
        self.consecutive_5xx = failures.max(1);
        self
    }

    /// The failure percentage, within `0..=100`, that ejects a replica at
    /// the end of an interval.
    pub fn failure_percentage_threshold(mut self, percent: u32) -> Self {
        self.failure_percentage_threshold = Some(percent.min(100));
        self
    }

    /// How many replicas must each take the request volume for the
    /// failure percentage to apply.
    pub fn failure_percentage_minimum_hosts(mut self, hosts: u32) -> Self {
        self.failure_percentage_minimum_hosts = hosts;
        self
    }

    /// The requests a replica must take in an interval for its failure
    /// percentage to count.
    pub fn failure_percentage_request_volume(mut self, requests: u32) -> Self {
        self.failure_percentage_request_volume = requests;
        self
    }

    /// The interval the failure percentage is counted over (at least 1 ms).
    pub fn interval(mut self, interval: Duration) -> Self {
        self.interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The first ejection's length; the n-th lasts n times as long.
    pub fn base_ejection_time(mut self, time: Duration) -> Self {
        self.base_ejection_time = time;
        self
    }

    /// The longest ejection (never shorter than the base).
    pub fn max_ejection_time(mut self, time: Duration) -> Self {
        self.max_ejection_time = time;
        self
    }

    /// The most of the set, in percent within `0..=100`, ejected at once.
    pub fn max_ejection_percent(mut self, percent: u32) -> Self {
        self.max_ejection_percent = percent.min(100);
        self
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        lock(&self.state)
    }

    /// The replicas ejected now, sorted. Now is tokio's clock, which a
    /// paused test moves.
    pub fn ejected(&self) -> Vec<String> {
        self.ejected_at(tokio::time::Instant::now().into_std())
    }

    fn ejected_at(&self, now: Instant) -> Vec<String> {
        let health = self.health();
        let mut ejected: Vec<String> = health
            .replicas
            .iter()
            .filter(|(_, replica)| replica.ejected_until.is_some_and(|until| until > now))
            .map(|(url, _)| url.clone())
            .collect();
        ejected.sort();
        ejected
    }

    /// Ejects `replica` by hand for `time` (a time too long to count is a
    /// century), whatever the cap.
    pub fn eject(&self, replica: &str, time: Duration) {
        let now = tokio::time::Instant::now().into_std();
        eject_by_hand(&self.state, replica, now, time);
    }

    /// Returns `replica` by hand, its failures forgotten.
    pub fn restore(&self, replica: &str) {
        restore_by_hand(&self.state, replica);
    }

    /// The longest ejection: the cap on the detection's own, and what an
    /// ejection by hand from the panel lasts.
    fn longest(&self) -> Duration {
        self.max_ejection_time.max(self.base_ejection_time)
    }

    /// Whether `replica` is ejected at `now`.
    fn is_ejected(health: &Health, replica: &str, now: Instant) -> bool {
        health
            .replicas
            .get(replica)
            .and_then(|entry| entry.ejected_until)
            .is_some_and(|until| until > now)
    }

    /// An attempt on `replica` of the set `set` ended at `now`: `failed`
    /// if it answered a 5xx or nothing. The replicas this ejected, each
    /// with its ejection's length: this one, or those past the failure
    /// percentage when it ended an interval.
    pub(crate) fn record(
        &self,
        set: &[String],
        replica: &str,
        failed: bool,
        now: Instant,
    ) -> Vec<(String, Duration)> {
        let mut health = self.health();
        // Replicas that left the set are forgotten, so that the state is
        // bounded by the set.
        if health.replicas.len() > 2 * set.len().max(1) {
            health.replicas.retain(|url, _| set.contains(url));
        }
        let mut ejected = self.end_interval(&mut health, set, now);
        let consecutive = {
            let entry = health.replicas.entry(replica.to_owned()).or_default();
            entry.requests += 1;
            if failed {
                entry.failures += 1;
                entry.consecutive += 1;
            } else {
                entry.consecutive = 0;
            }
            entry.consecutive
        };
        if failed
            && consecutive >= self.consecutive_5xx
            && let Some(time) = self.try_eject(&mut health, set, replica, now)
        {
            ejected.push((replica.to_owned(), time));
        }
        ejected
    }

    /// At the end of an interval, ejects the replicas past the failure
    /// percentage, and starts the next; those it ejected, for how long.
    fn end_interval(
        &self,
        health: &mut Health,
        set: &[String],
        now: Instant,
    ) -> Vec<(String, Duration)> {
        let mut ejected = Vec::new();
        let began = *health.interval_began.get_or_insert(now);
        if now.saturating_duration_since(began) < self.interval {
            return ejected;
        }
        health.interval_began = Some(now);
        if let Some(threshold) = self.failure_percentage_threshold {
            let volume = self.failure_percentage_request_volume;
            let counted: Vec<(String, u32, u32)> = health
                .replicas
                .iter()
                .filter(|(_, entry)| entry.requests >= volume.max(1))
                .map(|(url, entry)| (url.clone(), entry.requests, entry.failures))
                .collect();
            if counted.len() >= self.failure_percentage_minimum_hosts as usize {
                for (url, requests, failures) in counted {
                    if u64::from(failures) * 100 >= u64::from(threshold) * u64::from(requests)
                        && let Some(time) = self.try_eject(health, set, &url, now)
                    {
                        ejected.push((url, time));
                    }
                }
            }
        }
        for entry in health.replicas.values_mut() {
            entry.requests = 0;
            entry.failures = 0;
        }
        ejected
    }

    /// Ejects `replica` unless it is ejected already or the cap is
    /// reached: at most `max_ejection_percent` of the set, at least one.
    /// For how long, if it did.
    fn try_eject(
        &self,
        health: &mut Health,
        set: &[String],
        replica: &str,
        now: Instant,
    ) -> Option<Duration> {
        if Self::is_ejected(health, replica, now) {
            return None;
        }
        let ejected = set
            .iter()
            .filter(|url| Self::is_ejected(health, url, now))
            .count();
        let cap = set.len() * self.max_ejection_percent as usize / 100;
        if ejected > 0 && ejected + 1 > cap {
            return None;
        }
        let entry = health.replicas.entry(replica.to_owned()).or_default();
        entry.times_ejected = entry.times_ejected.saturating_add(1);
        let time = self
            .base_ejection_time
            .saturating_mul(entry.times_ejected)
            .min(self.longest());
        entry.ejected_until = Some(after(now, time));
        entry.consecutive = 0;
        Some(time)
    }
}

/// One call's way through a replica set: the replicas it tried, and each
/// attempt's, by attempt number, for its record.
pub(crate) struct Route<'r> {
    replicas: &'r Routing,
    /// The operation the call is of: its ejections' label.
    operation: &'r str,
    set: Vec<String>,
    tried: Mutex<Vec<(u32, Arc<str>)>>,
}

impl fmt::Debug for Route<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Route")
            .field("set", &self.set)
            .finish_non_exhaustive()
    }
}

/// A layer's or a middleware's replicas, their detection, and the turn.
#[derive(Clone, Debug)]
pub(crate) struct Routing {
    pub(crate) replicas: Replicas,
    turn: Arc<AtomicUsize>,
    /// The detection, with the set, as the panels reach them.
    watched: Option<Arc<Watched>>,
}

/// A set and its detection, as the panels reach them (held weakly there,
/// so that they go with the last layer or middleware), and the operation
/// whose panels show them, once told.
struct Watched {
    replicas: Replicas,
    detection: OutlierDetection,
    shown: std::sync::OnceLock<Box<str>>,
}

impl fmt::Debug for Watched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watched")
            .field("detection", &self.detection)
            .field("shown", &self.shown.get())
            .finish_non_exhaustive()
    }
}

impl crate::observe::replicas::Watched for Watched {
    fn rows(&self, now: Instant) -> Vec<ReplicaRow> {
        rows(&self.detection.state, &self.replicas.current(), now)
    }

    fn eject(&self, replica: &str, now: Instant) -> Duration {
        let time = self.detection.longest();
        eject_by_hand(&self.detection.state, replica, now, time);
        time
    }

    fn restore(&self, replica: &str) {
        restore_by_hand(&self.detection.state, replica);
    }
}

#[cfg_attr(not(feature = "reqwest"), allow(dead_code))]
impl Routing {
    pub(crate) fn new(replicas: Replicas, detection: Option<OutlierDetection>) -> Self {
        let watched = detection.map(|detection| {
            Arc::new(Watched {
                replicas: replicas.clone(),
                detection,
                shown: std::sync::OnceLock::new(),
            })
        });
        Routing {
            replicas,
            turn: Arc::default(),
            watched,
        }
    }

    /// The outlier detection, if there is one.
    pub(crate) fn detection(&self) -> Option<&OutlierDetection> {
        self.watched.as_deref().map(|watched| &watched.detection)
    }

    /// A call's route, over the set as it is now, for the operation
    /// called `operation`, whose panels show the detection from this
    /// first call on.
    pub(crate) fn route<'r>(&'r self, operation: &'r str) -> Route<'r> {
        let set = self.replicas.current();
        if let Some(watched) = &self.watched
            && watched
                .shown
                .get()
                .is_none_or(|shown| **shown != *operation)
        {
            let _ = watched.shown.set(operation.into());
            let weak: std::sync::Weak<dyn crate::observe::replicas::Watched> =
                Arc::downgrade(watched) as _;
            crate::observe::replicas::watch(operation, weak, &set);
        }
        Route {
            replicas: self,
            operation,
            set,
            tried: Mutex::new(Vec::new()),
        }
    }
}

impl Route<'_> {
    /// The replica for attempt `number`: one not ejected and not tried
    /// by this call if there is one, the next in turn among them.
    pub(crate) fn choose(&self, number: u32, now: Instant) -> Option<Arc<str>> {
        if self.set.is_empty() {
            return None;
        }
        let mut tried = self.tried.lock().unwrap_or_else(PoisonError::into_inner);
        let healthy: Vec<&String> = match self.replicas.detection() {
            Some(detection) => {
                let health = detection.health();
                self.set
                    .iter()
                    .filter(|url| !OutlierDetection::is_ejected(&health, url, now))
                    .collect()
            }
            None => self.set.iter().collect(),
        };
        let pool = if healthy.is_empty() {
            self.set.iter().collect()
        } else {
            healthy
        };
        let fresh: Vec<&String> = pool
            .iter()
            .copied()
            .filter(|url| tried.iter().all(|(_, seen)| &**seen != url.as_str()))
            .collect();
        let candidates = if fresh.is_empty() { pool } else { fresh };
        let turn = self.replicas.turn.fetch_add(1, Ordering::Relaxed);
        let chosen: Arc<str> = Arc::from(candidates[turn % candidates.len()].as_str());
        tried.push((number, Arc::clone(&chosen)));
        Some(chosen)
    }

    /// The replica chosen last: the one the attempt being sent goes to,
    /// since an attempt chooses right before it is sent.
    pub(crate) fn latest(&self) -> Option<Arc<str>> {
        let tried = self.tried.lock().unwrap_or_else(PoisonError::into_inner);
        tried.last().map(|(_, url)| Arc::clone(url))
    }

    /// An attempt on `replica` ended: told to the detection, and its
    /// ejections to the metrics and the trace.
    pub(crate) fn ended(&self, replica: &str, failed: bool, now: Instant) {
        if let Some(detection) = self.replicas.detection() {
            for (ejected, time) in detection.record(&self.set, replica, failed, now) {
                crate::observe::replicas::ejected(self.operation, &ejected, time);
            }
        }
    }

    /// The attempts of `report` cut at their deadline (a timeout, not a
    /// hedge dropped for another) are failures of their replicas, told to
    /// the detection once the call ended, since they never ended
    /// themselves.
    pub(crate) fn cut_short(&self, report: &crate::ExecutionReport, now: Instant) {
        if self.replicas.detection().is_none() {
            return;
        }
        let cut = report.attempts().iter().filter(|record| {
            record.error().map(|error| error.kind()) == Some(FailureKind::Timeout)
        });
        for record in cut {
            if let Some(replica) = self.replica_of(record.number()) {
                self.ended(&replica, true, now);
            }
        }
    }

    /// The replica attempt `number` went to.
    fn replica_of(&self, number: u32) -> Option<Arc<str>> {
        let tried = self.tried.lock().unwrap_or_else(PoisonError::into_inner);
        let (_, url) = tried.iter().find(|(seen, _)| *seen == number)?;
        Some(Arc::clone(url))
    }

    /// The endpoint of attempt `number`, once chosen: its replica's
    /// `host:port`, as the report's records name endpoints.
    pub(crate) fn endpoint_of(&self, number: u32) -> Option<Arc<str>> {
        let url = self.replica_of(number)?;
        let rest = url.split_once("://").map_or(&*url, |(_, rest)| rest);
        Some(Arc::from(rest.split('/').next().unwrap_or(rest)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("http://10.0.0.{i}:80")).collect()
    }

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn a_set_and_a_detection_say_what_they_hold_in_debug() {
        let fixed = Replicas::fixed(["http://a:1", "http://b:2"]);
        assert_eq!(
            format!("{fixed:?}"),
            r#"Replicas { current: ["http://a:1", "http://b:2"] }"#
        );
        let detection = OutlierDetection::new().consecutive_5xx(3);
        assert_eq!(
            format!("{detection:?}"),
            "OutlierDetection { consecutive_5xx: 3, max_ejection_percent: 10, ejected: [], .. }"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_replica_ejected_by_hand_is_out_on_tokios_clock_until_returned() {
        let detection = OutlierDetection::new();
        detection.eject("http://a:1", 10 * SECOND);
        detection.eject("http://b:2", 10 * SECOND);
        assert_eq!(detection.ejected(), ["http://a:1", "http://b:2"]);
        detection.restore("http://a:1");
        assert_eq!(detection.ejected(), ["http://b:2"]);
        tokio::time::advance(10 * SECOND).await;
        assert!(detection.ejected().is_empty(), "back when the time is up");
    }

    #[test]
    fn a_replica_returned_by_hand_keeps_the_count_of_its_ejections() {
        let replicas = set(10);
        let one = &replicas[0];
        let detection = OutlierDetection::new()
            .consecutive_5xx(1)
            .base_ejection_time(SECOND)
            .max_ejection_time(10 * SECOND);
        let start = Instant::now();
        detection.record(&replicas, one, true, start);
        detection.restore(one);
        assert!(detection.ejected_at(start).is_empty());
        // Its next ejection is its second: twice the base.
        assert_eq!(
            detection.record(&replicas, one, true, start),
            [(one.clone(), 2 * SECOND)]
        );
    }

    #[test]
    fn replicas_that_left_the_set_are_forgotten_past_twice_its_size() {
        let detection = OutlierDetection::new();
        let replicas = set(3);
        let now = Instant::now();
        for i in 0..6 {
            eject_by_hand(&detection.state, &format!("http://old{i}:80"), now, SECOND);
        }
        // Six known: twice the set, kept.
        detection.record(&replicas, &replicas[0], false, now);
        assert_eq!(detection.ejected_at(now).len(), 6);
        // Seven: past twice the set, those that left it are forgotten.
        detection.record(&replicas, &replicas[1], false, now);
        assert!(detection.ejected_at(now).is_empty());
    }

    #[test]
    fn an_ejection_too_long_to_count_lasts_a_century() {
        let now = Instant::now();
        let until = after(now, Duration::MAX);
        let fifty_years = Duration::from_secs(50 * 365 * 24 * 3600);
        assert!(until > now + fifty_years);
        assert_eq!(after(now, SECOND), now + SECOND);
    }

    #[test]
    fn consecutive_failures_eject_for_longer_each_time_up_to_the_cap() {
        let replicas = set(10);
        let detection = OutlierDetection::new()
            .consecutive_5xx(3)
            .base_ejection_time(SECOND)
            .max_ejection_time(2 * SECOND);
        let start = Instant::now();
        let one = &replicas[0];
        for _ in 0..2 {
            detection.record(&replicas, one, true, start);
        }
        detection.record(&replicas, one, false, start);
        detection.record(&replicas, one, true, start);
        assert!(
            detection.ejected_at(start).is_empty(),
            "a success breaks the run"
        );
        assert!(detection.record(&replicas, one, true, start).is_empty());
        assert_eq!(
            detection.record(&replicas, one, true, start),
            [(one.clone(), SECOND)],
            "the ejection, told to the caller"
        );
        assert_eq!(detection.ejected_at(start), std::slice::from_ref(one));
        assert!(
            detection.ejected_at(start + SECOND).is_empty(),
            "back after 1 s"
        );
        let again = start + SECOND;
        for _ in 0..3 {
            detection.record(&replicas, one, true, again);
        }
        assert_eq!(
            detection.ejected_at(again + SECOND),
            std::slice::from_ref(one),
            "2 s the second time"
        );
        assert!(detection.ejected_at(again + 2 * SECOND).is_empty());
        let third = again + 2 * SECOND;
        for _ in 0..3 {
            detection.record(&replicas, one, true, third);
        }
        assert!(
            detection.ejected_at(third + 2 * SECOND).is_empty(),
            "capped at 2 s"
        );
    }

    #[test]
    fn no_more_than_max_ejection_percent_is_ejected_but_always_one() {
        let replicas = set(4);
        let detection = OutlierDetection::new()
            .consecutive_5xx(1)
            .max_ejection_percent(10);
        let now = Instant::now();
        for replica in &replicas {
            detection.record(&replicas, replica, true, now);
        }
        assert_eq!(
            detection.ejected_at(now).len(),
            1,
            "10 % of 4 is none, but one may go"
        );
        let half = OutlierDetection::new()
            .consecutive_5xx(1)
            .max_ejection_percent(50);
        for replica in &replicas {
            half.record(&replicas, replica, true, now);
        }
        assert_eq!(half.ejected_at(now).len(), 2);
    }

    #[test]
    fn the_failure_percentage_ejects_at_the_end_of_an_interval() {
        let replicas = set(3);
        let detection = OutlierDetection::new()
            .consecutive_5xx(1000)
            .failure_percentage_threshold(50)
            .failure_percentage_minimum_hosts(3)
            .failure_percentage_request_volume(10)
            .max_ejection_percent(100)
            .interval(SECOND);
        let start = Instant::now();
        for (index, replica) in replicas.iter().enumerate() {
            for request in 0..10 {
                // Replica 0 fails 6 in 10, the others 1 in 10.
                let failed = if index == 0 {
                    request < 6
                } else {
                    request == 0
                };
                detection.record(&replicas, replica, failed, start);
            }
        }
        assert!(
            detection.ejected_at(start).is_empty(),
            "not before the interval ends"
        );
        assert_eq!(
            detection.record(&replicas, &replicas[1], false, start + SECOND),
            [(replicas[0].clone(), Duration::from_secs(30))],
            "another replica's ejection, told to the call that ended the interval"
        );
        assert_eq!(detection.ejected_at(start + SECOND), [replicas[0].clone()]);
    }

    #[test]
    fn each_attempt_goes_to_a_replica_not_ejected_nor_tried_while_one_is_left() {
        let replicas = set(3);
        let detection = OutlierDetection::new()
            .consecutive_5xx(1)
            .max_ejection_percent(100);
        let routing = Routing::new(Replicas::fixed(replicas.clone()), Some(detection.clone()));
        let now = Instant::now();
        detection.record(&replicas, &replicas[1], true, now);
        let route = routing.route("replicas.route");
        let chosen: Vec<Arc<str>> = (1..=4).filter_map(|n| route.choose(n, now)).collect();
        assert_ne!(chosen[0], chosen[1]);
        assert!(
            chosen[..2].iter().all(|url| **url != *replicas[1]),
            "ejected: {chosen:?}"
        );
        assert_eq!(
            route.endpoint_of(1).as_deref(),
            Some(&chosen[0]["http://".len()..])
        );
        // Every healthy replica tried: it goes round them again.
        assert!(chosen[2..].iter().all(|url| **url != *replicas[1]));
        // All ejected: the ejections are ignored.
        detection.record(&replicas, &replicas[0], true, now);
        detection.record(&replicas, &replicas[2], true, now);
        let route = routing.route("replicas.route");
        assert!(route.choose(1, now).is_some());
    }

    #[test]
    fn replicas_gone_from_a_dynamic_set_are_forgotten() {
        let detection = OutlierDetection::new().consecutive_5xx(1000);
        let now = Instant::now();
        for round in 0..10 {
            let replicas: Vec<String> = (0..3).map(|i| format!("http://{round}.{i}")).collect();
            for replica in &replicas {
                detection.record(&replicas, replica, false, now);
            }
        }
        assert!(detection.health().replicas.len() <= 9, "bounded by the set");
    }
}

#[cfg(all(test, feature = "metrics"))]
mod watched_tests {
    use std::collections::BTreeMap;

    use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

    use super::*;
    use crate::catalog::{REPLICA_EJECTED, REPLICA_EJECTIONS};
    use crate::observe::replicas::{ByHand, by_hand, refresh, replicas_of};

    const OPERATION: &str = "watched.metrics";

    /// Each replica's series of [`OPERATION`], as `(series, replica)`,
    /// with what was recorded since the last take: a snapshot takes the
    /// counters' increments and the gauges' values.
    fn take(snapshotter: &Snapshotter) -> BTreeMap<(String, String), f64> {
        snapshotter
            .snapshot()
            .into_vec()
            .into_iter()
            .filter_map(|(key, _, _, value)| {
                let key = key.key();
                let label = |name: &str| {
                    key.labels()
                        .find(|label| label.key() == name)
                        .map(|label| label.value().to_owned())
                };
                (label("operation")? == OPERATION).then_some(())?;
                let value = match value {
                    DebugValue::Counter(count) => count as f64,
                    DebugValue::Gauge(gauge) => gauge.into_inner(),
                    DebugValue::Histogram(_) => f64::NAN,
                };
                Some(((key.name().to_owned(), label("replica")?), value))
            })
            .collect()
    }

    fn expect(values: [(&str, &str, f64); 4]) -> BTreeMap<(String, String), f64> {
        values
            .into_iter()
            .map(|(series, replica, value)| ((series.to_owned(), replica.to_owned()), value))
            .collect()
    }

    #[test]
    fn an_ejection_is_counted_and_its_gauge_follows_it_until_it_ends() {
        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        let set = ["http://10.1.0.1:80", "http://10.1.0.2:80"];
        let detection = OutlierDetection::new()
            .consecutive_5xx(2)
            .base_ejection_time(Duration::from_secs(30))
            .max_ejection_percent(50);
        let routing = Routing::new(Replicas::fixed(set), Some(detection.clone()));
        let start = Instant::now();
        metrics::with_local_recorder(&recorder, || {
            let route = routing.route(OPERATION);
            // Every replica of the set appears at zero, on the first call.
            let zero = expect([
                (REPLICA_EJECTED, set[0], 0.0),
                (REPLICA_EJECTED, set[1], 0.0),
                (REPLICA_EJECTIONS, set[0], 0.0),
                (REPLICA_EJECTIONS, set[1], 0.0),
            ]);
            assert_eq!(take(&snapshotter), zero);
            route.ended(set[0], true, start);
            route.ended(set[0], true, start);
            assert_eq!(
                take(&snapshotter),
                expect([
                    (REPLICA_EJECTED, set[0], 1.0),
                    (REPLICA_EJECTED, set[1], 0.0),
                    (REPLICA_EJECTIONS, set[0], 1.0),
                    (REPLICA_EJECTIONS, set[1], 0.0),
                ])
            );

            // Still out 29 s on; back, with no call to notice, at 30 s.
            refresh(start + Duration::from_secs(29));
            let key = (REPLICA_EJECTED.to_owned(), set[0].to_owned());
            assert_eq!(take(&snapshotter)[&key], 1.0);
            refresh(start + Duration::from_secs(30));
            assert_eq!(take(&snapshotter), zero);

            // By hand, a replica no call went to yet: the gauge at once,
            // for the longest ejection; the detection's counter not.
            let later = start + Duration::from_secs(31);
            assert_eq!(
                by_hand(OPERATION, set[1], true, later),
                Some(ByHand::Ejected(Duration::from_secs(300)))
            );
            assert_eq!(
                take(&snapshotter),
                expect([
                    (REPLICA_EJECTED, set[0], 0.0),
                    (REPLICA_EJECTED, set[1], 1.0),
                    (REPLICA_EJECTIONS, set[0], 0.0),
                    (REPLICA_EJECTIONS, set[1], 0.0),
                ])
            );
            assert_eq!(detection.ejected_at(later), [set[1]]);
            assert_eq!(
                by_hand(OPERATION, "http://10.9.9.9:80", true, later),
                None,
                "a replica of no set shown"
            );
            assert_eq!(
                by_hand(OPERATION, set[1], false, later),
                Some(ByHand::Returned)
            );
            assert!(detection.ejected_at(later).is_empty());
        });
        drop(routing);
        assert!(
            replicas_of(OPERATION, start).is_empty(),
            "a set dropped leaves the panels"
        );
    }
}
