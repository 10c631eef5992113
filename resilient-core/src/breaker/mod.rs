//! [`CircuitBreaker`]: shared state that stops calling a dependency that keeps
//! failing, and lets a few trial calls through once it may have recovered.
//!
//! The breaker is closed until enough failures are recorded, then open: it
//! rejects every call for the break duration. After that it is half-open: a
//! limited number of probes run, and the first probe to report decides — a
//! success closes the breaker, a failure opens it for another break. Probes
//! that stay silent for the probe timeout are given up on, so that a hung
//! or leaked probe can't keep the breaker half-open for good.
//!
//! Time comes from the caller as an [`Instant`], so a breaker follows whatever
//! clock the operation consulting it uses, virtual clocks included.
//!
//! # Concurrency
//!
//! All state lives in atomics. The closed path costs one atomic load to admit
//! a call and one or two uncontended compare-and-swaps to record its outcome;
//! no lock is ever taken. The state, the number of probes in flight and a
//! generation that changes on every transition share one word, and every
//! change of that word is a compare-and-swap. A [`CircuitPermit`] remembers
//! the generation it was issued in, and its outcome only counts if the
//! breaker is still in that generation: a call admitted before the breaker
//! opened cannot close it later, and a probe that outlives its half-open
//! period cannot free a slot of the next one.
//!
//! The closed period's counts (consecutive failures, the sampling window)
//! carry the generation they count, and an outcome is added by a swap that
//! expects its permit's generation. A call admitted in one closed period
//! whose failure arrives after the breaker opened and closed again therefore
//! counts in neither, however the threads interleave.
//!
//! Opening and closing take two swaps: the first moves the word to an
//! intermediate state that rejects calls, the thread that made it writes what
//! the new state reads (when the break started, or fresh counts), and the
//! second publishes the new state.
//!
//! # Metrics
//!
//! With the `metrics` feature, a breaker sets the gauge
//! `resilient_circuit_state`, labelled `breaker` with its
//! [name](CircuitBreakerBuilder::name), to 0 (closed) when it is built, and
//! on every transition: 0 when it closes, 1 when it turns half-open, 2 when
//! it opens, 3 when it is [isolated](CircuitBreaker::isolate). The thread that makes a transition sets the gauge once.
//!
//! A break ends by the passing of time, with no call to notice it, and the
//! breaker spawns no task to watch the clock. The gauge follows open →
//! half-open when someone looks: `metrics::refresh` (feature `metrics`)
//! sets every live breaker's gauge to its state at that moment (call it
//! where the scrape is rendered), and the dashboard (feature `dashboard`)
//! refreshes it every second while its page is open.
//!
//! # Layout
//!
//! This file holds the public API. `builder` validates the options into a
//! configuration; `word` packs the state into atomic words and owns the one
//! compare-and-swap loop every change goes through; `window` counts the
//! failure-ratio rule's sampling windows; `view` is what the breaker
//! publishes for metrics and the dashboard; `shared` is what a breaker
//! shared with a fleet keeps of the fleet, and `redis_state` the
//! publisher that shares it through Redis (feature `redis`).
//!
//! # A breaker shared by a fleet
//!
//! With the `redis` feature, `CircuitBreakerBuilder::shared` attaches a
//! `RedisBreakerState`: the instances of a service that call one
//! dependency then also open, and probe, as one. The local breaker stays
//! the source of truth for each call, and the success path does no I/O: a
//! background publisher sends this instance's counts to Redis every 100 ms
//! and reads back the fleet's verdict, which the call path reads from an
//! atomic. See `RedisBreakerState` for the rule that opens the fleet's
//! breaker, and why one instance can't open it alone.

mod atomic;
mod builder;
#[cfg(all(test, not(loom)))]
mod control_tests;
#[cfg(all(test, not(loom)))]
mod fleet_tests;
#[cfg(all(test, loom))]
mod loom;
mod permit;
#[cfg(feature = "redis")]
mod redis_state;
mod shared;
mod snapshot;
#[cfg(all(test, not(loom)))]
mod snapshot_tests;
mod state;
#[cfg(all(test, not(loom)))]
mod tests;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
mod view;
mod window;
mod word;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use atomic::{AtomicU64, Ordering};
pub use builder::CircuitBreakerBuilder;
use builder::Config;
pub use permit::CircuitPermit;
#[cfg(feature = "redis")]
pub use redis_state::RedisBreakerState;
pub use shared::FleetState;
use shared::{Admission, Fleet};
pub use snapshot::{BreakerSnapshot, SnapshotError};
pub use state::CircuitState;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
pub(crate) use view::View;
use window::Window;
use word::{Packed, Streak, Tag, Word};

