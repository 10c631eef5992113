//! Chaos on purpose: a [`Chaos`] switch that decides, attempt by attempt,
//! whether to inject a fault, a fake outcome or extra latency into a call,
//! so that a test, a staging environment or a small share of production
//! traffic proves that fallbacks serve and breakers open.
//!
//! The rule is Polly's (Simmy): an attempt is injected when the switch is
//! enabled **and** a draw of its randomizer, in `[0, 1)`, is below its
//! injection rate. The switch and the rate are atomics, so a `static` can
//! be flipped at run time (from configuration, an admin endpoint, another
//! thread) without a restart; a disabled switch costs one relaxed atomic
//! load per attempt.
//!
//! ```
//! use resilient::chaos::Chaos;
//!
//! static CHAOS: Chaos = Chaos::new().injection_rate(0.05);
//!
//! assert!(!CHAOS.should_inject()); // disabled until switched on
//! CHAOS.set_enabled(true);
//! CHAOS.set_injection_rate(1.0);
//! assert!(CHAOS.should_inject());
//! ```

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

/// A chaos switch: whether to inject, how often, and with which latency.
///
/// Made with const builders, so it fits in a `static`; switched at run time
/// with [`set_enabled`](Chaos::set_enabled) and
/// [`set_injection_rate`](Chaos::set_injection_rate). `#[resilient(chaos =
/// &CHAOS, chaos_fault = …)]` consults it once per attempt (fallbacks are
/// never injected).
///
/// ```
/// use resilient::chaos::Chaos;
/// use std::time::Duration;
///
/// static SLOW: Chaos = Chaos::new()
///     .enabled(true)
///     .injection_rate(0.5)
///     .randomizer(|| 0.25)
///     .latency(Duration::from_millis(500));
///
/// assert!(SLOW.should_inject()); // 0.25 < 0.5
/// assert_eq!(SLOW.injected_latency(), Duration::from_millis(500));
/// ```
pub struct Chaos {
    /// [`ENABLED`], and [`NAMED`] for a switch with a name: one load tells
    /// an unnamed switch that is off.
    state: AtomicU8,
    /// The injection rate's `f64` bits, always within `0..=1`.
    rate: AtomicU64,
    randomizer: fn() -> f64,
    latency: Duration,
    name: Option<&'static str>,
    /// Its entry in the installed configuration (`[chaos.NAME]`).
    #[cfg(feature = "config")]
    configured: crate::config::ChaosCache,
}

/// The bit of [`Chaos::state`] that says it injects.
const ENABLED: u8 = 1;
/// The bit of [`Chaos::state`] that says it has a name, whose entry in an
/// installed configuration applies.
const NAMED: u8 = 2;

impl Chaos {
    /// A disabled switch, with an injection rate of 0, the fast
    /// thread-local randomizer and no latency.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// static CHAOS: Chaos = Chaos::new();
    /// assert!(!CHAOS.is_enabled());
    /// assert_eq!(CHAOS.rate(), 0.0);
    /// ```
    #[must_use]
    pub const fn new() -> Chaos {
        Chaos {
            state: AtomicU8::new(0),
            rate: AtomicU64::new(0),
            randomizer: thread_random,
            latency: Duration::ZERO,
            name: None,
            #[cfg(feature = "config")]
            configured: crate::config::ChaosCache::new(),
        }
    }

    /// Switched on or off from the start.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    /// assert!(CHAOS.should_inject());
    /// ```
    #[must_use]
    pub const fn enabled(self, enabled: bool) -> Chaos {
        let named = self.state.into_inner() & NAMED;
        Chaos {
            state: AtomicU8::new(named | if enabled { ENABLED } else { 0 }),
            ..self
        }
    }

    /// The same switch under a name, by which an installed configuration's
    /// `[chaos.NAME]` (feature `config`) switches it and sets its rate. A
    /// named switch applies its entry when it is first read after an
    /// install or a clear, and gives back its own values when the entry
    /// goes (see the `config` module's docs); it reads the configuration's
    /// generation on each read, where a disabled switch without a name
    /// reads one atomic.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// static PRICING: Chaos = Chaos::new().injection_rate(0.1).named("pricing.faults");
    /// assert_eq!(PRICING.name(), Some("pricing.faults"));
    /// assert!(!PRICING.is_enabled());
    /// ```
    #[must_use]
    pub const fn named(self, name: &'static str) -> Chaos {
        let state = self.state.into_inner() | NAMED;
        Chaos {
            state: AtomicU8::new(state),
            name: Some(name),
            ..self
        }
    }

