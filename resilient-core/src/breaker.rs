//! [`CircuitBreaker`]: shared state that stops calling a dependency that keeps
//! failing, and lets a few trial calls through once it may have recovered.
//!
//! The breaker is closed until enough failures are recorded, then open: it
//! rejects every call for the break duration. After that it is half-open: a
//! limited number of probes run, and the first probe to report decides — a
//! success closes the breaker, a failure opens it for another break.
//!
//! Time comes from the caller as an [`Instant`], so a breaker follows whatever
//! clock the operation consulting it uses, virtual clocks included.
//!
//! # Concurrency
//!
//! All state lives in atomics. The closed path costs one atomic load to admit
//! a call and a few uncontended atomic updates to record its outcome; no lock
//! is ever taken. Every state change is a single compare-and-swap on one word
//! holding the state, the number of probes in flight and a generation that
//! changes on every transition. A [`CircuitPermit`] remembers the generation
//! it was issued in, and its outcome only counts if the breaker is still in
//! that generation: a call admitted before the breaker opened cannot close it
//! later, and a probe that outlives its half-open period cannot free a slot
//! of the next one.

use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::error::{CircuitOpen, ConfigError};

/// Where a [`CircuitBreaker`] stands.
///
/// ```
/// use resilient::{CircuitBreaker, CircuitState};
/// use std::time::Instant;
///
/// let breaker = CircuitBreaker::builder().build().unwrap();
/// assert_eq!(breaker.state(Instant::now()), CircuitState::Closed);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CircuitState {
    /// Calls run; failures are counted.
    Closed,
    /// Calls are rejected until the break duration has elapsed.
    Open,
    /// A limited number of probe calls run; the first to report decides
    /// whether the breaker closes or opens again.
    HalfOpen,
}

/// Shared state that rejects calls to a failing dependency.
///
/// Build one with [`CircuitBreaker::builder`] and share it between the
/// operations that call the same dependency, usually through a `static`
/// (with [`LazyLock`](std::sync::LazyLock)) or an [`Arc`](std::sync::Arc).
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
    /// State, probes in flight and generation; see [`Word`].
    word: AtomicU64,
    /// When the current open period started (nanoseconds since `base`).
    /// Written only by the thread that moved the state to `OPENING`, before
    /// it publishes `OPEN`.
    opened_at: AtomicU64,
    /// Consecutive failures recorded while closed.
    consecutive_failures: AtomicU32,
    /// Calls (high half) and failures (low half) of the current sampling
    /// window, packed so that a ratio is always computed from one snapshot.
    window: AtomicU64,
    /// When the current sampling window started (nanoseconds since `base`).
    window_start: AtomicU64,
    /// The first instant the breaker was given; times are stored relative to it.
    base: OnceLock<Instant>,
}

#[derive(Debug, Clone, Copy)]
struct Config {
    failure_threshold: Option<u32>,
    ratio: Option<RatioConfig>,
    break_nanos: u64,
    half_open_probes: u32,
}

#[derive(Debug, Clone, Copy)]
struct RatioConfig {
    failure_ratio: f64,
    minimum_throughput: u32,
    window_nanos: u64,
}

/// Builder of a [`CircuitBreaker`]; validates everything once, in
/// [`build`](CircuitBreakerBuilder::build).
///
/// Defaults: opens after 5 consecutive failures, stays open 30 s, then
/// admits 1 probe at a time. No failure-ratio rule unless
/// [`failure_ratio`](CircuitBreakerBuilder::failure_ratio) is set.
///
/// ```
/// use resilient::CircuitBreaker;
/// use std::time::Duration;
///
/// let breaker = CircuitBreaker::builder()
///     .failure_threshold(3)
///     .break_duration(Duration::from_secs(5))
///     .half_open_probes(2)
///     .build()
///     .unwrap();
/// # let _ = breaker;
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct CircuitBreakerBuilder {
    failure_threshold: Option<u32>,
    failure_ratio: Option<f64>,
    minimum_throughput: u32,
    sampling_window: Duration,
    break_duration: Duration,
    half_open_probes: u32,
}

const DEFAULT_FAILURE_THRESHOLD: u32 = 5;
const DEFAULT_MINIMUM_THROUGHPUT: u32 = 10;
const DEFAULT_SAMPLING_WINDOW: Duration = Duration::from_secs(30);
const DEFAULT_BREAK_DURATION: Duration = Duration::from_secs(30);
const DEFAULT_HALF_OPEN_PROBES: u32 = 1;

impl Default for CircuitBreakerBuilder {
    fn default() -> Self {
        Self {
            failure_threshold: None,
            failure_ratio: None,
            minimum_throughput: DEFAULT_MINIMUM_THROUGHPUT,
            sampling_window: DEFAULT_SAMPLING_WINDOW,
            break_duration: DEFAULT_BREAK_DURATION,
            half_open_probes: DEFAULT_HALF_OPEN_PROBES,
        }
    }
}

impl CircuitBreakerBuilder {
    /// Opens the breaker after this many consecutive failures (default 5).
    ///
    /// A success resets the count. When a
    /// [`failure_ratio`](Self::failure_ratio) is set, this rule applies only
    /// if it is set explicitly too; then either rule opens the breaker.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, ConfigError};
    ///
    /// assert!(CircuitBreaker::builder().failure_threshold(1).build().is_ok());
    /// assert_eq!(
    ///     CircuitBreaker::builder().failure_threshold(0).build().unwrap_err(),
    ///     ConfigError::ZeroFailureThreshold,
    /// );
    /// ```
    pub fn failure_threshold(mut self, failures: u32) -> Self {
        self.failure_threshold = Some(failures);
        self
    }

