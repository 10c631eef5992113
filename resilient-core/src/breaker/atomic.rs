//! The atomics the breaker is built on: std's, or loom's while the loom
//! models run (`RUSTFLAGS="--cfg loom"`, unit tests only), so that loom can
//! explore every interleaving of the breaker's own loads and swaps.

#[cfg(all(test, loom))]
pub(super) use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(not(all(test, loom)))]
pub(super) use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Lets the thread that holds an intermediate state word run on.
#[cfg(all(test, loom))]
pub(super) fn yield_now() {
    loom::thread::yield_now();
}

/// Lets the thread that holds an intermediate state word run on.
#[cfg(not(all(test, loom)))]
pub(super) fn yield_now() {
    std::thread::yield_now();
}
