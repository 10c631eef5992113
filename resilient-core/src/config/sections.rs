//! The sections for named primitives: `[limits.NAME]` (a bulkhead's size,
//! a rate limiter's rate and burst), `[throttles.NAME]`,
//! `[adaptive_throttles.NAME]` and `[chaos.NAME]`; and each primitive's memory of its entry, read through
//! a generation check.
//!
//! A primitive keeps what it found at a generation in atomics of its own
//! (a cache below), so that while nothing is installed or reloaded it
//! reads the generation counter and its own generation, compares them,
//! and goes on: no lookup by name, no lock. Only a new generation makes
//! it look its name up again, on a cold path. Its own state (permits in
//! flight, a limiter's arrival time, a throttle's tokens, a breaker's
//! counts) is never part of the cache, so it survives every reload.
//!
//! A chaos switch's entry is applied as the `config` module's docs tell
//! ("Chaos switches"): key by key, when the entry changes.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use super::{CURRENT, Config, GENERATION};
use crate::a6::{self, MILLI};
use std::sync::Mutex;

/// The overrides of one named limiter (`[limits.NAME]`); `None` keeps the
/// builder's value.
///
/// A [`Bulkhead`](crate::limit::Bulkhead) named NAME reads
/// `max_concurrent`; a [`RateLimiter`](crate::limit::RateLimiter) named
/// NAME reads `rate`, `per` and `burst`.
///
/// ```
/// use resilient::config::Config;
/// use std::time::Duration;
///
/// let config = Config::from_toml("[limits.search]\nrate = 100\nper = \"1m\"\nburst = 10\n")?;
/// let search = config.limit("search").unwrap();
/// assert_eq!(search.rate, Some(100));
/// assert_eq!(search.per, Some(Duration::from_secs(60)));
/// assert_eq!(search.burst, Some(10));
/// assert_eq!(search.max_concurrent, None);
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LimitConfig {
    /// `max_concurrent`: a [`Bulkhead`](crate::limit::Bulkhead)'s size, at
    /// least 1. Below the permits in flight, it takes effect as they return.
    pub max_concurrent: Option<u32>,
    /// `rate`: a rate limiter's cells per `per`, at least 1 (a limiter of
    /// rate 0 would admit nothing; to stop calls, isolate a breaker).
    /// Without `per`, the limiter's own period (a second for
    /// `per_second`, a minute for `per_minute`).
    pub rate: Option<u32>,
    /// `per`: the period `rate` is counted over, greater than zero
    /// (`"1s"`, `"1m"`). Without `rate`, the limiter's own rate.
    pub per: Option<Duration>,
    /// `burst`: the most cells a rate limiter grants at once, at least 1.
    /// Without it, the limiter's own burst, whatever `rate` says.
    pub burst: Option<u32>,
}

/// The overrides of one named retry throttle (`[throttles.NAME]`), for a
/// [`RetryThrottle`](crate::RetryThrottle) built with `.named("NAME")`;
/// `None` keeps the builder's value. Each value passes
/// `RetryThrottle::try_new`'s rules.
///
/// The entry `[throttles.default]` turns on the process's retry budget
/// ([`budget_default`](crate::throttle::budget_default)): a throttle of
/// 10 tokens and 0.1 a success, or the entry's own values, for every
/// operation without a throttle of its own, while it is installed.
///
/// ```
/// use resilient::config::Config;
///
/// let config = Config::from_toml("[throttles.payments]\nmax_tokens = 20\ntoken_ratio = 0.5\n")?;
/// let payments = config.throttle("payments").unwrap();
/// assert_eq!(payments.max_tokens, Some(20));
/// assert_eq!(payments.token_ratio, Some(0.5));
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ThrottleConfig {
    /// `max_tokens`: the most tokens, within `1..=1000`. The token count
    /// survives a reload, cut to a smaller maximum.
    pub max_tokens: Option<u32>,
    /// `token_ratio`: what a success adds, finite and at least 0.001 once
    /// rounded to three decimals.
    pub token_ratio: Option<f64>,
}

