//! What the engine reads of the installed configuration: whether an
//! operation has an entry, and its settings with the entry applied.
//!
//! A call reads the generation counter once; while nothing was ever
//! installed that is all it reads. Otherwise the operation's `static`
//! ([`Cache`], in its tally) remembers, by generation, whether it has an
//! entry, and what the entry makes of the first attempt's bounds (its
//! `timeout` and the call's `budget`) ([`First`]), so that a call finds
//! out without a lookup by name, a lock or an allocation, and its first
//! attempt stays on the fast path under the entry. Only a new generation makes the next call look again. The
//! retries after a first attempt that failed apply the entry of the
//! configuration it read ([`resolve_read`]).

use arc_swap::ArcSwapOption;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use super::{CURRENT, GENERATION, INSTALLING, OperationConfig};
use crate::backoff::Backoff;
use crate::settings::Settings;
use crate::stamped::Stamped;
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

/// What a first attempt reads of its operation's entry: whether the call
/// must take the general path, and the configuration it read, packed in
/// one word ([`packed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct First {
    /// The general path applies the entry: the operation has no `static`
    /// to remember it in.
    pub(crate) general: bool,
    /// The generation read and whether the operation had an entry there.
    pub(crate) read: u32,
    /// What the entry sets of the first attempt's bounds.
    pub(crate) bounds: Bounds,
}

impl First {
    /// An entry the general path applies.
    const GENERAL: First = First {
        general: true,
        read: UNKNOWN,
        bounds: Bounds::KEPT,
    };

    /// The first attempt of a call that read `read` and whose entry, if
    /// any, sets `bounds`.
    const fn fast(read: u32, bounds: Bounds) -> First {
        First {
            general: false,
            read,
            bounds,
        }
    }
}

/// A bound in nanoseconds plus one, 0 for none: at most `u64::MAX`, one
/// past [`LONGEST`](crate::settings::LONGEST), the longest deadline granted.
#[inline(always)]
const fn encode(bound: Option<Duration>) -> u64 {
    match bound {
        Some(bound) => crate::time::duration_nanos(bound).saturating_add(1),
        None => 0,
    }
}

/// An entry's `timeout` and `budget`, each in nanoseconds plus one, 0
/// where the entry keeps the operation's own: two words an operation's
/// `static` holds and a first attempt reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    timeout: u64,
    budget: u64,
}

impl Bounds {
    /// The operation's own bounds.
    pub(crate) const KEPT: Bounds = Bounds {
        timeout: 0,
        budget: 0,
    };

    /// The bounds `entry` sets.
    fn of(entry: &OperationConfig) -> Bounds {
        Bounds {
            timeout: encode(entry.timeout),
            budget: encode(entry.budget),
        }
    }

    /// Whether the entry keeps both of the operation's own.
    #[inline(always)]
    pub(crate) const fn kept(self) -> bool {
        self.timeout | self.budget == 0
    }

    /// The first attempt's deadline, `min(timeout, budget)`, in an
    /// operation whose own `timeout` and `budget` are these, with the
    /// entry's applied: reckoned in the encoded nanoseconds, where the
    /// operation's own fold into constants.
    #[inline(always)]
    pub(crate) fn first_deadline(
        self,
        timeout: Option<Duration>,
        budget: Option<Duration>,
    ) -> Option<Duration> {
        let pick = |entry: u64, own: u64| if entry != 0 { entry } else { own };
        let timeout = pick(self.timeout, encode(timeout));
        let budget = pick(self.budget, encode(budget));
        // An unset bound (0) wraps to the largest, which no set one reaches.
        match timeout.wrapping_sub(1).min(budget.wrapping_sub(1)) {
            u64::MAX => None,
            nanos => Some(Duration::from_nanos(nanos)),
        }
    }
}

/// The top bit of a packed read: the operation had an entry, whose
/// version is the generation.
const ENTRY: u32 = 1 << 31;

/// The low 31 bits of a packed read all ones: no generation known (none
/// read, or one past them).
pub(crate) const UNKNOWN: u32 = ENTRY - 1;

/// A generation no call read: the retries read the one installed. (No
/// generation reaches it: one a nanosecond would take 292 years.)
const UNREAD: u64 = u64::MAX >> 1;

/// What a call read, in four bytes, which a report and an async first
/// attempt's future hold beside their other fields: the low 31 bits of
/// the `generation` (all ones past them) and, in the top bit, whether the
/// operation had an `entry` there, whose version is that generation.
#[inline(always)]
pub(crate) const fn packed(generation: u64, entry: bool) -> u32 {
    let low = if generation < UNKNOWN as u64 {
        generation as u32
    } else {
        UNKNOWN
    };
    if entry { low | ENTRY } else { low }
}

/// The version of the entry a `packed` read found, if it found one (past
/// `2^31 - 2`, that).
pub(crate) const fn version_of(packed: u32) -> Option<u64> {
    if packed & ENTRY == 0 {
        None
    } else {
        Some((packed & UNKNOWN) as u64)
    }
}

