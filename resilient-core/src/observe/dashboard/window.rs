//! The rolling windows: a reading of every operation's counts each
//! second, what changed since the reading before kept for the last
//! minute, and the tiles made from the changes of the last ten seconds.
//!
//! A reading costs the same for every operation, one pass over its counts;
//! a snapshot, one pass over the operations and one over the changes kept.
//! Both are linear in the operations (bounded in turn by the limit on
//! names). What is kept is each operation's latest counts, and for each
//! reading only the operations whose counts moved: an idle operation
//! costs no memory in the history, and a reading older than a window
//! keeps its calls and failures only, for the sparklines.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::breaker::View;
use crate::observe::cardinality;
use crate::observe::registry::{self, Name, Registered};
use crate::observe::tally::{BUCKETS, bucket_middle};
use crate::settings::Settings;

use super::settings;

/// How far back a tile's figures look.
pub(crate) const WINDOW: Duration = Duration::from_secs(10);

/// Readings kept: a minute of them, one a second, for the sparklines.
const KEPT: usize = 61;

/// One operation's counts at one moment (every count only grows), or
/// what changed over a span of time.
#[derive(Debug, Clone, Default)]
struct Counts {
    /// Calls by latency bucket; empty for no call at all.
    latency: Vec<u64>,
    failed: u64,
    retries: u64,
    fallbacks: u64,
    rejected: u64,
}

impl Counts {
    fn calls(&self) -> u64 {
        self.latency.iter().sum()
    }

    /// Adds `calls` to the latency bucket `index`.
    fn add_latency(&mut self, index: usize, calls: u64) {
        if self.latency.is_empty() {
            self.latency = vec![0; BUCKETS];
        }
        if let Some(bucket) = self.latency.get_mut(index) {
            *bucket += calls;
        }
    }

    /// The duration under which a `quantile` of the calls finished.
    fn percentile(&self, quantile: f64) -> Option<Duration> {
        let calls = self.calls();
        if calls == 0 {
            return None;
        }
        let rank = ((calls as f64) * quantile).ceil().max(1.0) as u64;
        let mut seen = 0;
        self.latency.iter().enumerate().find_map(|(index, count)| {
            seen += count;
            (seen >= rank).then(|| Duration::from_nanos(bucket_middle(index)))
        })
    }
}

/// What one operation did between two readings.
#[derive(Debug)]
struct Change {
    row: usize,
    calls: u64,
    failed: u64,
    retries: u64,
    fallbacks: u64,
    rejected: u64,
    /// The latency buckets that grew, and by how much; dropped once the
    /// reading is older than a window.
    latency: Vec<(u8, u64)>,
}

/// What changed at one moment: the operations whose counts moved, in the
/// order of their rows.
#[derive(Debug)]
struct Reading {
    at: Instant,
    changes: Vec<Change>,
}

/// An operation as of the latest reading.
#[derive(Debug)]
struct Row {
    name: Name,
    throttle: Option<(f64, f64)>,
    /// Its adaptive throttle: name, requests, accepts, probability,
    /// rejections.
    adaptive: Option<(&'static str, u64, u64, f64, u64)>,
    breaker: Option<Weak<View>>,
    /// The settings its operation was built with, once a call built them
    /// (kept in its tally).
    settings: Option<&'static Settings>,
}

/// The last minute of readings.
#[derive(Debug, Default)]
pub(crate) struct History {
    rows: Vec<Row>,
    /// Each row's counts as of the latest reading.
    last: Vec<Counts>,
    readings: VecDeque<Reading>,
}

impl History {
    /// Takes a reading of every registered operation at `at` and keeps it.
    pub(crate) fn sample(&mut self, at: Instant) {
        self.sample_of(at, &registry::operations());
    }