    /// Opens the breaker when, within one sampling window, at least
    /// [`minimum_throughput`](Self::minimum_throughput) calls were recorded
    /// and `failures / calls >= ratio`. Must be within `(0.0, 1.0]`.
    ///
    /// Windows are fixed: a window starts with the first outcome recorded
    /// after the previous one ended (or after the breaker closed) and lasts
    /// [`sampling_window`](Self::sampling_window). Only a failure is checked
    /// against the ratio; a success never opens the breaker.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, ConfigError};
    /// use std::time::Duration;
    ///
    /// let breaker = CircuitBreaker::builder()
    ///     .failure_ratio(0.5)
    ///     .minimum_throughput(20)
    ///     .sampling_window(Duration::from_secs(60))
    ///     .build();
    /// assert!(breaker.is_ok());
    /// assert_eq!(
    ///     CircuitBreaker::builder().failure_ratio(1.5).build().unwrap_err(),
    ///     ConfigError::InvalidFailureRatio(1.5),
    /// );
    /// ```
    pub fn failure_ratio(mut self, ratio: f64) -> Self {
        self.failure_ratio = Some(ratio);
        self
    }

    /// Calls a sampling window needs before the failure ratio is checked
    /// (default 10; 0 behaves like 1). Has no effect without
    /// [`failure_ratio`](Self::failure_ratio).
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    ///
    /// let breaker = CircuitBreaker::builder()
    ///     .failure_ratio(0.25)
    ///     .minimum_throughput(100)
    ///     .build();
    /// assert!(breaker.is_ok());
    /// ```
    pub fn minimum_throughput(mut self, calls: u32) -> Self {
        self.minimum_throughput = calls;
        self
    }

    /// Length of a sampling window of the failure-ratio rule (default 30 s;
    /// must not be zero). Has no effect without
    /// [`failure_ratio`](Self::failure_ratio).
    ///
    /// ```
    /// use resilient::{CircuitBreaker, ConfigError};
    /// use std::time::Duration;
    ///
    /// assert_eq!(
    ///     CircuitBreaker::builder().sampling_window(Duration::ZERO).build().unwrap_err(),
    ///     ConfigError::ZeroDuration("sampling_window"),
    /// );
    /// ```
    pub fn sampling_window(mut self, window: Duration) -> Self {
        self.sampling_window = window;
        self
    }

    /// How long the breaker stays open before admitting probes (default
    /// 30 s; must not be zero). Durations beyond about 584 years behave like
    /// "forever".
    ///
    /// ```
    /// use resilient::{CircuitBreaker, ConfigError};
    /// use std::time::Duration;
    ///
    /// assert!(CircuitBreaker::builder().break_duration(Duration::MAX).build().is_ok());
    /// assert_eq!(
    ///     CircuitBreaker::builder().break_duration(Duration::ZERO).build().unwrap_err(),
    ///     ConfigError::ZeroDuration("break_duration"),
    /// );
    /// ```
    pub fn break_duration(mut self, duration: Duration) -> Self {
        self.break_duration = duration;
        self
    }

    /// How many probes may run at once while half-open (default 1; must not
    /// be zero). Values above 2³⁰ − 1 behave like 2³⁰ − 1.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, ConfigError};
    ///
    /// assert!(CircuitBreaker::builder().half_open_probes(3).build().is_ok());
    /// assert_eq!(
    ///     CircuitBreaker::builder().half_open_probes(0).build().unwrap_err(),
    ///     ConfigError::ZeroHalfOpenProbes,
    /// );
    /// ```
    pub fn half_open_probes(mut self, probes: u32) -> Self {
        self.half_open_probes = probes;
        self
    }

    /// Validates the configuration and makes a closed breaker.
    ///
    /// # Errors
    ///
    /// [`ConfigError::ZeroFailureThreshold`], [`ConfigError::InvalidFailureRatio`]
    /// (NaN, not above 0 or above 1), [`ConfigError::ZeroHalfOpenProbes`], or
    /// [`ConfigError::ZeroDuration`] naming `break_duration` or
    /// `sampling_window`.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, ConfigError};
    ///
    /// let err = CircuitBreaker::builder().failure_ratio(f64::NAN).build().unwrap_err();
    /// assert!(matches!(err, ConfigError::InvalidFailureRatio(r) if r.is_nan()));
    /// ```
    pub fn build(self) -> Result<CircuitBreaker, ConfigError> {
        if self.failure_threshold == Some(0) {
            return Err(ConfigError::ZeroFailureThreshold);
        }
        if let Some(ratio) = self.failure_ratio {
            // Written so that NaN fails the check.
            if !(ratio > 0.0 && ratio <= 1.0) {
                return Err(ConfigError::InvalidFailureRatio(ratio));
            }
        }
        if self.half_open_probes == 0 {
            return Err(ConfigError::ZeroHalfOpenProbes);
        }
        if self.break_duration.is_zero() {
            return Err(ConfigError::ZeroDuration("break_duration"));
        }
        if self.sampling_window.is_zero() {
            return Err(ConfigError::ZeroDuration("sampling_window"));
        }
        let ratio = self.failure_ratio.map(|failure_ratio| RatioConfig {
            failure_ratio,
            minimum_throughput: self.minimum_throughput.max(1),
            window_nanos: saturating_nanos(self.sampling_window),
        });
        let failure_threshold = match (self.failure_threshold, ratio) {
            (Some(threshold), _) => Some(threshold),
            (None, None) => Some(DEFAULT_FAILURE_THRESHOLD),
            (None, Some(_)) => None,
        };
        Ok(CircuitBreaker::with_config(Config {
            failure_threshold,
            ratio,
            break_nanos: saturating_nanos(self.break_duration),
            half_open_probes: self.half_open_probes.min(MAX_PROBES),
        }))
    }
}

