//! The `[limits.NAME]` section's values, and a named bulkhead's reading
//! of them on each admission through a generation check.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::GENERATION;

/// The overrides of one named limiter (`[limits.NAME]`); `None` keeps the
/// builder's value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LimitConfig {
    /// `max_concurrent`: a [`Bulkhead`](crate::limit::Bulkhead)'s size, at
    /// least 1. Below the permits in flight, it takes effect as they return.
    pub max_concurrent: Option<u32>,
}

/// A named bulkhead's memory of its entry (`[limits.NAME]`): the size it
/// found at a generation, 0 for the builder's. One atomic load on each
/// admission while the generation stays.
#[derive(Debug)]
pub(crate) struct LimitCache {
    generation: AtomicU64,
    max_concurrent: AtomicU32,
}

impl LimitCache {
    /// Nothing known yet.
    pub(crate) const fn new() -> Self {
        LimitCache {
            generation: AtomicU64::new(0),
            max_concurrent: AtomicU32::new(0),
        }
    }

    /// The size the installed configuration sets for the limiter `name`,
    /// `None` where it keeps the builder's.
    #[inline]
    pub(crate) fn max_concurrent(&self, name: &str) -> Option<u32> {
        let generation = GENERATION.load(Ordering::Acquire);
        if generation != self.generation.load(Ordering::Acquire) {
            self.refresh(generation, name);
        }
        let max = self.max_concurrent.load(Ordering::Relaxed);
        (max != 0).then_some(max)
    }

    #[cold]
    #[inline(never)]
    fn refresh(&self, generation: u64, name: &str) {
        let entry = super::limit_settings(name).unwrap_or_default();
        self.max_concurrent
            .store(entry.max_concurrent.unwrap_or(0), Ordering::Relaxed);
        self.generation.store(generation, Ordering::Release);
    }
}
