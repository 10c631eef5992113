//! Each limiter's latest reading, by its name, and each operation's row
//! of it: what the limits' registry ([`limits`](super::limits)) writes,
//! and what the series and the dashboard read.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

use crate::limit::Limiter;

/// What a level holds where the limiter doesn't know the value.
const UNKNOWN: u64 = u64::MAX;

/// The latest reading of one limiter, by its name.
#[derive(Debug)]
pub(crate) struct Level {
    pub(crate) name: &'static str,
    in_flight: AtomicU64,
    current: AtomicU64,
}

impl Level {
    fn read(value: &AtomicU64) -> Option<u64> {
        Some(value.load(Relaxed)).filter(|&value| value != UNKNOWN)
    }

    /// Attempts holding a permit, as of the latest reading.
    pub(crate) fn in_flight(&self) -> Option<u64> {
        Self::read(&self.in_flight)
    }

    /// The concurrency limit in force, for a limiter that counts
    /// attempts in flight.
    pub(crate) fn current(&self) -> Option<u64> {
        Self::read(&self.current)
    }

    #[inline]
    pub(super) fn sample(&self, limiter: &dyn Limiter) {
        let known = |value: Option<u32>| value.map_or(UNKNOWN, u64::from);
        self.in_flight.store(known(limiter.in_flight()), Relaxed);
        self.current.store(known(limiter.current_limit()), Relaxed);
    }
}

/// One limiter of one operation: the limiter's level, and the attempts of
/// the operation it refused.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) level: &'static Level,
    pub(crate) rejections: AtomicU64,
    /// Of the rejections, those shed for their priority, by level
    /// (`Priority::ALL`'s order, lowest first).
    pub(crate) shed: [AtomicU64; 5],
}

/// Every limiter seen, by name, in the order seen. Each lives as long as
/// the process, as a tally does: one per name a limiter was ever given.
static LEVELS: Mutex<Vec<&'static Level>> = Mutex::new(Vec::new());

/// The level of the limiter called `name`, made (and its gauges set) the
/// first time.
pub(super) fn level_of(limiter: &dyn Limiter) -> &'static Level {
    let name = limiter.name();
    let mut levels = LEVELS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(level) = levels.iter().find(|level| level.name == name) {
        return level;
    }
    let level: &'static Level = Box::leak(Box::new(Level {
        name,
        in_flight: AtomicU64::new(UNKNOWN),
        current: AtomicU64::new(UNKNOWN),
    }));
    level.sample(limiter);
    levels.push(level);
    level
}

/// Every limiter seen so far.
pub(crate) fn all() -> Vec<&'static Level> {
    LEVELS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}
