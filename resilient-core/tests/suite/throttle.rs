//! The retry throttle driven by hand the way the engine drives it: gRPC A6's
//! token arithmetic step by step, its bounds, and its count under many
//! threads.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use resilient_core::{RetryBudget, RetryThrottle};

/// One call whose every attempt fails, made as the engine makes it: the
/// first attempt always runs; each failure is recorded, then the budget is
/// asked before each retry. Returns the token count after each attempt,
/// so its length is the number of attempts.
fn failing_call(throttle: &RetryThrottle, retries: u32) -> Vec<f64> {
    let mut after_each = Vec::new();
    loop {
        throttle.record_failure();
        after_each.push(throttle.tokens());
        let retries_made = after_each.len() as u32 - 1;
        if retries_made == retries || !throttle.allows_retry() {
            return after_each;
        }
    }
}

#[test]
fn a6_sequence_throttles_then_recovers_after_successes() {
    let throttle = RetryThrottle::new(4, 0.1);
    assert_eq!(throttle.tokens(), 4.0);

    // 3.0 is above 4 / 2, so the first retry runs; 2.0 is not, so it ends.
    assert_eq!(failing_call(&throttle, 5), [3.0, 2.0]);
    // The next call's first attempt runs regardless, and is all it gets.
    assert_eq!(failing_call(&throttle, 5), [1.0]);
    assert!(!throttle.allows_retry());

    let mut steps = Vec::new();
    for _ in 0..11 {
        throttle.record_success();
        steps.push((throttle.tokens(), throttle.allows_retry()));
    }
    assert_eq!(
        steps,
        [
            (1.1, false),
            (1.2, false),
            (1.3, false),
            (1.4, false),
            (1.5, false),
            (1.6, false),
            (1.7, false),
            (1.8, false),
            (1.9, false),
            (2.0, false),
            (2.1, true),
        ]
    );
}

#[test]
fn a_call_never_retries_past_its_own_retries() {
    let throttle = RetryThrottle::new(100, 0.1);
    assert_eq!(failing_call(&throttle, 2), [99.0, 98.0, 97.0]);
    assert_eq!(failing_call(&throttle, 0), [96.0]);
}

#[test]
fn successes_never_lift_the_count_above_max_tokens() {
    let throttle = RetryThrottle::new(4, 0.3);
    throttle.record_failure();
    let mut steps = Vec::new();
    for _ in 0..5 {
        throttle.record_success();
        steps.push(throttle.tokens());
    }
    // 3.9 + 0.3 would be 4.2: the cap keeps it at 4.
    assert_eq!(steps, [3.3, 3.6, 3.9, 4.0, 4.0]);
    for _ in 0..10_000 {
        throttle.record_success();
    }
    assert_eq!(throttle.tokens(), 4.0);
}

#[test]
fn failures_never_take_the_count_below_zero() {
    let throttle = RetryThrottle::new(4, 0.1);
    for _ in 0..10_000 {
        throttle.record_failure();
    }
    assert_eq!(throttle.tokens(), 0.0);
    // No debt was kept: the first success counts from zero.
    throttle.record_success();
    assert_eq!(throttle.tokens(), 0.1);
}

#[test]
fn references_and_arcs_drive_the_same_throttle() {
    fn fail_twice(budget: impl RetryBudget) -> bool {
        budget.record_failure();
        budget.record_failure();
        budget.allows_retry()
    }
    let throttle = std::sync::Arc::new(RetryThrottle::new(10, 0.5));
    assert!(fail_twice(&*throttle));
    assert!(fail_twice(throttle.clone()));
    assert!(!fail_twice(&throttle));
    assert_eq!(throttle.tokens(), 4.0);
}

const THREADS: u64 = 4;

/// The counts a watcher thread read while workers ran: the lowest, the
/// highest, and how many reads it made.
#[derive(Debug)]
struct Seen {
    lowest: f64,
    highest: f64,
    reads: u64,
}

impl Seen {
    fn assert_within(&self, [low, high]: [f64; 2]) {
        assert!(
            self.reads > 0 && low <= self.lowest && self.highest <= high,
            "expected every count within [{low}, {high}], saw {self:?}"
        );
    }
}