    /// Its name, from [`named`](Chaos::named).
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// assert_eq!(Chaos::new().name(), None);
    /// ```
    pub const fn name(&self) -> Option<&'static str> {
        self.name
    }

    /// The share of attempts to inject, clamped to `0..=1` as Polly does:
    /// a negative rate (or NaN) injects nothing, a rate above 1 injects
    /// every attempt.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// assert_eq!(Chaos::new().injection_rate(1.1).rate(), 1.0);
    /// assert_eq!(Chaos::new().injection_rate(-1.0).rate(), 0.0);
    /// assert_eq!(Chaos::new().injection_rate(f64::NAN).rate(), 0.0);
    /// ```
    #[must_use]
    pub const fn injection_rate(self, rate: f64) -> Chaos {
        Chaos {
            rate: AtomicU64::new(clamp_rate(rate).to_bits()),
            ..self
        }
    }

    /// Where the draws come from: a function returning a number in
    /// `[0, 1)`. The default is a fast generator kept per thread. A test
    /// fixes it (`|| 0.5`) or seeds it with [`seeded_draw`].
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// static HALF: Chaos = Chaos::new().enabled(true).injection_rate(0.5).randomizer(|| 0.5);
    /// assert!(!HALF.should_inject()); // 0.5 is not below 0.5
    /// ```
    #[must_use]
    pub const fn randomizer(self, randomizer: fn() -> f64) -> Chaos {
        Chaos { randomizer, ..self }
    }

    /// The latency this switch stands for, read back with
    /// [`injected_latency`](Chaos::injected_latency), so that the switch
    /// and its latency live in one `static`: `chaos_latency =
    /// SLOW.injected_latency()`. A zero latency injects nothing, as in
    /// Polly.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    /// use std::time::Duration;
    ///
    /// let chaos = Chaos::new().latency(Duration::from_secs(2));
    /// assert_eq!(chaos.injected_latency(), Duration::from_secs(2));
    /// ```
    #[must_use]
    pub const fn latency(self, latency: Duration) -> Chaos {
        Chaos { latency, ..self }
    }

    /// Switches injection on or off, for every operation that consults
    /// this switch, from their next attempt on.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// static CHAOS: Chaos = Chaos::new().injection_rate(1.0);
    /// CHAOS.set_enabled(true);
    /// assert!(CHAOS.should_inject());
    /// CHAOS.set_enabled(false);
    /// assert!(!CHAOS.should_inject());
    /// ```
    pub fn set_enabled(&self, enabled: bool) {
        #[cfg(feature = "config")]
        self.apply_configured();
        self.store_enabled(enabled);
    }

    fn store_enabled(&self, enabled: bool) {
        if enabled {
            self.state.fetch_or(ENABLED, Ordering::Relaxed);
        } else {
            self.state.fetch_and(!ENABLED, Ordering::Relaxed);
        }
    }

    /// Changes the injection rate, clamped to `0..=1`, from the next
    /// attempt on.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// static CHAOS: Chaos = Chaos::new().enabled(true);
    /// CHAOS.set_injection_rate(2.0);
    /// assert_eq!(CHAOS.rate(), 1.0);
    /// ```
    pub fn set_injection_rate(&self, rate: f64) {
        #[cfg(feature = "config")]
        self.apply_configured();
        self.rate
            .store(clamp_rate(rate).to_bits(), Ordering::Relaxed);
    }

    /// Whether injection is switched on.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// assert!(Chaos::new().enabled(true).is_enabled());
    /// ```
    #[inline]
    pub fn is_enabled(&self) -> bool {
        let state = self.state.load(Ordering::Relaxed);
        #[cfg(feature = "config")]
        if state & NAMED != 0 {
            return self.is_enabled_named();
        }
        state & ENABLED != 0
    }

    /// [`is_enabled`](Chaos::is_enabled) of a named switch: its entry
    /// applied first, if a generation came since.
    #[cfg(feature = "config")]
    fn is_enabled_named(&self) -> bool {
        self.apply_configured();
        self.state.load(Ordering::Relaxed) & ENABLED != 0
    }

    /// Applies the installed configuration's entry of its name, if it
    /// has a name and a generation came since it last looked.
    #[cfg(feature = "config")]
    #[inline]
    fn apply_configured(&self) {
        let Some(name) = self.name else {
            return;
        };
        if self.configured.is_current() {
            return;
        }
        let now = (
            self.state.load(Ordering::Relaxed) & ENABLED != 0,
            self.stored_rate(),
        );
        self.configured.apply(name, now, |enabled, rate| {
            if let Some(enabled) = enabled {
                self.store_enabled(enabled);
            }
            if let Some(rate) = rate {
                self.rate
                    .store(clamp_rate(rate).to_bits(), Ordering::Relaxed);
            }
        });
    }

    /// The injection rate, within `0..=1`.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// assert_eq!(Chaos::new().injection_rate(0.3).rate(), 0.3);
    /// ```
    pub fn rate(&self) -> f64 {
        #[cfg(feature = "config")]
        self.apply_configured();
        self.stored_rate()
    }

    fn stored_rate(&self) -> f64 {
        f64::from_bits(self.rate.load(Ordering::Relaxed))
    }

    /// The latency an injected attempt waits, from
    /// [`latency`](Chaos::latency).
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    /// use std::time::Duration;
    ///
    /// assert_eq!(Chaos::new().injected_latency(), Duration::ZERO);
    /// ```
    pub const fn injected_latency(&self) -> Duration {
        self.latency
    }

    /// Polly's rule: enabled **and** a draw below the rate. A disabled
    /// switch answers after one relaxed atomic load, without drawing.
    ///
    /// ```
    /// use resilient::chaos::Chaos;
    ///
    /// let chaos = Chaos::new().enabled(true).injection_rate(0.6).randomizer(|| 0.5);
    /// assert!(chaos.should_inject());
    /// chaos.set_injection_rate(0.4);
    /// assert!(!chaos.should_inject());
    /// ```
    #[inline]
    pub fn should_inject(&self) -> bool {
        self.is_enabled() && self.draw_below_rate()
    }

    #[cold]
    fn draw_below_rate(&self) -> bool {
        // `is_enabled` applied the entry just before.
        (self.randomizer)() < self.stored_rate()
    }
}