use crate::error::CircuitOpen;

/// Shared state that rejects calls to a failing dependency.
///
/// Build one with [`CircuitBreaker::builder`] and share it between the
/// operations that call the same dependency, usually through a `static`
/// (with [`LazyLock`](std::sync::LazyLock)) or an [`Arc`].
/// Each call asks [`try_acquire`](CircuitBreaker::try_acquire) for a
/// [`CircuitPermit`], runs, and reports its outcome through the permit.
///
/// ```
/// use resilient::{CircuitBreaker, CircuitState};
/// use std::sync::LazyLock;
/// use std::time::{Duration, Instant};
///
/// static BREAKER: LazyLock<CircuitBreaker> = LazyLock::new(|| {
///     CircuitBreaker::builder()
///         .failure_threshold(2)
///         .break_duration(Duration::from_secs(10))
///         .build()
///         .unwrap()
/// });
///
/// let t0 = Instant::now();
/// for _ in 0..2 {
///     let permit = BREAKER.try_acquire(t0).unwrap();
///     permit.record_failure(t0);
/// }
/// assert!(BREAKER.try_acquire(t0).is_err());
///
/// // After the break, one probe may run; its success closes the breaker.
/// let later = t0 + Duration::from_secs(10);
/// let probe = BREAKER.try_acquire(later).unwrap();
/// assert!(probe.is_probe());
/// probe.record_success(later);
/// assert_eq!(BREAKER.state(later), CircuitState::Closed);
/// ```
pub struct CircuitBreaker {
    config: Config,
    /// State, probes in flight and generation.
    word: Packed<Word>,
    /// When the current open period started (see `nanos`).
    /// Written only by the thread that moved the state to `Opening`, before
    /// it publishes `Open`.
    opened_at: AtomicU64,
    /// How long the current open period lasts, and how many times the
    /// breaker has opened since it last closed; written, like `opened_at`,
    /// only by the thread that moved the state to `Opening` (the count is
    /// cleared by the one that moved it to `Closing`).
    break_nanos: AtomicU64,
    openings: AtomicU64,
    /// When a half-open probe slot was last granted (or about to be; see
    /// `acquire_probe`). Only ever grows.
    granted_at: AtomicU64,
    /// Consecutive failures of the latest closed period.
    streak: Packed<Streak>,
    window: Window,
    /// Where the breaker's own time scale starts; see `nanos`.
    anchor: Instant,
    /// What the breaker publishes; registered when it is built.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    view: Arc<View>,
    /// The fleet this breaker shares its state with, if any.
    fleet: Option<Arc<Fleet>>,
    /// Its entry in the installed configuration (`[breakers.NAME]`), read
    /// on the failure path only.
    #[cfg(feature = "config")]
    configured: crate::config::BreakerCache,
    /// The orders given to it by name (`config::isolate`, `config::reset`).
    #[cfg(feature = "config")]
    orders: crate::config::BreakerOrders,
}

impl CircuitBreaker {
    /// The breaker's name, set with [`CircuitBreakerBuilder::name`].
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    ///
    /// assert_eq!(CircuitBreaker::default().name(), "circuit_breaker");
    /// ```
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Starts configuring a breaker; see [`CircuitBreakerBuilder`].
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use std::time::Duration;
    ///
    /// let breaker = CircuitBreaker::builder()
    ///     .failure_threshold(5)
    ///     .break_duration(Duration::from_secs(30))
    ///     .build()
    ///     .unwrap();
    /// # let _ = breaker;
    /// ```
    pub fn builder() -> CircuitBreakerBuilder {
        CircuitBreakerBuilder::default()
    }