/// The generation a `packed` read read, or [`UNREAD`].
const fn generation_of(packed: u32) -> u64 {
    match packed & UNKNOWN {
        UNKNOWN => UNREAD,
        generation => generation as u64,
    }
}

/// An operation's memory of its entry, kept in its `static`.
///
/// A generation is one install's (or one clear's): the configuration
/// installed at generation `g` is version `g`. So a generation at which
/// the operation's entry was found, with the bounds it sets for the first
/// attempt (`entry_at`), says all a first attempt needs: the entry's
/// version is that generation.
#[derive(Debug)]
pub(crate) struct Cache {
    /// The latest generation at which the operation had no entry (0: none
    /// known).
    absent_at: AtomicU64,
    /// The bounds its entry sets ([`Bounds`]' two words), stamped with the
    /// latest generation at which it had an entry whose version is that
    /// generation.
    entry_at: Stamped,
    /// Its entry, at the generation it was found.
    found: ArcSwapOption<Resolved>,
}

impl Cache {
    /// Nothing known yet.
    pub(crate) const fn new() -> Self {
        Cache {
            absent_at: AtomicU64::new(0),
            entry_at: Stamped::new(),
            found: ArcSwapOption::const_empty(),
        }
    }

    /// The bounds of the entry known at `generation`, if it is known
    /// there.
    #[inline(always)]
    fn bounds_at(&self, generation: u64) -> Option<Bounds> {
        let (timeout, budget) = self.entry_at.read(generation)?;
        Some(Bounds { timeout, budget })
    }

    /// Remembers that the operation's entry at `generation` sets `bounds`;
    /// called under the install lock, the stamp's one writer.
    fn remember_entry(&self, generation: u64, bounds: Bounds) {
        self.entry_at
            .write(generation, bounds.timeout, bounds.budget);
    }
}

/// What the first attempt of the operation `name` (whose `static` is
/// `cache`) reads of the installed configuration: one atomic load while
/// nothing was ever installed; the generation and the operation's own
/// cache, without a lock or an allocation, while the installed
/// configuration is the one the cache read.
#[inline(always)]
pub(crate) fn first(name: &str, cache: Option<&Cache>) -> First {
    let generation = GENERATION.load(Ordering::Acquire);
    if generation == 0 {
        return First::fast(0, Bounds::KEPT);
    }
    if let Some(cache) = cache {
        if cache.absent_at.load(Ordering::Relaxed) == generation {
            return First::fast(packed(generation, false), Bounds::KEPT);
        }
        if let Some(bounds) = cache.bounds_at(generation) {
            return First::fast(packed(generation, true), bounds);
        }
    }
    first_slow(generation, name, cache)
}

/// [`first`] when the cache doesn't know the generation: looked up.
#[cold]
#[inline(never)]
fn first_slow(generation: u64, name: &str, cache: Option<&Cache>) -> First {
    // The generation the configuration consulted was installed as, which
    // may be newer than `generation`: the retries read that one, where the
    // first attempt found what it found.
    let (generation, resolved) = resolve_at(generation, name, cache);
    match (resolved, cache) {
        (None, _) => First::fast(packed(generation, false), Bounds::KEPT),
        (Some(resolved), Some(_)) if resolved.version == resolved.generation => First::fast(
            packed(resolved.generation, true),
            Bounds::of(&resolved.entry),
        ),
        (Some(_), _) => First::GENERAL,
    }
}

/// The entry of the operation `name` in the configuration a first
/// attempt read (`packed`, see [`packed`]): the retries after it read the
/// same configuration, whatever was installed since. One that is no
/// longer remembered (more than [`super::REMEMBERED`] installs ago), or
/// none read, is read as installed now.
#[cold]
#[inline(never)]
pub(crate) fn resolve_read(name: &str, cache: Option<&Cache>, read: u32) -> Option<Arc<Resolved>> {
    let generation = generation_of(read);
    if generation == 0 {
        // Read before anything was installed.
        return None;
    }
    let now = GENERATION.load(Ordering::Acquire);
    if generation == UNREAD || generation == now {
        return resolve(name, cache);
    }
    match super::installed_at(generation) {
        Some(config) => {
            let config = config?;
            Some(Arc::new(Resolved {
                generation,
                version: config.version,
                entry: config.operation(name)?.clone(),
            }))
        }
        None => resolve(name, cache),
    }
}

/// The installed entry of the operation `name`, if there is one.
#[inline]
pub(crate) fn resolve(name: &str, cache: Option<&Cache>) -> Option<Arc<Resolved>> {
    let generation = GENERATION.load(Ordering::Acquire);
    if generation == 0 {
        return None;
    }
    resolve_at(generation, name, cache).1
}