    /// Takes a reading of `entries` at `at`. Entries of one row (two
    /// methods called `get`) are added up into one.
    fn sample_of(&mut self, at: Instant, entries: &[Arc<Registered>]) {
        let rows = entries.iter().map(|entry| entry.row + 1).max().unwrap_or(0);
        if rows > self.rows.len() {
            self.rows.resize_with(rows, || Row {
                name: Name::Borrowed(""),
                throttle: None,
                adaptive: None,
                breaker: None,
                settings: None,
            });
            self.last.resize_with(rows, Counts::default);
        }
        // The entries row by row: nearly always one per row.
        let mut order: Vec<&Registered> = entries.iter().map(|entry| &**entry).collect();
        order.sort_by_key(|entry| entry.row);
        let mut changes = Vec::new();
        let mut now = Counts::default();
        for group in order.chunk_by(|a, b| a.row == b.row) {
            let index = group[0].row;
            now.latency.iter_mut().for_each(|bucket| *bucket = 0);
            (now.failed, now.retries, now.fallbacks, now.rejected) = (0, 0, 0, 0);
            let row = &mut self.rows[index];
            for entry in group {
                read(entry, row, &mut now);
            }
            let change = change(index, &now, &self.last[index]);
            if change.moved() {
                changes.push(change);
                self.last[index].clone_from(&now);
            }
        }
        if self.readings.len() == KEPT {
            self.readings.pop_front();
        }
        self.readings.push_back(Reading { at, changes });
        // Only the readings of the latest window give latencies.
        for reading in &mut self.readings {
            if at.saturating_duration_since(reading.at) <= WINDOW {
                break;
            }
            for change in &mut reading.changes {
                change.latency = Vec::new();
            }
        }
    }

    /// The snapshot the page shows, as JSON, from the readings kept (the
    /// newest is "now").
    pub(crate) fn snapshot(&self) -> Value {
        let Some(newest) = self.readings.back() else {
            return json!({
                "window_s": WINDOW.as_secs(),
                "operations": [],
                "breakers": breakers(Instant::now()),
                "names": names(),
            });
        };
        // The oldest reading at most a window old (the oldest kept, while
        // fewer than a window's worth are): the window is what changed
        // after it.
        let base = self
            .readings
            .iter()
            .position(|reading| newest.at.duration_since(reading.at) <= WINDOW)
            .unwrap_or(self.readings.len() - 1);
        let seconds = newest
            .at
            .duration_since(self.readings[base].at)
            .as_secs_f64();
        let mut windows = vec![Counts::default(); self.rows.len()];
        for reading in self.readings.iter().skip(base + 1) {
            for change in &reading.changes {
                let window = &mut windows[change.row];
                for &(index, calls) in &change.latency {
                    window.add_latency(usize::from(index), calls);
                }
                window.failed += change.failed;
                window.retries += change.retries;
                window.fallbacks += change.fallbacks;
                window.rejected += change.rejected;
            }
        }
        // Calls and failures in each second, oldest first. A reading
        // covers the time since the one before: nearly always a second,
        // but readings are taken only while a page looks, so the first
        // after a closed page covers the whole gap. Its counts are spread
        // evenly over the seconds it covers, the last minute of them kept:
        // a rate, never a spike that didn't happen.
        let spans: Vec<usize> = self
            .readings
            .iter()
            .zip(self.readings.iter().skip(1))
            .map(|(before, reading)| seconds_between(before.at, reading.at))
            .collect();
        let points = spans.iter().sum::<usize>().min(KEPT - 1);
        let mut sparks = vec![(vec![0; points], vec![0; points]); self.rows.len()];
        // From the newest reading back, each filling its seconds.
        let mut end = points;
        for (reading, &span) in self.readings.iter().skip(1).zip(&spans).rev() {
            let start = end.saturating_sub(span);
            for change in &reading.changes {
                let (calls, errors) = &mut sparks[change.row];
                spread(change.calls, span, &mut calls[start..end]);
                spread(change.failed, span, &mut errors[start..end]);
            }
            end = start;
            if end == 0 {
                break;
            }
        }
        let operations: Vec<Value> = self
            .rows
            .iter()
            .zip(windows)
            .zip(sparks)
            .map(|((row, window), spark)| tile(row, &window, seconds, spark, newest.at))
            .collect();
        json!({
            "window_s": WINDOW.as_secs(),
            "operations": operations,
            "breakers": breakers(newest.at),
            "names": names(),
        })
    }