/// The overrides of one named adaptive throttle
/// (`[adaptive_throttles.NAME]`), for an
/// [`AdaptiveThrottle`](crate::throttle::AdaptiveThrottle) built with
/// `.named("NAME")`; `None` keeps the builder's value. The counts in its
/// window survive a reload; a new window applies from its next attempt.
///
/// ```
/// use resilient::config::Config;
/// use std::time::Duration;
///
/// let config = Config::from_toml(
///     "[adaptive_throttles.search]\nmultiplier = 1.5\nwindow = \"1m\"\nmin_requests = 20\nmax_rejection = 0.5\n",
/// )?;
/// let search = config.adaptive_throttle("search").unwrap();
/// assert_eq!(search.multiplier, Some(1.5));
/// assert_eq!(search.window, Some(Duration::from_secs(60)));
/// assert_eq!(search.min_requests, Some(20));
/// assert_eq!(search.max_rejection, Some(0.5));
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AdaptiveThrottleConfig {
    /// `multiplier`: K, a finite number of at least 1.
    pub multiplier: Option<f64>,
    /// `window`: the sliding window, greater than zero.
    pub window: Option<Duration>,
    /// `min_requests`: the requests the window holds before any is refused.
    pub min_requests: Option<u32>,
    /// `max_rejection`: the highest rejection probability, within `0..=1`.
    pub max_rejection: Option<f64>,
}

/// The overrides of one named chaos switch (`[chaos.NAME]`), for a
/// [`Chaos`](crate::chaos::Chaos) built with `.named("NAME")`; `None`
/// keeps the switch's own value.
///
/// ```
/// use resilient::config::Config;
///
/// let config = Config::from_toml("[chaos.pricing]\nenabled = true\ninjection_rate = 0.05\n")?;
/// let pricing = config.chaos("pricing").unwrap();
/// assert_eq!(pricing.enabled, Some(true));
/// assert_eq!(pricing.injection_rate, Some(0.05));
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ChaosConfig {
    /// `enabled`: whether the switch injects at all.
    pub enabled: Option<bool>,
    /// `injection_rate`: the share of attempts injected, within `0..=1`
    /// (`0.05` is one in twenty); a value outside is an error rather than
    /// clamped as the builder clamps it.
    pub injection_rate: Option<f64>,
}

impl Config {
    /// The overrides of the retry throttle named `name`
    /// (`[throttles.NAME]`), if any.
    ///
    /// ```
    /// use resilient::config::Config;
    ///
    /// let config = Config::from_toml("[throttles.ledger]\nmax_tokens = 4\n")?;
    /// assert_eq!(config.throttle("ledger").unwrap().max_tokens, Some(4));
    /// assert!(config.throttle("other").is_none());
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    pub fn throttle(&self, name: &str) -> Option<&ThrottleConfig> {
        self.throttles.get(name)
    }

    /// The overrides of the adaptive throttle named `name`
    /// (`[adaptive_throttles.NAME]`), if any.
    ///
    /// ```
    /// use resilient::config::Config;
    ///
    /// let config = Config::from_toml("[adaptive_throttles.api]\nmin_requests = 5\n")?;
    /// assert_eq!(config.adaptive_throttle("api").unwrap().min_requests, Some(5));
    /// assert!(config.adaptive_throttle("other").is_none());
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    pub fn adaptive_throttle(&self, name: &str) -> Option<&AdaptiveThrottleConfig> {
        self.adaptive_throttles.get(name)
    }

    /// The overrides of the chaos switch named `name` (`[chaos.NAME]`), if
    /// any.
    ///
    /// ```
    /// use resilient::config::Config;
    ///
    /// let config = Config::from_toml("[chaos.faults]\nenabled = false\n")?;
    /// assert_eq!(config.chaos("faults").unwrap().enabled, Some(false));
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    pub fn chaos(&self, name: &str) -> Option<&ChaosConfig> {
        self.chaos.get(name)
    }
}

