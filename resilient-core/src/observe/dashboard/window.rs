//! The rolling windows: a reading of every operation's counts each second,
//! the last minute of them kept, and the tiles made from the difference
//! between the newest reading and the one ten seconds older.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::breaker::View;
use crate::observe::registry::{self, Name};
use crate::observe::tally::{BUCKETS, bucket_middle};

/// How far back a tile's figures look.
pub(crate) const WINDOW: Duration = Duration::from_secs(10);

/// Readings kept: a minute of them, one a second, for the sparklines.
const KEPT: usize = 61;

/// One operation's counts at one moment (every count only grows).
#[derive(Debug, Clone)]
struct Counts {
    latency: Box<[u64; BUCKETS]>,
    failed: u64,
    retries: u64,
    fallbacks: u64,
    rejected: u64,
}

impl Counts {
    fn zero() -> Self {
        Counts {
            latency: Box::new([0; BUCKETS]),
            failed: 0,
            retries: 0,
            fallbacks: 0,
            rejected: 0,
        }
    }

    fn calls(&self) -> u64 {
        self.latency.iter().sum()
    }

    /// What happened between `earlier` and `self`.
    fn since(&self, earlier: &Counts) -> Counts {
        let mut latency = Box::new([0; BUCKETS]);
        for (delta, (now, then)) in latency
            .iter_mut()
            .zip(self.latency.iter().zip(earlier.latency.iter()))
        {
            *delta = now.saturating_sub(*then);
        }
        Counts {
            latency,
            failed: self.failed.saturating_sub(earlier.failed),
            retries: self.retries.saturating_sub(earlier.retries),
            fallbacks: self.fallbacks.saturating_sub(earlier.fallbacks),
            rejected: self.rejected.saturating_sub(earlier.rejected),
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

/// An operation at one moment.
#[derive(Debug, Clone)]
struct Operation {
    name: Name,
    counts: Counts,
    throttle: Option<(f64, f64)>,
    breaker: Option<Arc<View>>,
}

/// Every operation at one moment.
#[derive(Debug)]
struct Reading {
    at: Instant,
    operations: Vec<Operation>,
}

impl Reading {
    /// Reads every registered operation now. Operations of one name (say,
    /// two methods called `get`) are added up into one.
    fn now(at: Instant) -> Reading {
        let mut operations: Vec<Operation> = Vec::new();
        for entry in registry::operations() {
            let tally = &entry.tally.counts;
            let index = match operations.iter().position(|op| op.name == entry.name) {
                Some(index) => index,
                None => {
                    operations.push(Operation {
                        name: entry.name.clone(),
                        counts: Counts::zero(),
                        throttle: None,
                        breaker: None,
                    });
                    operations.len() - 1
                }
            };
            let op = &mut operations[index];
            for (sum, bucket) in op.counts.latency.iter_mut().zip(&tally.latency) {
                *sum += bucket.load(Relaxed);
            }
            op.counts.failed += tally.failed.load(Relaxed);
            op.counts.retries += tally.retries.load(Relaxed);
            op.counts.fallbacks += tally.fallbacks.load(Relaxed);
            op.counts.rejected += tally.rejected.load(Relaxed);
            let (tokens, max) = (
                tally.throttle_milli.load(Relaxed),
                tally.throttle_max.load(Relaxed),
            );
            if tokens != u64::MAX && max != u64::MAX {
                op.throttle = Some((tokens as f64 / 1000.0, max as f64 / 1000.0));
            }
            if op.breaker.is_none() {
                op.breaker = entry.breaker.as_ref().and_then(std::sync::Weak::upgrade);
            }
        }
        Reading { at, operations }
    }

    fn counts_of(&self, name: &str) -> Option<&Counts> {
        self.operations
            .iter()
            .find(|op| op.name == name)
            .map(|op| &op.counts)
    }
}

/// The last minute of readings.
#[derive(Debug, Default)]
pub(crate) struct History {
    readings: VecDeque<Reading>,
}

impl History {
    /// Takes a reading at `at` and keeps it.
    pub(crate) fn sample(&mut self, at: Instant) {
        if self.readings.len() == KEPT {
            self.readings.pop_front();
        }
        self.readings.push_back(Reading::now(at));
    }

    /// The snapshot the page shows, as JSON, from the readings kept (the
    /// newest is "now").
    pub(crate) fn snapshot(&self) -> Value {
        let Some(newest) = self.readings.back() else {
            return json!({ "window_s": WINDOW.as_secs(), "operations": [], "breakers": breakers(Instant::now()) });
        };
        // The oldest reading at most a window old (the oldest kept, while
        // fewer than a window's worth are).
        let base = self
            .readings
            .iter()
            .find(|reading| newest.at.duration_since(reading.at) <= WINDOW)
            .unwrap_or(newest);
        let seconds = newest.at.duration_since(base.at).as_secs_f64();
        let operations: Vec<Value> = newest
            .operations
            .iter()
            .map(|op| {
                let zero = Counts::zero();
                let then = base.counts_of(&op.name).unwrap_or(&zero);
                let window = op.counts.since(then);
                tile(op, &window, seconds, self.spark(&op.name), newest.at)
            })
            .collect();
        json!({
            "window_s": WINDOW.as_secs(),
            "operations": operations,
            "breakers": breakers(newest.at),
        })
    }

    /// Calls and failures in each second of the last minute, oldest first.
    fn spark(&self, name: &str) -> (Vec<u64>, Vec<u64>) {
        let zero = Counts::zero();
        let pairs = self.readings.iter().zip(self.readings.iter().skip(1));
        pairs
            .map(|(then, now)| {
                let now = now.counts_of(name).unwrap_or(&zero);
                let then = then.counts_of(name).unwrap_or(&zero);
                let delta = now.since(then);
                (delta.calls(), delta.failed)
            })
            .unzip()
    }
}

/// One operation's tile.
fn tile(
    op: &Operation,
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
        "breaker": op.breaker.as_ref().map(|view| breaker(view, now)),
        "throttle": op.throttle.map(|(tokens, max)| json!({ "tokens": tokens, "max": max })),
        "limits": super::limits_of(&op.name),
    })
}

fn breaker(view: &View, now: Instant) -> Value {
    let (state, held) = view.state_at(now);
    json!({
        "name": view.name,
        "state": match state {
            crate::CircuitState::Closed => "closed",
            crate::CircuitState::HalfOpen => "half-open",
            crate::CircuitState::Open => "open",
        },
        "for_s": held.as_secs_f64(),
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

    fn counts(latency: &[(usize, u64)], failed: u64) -> Counts {
        let mut counts = Counts::zero();
        for &(index, count) in latency {
            counts.latency[index] = count;
        }
        counts.failed = failed;
        counts
    }

    #[test]
    fn percentiles_come_from_the_calls_of_the_window_only() {
        // Before the window: 1000 slow calls. In it: 90 fast, 10 slow.
        let before = counts(&[(60, 1000)], 0);
        let now = counts(&[(20, 90), (60, 1010)], 5);
        let window = now.since(&before);
        assert_eq!(window.calls(), 100);
        assert_eq!(window.failed, 5);
        let fast = Duration::from_nanos(bucket_middle(20));
        let slow = Duration::from_nanos(bucket_middle(60));
        assert_eq!(window.percentile(0.5), Some(fast));
        assert_eq!(window.percentile(0.9), Some(fast));
        assert_eq!(window.percentile(0.99), Some(slow));
        assert_eq!(Counts::zero().percentile(0.5), None);
    }
}