    /// About how many bytes the history holds.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        use std::mem::size_of;
        let counts = |counts: &Counts| size_of::<Counts>() + counts.latency.capacity() * 8;
        let rows = self.rows.capacity() * size_of::<Row>();
        let last: usize = self.last.iter().map(counts).sum();
        let readings: usize = self
            .readings
            .iter()
            .map(|reading| {
                size_of::<Reading>()
                    + reading.changes.capacity() * size_of::<Change>()
                    + reading
                        .changes
                        .iter()
                        .map(|change| change.latency.capacity() * size_of::<(u8, u64)>())
                        .sum::<usize>()
            })
            .sum();
        rows + last + readings
    }
}

/// Adds the counts of `entry` to `now`, and notes its throttle and
/// breaker on its `row`.
fn read(entry: &Registered, row: &mut Row, now: &mut Counts) {
    let tally = &entry.tally.counts;
    if row.name.is_empty() {
        row.name = entry.name.clone();
    }
    for (index, bucket) in tally.latency.iter().enumerate() {
        let calls = bucket.load(Relaxed);
        if calls > 0 {
            now.add_latency(index, calls);
        }
    }
    now.failed += tally.failed.load(Relaxed);
    now.retries += tally.retries.load(Relaxed);
    now.fallbacks += tally.fallbacks.load(Relaxed);
    now.rejected += tally.rejected.load(Relaxed);
    let (tokens, max) = (
        tally.throttle_milli.load(Relaxed),
        tally.throttle_max.load(Relaxed),
    );
    if tokens != u64::MAX && max != u64::MAX {
        row.throttle = Some((tokens as f64 / 1000.0, max as f64 / 1000.0));
    }
    if let Some(adaptive) = tally.adaptive.read() {
        row.adaptive = Some(adaptive);
    }
    if row.breaker.is_none() {
        row.breaker.clone_from(&entry.breaker);
    }
    if row.settings.is_none() {
        row.settings = entry.tally.counts.settings.get();
    }
}

impl Change {
    fn moved(&self) -> bool {
        self.calls > 0
            || self.failed > 0
            || self.retries > 0
            || self.fallbacks > 0
            || self.rejected > 0
    }
}

/// What changed of row `row` from `last` to `now`.
fn change(row: usize, now: &Counts, last: &Counts) -> Change {
    let latency: Vec<(u8, u64)> = now
        .latency
        .iter()
        .enumerate()
        .filter_map(|(index, calls)| {
            let before = last.latency.get(index).copied().unwrap_or(0);
            let grew = calls.saturating_sub(before);
            // Fewer buckets than 256: an index fits a byte.
            (grew > 0).then_some((index as u8, grew))
        })
        .collect();
    Change {
        row,
        calls: latency.iter().map(|&(_, calls)| calls).sum(),
        failed: now.failed.saturating_sub(last.failed),
        retries: now.retries.saturating_sub(last.retries),
        fallbacks: now.fallbacks.saturating_sub(last.fallbacks),
        rejected: now.rejected.saturating_sub(last.rejected),
        latency,
    }
}

/// How the names are bounded: the limit, how many are counted apart, and
/// how many were folded into the overflow's tile.
fn names() -> Value {
    json!({
        "limit": cardinality::limit(),
        "counted": cardinality::counted(),
        "folded": cardinality::folded(),
        "overflow": cardinality::OVERFLOW,
    })
}

/// The whole seconds between two readings, at least one.
fn seconds_between(before: Instant, after: Instant) -> usize {
    let seconds = after
        .saturating_duration_since(before)
        .as_secs_f64()
        .round();
    // A float's cast saturates; a gap past usize is no gap to draw anyway.
    (seconds as usize).max(1)
}