impl Default for Chaos {
    fn default() -> Chaos {
        Chaos::new()
    }
}

impl fmt::Debug for Chaos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = f.debug_struct("Chaos");
        if let Some(name) = self.name {
            shown.field("name", &name);
        }
        shown
            .field("enabled", &self.is_enabled())
            .field("rate", &self.rate())
            .field("latency", &self.latency)
            .finish_non_exhaustive()
    }
}

/// The switches of one operation (`chaos = &CHAOS`, or `chaos = [&A, &B]`):
/// one that serves every kind of injection, drawing once per attempt, or
/// one per kind, in the order fault, outcome, latency, each drawing on its
/// own. Made from a `&Chaos` or an array of one to three of them.
///
/// ```
/// use resilient::chaos::{Chaos, Switches};
///
/// static FAULTS: Chaos = Chaos::new().enabled(true).injection_rate(0.01);
/// static SLOW: Chaos = Chaos::new().enabled(true).injection_rate(0.1);
///
/// let one: Switches = (&FAULTS).into();
/// let per_kind: Switches = [&FAULTS, &SLOW].into();
/// assert_eq!((one.len(), per_kind.len()), (1, 2));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Switches<'a> {
    list: [Option<&'a Chaos>; 3],
}

impl<'a> Switches<'a> {
    /// No switch: nothing is injected.
    pub(crate) const NONE: Switches<'static> = Switches { list: [None; 3] };

    /// How many switches there are.
    ///
    /// ```
    /// use resilient::chaos::{Chaos, Switches};
    ///
    /// static CHAOS: Chaos = Chaos::new();
    /// assert_eq!(Switches::from([&CHAOS, &CHAOS, &CHAOS]).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.list.iter().flatten().count()
    }

    /// Whether there is no switch at all.
    ///
    /// ```
    /// use resilient::chaos::{Chaos, Switches};
    ///
    /// static CHAOS: Chaos = Chaos::new();
    /// assert!(!Switches::from(&CHAOS).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.list[0].is_none()
    }

    /// The switch at `index`.
    pub(crate) fn get(&self, index: usize) -> Option<&'a Chaos> {
        self.list.get(index).copied().flatten()
    }

    /// Whether any switch is on: one relaxed load each.
    #[inline]
    pub(crate) fn any_enabled(&self) -> bool {
        self.list.iter().flatten().any(|chaos| chaos.is_enabled())
    }
}

impl<'a> From<&'a Chaos> for Switches<'a> {
    fn from(chaos: &'a Chaos) -> Self {
        Switches {
            list: [Some(chaos), None, None],
        }
    }
}

macro_rules! from_arrays {
    ($($n:literal),*) => {$(
        impl<'a> From<[&'a Chaos; $n]> for Switches<'a> {
            fn from(switches: [&'a Chaos; $n]) -> Self {
                let mut list = [None; 3];
                for (slot, chaos) in list.iter_mut().zip(switches) {
                    *slot = Some(chaos);
                }
                Switches { list }
            }
        }
    )*};
}