impl CircuitBreaker {
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

    fn with_config(config: Config) -> Self {
        Self {
            config,
            word: AtomicU64::new(Word::new(Tag::Closed, 0, 0).pack()),
            opened_at: AtomicU64::new(0),
            consecutive_failures: AtomicU32::new(0),
            window: AtomicU64::new(0),
            window_start: AtomicU64::new(0),
            base: OnceLock::new(),
        }
    }

    /// Asks to run a call at `now`.
    ///
    /// Closed: always admitted. Open: rejected until the break duration has
    /// elapsed since the breaker opened; the first call after that turns it
    /// half-open and runs as a probe. Half-open: admitted as a probe while
    /// fewer than `half_open_probes` probes are in flight, rejected otherwise.
    ///
    /// Report the call's outcome through the returned permit. Dropping the
    /// permit without reporting (the call was cancelled) counts as neither
    /// success nor failure and frees its probe slot.
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
        let mut current = self.word.load(Ordering::Acquire);
        loop {
            let word = Word::unpack(current);
            let next = match word.tag {
                Tag::Closed => return Ok(CircuitPermit::new(self, word.generation, false)),
                Tag::Opening => return Err(CircuitOpen),
                Tag::Open => {
                    if !self.break_elapsed(now) {
                        return Err(CircuitOpen);
                    }
                    Word::new(Tag::HalfOpen, 1, word.generation.wrapping_add(1))
                }
                Tag::HalfOpen => {
                    if word.probes >= self.config.half_open_probes {
                        return Err(CircuitOpen);
                    }
                    Word::new(Tag::HalfOpen, word.probes + 1, word.generation)
                }
            };
            match self.word.compare_exchange_weak(
                current,
                next.pack(),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok(CircuitPermit::new(self, next.generation, true)),
                Err(actual) => current = actual,
            }
        }
    }

    /// Where the breaker stands at `now`, without changing it.
    ///
    /// An open breaker whose break has elapsed reports
    /// [`HalfOpen`](CircuitState::HalfOpen): the next call would run as a probe.
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
        match Word::unpack(self.word.load(Ordering::Acquire)).tag {
            Tag::Closed => CircuitState::Closed,
            Tag::Opening => CircuitState::Open,
            Tag::Open if self.break_elapsed(now) => CircuitState::HalfOpen,
            Tag::Open => CircuitState::Open,
            Tag::HalfOpen => CircuitState::HalfOpen,
        }
    }

    fn break_elapsed(&self, now: Instant) -> bool {
        // Acquire on the word that said OPEN makes this value visible.
        let opened_at = self.opened_at.load(Ordering::Relaxed);
        self.nanos(now) >= opened_at.saturating_add(self.config.break_nanos)
    }

    /// `now` as nanoseconds since the first instant the breaker was given,
    /// saturating at both ends.
    fn nanos(&self, now: Instant) -> u64 {
        let base = *self.base.get_or_init(|| now);
        saturating_nanos(now.saturating_duration_since(base))
    }

    fn on_success(&self, generation: u32, probe: bool, now: Instant) {
        if probe {
            self.close_after_probe(generation, now);
            return;
        }
        if !self.is_current_closed(generation) {
            return;
        }
        if self.config.failure_threshold.is_some()
            && self.consecutive_failures.load(Ordering::Relaxed) != 0
        {
            self.consecutive_failures.store(0, Ordering::Relaxed);
        }
        if let Some(ratio) = self.config.ratio {
            self.record_in_window(&ratio, self.nanos(now), false);
        }
    }

    fn on_failure(&self, generation: u32, probe: bool, now: Instant) {
        if probe {
            self.reopen_after_probe(generation, now);
            return;
        }
        if !self.is_current_closed(generation) {
            return;
        }
        let mut trip = false;
        if let Some(threshold) = self.config.failure_threshold {
            let previous = self
                .consecutive_failures
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                    Some(n.saturating_add(1))
                })
                .unwrap_or_else(|n| n);
            trip |= previous.saturating_add(1) >= threshold;
        }
        let now = self.nanos(now);
        if let Some(ratio) = self.config.ratio {
            trip |= self.record_in_window(&ratio, now, true);
        }
        if trip {
            let closed = Word::new(Tag::Closed, 0, generation).pack();
            // Losing the race means another failure already opened it.
            let _ = self.open_from(closed, generation, now);
        }
    }

    fn is_current_closed(&self, generation: u32) -> bool {
        let word = Word::unpack(self.word.load(Ordering::Acquire));
        word.tag == Tag::Closed && word.generation == generation
    }

    /// Counts one outcome in the current sampling window, starting a new
    /// window first if the current one has ended; says whether the window
    /// now breaches the failure ratio.
    fn record_in_window(&self, ratio: &RatioConfig, now: u64, failed: bool) -> bool {
        let start = self.window_start.load(Ordering::Relaxed);
        if now.saturating_sub(start) >= ratio.window_nanos
            && self
                .window_start
                .compare_exchange(start, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            // An outcome counted by another thread between the swap above and
            // this store is discarded with the old window, as if it had been
            // recorded just before the window ended.
            self.window.store(0, Ordering::Relaxed);
        }
        let bump = |packed: u64| {
            let (calls, failures) = unpack_window(packed);
            pack_window(
                calls.saturating_add(1),
                failures.saturating_add(u32::from(failed)),
            )
        };
        let previous = self
            .window
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| Some(bump(w)))
            .unwrap_or_else(|w| w);
        let (calls, failures) = unpack_window(bump(previous));
        failed
            && calls >= ratio.minimum_throughput
            && f64::from(failures) >= ratio.failure_ratio * f64::from(calls)
    }

    fn close_after_probe(&self, generation: u32, now: Instant) {
        let now = self.nanos(now);
        let mut current = self.word.load(Ordering::Acquire);
        loop {
            let word = Word::unpack(current);
            if word.tag != Tag::HalfOpen || word.generation != generation {
                return;
            }
            // Nothing else writes the counters while half-open (records of
            // older generations are ignored), so they can be reset before
            // the swap that makes them live again.
            self.consecutive_failures.store(0, Ordering::Relaxed);
            self.window_start.store(now, Ordering::Relaxed);
            self.window.store(0, Ordering::Relaxed);
            let closed = Word::new(Tag::Closed, 0, generation.wrapping_add(1));
            match self.word.compare_exchange_weak(
                current,
                closed.pack(),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => current = actual,
            }
        }
    }

    fn reopen_after_probe(&self, generation: u32, now: Instant) {
        let now = self.nanos(now);
        let mut current = self.word.load(Ordering::Acquire);
        loop {
            let word = Word::unpack(current);
            if word.tag != Tag::HalfOpen || word.generation != generation {
                return;
            }
            match self.open_from(current, generation, now) {
                Ok(()) => return,
                Err(actual) => current = actual,
            }
        }
    }

    fn release_probe(&self, generation: u32) {
        let mut current = self.word.load(Ordering::Acquire);
        loop {
            let word = Word::unpack(current);
            if word.tag != Tag::HalfOpen || word.generation != generation {
                return;
            }
            let released = Word::new(Tag::HalfOpen, word.probes.saturating_sub(1), generation);
            match self.word.compare_exchange_weak(
                current,
                released.pack(),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return,
                Err(actual) => current = actual,
            }
        }
    }

    /// Opens the breaker if its word is still `expected`, starting the break
    /// at `now`. Readers see `OPENING` (and reject) until `opened_at` holds
    /// the new value.
    fn open_from(&self, expected: u64, generation: u32, now: u64) -> Result<(), u64> {
        let next = generation.wrapping_add(1);
        self.word.compare_exchange(
            expected,
            Word::new(Tag::Opening, 0, next).pack(),
            Ordering::AcqRel,
            Ordering::Acquire,
        )?;
        self.opened_at.store(now, Ordering::Relaxed);
        self.word
            .store(Word::new(Tag::Open, 0, next).pack(), Ordering::Release);
        Ok(())
    }

    #[cfg(test)]
    fn probes_in_flight(&self) -> u32 {
        Word::unpack(self.word.load(Ordering::Acquire)).probes
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
        Self::with_config(Config {
            failure_threshold: Some(DEFAULT_FAILURE_THRESHOLD),
            ratio: None,
            break_nanos: saturating_nanos(DEFAULT_BREAK_DURATION),
            half_open_probes: DEFAULT_HALF_OPEN_PROBES,
        })
    }
}