/// `count`, counted over `span` seconds, as one point per second; the
/// latest `points.len()` of them are written (a span longer than the
/// minute shown is cut). The remainder goes to the latest seconds, so the
/// points add up to `count` over the whole span.
fn spread(count: u64, span: usize, points: &mut [u64]) {
    let span = span.max(1) as u64;
    let (each, left) = (count / span, count % span);
    let shown = points.len() as u64;
    for (index, point) in points.iter_mut().enumerate() {
        // The second's place in the span, counted from its start.
        let second = span - shown + index as u64;
        *point = each + u64::from(second >= span - left);
    }
}

/// One operation's tile.
fn tile(
    op: &Row,
    window: &Counts,
    seconds: f64,
    spark: (Vec<u64>, Vec<u64>),
    now: Instant,
) -> Value {
    let calls = window.calls();
    let per_second = |count: u64| (seconds > 0.0).then(|| count as f64 / seconds);
    let percent = |count: u64| (calls > 0).then(|| 100.0 * count as f64 / calls as f64);
    let millis = |quantile: f64| {
        window
            .percentile(quantile)
            .map(|d| d.as_secs_f64() * 1000.0)
    };
    let endpoints = super::endpoints::endpoints_of(&op.name, now);
    json!({
        "name": op.name,
        "calls": calls,
        "calls_per_s": per_second(calls),
        "error_pct": percent(window.failed),
        "retries_per_s": per_second(window.retries),
        "fallback_pct": percent(window.fallbacks),
        "rejected": window.rejected,
        "p50_ms": millis(0.50),
        "p90_ms": millis(0.90),
        "p99_ms": millis(0.99),
        "spark_calls": spark.0,
        "spark_errors": spark.1,
        // With breakers per endpoint, the breaker of its first call is one
        // key's: the rows of `endpoints` show them all instead.
        "breaker": op
            .breaker
            .as_ref()
            .filter(|_| endpoints.is_empty())
            .and_then(Weak::upgrade)
            .map(|view| breaker(&view, now)),
        "endpoints": endpoints,
        "replicas": super::endpoints::replicas_of(&op.name, now),
        "throttle": op.throttle.map(|(tokens, max)| json!({ "tokens": tokens, "max": max })),
        "adaptive": op.adaptive.map(|(name, requests, accepts, probability, rejections)| json!({
            "name": name,
            "requests": requests,
            "accepts": accepts,
            "probability": probability,
            "rejections": rejections,
        })),
        "limits": super::limits_of(&op.name),
        "settings": (op.name != cardinality::OVERFLOW)
            .then(|| settings::operation(&op.name, op.settings)),
    })
}

pub(super) fn breaker(view: &View, now: Instant) -> Value {
    let (state, held) = view.state_at(now);
    json!({
        "name": view.name,
        "state": state.as_str(),
        "for_s": held.as_secs_f64(),
        // Until an open breaker lets a probe through, by the break in
        // force: a configured or grown one, not only the builder's.
        "break_left_s": view.break_left(now).map(|left| left.as_secs_f64()),
        "settings": settings::breaker(view),
        // A shared breaker's fleet: `closed`, `open`, `half-open` or
        // `alone`; absent for a breaker that is not shared.
        "fleet": view.fleet_state().map(|fleet| fleet.as_str()),
    })
}

