//! What the engine reads of the installed configuration: whether an
//! operation has an entry, and its settings with the entry applied.
//!
//! A call reads the generation counter once; while nothing was ever
//! installed that is all it reads. Otherwise the operation's `static`
//! ([`Cache`], in its tally) remembers, by generation, whether it has an
//! entry and which one, so that a call finds it without a lookup by name.

use arc_swap::ArcSwapOption;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::{CURRENT, GENERATION, OperationConfig};
use crate::backoff::Backoff;
use crate::settings::Settings;
use crate::time::Nanos;

/// One operation's entry as a generation found it.
#[derive(Debug)]
pub(crate) struct Resolved {
    /// The generation it was looked up at.
    generation: u64,
    /// The version of the configuration it came from.
    pub(crate) version: u64,
    pub(crate) entry: OperationConfig,
}

/// An operation's memory of its entry, kept in its `static`.
#[derive(Debug)]
pub(crate) struct Cache {
    /// The latest generation at which the operation had no entry (0: none
    /// known).
    absent_at: AtomicU64,
    /// Its entry, at the generation it was found.
    found: ArcSwapOption<Resolved>,
}

impl Cache {
    /// Nothing known yet.
    pub(crate) const fn new() -> Self {
        Cache {
            absent_at: AtomicU64::new(0),
            found: ArcSwapOption::const_empty(),
        }
    }
}

/// Whether the installed configuration has an entry for the operation
/// `name` (whose `static` is `cache`, if it has one): then its call runs
/// on the general path, which applies it.
#[inline(always)]
pub(crate) fn overrides(name: &str, cache: Option<&Cache>) -> bool {
    let generation = GENERATION.load(Ordering::Acquire);
    if generation == 0 {
        return false;
    }
    if let Some(cache) = cache
        && cache.absent_at.load(Ordering::Relaxed) == generation
    {
        return false;
    }
    resolve_at(generation, name, cache).is_some()
}

/// The installed entry of the operation `name`, if there is one.
#[inline]
pub(crate) fn resolve(name: &str, cache: Option<&Cache>) -> Option<Arc<Resolved>> {
    let generation = GENERATION.load(Ordering::Acquire);
    if generation == 0 {
        return None;
    }
    resolve_at(generation, name, cache)
}

#[cold]
#[inline(never)]
fn resolve_at(generation: u64, name: &str, cache: Option<&Cache>) -> Option<Arc<Resolved>> {
    if let Some(cache) = cache {
        if cache.absent_at.load(Ordering::Relaxed) == generation {
            return None;
        }
        let found = cache.found.load();
        if let Some(found) = found.as_ref()
            && found.generation == generation
        {
            return Some(Arc::clone(found));
        }
    }
    // The configuration is read after the generation: it is the one that
    // generation installed or a newer one, whole either way.
    let config = CURRENT.load();
    let resolved = config.as_ref().and_then(|config| {
        let entry = config.operation(name)?.clone();
        Some(Arc::new(Resolved {
            generation,
            version: config.version,
            entry,
        }))
    });
    if let Some(cache) = cache {
        match &resolved {
            Some(resolved) => cache.found.store(Some(Arc::clone(resolved))),
            None => cache.absent_at.store(generation, Ordering::Relaxed),
        }
    }
    resolved
}

/// A named breaker's memory of its entry (`[breakers.NAME]`), read on its
/// failure path only: the threshold and the break duration it found at
/// a generation, 0 for the builder's.
#[derive(Debug)]
pub(crate) struct BreakerCache {
    generation: AtomicU64,
    failure_threshold: AtomicU32,
    break_nanos: AtomicU64,
}

impl BreakerCache {
    /// Nothing known yet.
    pub(crate) const fn new() -> Self {
        BreakerCache {
            generation: AtomicU64::new(0),
            failure_threshold: AtomicU32::new(0),
            break_nanos: AtomicU64::new(0),
        }
    }

    /// The failure threshold and the break (in nanoseconds) that the
    /// installed configuration sets for the breaker `name`, each `None`
    /// where it keeps the builder's.
    pub(crate) fn read(&self, name: &str) -> (Option<u32>, Option<u64>) {
        let generation = GENERATION.load(Ordering::Acquire);
        if generation != self.generation.load(Ordering::Acquire) {
            self.refresh(generation, name);
        }
        let threshold = self.failure_threshold.load(Ordering::Relaxed);
        let break_nanos = self.break_nanos.load(Ordering::Relaxed);
        (
            (threshold != 0).then_some(threshold),
            (break_nanos != 0).then_some(break_nanos),
        )
    }