/// Runs `work(thread)` on `THREADS` threads started together while another
/// thread reads the count as fast as it can, until the workers are done and
/// once more after.
fn hammer(throttle: &RetryThrottle, work: impl Fn(u64) + Sync) -> Seen {
    let start = Barrier::new(THREADS as usize + 1);
    let done = AtomicBool::new(false);
    thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let mut seen = Seen {
                lowest: f64::INFINITY,
                highest: f64::NEG_INFINITY,
                reads: 0,
            };
            start.wait();
            loop {
                // Read `done` first, so the last read follows every update.
                let finished = done.load(Ordering::Acquire);
                let tokens = throttle.tokens();
                seen.lowest = seen.lowest.min(tokens);
                seen.highest = seen.highest.max(tokens);
                seen.reads += 1;
                if finished {
                    return seen;
                }
            }
        });
        let workers: Vec<_> = (0..THREADS)
            .map(|thread| {
                let (start, work) = (&start, &work);
                scope.spawn(move || {
                    start.wait();
                    work(thread);
                })
            })
            .collect();
        // Every worker is joined and the watcher stopped before a worker's
        // panic is passed on; otherwise the watcher would spin forever.
        let finished: Vec<_> = workers.into_iter().map(|worker| worker.join()).collect();
        done.store(true, Ordering::Release);
        let seen = watcher.join().unwrap();
        for result in finished {
            if let Err(panic) = result {
                std::panic::resume_unwind(panic);
            }
        }
        seen
    })
}

/// Makes `failures`, `successes` and `reads` (of `allows_retry`) calls in an
/// order shuffled by `seed`, checking after each that the count is within
/// `[low, high]`.
fn random_calls(
    throttle: &RetryThrottle,
    seed: u64,
    [failures, successes, reads]: [usize; 3],
    [low, high]: [f64; 2],
) {
    let mut calls = [
        [0u8].repeat(failures),
        [1].repeat(successes),
        [2].repeat(reads),
    ]
    .concat();
    calls.shuffle(&mut SmallRng::seed_from_u64(seed));
    for call in calls {
        match call {
            0 => throttle.record_failure(),
            1 => throttle.record_success(),
            _ => {
                let _ = throttle.allows_retry();
            }
        }
        let tokens = throttle.tokens();
        assert!((low..=high).contains(&tokens), "count {tokens}");
    }
}

#[test]
fn concurrent_random_calls_keep_the_count_within_bounds() {
    // Failures and successes at equal odds, each worth a whole token, on a
    // throttle of two tokens: nearly every step starts at a bound or one
    // step from it, where a check made apart from the update would let two
    // threads step past it together.
    let throttle = RetryThrottle::new(2, 1.0);
    let seen = hammer(&throttle, |thread| {
        random_calls(&throttle, thread, [200_000; 3], [0.0, 2.0]);
    });
    seen.assert_within([0.0, 2.0]);
}

#[test]
fn concurrent_failures_are_each_counted_once() {
    // A throttle holds at most 1000 failures before it clamps at zero, too
    // few for one run to interleave much: the race is run many times over.
    for round in 0..200 {
        let throttle = RetryThrottle::new(1000, 0.1);
        let seen = hammer(&throttle, |_| {
            for _ in 0..200 {
                throttle.record_failure();
            }
        });
        // 1000 - 4 × 200: a lost update would leave more.
        assert_eq!(throttle.tokens(), 200.0, "round {round}");
        seen.assert_within([200.0, 1000.0]);
    }
}

#[test]
fn concurrent_successes_are_each_counted_once() {
    let throttle = RetryThrottle::new(1000, 0.001);
    for _ in 0..1000 {
        throttle.record_failure();
    }
    let seen = hammer(&throttle, |_| {
        for _ in 0..100_000 {
            throttle.record_success();
        }
    });
    // 4 × 100 000 thousandths: a lost update would leave fewer.
    assert_eq!(throttle.tokens(), 400.0);
    seen.assert_within([0.0, 400.0]);
}

#[test]
fn concurrent_mixed_calls_that_never_reach_a_bound_end_where_a_sequence_would() {
    // From 500 of 1000 tokens, 4 × 100 failures and 4 × 50 tokens of
    // successes: no interleaving reaches 0 or 1000, so no step is clamped
    // and the count ends where any sequential order leaves it.
    let throttle = RetryThrottle::new(1000, 0.001);
    (0..500).for_each(|_| throttle.record_failure());
    // Any interleaving stays between 500 - 400 and 500 + 200.
    let bounds = [100.0, 700.0];
    let seen = hammer(&throttle, |thread| {
        random_calls(&throttle, thread, [100, 50_000, 10_000], bounds);
    });
    assert_eq!(throttle.tokens(), 300.0);
    seen.assert_within(bounds);
}

#[cfg(feature = "tower")]
#[tokio::test(start_paused = true)]
async fn tower_tps_budget_deposits_on_success_and_withdraws_on_retry() {
    use std::time::Duration;
    use tower::retry::budget::TpsBudget;

    // No reserve and one retry per deposit; tokio's clock is paused, so no
    // deposit expires while the test runs.
    let budget = TpsBudget::new(Duration::from_secs(10), 0, 1.0);
    let budget: &dyn RetryBudget = &budget;
    assert!(!budget.allows_retry());

    budget.record_success();
    budget.record_success();
    budget.record_failure(); // charges nothing
    let answers: Vec<bool> = (0..3).map(|_| budget.allows_retry()).collect();
    // Two deposits pay for two retries; each answer of `true` spent one.
    assert_eq!(answers, [true, true, false]);
}