impl fmt::Debug for CircuitBreaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = Word::unpack(self.word.load(Ordering::Acquire));
        let mut s = f.debug_struct("CircuitBreaker");
        s.field("state", &word.tag);
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
        .finish()
    }
}

/// Leave to run one call, from [`CircuitBreaker::try_acquire`].
///
/// Hold it while the call runs, then report the outcome with
/// [`record_success`](CircuitPermit::record_success) or
/// [`record_failure`](CircuitPermit::record_failure). Dropping it unreported
/// (the call was cancelled) counts as neither and frees its probe slot.
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
///
/// let t1 = t0 + Duration::from_secs(1);
/// let probe = breaker.try_acquire(t1).unwrap();
/// assert!(breaker.try_acquire(t1).is_err()); // one probe at a time
/// drop(probe); // cancelled: the slot is free again
/// assert!(breaker.try_acquire(t1).is_ok());
/// ```
#[must_use = "report the call's outcome through the permit; dropping it counts as neither"]
pub struct CircuitPermit<'a> {
    breaker: &'a CircuitBreaker,
    generation: u32,
    probe: bool,
    reported: bool,
}

impl<'a> CircuitPermit<'a> {
    fn new(breaker: &'a CircuitBreaker, generation: u32, probe: bool) -> Self {
        Self {
            breaker,
            generation,
            probe,
            reported: false,
        }
    }

    /// Whether the call runs as a half-open probe, whose outcome decides
    /// whether the breaker closes.
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use std::time::Instant;
    ///
    /// let breaker = CircuitBreaker::default();
    /// assert!(!breaker.try_acquire(Instant::now()).unwrap().is_probe());
    /// ```
    pub fn is_probe(&self) -> bool {
        self.probe
    }

