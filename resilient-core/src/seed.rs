//! Unpredictable numbers for what needs no cryptography (jitter's seeds,
//! a chaos draw, claim tokens, instance ids), from std's own per-process
//! random keys (`RandomState`, read from the OS once), so that the crate
//! needs none of rand's OS or ChaCha generators.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh unpredictable `u64`: each call hashes a process-wide counter
/// under new random keys.
pub(crate) fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.finish()
}

/// A uniform draw in `[low, high)`.
pub(crate) fn random_in(low: f64, high: f64) -> f64 {
    // The top 53 bits, as a fraction of 1.
    let unit = (random_u64() >> 11) as f64 / (1u64 << 53) as f64;
    low + (high - low) * unit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_differ_and_stay_in_their_range() {
        let draws: std::collections::HashSet<u64> = (0..1_000).map(|_| random_u64()).collect();
        assert_eq!(draws.len(), 1_000);
        for _ in 0..1_000 {
            let x = random_in(0.5, 1.0);
            assert!((0.5..1.0).contains(&x), "{x}");
        }
    }
}
