//! Rows measured in one process, rounds interleaved so that a slow moment
//! of the machine touches every row alike, each row's best round kept.
//!
//! Every ratio compares overheads, the time a row spends above the bare
//! call it wraps: the blocking rows above `fetch`, the async rows above an
//! awaited `fetch_async`. The machine's speed cancels out of them.

use std::hint::black_box;
use std::time::Instant;

use crate::shapes;

/// One measured row: its name and its best time per call.
#[derive(Debug, Clone)]
pub struct Row {
    /// What the row runs.
    pub name: &'static str,
    /// The best round's time per call, in nanoseconds.
    pub ns: f64,
}

/// A ratio of overheads and the target it is held to.
#[derive(Debug, Clone)]
pub struct Ratio {
    /// The path measured and its reference.
    pub path: &'static str,
    /// Which reference the overhead is compared with.
    pub against: &'static str,
    /// Our overhead over the reference's.
    pub value: f64,
    /// The most it may be.
    pub target: f64,
}

/// How long a measurement runs.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Interleaved rounds; each row keeps its best.
    pub rounds: usize,
    /// Calls per row in a round.
    pub calls: u64,
}

impl Plan {
    /// The headline table's run: best of 7 rounds.
    pub const FULL: Plan = Plan {
        rounds: 7,
        calls: 2_000_000,
    };
    /// CI's guard: shorter, same method.
    pub const SHORT: Plan = Plan {
        rounds: 5,
        calls: 300_000,
    };
}

type Blocking = fn(u64) -> Result<u64, shapes::ProviderError>;

const BLOCKING: [(&str, Blocking); 5] = [
    ("blocking: direct call", shapes::fetch),
    (
        "blocking: two Instant::now() around the call",
        shapes::two_instants,
    ),
    ("blocking: #[resilient] retry_on", |x| {
        shapes::value(shapes::blocking(x))
    }),
    ("blocking: #[resilient] retry_on, timing = false", |x| {
        shapes::value(shapes::blocking_untimed(x))
    }),
    ("blocking: backon", shapes::backon_blocking),
];

const ASYNC: [&str; 7] = [
    "async: awaited call",
    "async: bare tokio::time::timeout",
    "async: #[resilient] retry_on",
    "async: #[resilient] retry_on, timing = false",
    "async: #[resilient] retry_on, timeout + budget",
    "async: backon",
    "async: direct call, no await point",
];

fn time_blocking(f: Blocking, calls: u64) -> f64 {
    let start = Instant::now();
    for i in 0..calls {
        let _ = black_box(f(black_box(i)));
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

async fn time_async(row: usize, calls: u64) -> f64 {
    macro_rules! timed {
        ($call:expr) => {{
            let start = Instant::now();
            for i in 0..calls {
                let i = black_box(i);
                let _ = black_box($call(i).await);
            }
            start.elapsed().as_nanos() as f64 / calls as f64
        }};
    }
    match row {
        0 => timed!(shapes::fetch_async),
        1 => timed!(shapes::bare_timeout),
        2 => timed!(shapes::asynchronous),
        3 => timed!(shapes::asynchronous_untimed),
        4 => timed!(shapes::asynchronous_limits),
        5 => timed!(shapes::backon_async),
        _ => timed!(|i| async move { shapes::fetch(i) }),
    }
}

/// Measures every row, interleaved, and keeps each row's best round.
pub fn measure(plan: Plan) -> Vec<Row> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime");
    let mut best = vec![f64::INFINITY; BLOCKING.len() + ASYNC.len()];
    for _ in 0..plan.rounds {
        for (i, (_, f)) in BLOCKING.iter().enumerate() {
            best[i] = best[i].min(time_blocking(*f, plan.calls));
        }
        for row in 0..ASYNC.len() {
            let ns = runtime.block_on(time_async(row, plan.calls));
            let i = BLOCKING.len() + row;
            best[i] = best[i].min(ns);
        }
    }
    let names = BLOCKING.iter().map(|(name, _)| *name).chain(ASYNC);
    names.zip(best).map(|(name, ns)| Row { name, ns }).collect()
}

/// The ratios the targets name, from one measurement.
pub fn ratios(rows: &[Row]) -> Vec<Ratio> {
    let ns = |name: &str| {
        rows.iter()
            .find(|row| row.name == name)
            .unwrap_or_else(|| panic!("no row {name}"))
            .ns
    };
    let direct = ns(BLOCKING[0].0);
    let awaited = ns(ASYNC[0]);
    let over = |row: &str, reference: &str, base: f64| {
        (ns(row) - base).max(0.0) / (ns(reference) - base).max(f64::MIN_POSITIVE)
    };
    vec![
        Ratio {
            path: "blocking success",
            against: "two Instant::now() around the call",
            value: over(BLOCKING[2].0, BLOCKING[1].0, direct),
            target: 1.10,
        },
        Ratio {
            path: "blocking, timing = false",
            against: "backon",
            value: over(BLOCKING[3].0, BLOCKING[4].0, direct),
            target: 1.0,
        },
        Ratio {
            path: "async, body awaiting an #[inline(never)] async fn",
            against: "a bare tokio::time::timeout",
            value: over(ASYNC[2], ASYNC[1], awaited),
            target: 1.8,
        },
        Ratio {
            path: "async, timing = false",
            against: "backon's async retry",
            value: over(ASYNC[3], ASYNC[5], awaited),
            target: 1.1,
        },
        Ratio {
            path: "async, timeout + budget",
            against: "a bare tokio::time::timeout",
            value: over(ASYNC[4], ASYNC[1], awaited),
            target: 2.2,
        },
    ]
}

/// How far past its target a ratio may go before the guard fails: a
/// quarter, so that a noisy run on a busy machine passes and a real
/// regression doesn't.
pub const GUARD_SLACK: f64 = 1.25;

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(ns: [f64; 12]) -> Vec<Row> {
        let names = BLOCKING.iter().map(|(name, _)| *name).chain(ASYNC);
        names.zip(ns).map(|(name, ns)| Row { name, ns }).collect()
    }

    #[test]
    fn ratios_compare_overheads_above_the_bare_call() {
        // direct 4, two instants 64, ours 70, untimed 24, backon 24;
        // awaited 20, timeout 80, ours 110, untimed 50, limits 140, backon 40.
        let r = ratios(&rows([
            4., 64., 70., 24., 24., 20., 80., 110., 50., 140., 40., 10.,
        ]));
        let values: Vec<f64> = r.iter().map(|r| r.value).collect();
        assert_eq!(values, [1.1, 1.0, 1.5, 1.5, 2.0]);
        assert!(r[0].value <= r[0].target && r[3].value > r[3].target);
    }
}