/// The entry of the operation `name` in the configuration installed now,
/// `generation` or a newer one, with the generation of the configuration
/// it consulted: what a first attempt records as read.
#[cold]
#[inline(never)]
fn resolve_at(generation: u64, name: &str, cache: Option<&Cache>) -> (u64, Option<Arc<Resolved>>) {
    let Some(cache) = cache else {
        let config = CURRENT.load();
        let Some(config) = config.as_ref() else {
            // A clear's: the latest, which no entry can be in.
            return (super::CLEARED_AT.load(Ordering::Acquire), None);
        };
        let resolved = config.operation(name).map(|entry| {
            Arc::new(Resolved {
                generation: config.version,
                version: config.version,
                entry: entry.clone(),
            })
        });
        return (config.version, resolved);
    };
    if cache.absent_at.load(Ordering::Relaxed) == generation {
        return (generation, None);
    }
    if let Some(found) = cache.found.load().as_ref()
        && found.generation == generation
    {
        return (generation, Some(Arc::clone(found)));
    }
    // Under the lock that installs, the generation and the configuration
    // are one install's, and the cache has one writer.
    let _serial = INSTALLING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let generation = GENERATION.load(Ordering::Acquire);
    let config = CURRENT.load();
    let resolved = config.as_ref().and_then(|config| {
        let entry = config.operation(name)?.clone();
        Some(Arc::new(Resolved {
            generation,
            version: config.version,
            entry,
        }))
    });
    match &resolved {
        Some(resolved) => {
            cache.found.store(Some(Arc::clone(resolved)));
            if resolved.version == generation {
                cache.remember_entry(generation, Bounds::of(&resolved.entry));
            }
        }
        None => cache.absent_at.store(generation, Ordering::Relaxed),
    }
    (generation, resolved)
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
            self.refresh(name);
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
    fn refresh(&self, name: &str) {
        super::sections::refresh_stamped(&self.generation, || {
            let entry = super::breaker_settings(name).unwrap_or_default();
            let threshold = entry.failure_threshold.unwrap_or(0);
            let break_nanos = entry
                .break_duration
                .map_or(0, |duration| crate::time::duration_nanos(duration).max(1));
            self.failure_threshold.store(threshold, Ordering::Relaxed);
            self.break_nanos.store(break_nanos, Ordering::Relaxed);
        });
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
            settings.max_retry_after_wait = Nanos::from_duration(wait);
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

    /// A first attempt that read generation `g`, while a newer install
    /// without its entry landed before it looked: it records the newer
    /// generation, the one it ran under, so that its retries don't apply
    /// `g`'s entry. With a `static` cache and without.
    #[test]
    fn a_first_attempt_records_the_generation_it_found_its_entry_absent_in() {
        let _slot = crate::config::tests::SLOT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let with = crate::config::install_toml("[operations.live_race]\nretries = 5\n").unwrap();
        let without = crate::config::install_toml("[operations.other]\nretries = 1\n").unwrap();
        assert!(without > with);
        let cache = Cache::new();
        for cache in [None, Some(&cache)] {
            // Loaded `with` before the second install: found none.
            let first = first_slow(with, "live_race", cache);
            assert_eq!(generation_of(first.read), without, "{cache:?}");
            assert_eq!(version_of(first.read), None);
            // The retries read what the first attempt ran under: no entry.
            assert!(resolve_read("live_race", cache, first.read).is_none());
        }
        // After a clear, a call finds none at the clear's generation.
        let cleared = crate::config::clear();
        let first = first_slow(without, "live_race", None);
        assert_eq!(generation_of(first.read), cleared);
    }

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
    fn a_first_deadline_is_the_smaller_bound_the_entry_or_the_operation_sets() {
        let secs = |s| Some(Duration::from_secs(s));
        let bounds = |timeout, budget| {
            Bounds::of(&OperationConfig {
                timeout,
                budget,
                ..OperationConfig::default()
            })
        };
        // Nothing set anywhere, or only by the operation.
        assert_eq!(Bounds::KEPT.first_deadline(None, None), None);
        assert_eq!(Bounds::KEPT.first_deadline(secs(3), secs(2)), secs(2));
        // The entry's bound replaces the operation's of its kind only.
        assert_eq!(bounds(secs(5), None).first_deadline(secs(3), None), secs(5));
        assert_eq!(
            bounds(secs(5), None).first_deadline(secs(3), secs(4)),
            secs(4)
        );
        assert_eq!(
            bounds(None, secs(1)).first_deadline(secs(3), secs(4)),
            secs(1)
        );
        assert_eq!(bounds(secs(2), secs(7)).first_deadline(None, None), secs(2));
        assert_eq!(
            bounds(Some(Duration::from_nanos(1)), None).first_deadline(None, None),
            Some(Duration::from_nanos(1))
        );
        // As long as any deadline is granted, and no longer: no overflow.
        assert_eq!(
            bounds(Some(Duration::MAX), Some(Duration::MAX)).first_deadline(None, None),
            Some(crate::settings::LONGEST)
        );
        assert_eq!(
            bounds(Some(Duration::MAX), None).first_deadline(None, secs(9)),
            secs(9)
        );
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