/// Every live breaker, used by an operation or not.
fn breakers(now: Instant) -> Vec<Value> {
    View::live().iter().map(|view| breaker(view, now)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::Tally;

    /// `count` operations, each its own row, with tallies of their own
    /// and the settings their tiles show.
    fn operations(count: usize) -> Vec<Arc<Registered>> {
        (0..count)
            .map(|row| {
                let tally: &'static Tally = Box::leak(Box::new(Tally::new()));
                tally.counts.settings.set(Settings::DEFAULT).unwrap();
                Arc::new(Registered {
                    name: format!("tenant-{row}").into(),
                    tally,
                    breaker: None,
                    row,
                })
            })
            .collect()
    }

    /// `calls` calls of `entry` in latency bucket `bucket`, `failed` of them failed.
    fn call(entry: &Registered, bucket: usize, calls: u64, failed: u64) {
        entry.tally.counts.latency[bucket].fetch_add(calls, Relaxed);
        entry.tally.counts.failed.fetch_add(failed, Relaxed);
    }

    fn second(start: Instant, second: u64) -> Instant {
        start + Duration::from_secs(second)
    }

    #[test]
    fn percentiles_come_from_the_calls_of_the_window_only() {
        // Before the window: 1000 slow calls. In it: 90 fast, 10 slow.
        let entries = operations(1);
        let (mut history, start) = (History::default(), Instant::now());
        call(&entries[0], 60, 1000, 0);
        history.sample_of(start, &entries);
        history.sample_of(second(start, 20), &entries);
        call(&entries[0], 20, 90, 5);
        call(&entries[0], 60, 10, 0);
        history.sample_of(second(start, 21), &entries);
        let tile = &history.snapshot()["operations"][0];
        assert_eq!(tile["calls"], 100);
        assert_eq!(tile["error_pct"], 5.0);
        let millis = |index| Duration::from_nanos(bucket_middle(index)).as_secs_f64() * 1000.0;
        assert_eq!(tile["p50_ms"], millis(20));
        assert_eq!(tile["p90_ms"], millis(20));
        assert_eq!(tile["p99_ms"], millis(60));
        assert_eq!(Counts::default().percentile(0.5), None);
    }

    #[test]
    fn a_tile_shows_its_adaptive_throttle_as_its_latest_call_left_it() {
        #[derive(Debug)]
        struct Down;
        impl From<crate::throttle::Rejected> for Down {
            fn from(_: crate::throttle::Rejected) -> Self {
                Down
            }
        }
        impl std::fmt::Display for Down {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("down")
            }
        }
        static BACKEND: crate::throttle::AdaptiveThrottle =
            crate::throttle::AdaptiveThrottle::new()
                .seed(9)
                .named("tile.backend");
        let entries = operations(1);
        let clock = crate::FakeClock::new();
        for ok in [true, false, false, false, false, false] {
            let _ = crate::Operation::new()
                .tally(entries[0].tally)
                .adaptive_throttle(&BACKEND)
                .clock(&clock)
                .run(|_| if ok { Ok(1) } else { Err(Down) });
        }
        let (mut history, start) = (History::default(), Instant::now());
        history.sample_of(start, &entries);
        history.sample_of(second(start, 1), &entries);
        let tile = &history.snapshot()["operations"][0];
        assert_eq!(
            tile["adaptive"],
            json!({
                "name": "tile.backend",
                "requests": BACKEND.requests(),
                "accepts": 1,
                "probability": BACKEND.rejection_probability(),
                "rejections": BACKEND.rejections(),
            })
        );
        assert_eq!(BACKEND.requests(), 6);
        // The page draws the row.
        assert!(super::super::PAGE.contains("row(\"adaptive\", \"adaptive \" + op.adaptive.name)"));
    }

    #[test]
    fn a_tile_adds_up_its_names_entries_over_the_window_and_sparks_each_second() {
        let mut entries = operations(2);
        // A second operation called "tenant-0": the same row.
        entries.push(Arc::new(Registered {
            name: "tenant-0".into(),
            tally: Box::leak(Box::new(Tally::new())),
            breaker: None,
            row: 0,
        }));
        let (mut history, start) = (History::default(), Instant::now());
        history.sample_of(start, &entries);
        for s in 1..=15 {
            call(&entries[0], 10, 2, 1);
            call(&entries[2], 10, 1, 0);
            history.sample_of(second(start, s), &entries);
        }
        let snapshot = history.snapshot();
        let tiles = snapshot["operations"].as_array().unwrap();
        assert_eq!(tiles.len(), 2, "one tile per name");
        assert_eq!(tiles[0]["name"], "tenant-0");
        // The last 10 s: 3 calls a second, 1 failed.
        assert_eq!(tiles[0]["calls"], 30);
        assert_eq!(tiles[0]["calls_per_s"], 3.0);
        assert_eq!(tiles[0]["spark_calls"], json!(vec![3u64; 15]));
        assert_eq!(tiles[0]["spark_errors"], json!(vec![1u64; 15]));
        assert_eq!(tiles[1]["calls"], 0);
        assert_eq!(tiles[1]["calls_per_s"], 0.0);
        assert_eq!(tiles[1]["spark_calls"], json!(vec![0u64; 15]));
        assert_eq!(tiles[1]["p50_ms"], Value::Null);
    }

    #[test]
    fn calls_counted_while_no_page_looked_are_spread_over_the_seconds_they_cover() {
        let entries = operations(1);
        let (mut history, start) = (History::default(), Instant::now());
        history.sample_of(start, &entries);
        for s in 1..=5 {
            call(&entries[0], 10, 19, 1);
            history.sample_of(second(start, s), &entries);
        }
        // The page is closed for 150 s at 19 calls a second, 1 failing:
        // the next reading counts them all.
        call(&entries[0], 10, 19 * 150, 150);
        history.sample_of(second(start, 155), &entries);
        let tile = &history.snapshot()["operations"][0];
        // The last minute, a point a second: 19 each, no spike.
        assert_eq!(tile["spark_calls"], json!(vec![19u64; KEPT - 1]));
        assert_eq!(tile["spark_errors"], json!(vec![1u64; KEPT - 1]));

        // A gap of 2.5 s with 7 calls: 2, 2 and 3 (the remainder last).
        call(&entries[0], 10, 7, 0);
        history.sample_of(start + Duration::from_millis(157_500), &entries);
        let spark = history.snapshot()["operations"][0]["spark_calls"].clone();
        let spark: Vec<u64> = serde_json::from_value(spark).unwrap();
        assert_eq!(spark.len(), KEPT - 1);
        assert_eq!(spark[spark.len() - 4..], [19, 2, 2, 3]);
    }

    #[test]
    fn calls_an_open_breaker_refused_are_counted_apart_from_the_latencies() {
        use crate::breaker::CircuitBreaker;
        #[derive(Debug)]
        struct Down;
        impl From<crate::CircuitOpen> for Down {
            fn from(_: crate::CircuitOpen) -> Self {
                Down
            }
        }
        impl std::fmt::Display for Down {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("down")
            }
        }
        let breaker = CircuitBreaker::builder()
            .failure_threshold(1)
            .build()
            .unwrap();
        let entries = operations(1);
        let clock = crate::FakeClock::new();
        let (mut history, start) = (History::default(), Instant::now());
        history.sample_of(start, &entries);
        // One call runs for 200 ms and fails; the breaker refuses 50 more.
        for _ in 0..51 {
            let _ = crate::Operation::new()
                .tally(entries[0].tally)
                .circuit_breaker(&breaker)
                .clock(&clock)
                .run(|_| {
                    clock.advance(Duration::from_millis(200));
                    Err::<(), _>(Down)
                });
        }
        assert_eq!(
            clock.elapsed(),
            Duration::from_millis(200),
            "only the first ran"
        );
        history.sample_of(second(start, 1), &entries);
        let tile = &history.snapshot()["operations"][0];
        assert_eq!(tile["rejected"], 50);
        // The one call that ran: 200 ms, whatever the refusals.
        let p50 = tile["p50_ms"].as_f64().unwrap();
        assert!((150.0..260.0).contains(&p50), "p50 {p50} ms");
        assert_eq!(tile["p90_ms"], tile["p50_ms"]);
    }

    #[test]
    fn an_operation_that_joins_late_counts_its_calls_from_its_first_reading() {
        let entries = operations(2);
        let (mut history, start) = (History::default(), Instant::now());
        history.sample_of(start, &entries[..1]);
        call(&entries[1], 10, 4, 0);
        history.sample_of(second(start, 1), &entries);
        let snapshot = history.snapshot();
        assert_eq!(snapshot["operations"][1]["calls"], 4);
        assert_eq!(snapshot["operations"][1]["spark_calls"], json!([4]));
    }

    #[test]
    fn a_tile_with_breakers_per_endpoint_shows_a_row_per_key_and_no_single_breaker() {
        use crate::breaker::CircuitBreaker;
        use crate::endpoint::EndpointBreakers;

        let breakers = Arc::new(
            EndpointBreakers::builder("window.hosts")
                .template(CircuitBreaker::builder().failure_threshold(1))
                .build()
                .unwrap(),
        );
        let now = Instant::now();
        let sick = breakers.get("sick:80");
        sick.try_acquire(now).unwrap().record_failure(now);
        breakers.get("well:80");
        // Its first call consulted the sick key's breaker.
        let entries = vec![Arc::new(Registered {
            name: "window.by_host".into(),
            tally: Box::leak(Box::new(Tally::new())),
            breaker: Some(Arc::downgrade(sick.view())),
            row: 0,
        })];
        let (mut history, start) = (History::default(), Instant::now());
        history.sample_of(start, &entries);
        let shown = |history: &History| history.snapshot()["operations"][0].clone();
        assert_eq!(
            shown(&history)["breaker"]["state"],
            "open",
            "one breaker, until the map shows"
        );
        let rows: Weak<dyn super::super::EndpointRows> = Arc::downgrade(&breakers) as _;
        super::super::endpoints::show_endpoints("window.by_host", rows);

        let tile = shown(&history);
        assert_eq!(tile["breaker"], Value::Null);
        let map = &tile["endpoints"][0];
        assert_eq!(map["prefix"], "window.hosts");
        assert_eq!(map["keys"], 2);
        let rows: Vec<(&str, &str)> = map["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| (row["key"].as_str().unwrap(), row["state"].as_str().unwrap()))
            .collect();
        assert_eq!(rows, [("sick:80", "open"), ("well:80", "closed")]);
    }

    /// A thousand operations, and the overflow: the most the limit on
    /// names lets the dashboard show, functions under the attribute aside.
    const ROWS: usize = cardinality::DEFAULT_LIMIT + 1;

    #[test]
    fn a_minute_of_a_thousand_idle_operations_holds_about_a_kilobyte_each() {
        let entries = operations(ROWS);
        for entry in &entries {
            call(entry, 30, 1, 0);
        }
        let (mut history, start) = (History::default(), Instant::now());
        for s in 0..100 {
            history.sample_of(second(start, s), &entries);
        }
        // Each operation's latest counts; no reading holds an idle one.
        let bytes = history.bytes();
        assert!(bytes <= ROWS * 1_200, "{bytes} bytes for {ROWS} operations");
        // The operations' tiles, their settings and the place of their
        // breakers per endpoint included: the breakers other tests hold
        // alive meanwhile are listed beside them, and are not counted here.
        let snapshot = history.snapshot()["operations"].to_string();
        assert!(
            snapshot.len() <= ROWS * 750,
            "a snapshot of {} bytes for {ROWS} operations",
            snapshot.len()
        );
    }

    #[test]
    fn a_minute_of_a_thousand_busy_operations_holds_a_bounded_history() {
        let entries = operations(ROWS);
        let (mut history, start) = (History::default(), Instant::now());
        for s in 0..100 {
            for (index, entry) in entries.iter().enumerate() {
                // Calls over a few latency buckets, some failing.
                for bucket in 20..24 {
                    call(entry, bucket, 250 + index as u64 % 7, 3);
                }
            }
            history.sample_of(second(start, s), &entries);
        }
        let bytes = history.bytes();
        assert!(bytes <= ROWS * 8_000, "{bytes} bytes for {ROWS} operations");
        let snapshot = history.snapshot()["operations"].to_string();
        assert!(
            snapshot.len() <= ROWS * 1_500,
            "a snapshot of {} bytes for {ROWS} operations",
            snapshot.len()
        );
    }
}