/// The installed configuration's overrides of the retry throttle `name`,
/// which a [`RetryThrottle`](crate::RetryThrottle) of that name applies
/// from its next use.
///
/// ```
/// use resilient::config;
///
/// config::install_toml("[throttles.settings_example]\ntoken_ratio = 0.25\n")?;
/// let entry = config::throttle_settings("settings_example").unwrap();
/// assert_eq!(entry.token_ratio, Some(0.25));
/// config::clear();
/// assert!(config::throttle_settings("settings_example").is_none());
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
pub fn throttle_settings(name: &str) -> Option<ThrottleConfig> {
    let config = CURRENT.load();
    config.as_ref()?.throttle(name).cloned()
}

/// The installed configuration's overrides of the chaos switch `name`,
/// which a [`Chaos`](crate::chaos::Chaos) of that name applies when it is
/// next read.
///
/// ```
/// use resilient::config;
///
/// config::install_toml("[chaos.settings_example]\nenabled = true\n")?;
/// assert_eq!(config::chaos_settings("settings_example").unwrap().enabled, Some(true));
/// config::clear();
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
pub fn chaos_settings(name: &str) -> Option<ChaosConfig> {
    let config = CURRENT.load();
    config.as_ref()?.chaos(name).cloned()
}

/// The installed configuration's overrides of the adaptive throttle
/// `name`, if any.
///
/// ```
/// use resilient::config;
///
/// config::install_toml("[adaptive_throttles.settings_example]\nmax_rejection = 0.5\n")?;
/// let entry = config::adaptive_throttle_settings("settings_example").unwrap();
/// assert_eq!(entry.max_rejection, Some(0.5));
/// config::clear();
/// assert!(config::adaptive_throttle_settings("settings_example").is_none());
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
pub fn adaptive_throttle_settings(name: &str) -> Option<AdaptiveThrottleConfig> {
    let config = CURRENT.load();
    config.as_ref()?.adaptive_throttle(name).cloned()
}

/// Held by the refresh of any cache of named settings (a bulkhead's, a
/// rate limiter's, a throttle's, a breaker's).
static REFRESHING: Mutex<()> = Mutex::new(());

/// Refreshes a cache whose generation is `stamp`, one at a time under
/// [`REFRESHING`] (`crate::refresh`, where a loom model shows why the lock
/// is needed): the values `store` keeps are never older than the stamp.
pub(crate) fn refresh_stamped(stamp: &AtomicU64, store: impl FnOnce()) {
    crate::refresh::refresh(&REFRESHING, &GENERATION, stamp, store);
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
            self.refresh(name);
        }
        let max = self.max_concurrent.load(Ordering::Relaxed);
        (max != 0).then_some(max)
    }

    #[cold]
    #[inline(never)]
    fn refresh(&self, name: &str) {
        refresh_stamped(&self.generation, || {
            let entry = super::limit_settings(name).unwrap_or_default();
            self.max_concurrent
                .store(entry.max_concurrent.unwrap_or(0), Ordering::Relaxed);
        });
    }
}

/// A rate limiter as built: its rate, its period in nanoseconds and its
/// burst, from which the entry's keys are merged.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BuiltRate {
    pub(crate) rate: u32,
    pub(crate) period: u64,
    pub(crate) burst: u32,
}

/// A cell as a rate limiter checks it: nanoseconds a cell weighs, the
/// burst, and the tolerance (`per_cell` times `burst - 1`).
pub(crate) type CellOf = fn(rate: u32, period: u64, burst: u32) -> (u64, u32, u64);