    fn with_config(config: Config, anchor: Instant, fleet: Option<Arc<Fleet>>) -> Self {
        #[cfg(any(feature = "metrics", feature = "dashboard"))]
        let view = View::new(
            config.name.clone(),
            anchor,
            config.built(),
            on_scale(anchor, anchor),
            fleet.as_ref().map(Arc::downgrade),
        );
        #[cfg(feature = "metrics")]
        let view = view.labelled(config.label.clone());
        #[cfg(any(feature = "metrics", feature = "dashboard"))]
        let view = view.publish();
        let break_nanos = AtomicU64::new(config.break_nanos);
        #[cfg(feature = "config")]
        let orders = crate::config::BreakerOrders::new(config.name.clone());
        Self {
            config,
            word: Packed::new(Word::new(Tag::Closed, 0, 0)),
            opened_at: AtomicU64::new(0),
            break_nanos,
            openings: AtomicU64::new(0),
            granted_at: AtomicU64::new(0),
            streak: Packed::new(Streak::new(0)),
            window: Window::new(0, 0),
            anchor,
            #[cfg(any(feature = "metrics", feature = "dashboard"))]
            view,
            fleet,
            #[cfg(feature = "config")]
            configured: crate::config::BreakerCache::new(),
            #[cfg(feature = "config")]
            orders,
        }
    }

    /// The consecutive failures that open it, if it counts them: the
    /// builder's, or the installed configuration's for its name.
    fn failure_threshold(&self) -> Option<u32> {
        let threshold = self.config.failure_threshold?;
        #[cfg(feature = "config")]
        if let (Some(configured), _) = self.configured.read(&self.config.name) {
            return Some(configured);
        }
        Some(threshold)
    }

    /// What the breaker publishes.
    #[cfg(feature = "dashboard")]
    pub(crate) fn view(&self) -> &Arc<View> {
        &self.view
    }