from_arrays!(1, 2, 3);

/// What chaos did to an attempt, as its record says
/// ([`AttemptRecord::injected`](crate::AttemptRecord::injected)).
///
/// ```
/// use resilient::chaos::Injection;
///
/// assert_eq!(Injection::Fault.as_str(), "fault");
/// assert_eq!(Injection::Latency.to_string(), "latency");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Injection {
    /// The attempt failed with an injected error; the body did not run.
    Fault,
    /// The attempt succeeded with an injected value; the body did not run.
    Outcome,
    /// The attempt waited an injected latency, then ran the body.
    Latency,
}

impl Injection {
    /// The kind's name: `fault`, `outcome` or `latency`, as the report's
    /// table and JSON, the `chaos.injected` event and the
    /// `resilient_chaos_injections_total` counter write it.
    ///
    /// ```
    /// use resilient::chaos::Injection;
    ///
    /// assert_eq!(Injection::Outcome.as_str(), "outcome");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Injection::Fault => "fault",
            Injection::Outcome => "outcome",
            Injection::Latency => "latency",
        }
    }
}

impl fmt::Display for Injection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A uniform draw in `[0, 1)` from a seeded sequence kept in `state`: the
/// randomizer of a reproducible test. Each call advances the sequence
/// (SplitMix64), atomically, so threads sharing `state` never repeat a
/// draw.
///
/// ```
/// use resilient::chaos::{Chaos, seeded_draw};
/// use std::sync::atomic::AtomicU64;
///
/// fn seeded() -> f64 {
///     static STATE: AtomicU64 = AtomicU64::new(42);
///     seeded_draw(&STATE)
/// }
///
/// static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(0.3).randomizer(seeded);
/// let injected = (0..1_000).filter(|_| CHAOS.should_inject()).count();
/// assert!((250..350).contains(&injected));
/// ```
pub fn seeded_draw(state: &AtomicU64) -> f64 {
    const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
    let seed = state
        .fetch_add(GAMMA, Ordering::Relaxed)
        .wrapping_add(GAMMA);
    unit(mix(seed))
}

/// Clamps a rate to `0..=1`; NaN is 0.
const fn clamp_rate(rate: f64) -> f64 {
    if rate >= 1.0 {
        1.0
    } else if rate > 0.0 {
        rate
    } else {
        0.0
    }
}

/// SplitMix64's output function.
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The top 53 bits of `bits` as a number in `[0, 1)`.
#[allow(clippy::cast_precision_loss)]
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

thread_local! {
    /// The default randomizer's state, seeded once per thread.
    static STATE: Cell<u64> = Cell::new(crate::seed::random_u64());
}