    /// Reports that the call succeeded at `now`.
    ///
    /// Closed: resets the consecutive-failure count. A probe: closes the
    /// breaker with fresh counts. Ignored if the breaker has changed state
    /// since the permit was issued.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::Instant;
    ///
    /// let breaker = CircuitBreaker::default();
    /// let now = Instant::now();
    /// breaker.try_acquire(now).unwrap().record_success(now);
    /// assert_eq!(breaker.state(now), CircuitState::Closed);
    /// ```
    pub fn record_success(mut self, now: Instant) {
        self.reported = true;
        self.breaker.on_success(self.generation, self.probe, now);
    }

    /// Reports that the call failed at `now`.
    ///
    /// Closed: counts towards the failure threshold and ratio, opening the
    /// breaker when one is reached. A probe: opens the breaker again, for a
    /// new break starting at `now`. Ignored if the breaker has changed state
    /// since the permit was issued.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::Instant;
    ///
    /// let breaker = CircuitBreaker::builder().failure_threshold(1).build().unwrap();
    /// let now = Instant::now();
    /// breaker.try_acquire(now).unwrap().record_failure(now);
    /// assert_eq!(breaker.state(now), CircuitState::Open);
    /// ```
    pub fn record_failure(mut self, now: Instant) {
        self.reported = true;
        self.breaker.on_failure(self.generation, self.probe, now);
    }
}

impl Drop for CircuitPermit<'_> {
    fn drop(&mut self) {
        if self.probe && !self.reported {
            self.breaker.release_probe(self.generation);
        }
    }
}

impl fmt::Debug for CircuitPermit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CircuitPermit")
            .field("probe", &self.probe)
            .finish_non_exhaustive()
    }
}

/// Largest number of probes the state word can count.
const MAX_PROBES: u32 = (1 << 30) - 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Closed = 0,
    /// Open, but `opened_at` is still being written: reject, like `Open`
    /// before its break has elapsed.
    Opening = 1,
    Open = 2,
    HalfOpen = 3,
}

/// The breaker's state word: `generation (32) | probes in flight (30) | tag (2)`.
///
/// The generation changes on every transition, so a permit can tell whether
/// the state it was issued in is still current.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Word {
    tag: Tag,
    probes: u32,
    generation: u32,
}

impl Word {
    fn new(tag: Tag, probes: u32, generation: u32) -> Self {
        Self {
            tag,
            probes,
            generation,
        }
    }

    fn pack(self) -> u64 {
        (u64::from(self.generation) << 32)
            | (u64::from(self.probes & MAX_PROBES) << 2)
            | self.tag as u64
    }

    fn unpack(packed: u64) -> Self {
        let tag = match packed & 0b11 {
            0 => Tag::Closed,
            1 => Tag::Opening,
            2 => Tag::Open,
            _ => Tag::HalfOpen,
        };
        Self {
            tag,
            probes: ((packed >> 2) as u32) & MAX_PROBES,
            generation: (packed >> 32) as u32,
        }
    }
}

fn pack_window(calls: u32, failures: u32) -> u64 {
    (u64::from(calls) << 32) | u64::from(failures)
}

fn unpack_window(packed: u64) -> (u32, u32) {
    ((packed >> 32) as u32, packed as u32)
}