    /// Asks to run a call at `now`.
    ///
    /// Closed: always admitted. Open: rejected until the break duration has
    /// elapsed since the breaker opened; the first call after that turns it
    /// half-open and runs as a probe. Half-open: admitted as a probe while
    /// fewer than `half_open_probes` probes are in flight, rejected otherwise;
    /// once every slot has been taken and no probe was admitted for the
    /// [probe timeout](CircuitBreakerBuilder::probe_timeout), the probes in
    /// flight are given up on and the call runs as a probe of a new half-open
    /// period.
    ///
    /// Report the call's outcome through the returned permit. Dropping the
    /// permit without reporting (the call was cancelled) counts as neither
    /// success nor failure and frees its probe slot.
    ///
    /// A shared (`CircuitBreakerBuilder::shared`, feature `redis`) breaker asks its fleet
    /// too, once the local breaker has admitted the call: while the fleet
    /// holds it open the call is rejected, and in the fleet's half-open
    /// period it runs only as the probe the fleet granted this instance.
    ///
    /// # Errors
    ///
    /// [`CircuitOpen`] when the call must not run.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitOpen};
    /// use std::time::Instant;
    ///
    /// let breaker = CircuitBreaker::builder().failure_threshold(1).build().unwrap();
    /// let now = Instant::now();
    /// breaker.try_acquire(now).unwrap().record_failure(now);
    /// assert_eq!(breaker.try_acquire(now).unwrap_err(), CircuitOpen);
    /// ```
    pub fn try_acquire(&self, now: Instant) -> Result<CircuitPermit<'_>, CircuitOpen> {
        self.obey_orders();
        let word = self.word.load();
        if word.tag == Tag::Closed && !self.fleet.as_ref().is_some_and(|fleet| fleet.holds()) {
            return Ok(CircuitPermit::new(self, word.generation, false));
        }
        self.acquire_slow(word, now)
    }

    /// `try_acquire` when the breaker was not closed at `word`, or its
    /// fleet may hold it open.
    fn acquire_slow(&self, word: Word, now: Instant) -> Result<CircuitPermit<'_>, CircuitOpen> {
        let mut permit = match word.tag {
            Tag::Closed => CircuitPermit::new(self, word.generation, false),
            _ => self.acquire_probe(word, self.nanos(now))?,
        };
        let Some(fleet) = &self.fleet else {
            return Ok(permit);
        };
        match fleet.admit() {
            Admission::Pass => Ok(permit),
            // Dropping the permit frees a local probe slot it took.
            Admission::Reject => Err(CircuitOpen),
            Admission::Probe(tag) => {
                permit.fleet = tag;
                Ok(permit)
            }
        }
    }

    /// `try_acquire` when the breaker was not closed at `word`.
    fn acquire_probe(&self, mut word: Word, now: u64) -> Result<CircuitPermit<'_>, CircuitOpen> {
        if self.probes_lost(word, now) {
            // A new half-open generation with no probe in flight: the silent
            // probes' permits become stale, so their outcomes and drops can't
            // touch the slots handed out from here on.
            let renewed = self.shift(now, |current| {
                (current == word).then(|| word.next(Tag::HalfOpen, 0))
            });
            word = match renewed {
                Ok((_, current)) | Err(current) => current,
            };
        }
        let admit = |word: Word| match word.tag {
            // Closed since it was loaded: admitted without a change.
            Tag::Closed => Some(word),
            Tag::Opening | Tag::Closing | Tag::Isolated => None,
            Tag::Open => self.break_elapsed(now).then(|| word.next(Tag::HalfOpen, 1)),
            Tag::HalfOpen => (word.probes < self.config.half_open_probes)
                .then(|| Word::new(Tag::HalfOpen, word.probes + 1, word.generation)),
        };
        if admit(word).is_none() {
            return Err(CircuitOpen);
        }
        // Written before the swap that takes a slot, so whoever then finds
        // every slot taken reads a time no older than any probe's admission.
        // If the swap is lost, the time is later than the latest admission,
        // which only postpones the slots' expiry, never hastens it.
        self.granted_at.fetch_max(now, Ordering::AcqRel);
        match self.shift(now, admit) {
            Ok((_, word)) => Ok(CircuitPermit::new(
                self,
                word.generation,
                word.tag == Tag::HalfOpen,
            )),
            Err(_) => Err(CircuitOpen),
        }
    }

    /// Whether every probe slot of `word` is taken by probes that have been
    /// silent for the probe timeout: none was admitted for that long.
    fn probes_lost(&self, word: Word, now: u64) -> bool {
        // Every change of the word is a releasing swap and `word` was loaded
        // with acquire, so this load sees the admission time each of its
        // probes wrote before taking its slot.
        word.tag == Tag::HalfOpen
            && word.probes >= self.config.half_open_probes
            && now.saturating_sub(self.granted_at.load(Ordering::Acquire))
                >= self.config.probe_timeout_nanos
    }

    /// Where the breaker stands at `now`, without changing it.
    ///
    /// An open breaker whose break has elapsed reports
    /// [`HalfOpen`](CircuitState::HalfOpen): the next call would run as a probe.
    /// A shared (`CircuitBreakerBuilder::shared`, feature `redis`) breaker that its fleet
    /// holds open or half-open reports the fleet's state; otherwise, as
    /// [`local_state`](Self::local_state), its own.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::{Duration, Instant};
    ///
    /// let breaker = CircuitBreaker::builder()
    ///     .failure_threshold(1)
    ///     .break_duration(Duration::from_secs(1))
    ///     .build()
    ///     .unwrap();
    /// let t0 = Instant::now();
    /// breaker.try_acquire(t0).unwrap().record_failure(t0);
    /// assert_eq!(breaker.state(t0), CircuitState::Open);
    /// assert_eq!(breaker.state(t0 + Duration::from_secs(1)), CircuitState::HalfOpen);
    /// ```
    pub fn state(&self, now: Instant) -> CircuitState {
        as_seen(self.local_state(now), self.fleet_state())
    }

    /// Where this instance's own breaker stands at `now`, whatever its
    /// fleet says: the same as [`state`](Self::state) for a breaker that
    /// is not shared.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::Instant;
    ///
    /// let breaker = CircuitBreaker::builder().failure_threshold(1).build().unwrap();
    /// let now = Instant::now();
    /// breaker.try_acquire(now).unwrap().record_failure(now);
    /// assert_eq!(breaker.local_state(now), CircuitState::Open);
    /// ```
    pub fn local_state(&self, now: Instant) -> CircuitState {
        self.obey_orders();
        match self.word.load().tag {
            Tag::Closed => CircuitState::Closed,
            Tag::Opening => CircuitState::Open,
            Tag::Open if self.break_elapsed(self.nanos(now)) => CircuitState::HalfOpen,
            Tag::Open => CircuitState::Open,
            Tag::HalfOpen | Tag::Closing => CircuitState::HalfOpen,
            Tag::Isolated => CircuitState::Isolated,
        }
    }

    /// Holds the breaker open until [`reset`](Self::reset): every call is
    /// rejected with [`CircuitOpen`], no probe runs however long it stays,
    /// and [`state`](Self::state) reports [`CircuitState::Isolated`].
    ///
    /// For an operator who knows a dependency is down (or must not be
    /// called, during a migration) before the breaker has counted enough
    /// failures to open. Calls already admitted run on; their outcomes no
    /// longer count. Isolating an isolated breaker changes nothing.
    ///
    /// A shared (`CircuitBreakerBuilder::shared`, feature `redis`) breaker is isolated on
    /// this instance only: the fleet's verdict never lifts it, and since an
    /// isolated instance runs no call, it reports neither failures nor
    /// successes to the fleet. Isolate every instance (through each one's
    /// control panel) to stop a whole fleet.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitOpen, CircuitState};
    /// use std::time::{Duration, Instant};
    ///
    /// let breaker = CircuitBreaker::default();
    /// let now = Instant::now();
    /// breaker.isolate();
    /// assert_eq!(breaker.state(now), CircuitState::Isolated);
    /// let much_later = now + Duration::from_secs(3600);
    /// assert_eq!(breaker.try_acquire(much_later).unwrap_err(), CircuitOpen);
    ///
    /// breaker.reset();
    /// assert_eq!(breaker.state(much_later), CircuitState::Closed);
    /// ```
    pub fn isolate(&self) {
        let now = self.nanos(Instant::now());
        self.settle_then(now, |word| match word.tag {
            Tag::Isolated => Some(word),
            _ => Some(word.next(Tag::Isolated, 0)),
        });
    }

    /// Obeys an order given by its name since it last looked
    /// (`config::isolate`, `config::reset`); nothing without `config`.
    #[inline(always)]
    fn obey_orders(&self) {
        #[cfg(feature = "config")]
        self.orders.obey(|isolate| {
            if isolate {
                self.isolate();
            } else {
                self.reset();
            }
        });
    }

    /// Closes the breaker, whatever its state, with fresh counts: no
    /// consecutive failure, an empty sampling window. Lifts an
    /// [isolation](Self::isolate); closes an open or half-open breaker
    /// without waiting for a probe. Calls admitted before the reset no
    /// longer count.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::Instant;
    ///
    /// let breaker = CircuitBreaker::builder().failure_threshold(2).build().unwrap();
    /// let now = Instant::now();
    /// breaker.try_acquire(now).unwrap().record_failure(now);
    /// breaker.reset();
    /// // The failure before the reset is forgotten: one more doesn't open it.
    /// breaker.try_acquire(now).unwrap().record_failure(now);
    /// assert_eq!(breaker.state(now), CircuitState::Closed);
    /// ```
    pub fn reset(&self) {
        let now = self.nanos(Instant::now());
        let Some(held) = self.settle_then(now, |word| Some(word.next(Tag::Closing, 0))) else {
            return;
        };
        self.begin_closed(held.generation, now);
        // Nothing else changes a word in `Closing`, so this finds `held`.
        let _ = self.shift(now, |word| {
            (word == held).then(|| Word::new(Tag::Closed, 0, held.generation))
        });
    }

    /// Changes the state word by `step` once it is settled: a word on its
    /// way to `Open` or `Closed` belongs to the thread that moved it there
    /// until that thread publishes the new state, so an operator's change
    /// waits that moment out rather than racing the counts it writes.
    /// Returns the new word.
    fn settle_then(&self, now: u64, step: impl Fn(Word) -> Option<Word>) -> Option<Word> {
        loop {
            match self.shift(now, |word| match word.tag {
                Tag::Opening | Tag::Closing => None,
                _ => step(word),
            }) {
                Ok((_, new)) => return Some(new),
                Err(word) if matches!(word.tag, Tag::Opening | Tag::Closing) => {
                    atomic::yield_now();
                }
                Err(_) => return None,
            }
        }
    }

    /// What a shared (`CircuitBreakerBuilder::shared`, feature `redis`) breaker knows of its
    /// fleet; `None` for a breaker that is not shared.
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    ///
    /// assert_eq!(CircuitBreaker::default().fleet_state(), None);
    /// ```
    pub fn fleet_state(&self) -> Option<FleetState> {
        self.fleet.as_ref().map(|fleet| fleet.state())
    }

    fn break_elapsed(&self, now: u64) -> bool {
        // Acquire on the word that said `Open` makes this value visible.
        let opened_at = self.opened_at.load(Ordering::Relaxed);
        now >= opened_at.saturating_add(self.break_nanos.load(Ordering::Relaxed))
    }

    /// Starts an open period at `now`; run by the thread that holds `Opening`.
    fn begin_break(&self, now: u64) {
        if let Some(break_of) = self.config.break_growth {
            let n = self.openings.load(Ordering::Relaxed).saturating_add(1);
            self.openings.store(n, Ordering::Relaxed);
            let grown = saturating_nanos(break_of(u32::try_from(n).unwrap_or(u32::MAX)));
            let capped = grown.clamp(1, self.config.max_break_nanos.max(1));
            self.break_nanos.store(capped, Ordering::Relaxed);
        } else {
            // The installed configuration's break for its name, from this
            // open period on; the builder's again once it is cleared.
            #[cfg(feature = "config")]
            self.break_nanos.store(
                self.configured
                    .read(&self.config.name)
                    .1
                    .unwrap_or(self.config.break_nanos),
                Ordering::Relaxed,
            );
        }
        #[cfg(any(feature = "metrics", feature = "dashboard"))]
        self.view
            .set_break(self.break_nanos.load(Ordering::Relaxed));
        self.opened_at.store(now, Ordering::Relaxed);
    }

    /// Clears the closed period's counts for `generation`; run by the
    /// thread that holds `Closing`.
    fn begin_closed(&self, generation: u32, now: u64) {
        self.openings.store(0, Ordering::Relaxed);
        self.streak.replace(Streak::new(generation));
        self.window.reset(generation, now);
    }

    /// `now` on the breaker's time scale: nanoseconds from the instant it
    /// was built, shifted by 2⁶³ so that earlier instants (a virtual clock
    /// may well have started before the breaker) keep their order too.
    /// About 292 years either way; saturates beyond.
    fn nanos(&self, now: Instant) -> u64 {
        on_scale(self.anchor, now)
    }

    fn on_success(&self, generation: u32, probe: bool, now: Instant) {
        if let Some(fleet) = &self.fleet {
            fleet.count(false);
        }
        let now = self.nanos(now);
        if probe {
            self.switch(now, Tag::HalfOpen, generation, Tag::Closed, |closed| {
                self.begin_closed(closed, now);
            });
            return;
        }
        if self.config.failure_threshold.is_some() {
            // Unchanged (no write) when the count is already zero.
            let _ = self.streak.transition(|streak| {
                (streak.generation == generation).then(|| Streak::new(generation))
            });
        }
        if let Some(ratio) = &self.config.ratio {
            self.window.record(ratio, generation, now, false);
        }
    }

    fn on_failure(&self, generation: u32, probe: bool, now: Instant) {
        if let Some(fleet) = &self.fleet {
            fleet.count(true);
        }
        let now = self.nanos(now);
        let open = |_| self.begin_break(now);
        if probe {
            self.switch(now, Tag::HalfOpen, generation, Tag::Open, open);
            return;
        }
        let mut trip = false;
        if let Some(threshold) = self.failure_threshold() {
            let counted = self
                .streak
                .transition(|streak| (streak.generation == generation).then(|| streak.bump()));
            trip |= counted.is_ok_and(|(_, streak)| streak.failures >= threshold);
        }
        if let Some(ratio) = &self.config.ratio {
            trip |= self.window.record(ratio, generation, now, true);
        }
        if trip {
            // Does nothing if another failure already opened it.
            self.switch(now, Tag::Closed, generation, Tag::Open, open);
        }
    }

    fn release_probe(&self, generation: u32) {
        // Never changes the state, so the time it would be reported at
        // doesn't matter.
        let _ = self.shift(0, |word| {
            word.is(Tag::HalfOpen, generation)
                .then(|| Word::new(Tag::HalfOpen, word.probes.saturating_sub(1), generation))
        });
    }

    /// Moves the breaker, if it is still `from` in `generation`, to `to`
    /// (`Open` or `Closed`) in the next generation, at `now`.
    ///
    /// The move goes through `Opening` or `Closing`, which readers take as
    /// "not yet", while `prepare` writes what the new state reads (the
    /// break's start, or the fresh counts of a closed period; it is given
    /// the new generation). Only the thread that swapped in the
    /// intermediate word runs `prepare`, so it needs no compare-and-swap.
    fn switch(&self, now: u64, from: Tag, generation: u32, to: Tag, prepare: impl FnOnce(u32)) {
        let via = match to {
            Tag::Open => Tag::Opening,
            _ => Tag::Closing,
        };
        let Ok((_, held)) = self.shift(now, |word| {
            word.is(from, generation).then(|| word.next(via, 0))
        }) else {
            return;
        };
        prepare(held.generation);
        // Nothing else changes a word in `via`, so this finds `held`.
        let _ = self.shift(now, |word| {
            (word == held).then(|| Word::new(to, 0, held.generation))
        });
    }

    /// Changes the state word by `step` (see [`Packed::transition`]) at
    /// `now`. Every change of the state goes through here, so that each
    /// transition is reported exactly once, by the thread that made it.
    fn shift(&self, now: u64, step: impl Fn(Word) -> Option<Word>) -> Result<(Word, Word), Word> {
        let shifted = self.word.transition(step);
        if let Ok((old, new)) = shifted
            && old.tag != new.tag
            && let Some(state) = new.settled()
        {
            self.entered(state, new.generation, now);
        }
        shifted
    }

    /// Reports that the breaker has just entered `state`, in `generation`,
    /// at `now`.
    #[cfg_attr(
        not(any(feature = "metrics", feature = "dashboard")),
        allow(unused_variables)
    )]
    fn entered(&self, state: CircuitState, generation: u32, now: u64) {
        #[cfg(any(feature = "metrics", feature = "dashboard"))]
        self.view.entered(generation, state, now);
        #[cfg(feature = "metrics")]
        self.view.gauge(state);
    }

    #[cfg(test)]
    fn probes_in_flight(&self) -> u32 {
        self.word.load().probes
    }
}