/// The default randomizer: SplitMix64 over a per-thread state, a few
/// nanoseconds a draw, with no lock and no shared cache line.
fn thread_random() -> f64 {
    STATE.with(|state| {
        let next = state.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
        state.set(next);
        unit(mix(next))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn half() -> f64 {
        0.5
    }

    fn fixed(rate: f64) -> Chaos {
        Chaos::new()
            .enabled(true)
            .injection_rate(rate)
            .randomizer(half)
    }

    // Polly's `Should_coerce_injection_rate_generator_result_is_not_valid`,
    // test/Polly.Core.Tests/Simmy/ChaosStrategyTests.cs (App-vNext/Polly):
    // with the randomizer at 0.5, rates 0, 0.5 and -1 do not inject, rates
    // 1 and 1.1 do.
    #[test]
    fn polly_rates_are_clamped_and_compared_with_the_draw() {
        for (rate, injects) in [
            (0.0, false),
            (0.5, false),
            (-1.0, false),
            (1.0, true),
            (1.1, true),
        ] {
            assert_eq!(fixed(rate).should_inject(), injects, "rate {rate}");
            let switched = fixed(0.0);
            switched.set_injection_rate(rate);
            assert_eq!(switched.should_inject(), injects, "set rate {rate}");
        }
    }

    // Polly's `Should_inject_chaos` (same file): rate 0.6, draw 0.5.
    #[test]
    fn polly_injects_when_the_draw_is_below_the_rate() {
        assert!(fixed(0.6).should_inject());
    }

    // Polly's `Given_not_enabled_should_not_inject_*`
    // (test/Polly.Core.Tests/Simmy/Fault/ChaosFaultStrategyTests.cs): a
    // disabled switch never injects, whatever its rate, and never draws.
    #[test]
    fn disabled_never_injects_and_never_draws() {
        fn counting() -> f64 {
            DRAWS.with(|draws| draws.set(draws.get() + 1));
            0.0
        }
        thread_local!(static DRAWS: Cell<u32> = const { Cell::new(0) });
        let chaos = Chaos::new().injection_rate(1.0).randomizer(counting);
        for _ in 0..100 {
            assert!(!chaos.should_inject());
        }
        assert_eq!(DRAWS.with(Cell::get), 0);
        chaos.set_enabled(true);
        assert!(chaos.should_inject());
        assert_eq!(DRAWS.with(Cell::get), 1);
    }

    #[test]
    fn new_is_disabled_with_rate_zero() {
        static CHAOS: Chaos = Chaos::new();
        assert!(!CHAOS.is_enabled());
        assert_eq!(CHAOS.rate(), 0.0);
        assert_eq!(CHAOS.injected_latency(), Duration::ZERO);
        CHAOS.set_enabled(true);
        assert!(!CHAOS.should_inject(), "rate 0 injects nothing");
    }

    #[test]
    fn nan_and_infinite_rates_are_clamped() {
        assert_eq!(Chaos::new().injection_rate(f64::NAN).rate(), 0.0);
        assert_eq!(Chaos::new().injection_rate(f64::INFINITY).rate(), 1.0);
        assert_eq!(Chaos::new().injection_rate(f64::NEG_INFINITY).rate(), 0.0);
    }

    #[test]
    fn default_randomizer_draws_within_unit_interval_at_the_rate() {
        let chaos = Chaos::new().enabled(true).injection_rate(0.3);
        let injected = (0..20_000).filter(|_| chaos.should_inject()).count();
        // 0.3 × 20 000 = 6 000; five standard deviations are about 324.
        assert!((5_676..=6_324).contains(&injected), "{injected}");
        for _ in 0..10_000 {
            let draw = thread_random();
            assert!((0.0..1.0).contains(&draw), "{draw}");
        }
    }

    #[test]
    fn seeded_draws_repeat_from_the_same_seed() {
        let (a, b) = (AtomicU64::new(7), AtomicU64::new(7));
        let first: Vec<f64> = (0..5).map(|_| seeded_draw(&a)).collect();
        let second: Vec<f64> = (0..5).map(|_| seeded_draw(&b)).collect();
        assert_eq!(first, second);
        assert!(first.windows(2).all(|pair| pair[0] != pair[1]));
        assert!(first.iter().all(|draw| (0.0..1.0).contains(draw)));
    }

    #[test]
    fn unit_covers_both_ends() {
        assert_eq!(unit(0), 0.0);
        assert!(unit(u64::MAX) < 1.0);
    }

    #[test]
    fn switches_flipped_from_another_thread_are_seen() {
        static CHAOS: Chaos = Chaos::new().injection_rate(1.0);
        std::thread::scope(|scope| {
            scope.spawn(|| CHAOS.set_enabled(true)).join().unwrap();
        });
        assert!(CHAOS.should_inject());
        std::thread::scope(|scope| {
            scope.spawn(|| CHAOS.set_enabled(false)).join().unwrap();
        });
        assert!(!CHAOS.should_inject());
    }

    #[test]
    fn rates_written_from_many_threads_are_never_torn() {
        static CHAOS: Chaos = Chaos::new().enabled(true);
        const RATES: [f64; 3] = [0.0, 0.25, 1.0];
        std::thread::scope(|scope| {
            for rate in RATES {
                scope.spawn(move || {
                    for _ in 0..20_000 {
                        CHAOS.set_injection_rate(rate);
                    }
                });
            }
            for _ in 0..2 {
                scope.spawn(|| {
                    for _ in 0..20_000 {
                        let rate = CHAOS.rate();
                        assert!(RATES.contains(&rate), "{rate}");
                    }
                });
            }
        });
        assert!(RATES.contains(&CHAOS.rate()));
    }

    #[test]
    fn draws_on_many_threads_follow_the_switch() {
        static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
        let draw_all = |expected: bool| {
            std::thread::scope(|scope| {
                for _ in 0..4 {
                    scope.spawn(move || {
                        for _ in 0..10_000 {
                            assert_eq!(CHAOS.should_inject(), expected);
                        }
                    });
                }
            });
        };
        draw_all(true);
        CHAOS.set_enabled(false);
        draw_all(false);
    }

    #[test]
    fn debug_shows_the_switches() {
        let text = format!("{:?}", fixed(0.25));
        assert!(text.contains("enabled: true"), "{text}");
        assert!(text.contains("rate: 0.25"), "{text}");
    }
}
