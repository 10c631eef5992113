//! Rows measured in one process, in slices of a few thousand calls
//! interleaved so that a slow moment of the machine touches every row
//! alike, each row's best slice kept.
//!
//! Every ratio compares overheads, the time a row spends above the bare
//! call it wraps: the blocking rows above `fetch`, the async rows above an
//! awaited `fetch_async`. The machine's speed cancels out of them.
//!
//! The async rows await every call inside one future, which never moves
//! the call's future. The per-call rows run the same calls again as a
//! server runs a request, each its own task: its own `block_on` of a
//! current-thread runtime, which takes the future by value, and a
//! `Box::pin`, as axum boxes a handler's future. Those pay for the size of
//! the future on every call, and their overheads are above the bare body
//! run the same way.

use std::hint::black_box;
use std::time::Instant;

use tokio::runtime::Runtime;

use crate::shapes;

/// One measured row: its name and its best time per call.
#[derive(Debug, Clone)]
pub struct Row {
    /// What the row runs.
    pub name: &'static str,
    /// The best slice's time per call, in nanoseconds.
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
    /// Whether `--check` holds it to its target.
    pub guarded: bool,
}

/// How long a measurement runs.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Rounds of interleaved slices; each row keeps its best slice.
    pub rounds: usize,
    /// Calls per row in a round.
    pub calls: u64,
    /// Calls per per-call row in a round, each several times the cost of
    /// an awaited one.
    pub per_call: u64,
}

impl Plan {
    /// The headline table's run: 7 rounds.
    pub const FULL: Plan = Plan {
        rounds: 7,
        calls: 2_000_000,
        per_call: 500_000,
    };
    /// CI's guard: shorter, same method.
    pub const SHORT: Plan = Plan {
        rounds: 5,
        calls: 300_000,
        per_call: 300_000,
    };
}

type Blocking = fn(u64) -> Result<u64, shapes::ProviderError>;

const BLOCKING: [(&str, Blocking); 10] = [
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
    ("blocking: #[resilient] retry_on, circuit_breaker", |x| {
        shapes::value(shapes::blocking_breaker(x))
    }),
    (
        "blocking: #[resilient] retry_on, shared circuit_breaker",
        |x| shapes::value(shapes::blocking_shared_breaker(x)),
    ),
    (
        "blocking: #[resilient] retry_on, a chaos switch that is off",
        |x| shapes::value(shapes::blocking_chaos_off(x)),
    ),
    ("blocking: Operation, built at each call", shapes::operation),
    ("blocking: the closure API", shapes::closure_blocking),
];

/// Another expansion shape, async: no `retry_on`, a body with no await
/// point and an error without data, beside the same body bare, under a
/// bare timeout and under backon; awaited in one `block_on`, as `ASYNC`.
const READY: [&str; 5] = [
    "ready body: awaited call",
    "ready body: bare tokio::time::timeout",
    "ready body: #[resilient] retries = 3, backoff",
    "ready body: #[resilient] retries = 3, backoff, timing = false",
    "ready body: backon",
];

const ASYNC: [&str; 9] = [
    "async: awaited call",
    "async: bare tokio::time::timeout",
    "async: #[resilient] retry_on",
    "async: #[resilient] retry_on, timing = false",
    "async: #[resilient] retry_on, timeout + budget",
    "async: backon",
    "async: direct call, no await point",
    "async: Operation, built at each call",
    "async: the closure API",
];

/// The first six async rows again, in `ASYNC`'s order, each call its own
/// `block_on`.
const BLOCK_ON: [&str; 6] = [
    "block_on per call: awaited call",
    "block_on per call: bare tokio::time::timeout",
    "block_on per call: #[resilient] retry_on",
    "block_on per call: #[resilient] retry_on, timing = false",
    "block_on per call: #[resilient] retry_on, timeout + budget",
    "block_on per call: backon",
];

/// The same, every call's future in a `Box::pin` awaited in one `block_on`.
const BOXED: [&str; 6] = [
    "Box::pin per call: awaited call",
    "Box::pin per call: bare tokio::time::timeout",
    "Box::pin per call: #[resilient] retry_on",
    "Box::pin per call: #[resilient] retry_on, timing = false",
    "Box::pin per call: #[resilient] retry_on, timeout + budget",
    "Box::pin per call: backon",
];