impl Default for CircuitBreaker {
    /// A breaker with the builder's defaults: opens after 5 consecutive
    /// failures, for 30 s, then admits 1 probe at a time.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::Instant;
    ///
    /// let breaker = CircuitBreaker::default();
    /// assert_eq!(breaker.state(Instant::now()), CircuitState::Closed);
    /// ```
    fn default() -> Self {
        Self::with_config(Config::default(), Instant::now(), None)
    }
}

impl fmt::Debug for CircuitBreaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = self.word.load();
        let mut s = f.debug_struct("CircuitBreaker");
        s.field("name", &self.config.name).field("state", &word.tag);
        if word.tag == Tag::HalfOpen {
            s.field("probes_in_flight", &word.probes);
        }
        if let Some(threshold) = self.config.failure_threshold {
            s.field("failure_threshold", &threshold);
        }
        if let Some(ratio) = &self.config.ratio {
            s.field("failure_ratio", &ratio.failure_ratio)
                .field("minimum_throughput", &ratio.minimum_throughput)
                .field("sampling_window", &Duration::from_nanos(ratio.window_nanos));
        }
        s.field(
            "break_duration",
            &Duration::from_nanos(self.config.break_nanos),
        )
        .field("half_open_probes", &self.config.half_open_probes)
        .field(
            "probe_timeout",
            &Duration::from_nanos(self.config.probe_timeout_nanos),
        );
        if let Some(fleet) = &self.fleet {
            s.field("fleet", &fleet.state());
        }
        s.finish()
    }
}

/// `now` on the time scale that starts at `anchor`; see
/// `CircuitBreaker::nanos`.
fn on_scale(anchor: Instant, now: Instant) -> u64 {
    const ANCHOR: u64 = 1 << 63;
    let after = saturating_nanos(now.saturating_duration_since(anchor));
    let before = saturating_nanos(anchor.saturating_duration_since(now));
    ANCHOR.saturating_add(after).saturating_sub(before)
}

/// A breaker's state as its calls see it: its own `local` one, or the
/// open or half-open state its `fleet` holds it in.
pub(crate) fn as_seen(local: CircuitState, fleet: Option<FleetState>) -> CircuitState {
    match fleet {
        // Isolation is this instance's own decision; the fleet can't lift it.
        _ if local == CircuitState::Isolated => local,
        Some(FleetState::Joined(state @ (CircuitState::Open | CircuitState::HalfOpen))) => state,
        _ => local,
    }
}

fn saturating_nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}