    #[cold]
    #[inline(never)]
    fn refresh(&self, generation: u64, name: &str) {
        let entry = super::breaker_settings(name).unwrap_or_default();
        let threshold = entry.failure_threshold.unwrap_or(0);
        let break_nanos = entry
            .break_duration
            .map_or(0, |duration| crate::time::duration_nanos(duration).max(1));
        self.failure_threshold.store(threshold, Ordering::Relaxed);
        self.break_nanos.store(break_nanos, Ordering::Relaxed);
        self.generation.store(generation, Ordering::Release);
    }
}

impl Resolved {
    /// `settings` with this entry applied, made harmless as an operation's
    /// are: the entry's values passed the attribute's rules one by one,
    /// and what they make with the attribute's others is clamped.
    pub(crate) fn apply(&self, mut settings: Settings) -> Settings {
        let entry = &self.entry;
        if let Some(retries) = entry.retries
            && !settings.attempts_fixed
        {
            settings.max_attempts = retries.saturating_add(1);
        }
        if let Some(min_retries) = entry.min_retries {
            settings.min_retries = min_retries;
        }
        if let Some(timeout) = entry.timeout {
            settings.timeout = Some(timeout);
        }
        if let Some(budget) = entry.budget {
            settings.budget = Some(budget);
        }
        if let Some(max_elapsed) = entry.max_elapsed {
            settings.max_elapsed = Some(max_elapsed);
        }
        if let (Some(budget), Some(max_elapsed)) = (settings.budget, settings.max_elapsed)
            && budget < max_elapsed
        {
            // The hard cap wins over the soft one.
            settings.max_elapsed = Some(budget);
        }
        settings.backoff = backoff_of(settings.backoff, entry);
        if let Some(max_delay) = entry.max_delay {
            settings.max_delay = Nanos::from_duration(max_delay);
        }
        if let Some(wait) = entry.retry_after_max {
            settings.max_rate_limit_wait = Nanos::from_duration(wait);
        }
        settings.clamped()
    }
}

/// The attribute's `backoff` with the entry's base, max, multiplier and
/// jitter. A base above the max raises the max when only the base is set,
/// and is cut to the max when the max is set.
fn backoff_of(backoff: Backoff, entry: &OperationConfig) -> Backoff {
    let mut base = entry.base_delay.unwrap_or(backoff.base());
    let mut max = entry.max_delay.unwrap_or(backoff.max());
    if base > max {
        if entry.max_delay.is_some() {
            base = max;
        } else {
            max = base;
        }
    }
    Backoff::exponential(base, max)
        .multiplier(entry.multiplier.unwrap_or(backoff.multiplier_value()))
        .jitter(entry.jitter.unwrap_or(backoff.jitter_kind()))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn resolved(entry: OperationConfig) -> Resolved {
        Resolved {
            generation: 1,
            version: 1,
            entry,
        }
    }

    #[test]
    fn an_entry_overrides_only_what_it_sets() {
        let attribute = Settings {
            max_attempts: 3,
            timeout: Some(Duration::from_secs(1)),
            backoff: Backoff::constant(Duration::from_millis(10)),
            ..Settings::DEFAULT
        };
        let applied = resolved(OperationConfig {
            retries: Some(5),
            ..OperationConfig::default()
        })
        .apply(attribute);
        assert_eq!(applied.max_attempts, 6);
        assert_eq!(applied.timeout, Some(Duration::from_secs(1)));
        assert_eq!(applied.backoff.nominal_delay(3), Duration::from_millis(10));
        let applied = resolved(OperationConfig {
            base_delay: Some(Duration::from_millis(200)),
            timeout: Some(Duration::from_millis(50)),
            ..OperationConfig::default()
        })
        .apply(attribute);
        assert_eq!(applied.max_attempts, 3);
        assert_eq!(applied.timeout, Some(Duration::from_millis(50)));
        assert_eq!(applied.backoff.nominal_delay(1), Duration::from_millis(200));
        assert_eq!(applied.backoff.nominal_delay(2), Duration::from_millis(200));
    }

    #[test]
    fn mixed_values_are_made_harmless() {
        let attribute = Settings {
            max_attempts: 6,
            min_retries: 4,
            max_elapsed: Some(Duration::from_secs(20)),
            ..Settings::DEFAULT
        };
        let applied = resolved(OperationConfig {
            retries: Some(1),
            budget: Some(Duration::from_secs(5)),
            max_delay: Some(Duration::from_millis(50)),
            ..OperationConfig::default()
        })
        .apply(attribute);
        assert_eq!(applied.min_retries, 1);
        assert_eq!(applied.max_elapsed, Some(Duration::from_secs(5)));
        assert_eq!(applied.backoff.base(), Duration::from_millis(50));
        assert_eq!(applied.backoff.max(), Duration::from_millis(50));
        assert_eq!(applied.validate(), Ok(()));
    }
}