/// A named rate limiter's memory of its entry (`[limits.NAME]` `rate`,
/// `per`, `burst`): the cell it found at a generation, a weight of 0 for
/// the builder's (the entry's rules keep a configured weight above 0).
#[derive(Debug)]
pub(crate) struct RateCache {
    generation: AtomicU64,
    per_cell: AtomicU64,
    tolerance: AtomicU64,
    burst: AtomicU32,
}

impl RateCache {
    /// Nothing known yet.
    pub(crate) const fn new() -> Self {
        RateCache {
            generation: AtomicU64::new(0),
            per_cell: AtomicU64::new(0),
            tolerance: AtomicU64::new(0),
            burst: AtomicU32::new(0),
        }
    }

    /// The cell the installed configuration sets for the limiter `name`
    /// (see [`CellOf`]), `None` where it keeps the builder's. A check that
    /// races a reload may read the weight of one generation with the
    /// burst of the next: each is a limiter's the operator asked for.
    #[inline]
    pub(crate) fn cell(
        &self,
        name: &str,
        built: BuiltRate,
        cell_of: CellOf,
    ) -> Option<(u64, u32, u64)> {
        let generation = GENERATION.load(Ordering::Acquire);
        if generation != self.generation.load(Ordering::Acquire) {
            self.refresh(name, built, cell_of);
        }
        let per_cell = self.per_cell.load(Ordering::Relaxed);
        (per_cell != 0).then(|| {
            (
                per_cell,
                self.burst.load(Ordering::Relaxed),
                self.tolerance.load(Ordering::Relaxed),
            )
        })
    }

    #[cold]
    #[inline(never)]
    fn refresh(&self, name: &str, built: BuiltRate, cell_of: CellOf) {
        refresh_stamped(&self.generation, || {
            let entry = super::limit_settings(name).unwrap_or_default();
            let (per_cell, burst, tolerance) =
                if entry.rate.is_none() && entry.per.is_none() && entry.burst.is_none() {
                    (0, 0, 0)
                } else {
                    let period = entry.per.map_or(built.period, crate::time::duration_nanos);
                    cell_of(
                        entry.rate.unwrap_or(built.rate),
                        period,
                        entry.burst.unwrap_or(built.burst),
                    )
                };
            self.burst.store(burst, Ordering::Relaxed);
            self.tolerance.store(tolerance, Ordering::Relaxed);
            self.per_cell.store(per_cell, Ordering::Relaxed);
        });
    }
}

/// A named retry throttle's memory of its entry (`[throttles.NAME]`): the
/// maximum and the refill it found at a generation, in thousandths, a
/// maximum of 0 for the builder's.
#[derive(Debug)]
pub(crate) struct ThrottleCache {
    generation: AtomicU64,
    max: AtomicU32,
    refill: AtomicU32,
}

impl ThrottleCache {
    /// Nothing known yet.
    pub(crate) const fn new() -> Self {
        ThrottleCache {
            generation: AtomicU64::new(0),
            max: AtomicU32::new(0),
            refill: AtomicU32::new(0),
        }
    }

    /// The maximum and the refill in force for the throttle `name`, built
    /// with `built`; a new generation cuts its `tokens` to the maximum in
    /// force.
    #[inline]
    pub(crate) fn read(&self, name: &str, built: (u32, u32), tokens: &AtomicU32) -> (u32, u32) {
        let generation = GENERATION.load(Ordering::Acquire);
        if generation != self.generation.load(Ordering::Acquire) {
            self.refresh(name, built, tokens);
        }
        match self.max.load(Ordering::Relaxed) {
            0 => built,
            max => (max, self.refill.load(Ordering::Relaxed)),
        }
    }