fn saturating_nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    fn breaker(threshold: u32, break_secs: u64) -> CircuitBreaker {
        CircuitBreaker::builder()
            .failure_threshold(threshold)
            .break_duration(secs(break_secs))
            .build()
            .unwrap()
    }

    fn fail(breaker: &CircuitBreaker, now: Instant) {
        breaker.try_acquire(now).unwrap().record_failure(now);
    }

    fn succeed(breaker: &CircuitBreaker, now: Instant) {
        breaker.try_acquire(now).unwrap().record_success(now);
    }

    /// Opens `breaker` (threshold 1) at `now`.
    fn open_at(breaker: &CircuitBreaker, now: Instant) {
        fail(breaker, now);
        assert_eq!(breaker.state(now), CircuitState::Open);
    }

    #[test]
    fn breaker_and_permit_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<CircuitBreaker>();
        assert_send_sync::<CircuitPermit<'static>>();
        assert_send_sync::<CircuitBreakerBuilder>();
    }

    #[test]
    fn opens_exactly_at_the_threshold() {
        let b = breaker(3, 30);
        let t0 = Instant::now();
        fail(&b, t0);
        fail(&b, t0);
        assert_eq!(b.state(t0), CircuitState::Closed);
        assert!(b.try_acquire(t0).is_ok());
        fail(&b, t0);
        assert_eq!(b.state(t0), CircuitState::Open);
    }

    #[test]
    fn default_threshold_is_five_consecutive_failures() {
        let b = CircuitBreaker::default();
        let t0 = Instant::now();
        for _ in 0..4 {
            fail(&b, t0);
        }
        assert_eq!(b.state(t0), CircuitState::Closed);
        fail(&b, t0);
        assert_eq!(b.state(t0), CircuitState::Open);
        assert_eq!(b.state(t0 + secs(29)), CircuitState::Open);
        assert_eq!(b.state(t0 + secs(30)), CircuitState::HalfOpen);
    }

    #[test]
    fn success_resets_the_consecutive_count() {
        let b = breaker(2, 30);
        let t0 = Instant::now();
        fail(&b, t0);
        succeed(&b, t0);
        fail(&b, t0);
        assert_eq!(b.state(t0), CircuitState::Closed);
        fail(&b, t0);
        assert_eq!(b.state(t0), CircuitState::Open);
    }

    #[test]
    fn rejects_while_open() {
        let b = breaker(1, 10);
        let t0 = Instant::now();
        open_at(&b, t0);
        for n in [0, 1, 5, 9] {
            assert_eq!(b.try_acquire(t0 + secs(n)).unwrap_err(), CircuitOpen);
        }
        let just_before = t0 + secs(10) - Duration::from_nanos(1);
        assert!(b.try_acquire(just_before).is_err());
        assert_eq!(b.state(just_before), CircuitState::Open);
    }

    #[test]
    fn half_opens_once_the_break_has_elapsed() {
        let b = breaker(1, 10);
        let t0 = Instant::now();
        open_at(&b, t0);
        let t10 = t0 + secs(10);
        assert_eq!(b.state(t10), CircuitState::HalfOpen);
        let probe = b.try_acquire(t10).unwrap();
        assert!(probe.is_probe());
        assert_eq!(b.state(t10), CircuitState::HalfOpen);
        drop(probe);
    }

    #[test]
    fn successful_probe_closes_with_fresh_counts() {
        let b = breaker(2, 10);
        let t0 = Instant::now();
        fail(&b, t0);
        fail(&b, t0);
        let t10 = t0 + secs(10);
        let probe = b.try_acquire(t10).unwrap();
        probe.record_success(t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
        let permit = b.try_acquire(t10).unwrap();
        assert!(!permit.is_probe());
        permit.record_failure(t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
        fail(&b, t10);
        assert_eq!(b.state(t10), CircuitState::Open);
    }

    #[test]
    fn failed_probe_reopens_and_restarts_the_break() {
        let b = breaker(1, 10);
        let t0 = Instant::now();
        open_at(&b, t0);
        let t15 = t0 + secs(15);
        b.try_acquire(t15).unwrap().record_failure(t15);
        assert_eq!(b.state(t15), CircuitState::Open);
        // The new break runs from 15 s, not from 0 s.
        assert!(b.try_acquire(t0 + secs(20)).is_err());
        assert!(
            b.try_acquire(t0 + secs(25) - Duration::from_nanos(1))
                .is_err()
        );
        assert_eq!(b.state(t0 + secs(25)), CircuitState::HalfOpen);
        assert!(b.try_acquire(t0 + secs(25)).unwrap().is_probe());
    }

    #[test]
    fn half_open_admits_at_most_the_probe_limit() {
        let b = CircuitBreaker::builder()
            .failure_threshold(1)
            .break_duration(secs(10))
            .half_open_probes(2)
            .build()
            .unwrap();
        let t0 = Instant::now();
        open_at(&b, t0);
        let t10 = t0 + secs(10);
        let first = b.try_acquire(t10).unwrap();
        let second = b.try_acquire(t10).unwrap();
        assert!(first.is_probe() && second.is_probe());
        assert_eq!(b.try_acquire(t10).unwrap_err(), CircuitOpen);
        assert_eq!(b.try_acquire(t10 + secs(100)).unwrap_err(), CircuitOpen);
        assert_eq!(b.probes_in_flight(), 2);
        // The first probe to report decides; the other becomes stale.
        first.record_success(t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
        second.record_failure(t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
    }

    #[test]
    fn cancelled_probe_frees_its_slot() {
        let b = breaker(1, 10);
        let t0 = Instant::now();
        open_at(&b, t0);
        let t10 = t0 + secs(10);
        let probe = b.try_acquire(t10).unwrap();
        assert!(b.try_acquire(t10).is_err());
        drop(probe);
        assert_eq!(b.probes_in_flight(), 0);
        assert_eq!(b.state(t10), CircuitState::HalfOpen);
        let again = b.try_acquire(t10).unwrap();
        assert!(again.is_probe());
        again.record_success(t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
    }

    #[test]
    fn cancelled_call_counts_as_neither_success_nor_failure() {
        let b = breaker(2, 10);
        let t0 = Instant::now();
        fail(&b, t0);
        // A success would reset the count; a failure would open the breaker.
        drop(b.try_acquire(t0).unwrap());
        assert_eq!(b.state(t0), CircuitState::Closed);
        fail(&b, t0);
        assert_eq!(b.state(t0), CircuitState::Open);
    }

    #[test]
    fn outcome_of_a_call_admitted_before_opening_is_ignored() {
        let b = breaker(1, 10);
        let t0 = Instant::now();
        let slow = b.try_acquire(t0).unwrap();
        open_at(&b, t0);
        let t10 = t0 + secs(10);
        let probe = b.try_acquire(t10).unwrap();
        // The old call's success must not close the breaker under the probe.
        slow.record_success(t10);
        assert_eq!(b.state(t10), CircuitState::HalfOpen);
        assert!(b.try_acquire(t10).is_err());
        probe.record_failure(t10);
        assert_eq!(b.state(t10), CircuitState::Open);
    }

    #[test]
    fn stale_probe_cannot_free_a_slot_of_the_next_half_open_period() {
        let b = CircuitBreaker::builder()
            .failure_threshold(1)
            .break_duration(secs(10))
            .half_open_probes(2)
            .build()
            .unwrap();
        let t0 = Instant::now();
        open_at(&b, t0);
        let t10 = t0 + secs(10);
        let stale = b.try_acquire(t10).unwrap();
        b.try_acquire(t10).unwrap().record_failure(t10);
        let t20 = t0 + secs(20);
        let a = b.try_acquire(t20).unwrap();
        let c = b.try_acquire(t20).unwrap();
        drop(stale);
        assert_eq!(b.probes_in_flight(), 2);
        assert!(b.try_acquire(t20).is_err());
        drop((a, c));
        assert_eq!(b.probes_in_flight(), 0);
    }

    #[test]
    fn ratio_opens_once_minimum_throughput_is_reached() {
        let b = CircuitBreaker::builder()
            .failure_ratio(0.5)
            .minimum_throughput(4)
            .sampling_window(secs(60))
            .break_duration(secs(10))
            .build()
            .unwrap();
        let t0 = Instant::now();
        fail(&b, t0);
        fail(&b, t0);
        fail(&b, t0);
        // 3 of 3 failed, but only 3 calls: below the minimum throughput.
        assert_eq!(b.state(t0), CircuitState::Closed);
        // 3 of 4 failed, but a success never opens the breaker.
        succeed(&b, t0);
        assert_eq!(b.state(t0), CircuitState::Closed);
        succeed(&b, t0);
        succeed(&b, t0);
        succeed(&b, t0);
        // 4 of 8 failed: 0.5 >= 0.5.
        fail(&b, t0 + secs(1));
        assert_eq!(b.state(t0 + secs(1)), CircuitState::Open);
    }

    #[test]
    fn ratio_below_threshold_stays_closed() {
        let b = CircuitBreaker::builder()
            .failure_ratio(0.5)
            .minimum_throughput(4)
            .build()
            .unwrap();
        let t0 = Instant::now();
        for _ in 0..10 {
            succeed(&b, t0);
            succeed(&b, t0);
            fail(&b, t0);
        }
        assert_eq!(b.state(t0), CircuitState::Closed);
    }

    #[test]
    fn ratio_windows_reset() {
        let b = CircuitBreaker::builder()
            .failure_ratio(0.5)
            .minimum_throughput(4)
            .sampling_window(secs(10))
            .build()
            .unwrap();
        let t0 = Instant::now();
        fail(&b, t0);
        fail(&b, t0);
        fail(&b, t0);
        // The window that started at 0 s ended at 10 s; its failures are gone.
        let t10 = t0 + secs(10);
        fail(&b, t10);
        fail(&b, t10);
        fail(&b, t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
        fail(&b, t10 + secs(9));
        assert_eq!(b.state(t10 + secs(9)), CircuitState::Open);
    }

    #[test]
    fn ratio_alone_ignores_the_default_consecutive_threshold() {
        let b = CircuitBreaker::builder()
            .failure_ratio(0.9)
            .minimum_throughput(100)
            .build()
            .unwrap();
        let t0 = Instant::now();
        for _ in 0..50 {
            fail(&b, t0);
        }
        assert_eq!(b.state(t0), CircuitState::Closed);
    }

    #[test]
    fn ratio_with_explicit_threshold_opens_on_either_rule() {
        let b = CircuitBreaker::builder()
            .failure_ratio(0.9)
            .minimum_throughput(100)
            .failure_threshold(3)
            .build()
            .unwrap();
        let t0 = Instant::now();
        for _ in 0..3 {
            fail(&b, t0);
        }
        assert_eq!(b.state(t0), CircuitState::Open);
    }

    #[test]
    fn closing_resets_the_ratio_window() {
        let b = CircuitBreaker::builder()
            .failure_ratio(0.5)
            .minimum_throughput(2)
            .sampling_window(secs(1000))
            .break_duration(secs(10))
            .build()
            .unwrap();
        let t0 = Instant::now();
        fail(&b, t0);
        fail(&b, t0);
        assert_eq!(b.state(t0), CircuitState::Open);
        let t10 = t0 + secs(10);
        succeed(&b, t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
        // The old window's two failures would make this 3 of 3.
        fail(&b, t10);
        assert_eq!(b.state(t10), CircuitState::Closed);
        fail(&b, t10);
        assert_eq!(b.state(t10), CircuitState::Open);
    }

    #[test]
    fn builder_rejects_meaningless_values() {
        let err = |builder: CircuitBreakerBuilder| builder.build().unwrap_err();
        let b = CircuitBreaker::builder;
        assert_eq!(
            err(b().failure_threshold(0)),
            ConfigError::ZeroFailureThreshold
        );
        for ratio in [
            0.0,
            -0.0,
            -0.5,
            1.000_001,
            2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(
                err(b().failure_ratio(ratio)),
                ConfigError::InvalidFailureRatio(ratio)
            );
        }
        assert!(matches!(
            err(b().failure_ratio(f64::NAN)),
            ConfigError::InvalidFailureRatio(r) if r.is_nan()
        ));
        assert_eq!(
            err(b().half_open_probes(0)),
            ConfigError::ZeroHalfOpenProbes
        );
        assert_eq!(
            err(b().break_duration(Duration::ZERO)),
            ConfigError::ZeroDuration("break_duration")
        );
        assert_eq!(
            err(b().failure_ratio(0.5).sampling_window(Duration::ZERO)),
            ConfigError::ZeroDuration("sampling_window")
        );
    }

    #[test]
    fn builder_accepts_boundary_values() {
        let b = CircuitBreaker::builder;
        assert!(b().failure_ratio(1.0).build().is_ok());
        assert!(b().failure_ratio(f64::MIN_POSITIVE).build().is_ok());
        assert!(b().failure_threshold(u32::MAX).build().is_ok());
        assert!(b().half_open_probes(u32::MAX).build().is_ok());
        assert!(b().minimum_throughput(0).failure_ratio(0.5).build().is_ok());
        assert!(b().break_duration(Duration::from_nanos(1)).build().is_ok());
    }

    #[test]
    fn huge_durations_do_not_panic() {
        let b = CircuitBreaker::builder()
            .failure_threshold(1)
            .break_duration(Duration::MAX)
            .failure_ratio(1.0)
            .sampling_window(Duration::MAX)
            .half_open_probes(u32::MAX)
            .build()
            .unwrap();
        let t0 = Instant::now();
        open_at(&b, t0);
        let far = t0 + Duration::from_secs(100 * 365 * 24 * 3600);
        assert_eq!(b.state(far), CircuitState::Open);
        assert!(b.try_acquire(far).is_err());
        let _ = format!("{b:?}");
    }

    #[test]
    fn instants_before_the_first_one_count_as_the_first() {
        let b = breaker(1, 10);
        let t0 = Instant::now() + secs(100);
        open_at(&b, t0);
        let earlier = t0 - secs(50);
        assert_eq!(b.state(earlier), CircuitState::Open);
        assert!(b.try_acquire(earlier).is_err());
        assert!(b.try_acquire(t0 + secs(10)).is_ok());
    }

    #[test]
    fn probe_limit_is_clamped_to_what_the_word_can_count() {
        let b = CircuitBreaker::builder()
            .half_open_probes(u32::MAX)
            .build()
            .unwrap();
        assert_eq!(b.config.half_open_probes, MAX_PROBES);
        let w = Word::new(Tag::HalfOpen, MAX_PROBES, u32::MAX);
        assert_eq!(Word::unpack(w.pack()), w);
    }

    #[test]
    fn debug_shows_state_and_configuration() {
        let b = breaker(3, 7);
        let text = format!("{b:?}");
        assert!(text.contains("state: Closed"), "{text}");
        assert!(text.contains("failure_threshold: 3"), "{text}");
        assert!(text.contains("break_duration: 7s"), "{text}");
    }

    /// A small xorshift generator: the hammer needs cheap, seedable noise,
    /// not quality randomness.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[derive(Debug, Default, PartialEq, Eq)]
    struct Tally {
        calls: u64,
        admitted: u64,
        rejected: u64,
        succeeded: u64,
        failed: u64,
        cancelled: u64,
        probes: u64,
    }

    #[test]
    fn two_threads_hammering_lose_no_call() {
        const CALLS: u64 = 20_000;
        let b = CircuitBreaker::builder()
            .failure_threshold(3)
            .break_duration(Duration::from_micros(20))
            .half_open_probes(1)
            .build()
            .unwrap();
        let t0 = Instant::now();
        // Virtual time in microseconds, advanced by both threads.
        let clock = AtomicU64::new(0);
        let probes_running = AtomicU32::new(0);
        let tallies = std::thread::scope(|scope| {
            let workers: Vec<_> = [0x9E37_79B9_7F4A_7C15_u64, 0xD1B5_4A32_D192_ED03]
                .into_iter()
                .map(|seed| {
                    let (b, clock, probes_running) = (&b, &clock, &probes_running);
                    scope.spawn(move || {
                        let mut rng = XorShift(seed);
                        let mut tally = Tally::default();
                        for _ in 0..CALLS {
                            tally.calls += 1;
                            let step = rng.next() % 8;
                            let now = t0
                                + Duration::from_micros(clock.fetch_add(step, Ordering::Relaxed));
                            let Ok(permit) = b.try_acquire(now) else {
                                tally.rejected += 1;
                                continue;
                            };
                            tally.admitted += 1;
                            if permit.is_probe() {
                                tally.probes += 1;
                                let running = probes_running.fetch_add(1, Ordering::SeqCst) + 1;
                                assert!(running <= 1, "{running} probes ran at once");
                            }
                            let probe = permit.is_probe();
                            let later = now + Duration::from_micros(rng.next() % 4);
                            for _ in 0..rng.next() % 64 {
                                std::hint::spin_loop();
                            }
                            // Count the probe as finished before reporting:
                            // once reported, its slot may go to the other thread.
                            if probe {
                                probes_running.fetch_sub(1, Ordering::SeqCst);
                            }
                            match rng.next() % 10 {
                                0..=2 => {
                                    permit.record_failure(later);
                                    tally.failed += 1;
                                }
                                3..=8 => {
                                    permit.record_success(later);
                                    tally.succeeded += 1;
                                }
                                _ => {
                                    drop(permit);
                                    tally.cancelled += 1;
                                }
                            }
                        }
                        tally
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap())
                .collect::<Vec<_>>()
        });
        for tally in &tallies {
            assert_eq!(tally.calls, CALLS);
            assert_eq!(tally.admitted + tally.rejected, tally.calls, "{tally:?}");
            assert_eq!(
                tally.succeeded + tally.failed + tally.cancelled,
                tally.admitted,
                "{tally:?}"
            );
        }
        let total = |f: fn(&Tally) -> u64| tallies.iter().map(f).sum::<u64>();
        // A third of the outcomes fail, so the breaker must have opened, rejected
        // and probed many times.
        assert!(total(|t| t.rejected) > 0);
        assert!(total(|t| t.probes) > 0);
        // Every permit is gone: no probe slot may have leaked.
        assert_eq!(b.probes_in_flight(), 0);
        let end = t0 + Duration::from_micros(clock.load(Ordering::Relaxed));
        // Outcomes are reported at most 3 µs after the clock's last reading.
        let later = end + Duration::from_micros(100);
        if let Ok(permit) = b.try_acquire(later) {
            permit.record_success(later);
        }
        assert_eq!(b.state(later), CircuitState::Closed);
    }
}