/// Calls of a row timed together, well under a millisecond: the scheduler
/// rarely interrupts a slice this short, so a row's best slice is one that
/// ran alone.
const SLICE: u64 = 2_000;

/// `$timed!(call)` with the call of async row `$row`, in `ASYNC`'s order.
macro_rules! async_row {
    ($row:expr, $timed:ident) => {
        match $row {
            0 => $timed!(shapes::fetch_async),
            1 => $timed!(shapes::bare_timeout),
            2 => $timed!(shapes::asynchronous),
            3 => $timed!(shapes::asynchronous_untimed),
            4 => $timed!(shapes::asynchronous_limits),
            5 => $timed!(shapes::backon_async),
            6 => $timed!(|i| async move { shapes::fetch(i) }),
            7 => $timed!(shapes::operation_async),
            _ => $timed!(shapes::closure_async),
        }
    };
}

fn time_blocking(f: Blocking, calls: u64) -> f64 {
    let start = Instant::now();
    for i in 0..calls {
        let _ = black_box(f(black_box(i)));
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// Nanoseconds per call of `$each`, run `$calls` times with `$i` the
/// call's argument.
macro_rules! time_calls {
    ($calls:expr, |$i:ident| $each:expr) => {{
        let start = Instant::now();
        for $i in 0..$calls {
            let $i = black_box($i);
            let _ = black_box($each);
        }
        start.elapsed().as_nanos() as f64 / $calls as f64
    }};
}

async fn time_ready(row: usize, calls: u64) -> f64 {
    macro_rules! timed {
        ($call:expr) => {
            time_calls!(calls, |i| $call(i).await)
        };
    }
    match row {
        0 => timed!(shapes::ready_direct),
        1 => timed!(shapes::ready_timeout),
        2 => timed!(shapes::ready_retried),
        3 => timed!(shapes::ready_untimed),
        _ => timed!(shapes::ready_backon),
    }
}

async fn time_async(row: usize, calls: u64) -> f64 {
    macro_rules! timed {
        ($call:expr) => {
            time_calls!(calls, |i| $call(i).await)
        };
    }
    async_row!(row, timed)
}

/// Every call its own `block_on`, which takes the call's future by value.
fn time_block_on(runtime: &Runtime, row: usize, calls: u64) -> f64 {
    macro_rules! timed {
        ($call:expr) => {
            time_calls!(calls, |i| runtime.block_on($call(i)))
        };
    }
    async_row!(row, timed)
}

/// Every call's future boxed, then awaited; `black_box` keeps the box.
async fn time_boxed(row: usize, calls: u64) -> f64 {
    macro_rules! timed {
        ($call:expr) => {
            time_calls!(calls, |i| black_box(Box::pin($call(i))).await)
        };
    }
    async_row!(row, timed)
}

/// Measures every row, interleaved slice by slice, and keeps each row's
/// best slice.
pub fn measure(plan: Plan) -> Vec<Row> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime");
    let mut best =
        vec![f64::INFINITY; BLOCKING.len() + ASYNC.len() + 2 * BLOCK_ON.len() + READY.len()];
    let ready = BLOCKING.len() + ASYNC.len() + 2 * BLOCK_ON.len();
    for _ in 0..plan.rounds {
        // Slice by slice, every row in turn: a slice that the scheduler
        // or another process interrupted is just not a row's best.
        for _ in 0..plan.calls / SLICE {
            for (i, (_, f)) in BLOCKING.iter().enumerate() {
                best[i] = best[i].min(time_blocking(*f, SLICE));
            }
            for row in 0..ASYNC.len() {
                let ns = runtime.block_on(time_async(row, SLICE));
                let i = BLOCKING.len() + row;
                best[i] = best[i].min(ns);
            }
            for row in 0..READY.len() {
                let ns = runtime.block_on(time_ready(row, SLICE));
                best[ready + row] = best[ready + row].min(ns);
            }
        }
        let first = BLOCKING.len() + ASYNC.len();
        for _ in 0..plan.per_call / SLICE {
            for row in 0..BLOCK_ON.len() {
                let ns = time_block_on(&runtime, row, SLICE);
                best[first + row] = best[first + row].min(ns);
            }
            for row in 0..BOXED.len() {
                let ns = runtime.block_on(time_boxed(row, SLICE));
                let i = first + BLOCK_ON.len() + row;
                best[i] = best[i].min(ns);
            }
        }
    }
    let names = BLOCKING.iter().map(|(name, _)| *name);
    let names = names.chain(ASYNC).chain(BLOCK_ON).chain(BOXED).chain(READY);
    names.zip(best).map(|(name, ns)| Row { name, ns }).collect()
}

/// The blocking `retry_on` row under an installed configuration, each
/// row's best round: one with an entry for other operations only (the
/// call compares its cached generation and goes on), one with an entry for
/// this function (`retries = 3`), one whose entry also sets a bound of the
/// first attempt (`budget = 2s`), both read from the function's
/// `static` on the fast path, and one after `clear`. Measured after every other row, which all run
/// with nothing ever installed, as a service without a configuration does.
pub fn measure_configured(plan: Plan) -> Vec<Row> {
    use resilient::config;

    let elsewhere = config::Config::from_toml("[operations.elsewhere]\nretries = 1\n")
        .expect("a valid configuration");
    let own = config::Config::from_toml("[operations.blocking]\nretries = 3\n")
        .expect("a valid configuration");
    let bounded =
        config::Config::from_toml("[operations.blocking]\nretries = 3\nbudget = \"2s\"\n")
            .expect("a valid configuration");
    let f: Blocking = |x| shapes::value(shapes::blocking(x));
    let mut best = [f64::INFINITY; 4];
    for _ in 0..plan.rounds {
        config::install(elsewhere.clone());
        best[0] = best[0].min(time_blocking(f, plan.calls));
        config::install(own.clone());
        best[1] = best[1].min(time_blocking(f, plan.calls));
        config::install(bounded.clone());
        best[2] = best[2].min(time_blocking(f, plan.calls));
        config::clear();
        best[3] = best[3].min(time_blocking(f, plan.calls));
    }
    CONFIGURED
        .iter()
        .zip(best)
        .map(|(name, ns)| Row { name, ns })
        .collect()
}

/// A blocking call's outcome as the call returned it.
type Whole = fn(u64) -> resilient::Outcome<u64, shapes::ProviderError>;

/// Nanoseconds per call of `f`, its outcome read where the call wrote it.
#[inline(never)]
fn time_in_place(f: Whole, calls: u64) -> f64 {
    let start = Instant::now();
    for i in 0..calls {
        let outcome = f(black_box(i));
        black_box(&outcome);
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// Nanoseconds per call of `f`, its outcome moved once before it is read.
#[inline(never)]
fn time_moved(f: Whole, calls: u64) -> f64 {
    let start = Instant::now();
    for i in 0..calls {
        let outcome = black_box(f(black_box(i)));
        black_box(&outcome);
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// The blocking `retry_on` row split by what the caller does with the
/// outcome, beside the two clock readings it is compared with, each row's
/// best slice: read where the call wrote it, or moved once first, as a
/// caller that stores the outcome away does (the headline row's
/// `into_result` reads it in place). The move reads the 136 bytes back in
/// 16-byte pieces that the call wrote in narrower ones, the instant after
/// it wrote them; those loads cannot be served from the stores still in
/// flight and wait for them.
pub fn measure_outcome(plan: Plan) -> Vec<Row> {
    let mut best = [f64::INFINITY; 3];
    for _ in 0..plan.rounds {
        for _ in 0..plan.calls / SLICE {
            best[0] = best[0].min(time_blocking(BLOCKING[1].1, SLICE));
            best[1] = best[1].min(time_in_place(shapes::blocking, SLICE));
            best[2] = best[2].min(time_moved(shapes::blocking, SLICE));
        }
    }
    OUTCOME
        .iter()
        .zip(best)
        .map(|(name, ns)| Row { name, ns })
        .collect()
}

/// The rows of [`measure_outcome`].
pub const OUTCOME: [&str; 3] = [
    "blocking: two Instant::now() around the call",
    "blocking: #[resilient] retry_on, the outcome read where the call wrote it",
    "blocking: #[resilient] retry_on, the outcome moved once, then read",
];

/// The rows of [`measure_configured`].
pub const CONFIGURED: [&str; 4] = [
    "blocking: #[resilient] retry_on, a configuration for other operations installed",
    "blocking: #[resilient] retry_on, its own entry installed (retries = 3)",
    "blocking: #[resilient] retry_on, its own entry with a budget installed (budget = 2s)",
    "blocking: #[resilient] retry_on, the configuration cleared",
];

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
    let mut ratios = vec![
        Ratio {
            path: "blocking success",
            against: "two Instant::now() around the call",
            value: over(BLOCKING[2].0, BLOCKING[1].0, direct),
            target: 1.10,
            guarded: true,
        },
        Ratio {
            path: "blocking, timing = false",
            against: "backon",
            value: over(BLOCKING[3].0, BLOCKING[4].0, direct),
            target: 1.0,
            guarded: true,
        },
        Ratio {
            path: "blocking, shared circuit_breaker",
            against: "the same breaker, not shared",
            value: over(BLOCKING[6].0, BLOCKING[5].0, direct),
            target: 1.25,
            guarded: true,
        },
        // Past their targets (BENCHMARKS.md, "Operation and the closure
        // API"): each call builds its operation, and the closure API a
        // classifier around the user's; printed, not guarded, until they
        // are brought within them.
        Ratio {
            path: "blocking, Operation built at each call",
            against: "two Instant::now() around the call",
            value: over(BLOCKING[8].0, BLOCKING[1].0, direct),
            target: 1.10,
            guarded: false,
        },
        Ratio {
            path: "blocking, the closure API",
            against: "two Instant::now() around the call",
            value: over(BLOCKING[9].0, BLOCKING[1].0, direct),
            target: 1.10,
            guarded: false,
        },
        // Past its target (BENCHMARKS.md, "Shapes beyond retry_on"): a
        // gate's option builds the operation before the first attempt.
        // Printed until it is brought within it, when it joins the guard.
        Ratio {
            path: "blocking, a chaos switch that is off",
            against: "the same function without it",
            value: over(BLOCKING[7].0, BLOCKING[2].0, direct),
            target: 1.25,
            guarded: false,
        },
        Ratio {
            path: "async, body awaiting an #[inline(never)] async fn",
            against: "a bare tokio::time::timeout",
            value: over(ASYNC[2], ASYNC[1], awaited),
            target: 1.8,
            guarded: true,
        },
        Ratio {
            path: "async, timing = false",
            against: "backon's async retry",
            value: over(ASYNC[3], ASYNC[5], awaited),
            target: 1.1,
            guarded: true,
        },
        Ratio {
            path: "async, timeout + budget",
            against: "a bare tokio::time::timeout",
            value: over(ASYNC[4], ASYNC[1], awaited),
            target: 2.2,
            guarded: true,
        },
        // Past their targets, as the blocking rows of the builders above.
        Ratio {
            path: "async, Operation built at each call",
            against: "a bare tokio::time::timeout",
            value: over(ASYNC[7], ASYNC[1], awaited),
            target: 1.8,
            guarded: false,
        },
        Ratio {
            path: "async, the closure API",
            against: "a bare tokio::time::timeout",
            value: over(ASYNC[8], ASYNC[1], awaited),
            target: 1.8,
            guarded: false,
        },
    ];
    // The boxed rows are printed, not guarded: they move far more from one
    // process to the next than the block_on rows (a run in about fifteen
    // read their ratios nearly twice as high, its block_on rows as usual),
    // the allocator and where the box lands relative to the stack in play.
    let ways = [
        (&BLOCK_ON, &BLOCK_ON_PATHS, true),
        (&BOXED, &BOXED_PATHS, false),
    ];
    for (rows, paths, guarded) in ways {
        let body = ns(rows[0]);
        ratios.extend([
            Ratio {
                path: paths[0],
                against: "a bare tokio::time::timeout, the same way",
                value: over(rows[2], rows[1], body),
                target: 1.8,
                guarded,
            },
            Ratio {
                path: paths[1],
                against: "backon's async retry, the same way",
                value: over(rows[3], rows[5], body),
                target: 1.1,
                guarded,
            },
            Ratio {
                path: paths[2],
                against: "a bare tokio::time::timeout, the same way",
                value: over(rows[4], rows[1], body),
                target: 2.2,
                guarded,
            },
        ]);
    }
    let ready = ns(READY[0]);
    ratios.extend([
        Ratio {
            path: "async without retry_on, a body with no await point, a unit error",
            against: "a bare tokio::time::timeout",
            value: over(READY[2], READY[1], ready),
            target: 1.8,
            guarded: true,
        },
        Ratio {
            path: "async without retry_on, timing = false, a unit error",
            against: "backon's async retry",
            value: over(READY[3], READY[4], ready),
            target: 1.1,
            guarded: true,
        },
    ]);
    ratios
}

/// The per-call ratios' paths, as the async rows' are named.
const BLOCK_ON_PATHS: [&str; 3] = [
    "block_on per call: async, retry_on",
    "block_on per call: async, timing = false",
    "block_on per call: async, timeout + budget",
];

/// The same, boxed.
const BOXED_PATHS: [&str; 3] = [
    "Box::pin per call: async, retry_on",
    "Box::pin per call: async, timing = false",
    "Box::pin per call: async, timeout + budget",
];

/// How far past its target a ratio may go before the guard fails: a
/// quarter, so that a noisy run on a busy machine passes and a real
/// regression doesn't.
pub const GUARD_SLACK: f64 = 1.25;

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows in `measure`'s order; the per-call rows read `per_call`,
    /// their boxed twins the same plus 100 ns.
    fn rows(ns: [f64; 19], per_call: [f64; 6], ready: [f64; 5]) -> Vec<Row> {
        let names = BLOCKING.iter().map(|(name, _)| *name).chain(ASYNC);
        let names = names.chain(BLOCK_ON).chain(BOXED).chain(READY);
        let boxed = per_call.map(|ns| ns + 100.);
        let ns = ns.into_iter().chain(per_call).chain(boxed).chain(ready);
        names.zip(ns).map(|(name, ns)| Row { name, ns }).collect()
    }

    #[test]
    fn ratios_compare_overheads_above_the_bare_call() {
        // direct 4, two instants 64, ours 70, untimed 24, backon 24,
        // breaker 84, shared 94, chaos off 79, operation 64, closure 70;
        // awaited 20, timeout 80, ours 110, untimed 50, limits 140, backon 40,
        // no await 10, operation 110, closure 128;
        // per call: awaited 150, timeout 200, ours 240, untimed 200,
        // limits 260, backon 190; ready: awaited 10, timeout 50, ours 70,
        // untimed 40, backon 30.
        let r = ratios(&rows(
            [
                4., 64., 70., 24., 24., 84., 94., 79., 64., 70., 20., 80., 110., 50., 140., 40.,
                10., 110., 128.,
            ],
            [150., 200., 240., 200., 260., 190.],
            [10., 50., 70., 40., 30.],
        ));
        let values: Vec<f64> = r.iter().map(|r| r.value).collect();
        let per_call = [1.8, 1.25, 2.2];
        let expected = [
            &[
                1.1,
                1.0,
                1.125,
                1.0,
                1.1,
                75. / 66.,
                1.5,
                1.5,
                2.0,
                1.5,
                1.8,
            ][..],
            &per_call,
            &per_call,
            &[1.5, 1.5],
        ]
        .concat();
        assert_eq!(values, expected);
        assert!(r[0].value <= r[0].target && r[7].value > r[7].target);
    }

    #[test]
    fn the_guard_skips_the_boxed_ratios() {
        let r = ratios(&rows([1.; 19], [1.; 6], [1.; 5]));
        let unguarded: Vec<&str> = r.iter().filter(|r| !r.guarded).map(|r| r.path).collect();
        let expected = [
            &[
                "blocking, Operation built at each call",
                "blocking, the closure API",
                "blocking, a chaos switch that is off",
                "async, Operation built at each call",
                "async, the closure API",
            ][..],
            &BOXED_PATHS,
        ]
        .concat();
        assert_eq!(unguarded, expected);
    }
}