    #[cold]
    #[inline(never)]
    fn refresh(&self, name: &str, built: (u32, u32), tokens: &AtomicU32) {
        refresh_stamped(&self.generation, || {
            let entry = throttle_settings(name).unwrap_or_default();
            let max = entry
                .max_tokens
                .map_or(built.0, |max_tokens| max_tokens.saturating_mul(MILLI));
            let refill = entry
                .token_ratio
                .map_or(built.1.min(max), |ratio| a6::refill_of(ratio, max));
            let configured = entry.max_tokens.is_some() || entry.token_ratio.is_some();
            self.refill.store(refill, Ordering::Relaxed);
            self.max
                .store(if configured { max } else { 0 }, Ordering::Relaxed);
            // The count survives, within the new maximum.
            tokens.fetch_min(max, Ordering::Relaxed);
        });
    }
}

/// A key of a chaos entry as applied: not set, `false`, `true`.
const UNSET: u8 = 0;
/// An injection rate not set: no rate is a NaN.
const NO_RATE: u64 = u64::MAX;

/// A named chaos switch's memory of its entry (`[chaos.NAME]`): the
/// generation it applied, the keys it applied, and the switch's own value
/// of each key before the configuration set it (see the module's docs).
#[derive(Debug)]
pub(crate) struct ChaosCache {
    generation: AtomicU64,
    /// Held by the one reader applying a generation; the others read the
    /// switch as it is meanwhile.
    applying: AtomicBool,
    /// `enabled` as applied: [`UNSET`], 1 + the value.
    applied_enabled: AtomicU8,
    /// `injection_rate`'s bits as applied, or [`NO_RATE`].
    applied_rate: AtomicU64,
    own_enabled: AtomicBool,
    own_rate: AtomicU64,
}

impl ChaosCache {
    /// Nothing applied yet.
    pub(crate) const fn new() -> Self {
        ChaosCache {
            generation: AtomicU64::new(0),
            applying: AtomicBool::new(false),
            applied_enabled: AtomicU8::new(UNSET),
            applied_rate: AtomicU64::new(NO_RATE),
            own_enabled: AtomicBool::new(false),
            own_rate: AtomicU64::new(0),
        }
    }

    /// Whether the generation applied is the one installed: one load of
    /// the counter and one of its own.
    #[inline(always)]
    pub(crate) fn is_current(&self) -> bool {
        GENERATION.load(Ordering::Acquire) == self.generation.load(Ordering::Acquire)
    }

    /// Applies the installed entry of the switch `name`, whose values are
    /// `now` (enabled, rate), through `set`, which writes the values given.
    #[cold]
    #[inline(never)]
    pub(crate) fn apply(
        &self,
        name: &str,
        now: (bool, f64),
        set: impl FnOnce(Option<bool>, Option<f64>),
    ) {
        if self
            .applying
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let generation = GENERATION.load(Ordering::Acquire);
        let entry = chaos_settings(name).unwrap_or_default();

        let enabled = entry.enabled.map_or(UNSET, |on| 1 + u8::from(on));
        let applied = self.applied_enabled.load(Ordering::Relaxed);
        let mut set_enabled = None;
        if enabled != applied {
            if applied == UNSET {
                self.own_enabled.store(now.0, Ordering::Relaxed);
            }
            set_enabled = Some(
                entry
                    .enabled
                    .unwrap_or_else(|| self.own_enabled.load(Ordering::Relaxed)),
            );
            self.applied_enabled.store(enabled, Ordering::Relaxed);
        }

        let rate = entry.injection_rate.map_or(NO_RATE, f64::to_bits);
        let applied = self.applied_rate.load(Ordering::Relaxed);
        let mut set_rate = None;
        if rate != applied {
            if applied == NO_RATE {
                self.own_rate.store(now.1.to_bits(), Ordering::Relaxed);
            }
            set_rate = Some(
                entry
                    .injection_rate
                    .unwrap_or_else(|| f64::from_bits(self.own_rate.load(Ordering::Relaxed))),
            );
            self.applied_rate.store(rate, Ordering::Relaxed);
        }

        set(set_enabled, set_rate);
        self.generation.store(generation, Ordering::Release);
        self.applying.store(false, Ordering::Release);
    }
}
