//! Loom models of the lock-free limiters: each runs a few threads against
//! one limiter and checks its bound in every interleaving of their atomic
//! operations that loom explores.
//!
//! ```sh
//! RUSTFLAGS="--cfg loom" cargo test -p resilient-core --release loom
//! ```
//!
//! Under `cfg(loom)` the limiters' atomics are loom's (see `atomic.rs`).
//! The adaptive limit's samples take a lock, not modelled here: its
//! admission and release are.

use std::time::{Duration, Instant};

use ::loom::sync::Arc;
use ::loom::sync::atomic::{AtomicU32, Ordering};
use ::loom::thread;

use super::{AdaptiveLimit, Bulkhead, Completion, Limiter, RateLimiter};

/// Runs `threads` copies of `body` against one shared `limiter`, then
/// `check` on it, in every interleaving up to a preemption bound.
fn model<L: Limiter + 'static>(
    threads: usize,
    make: fn() -> L,
    body: fn(&L, &AtomicU32, &AtomicU32),
    check: fn(&L, u32, u32),
) {
    let mut builder = ::loom::model::Builder::new();
    // Two preemptions already interleave a CAS between two others' load and swap.
    builder.preemption_bound.get_or_insert(2);
    builder.check(move || {
        let limiter = Arc::new(make());
        let inside = Arc::new(AtomicU32::new(0));
        let admitted = Arc::new(AtomicU32::new(0));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (limiter, inside, admitted) =
                    (limiter.clone(), inside.clone(), admitted.clone());
                thread::spawn(move || body(&limiter, &inside, &admitted))
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        check(
            &limiter,
            admitted.load(Ordering::SeqCst),
            inside.load(Ordering::SeqCst),
        );
    });
}

/// Takes a permit, counts itself inside while it holds it (checking the
/// bound `max`), and returns it.
fn enter_and_leave<L: Limiter>(limiter: &L, inside: &AtomicU32, admitted: &AtomicU32, max: u32) {
    let now = Instant::now();
    if limiter.try_acquire(now).is_ok() {
        admitted.fetch_add(1, Ordering::SeqCst);
        let now_inside = inside.fetch_add(1, Ordering::SeqCst) + 1;
        assert!(now_inside <= max, "{now_inside} inside a limit of {max}");
        inside.fetch_sub(1, Ordering::SeqCst);
        limiter.release(now, Duration::ZERO, Completion::Unused);
    }
}

/// (a) Three threads through a bulkhead of 2: never 3 inside, and every
/// permit back at the end.
#[test]
fn loom_bulkhead_never_admits_more_than_max() {
    model(
        3,
        || Bulkhead::new(2),
        |bulkhead, inside, admitted| enter_and_leave(bulkhead, inside, admitted, 2),
        |bulkhead, admitted, _| {
            assert!(
                admitted >= 2,
                "two permits were always free for the first two"
            );
            assert_eq!(bulkhead.available(), 2);
        },
    );
}

/// (b) Two threads race for the one permit of a bulkhead they keep: one
/// wins, one is refused.
#[test]
fn loom_bulkhead_of_one_admits_exactly_one_of_two() {
    model(
        2,
        || Bulkhead::new(1),
        |bulkhead, _, admitted| {
            if bulkhead.try_acquire(Instant::now()).is_ok() {
                admitted.fetch_add(1, Ordering::SeqCst);
            }
        },
        |bulkhead, admitted, _| {
            assert_eq!(admitted, 1);
            assert_eq!(bulkhead.available(), 0);
        },
    );
}

/// (c) Three threads take cells of a rate limiter with a burst of 2 at one
/// instant: exactly two conform, however the swaps of the arrival time
/// interleave.
#[test]
fn loom_rate_limiter_admits_exactly_the_burst() {
    model(
        3,
        || RateLimiter::per_second(1).burst(2),
        |limiter, _, admitted| {
            // One instant for every thread: the model's time does not move.
            static NOW: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
            if limiter.check_at(*NOW.get_or_init(Instant::now)).is_ok() {
                admitted.fetch_add(1, Ordering::SeqCst);
            }
        },
        |_, admitted, _| assert_eq!(admitted, 2),
    );
}

/// (d) Three threads through an adaptive limit of 2 that no sample moves:
/// never 3 inside, and none in flight at the end.
#[test]
fn loom_adaptive_limit_never_admits_more_than_its_limit() {
    model(
        3,
        || AdaptiveLimit::aimd().initial(2),
        |limit, inside, admitted| enter_and_leave(limit, inside, admitted, 2),
        |limit, admitted, _| {
            assert!(admitted >= 2);
            assert_eq!(limit.in_flight(), Some(0));
        },
    );
}

/// (e) A bulkhead of 3 that keeps a third for critical calls: two very
/// low calls and a critical one race for its permits, and keep them. The
/// critical call is admitted in every interleaving, and the very low
/// ones never take the reserved permit.
#[test]
fn loom_a_reserve_is_kept_for_the_priority_it_is_for() {
    use super::{Priorities, Priority};
    let mut builder = ::loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(2);
    builder.check(|| {
        let bulkhead = Arc::new(
            Bulkhead::new(3).shed_by_priority(Priorities::none().reserve(Priority::Critical, 0.34)),
        );
        let low: Vec<_> = (0..2)
            .map(|_| {
                let bulkhead = bulkhead.clone();
                thread::spawn(move || {
                    bulkhead
                        .try_acquire_as(Instant::now(), Priority::VeryLow)
                        .is_ok()
                })
            })
            .collect();
        let critical = bulkhead.try_acquire_as(Instant::now(), Priority::Critical);
        let low_admitted = low
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|ok| *ok)
            .count();
        assert_eq!(critical, Ok(()), "the reserve was there for it");
        assert!(low_admitted <= 2);
        assert_eq!(bulkhead.in_flight(), Some(1 + low_admitted as u32));
    });
}
