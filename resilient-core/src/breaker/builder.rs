//! [`CircuitBreakerBuilder`]: the breaker's options, their defaults, and the
//! validation that turns them into a [`Config`].

use std::borrow::Cow;
use std::time::{Duration, Instant};

use super::window::{MAX_WINDOW_CALLS, RatioConfig};
use super::word::MAX_PROBES;
use super::{CircuitBreaker, saturating_nanos};
use crate::error::ConfigError;

const DEFAULT_NAME: &str = "circuit_breaker";
const DEFAULT_FAILURE_THRESHOLD: u32 = 5;
const DEFAULT_MINIMUM_THROUGHPUT: u32 = 10;
const DEFAULT_SAMPLING_WINDOW: Duration = Duration::from_secs(30);
const DEFAULT_BREAK_DURATION: Duration = Duration::from_secs(30);
const DEFAULT_HALF_OPEN_PROBES: u32 = 1;

/// A validated configuration.
#[derive(Debug, Clone)]
pub(super) struct Config {
    pub(super) name: Cow<'static, str>,
    pub(super) failure_threshold: Option<u32>,
    pub(super) ratio: Option<RatioConfig>,
    pub(super) break_nanos: u64,
    /// The break of the n-th consecutive opening (1 for the first), if it grows.
    pub(super) break_growth: Option<fn(u32) -> Duration>,
    /// The longest break a growing one reaches.
    pub(super) max_break_nanos: u64,
    pub(super) half_open_probes: u32,
    pub(super) probe_timeout_nanos: u64,
    /// The `breaker` label of its gauge, when it is not its name.
    #[cfg(feature = "metrics")]
    pub(super) label: Option<Cow<'static, str>>,
}

impl Config {
    /// What the breaker's view shows of it.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    pub(super) fn built(&self) -> super::view::Built {
        super::view::Built {
            failure_threshold: self.failure_threshold,
            break_nanos: self.break_nanos,
            grows: self.break_growth.is_some(),
            max_break_nanos: self.max_break_nanos,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            name: Cow::Borrowed(DEFAULT_NAME),
            failure_threshold: Some(DEFAULT_FAILURE_THRESHOLD),
            ratio: None,
            break_nanos: saturating_nanos(DEFAULT_BREAK_DURATION),
            break_growth: None,
            max_break_nanos: u64::MAX,
            half_open_probes: DEFAULT_HALF_OPEN_PROBES,
            probe_timeout_nanos: saturating_nanos(DEFAULT_BREAK_DURATION),
            #[cfg(feature = "metrics")]
            label: None,
        }
    }
}

/// Builder of a [`CircuitBreaker`]; validates everything once, in
/// [`build`](CircuitBreakerBuilder::build).
///
/// Defaults: opens after 5 consecutive failures, stays open 30 s, then
/// admits 1 probe at a time, whose slot is taken back if it stays silent for
/// as long as the break lasted. No failure-ratio rule unless
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
    name: Cow<'static, str>,
    failure_threshold: Option<u32>,
    failure_ratio: Option<f64>,
    minimum_throughput: u32,
    sampling_window: Duration,
    break_duration: Duration,
    break_growth: Option<fn(u32) -> Duration>,
    max_break_duration: Option<Duration>,
    half_open_probes: u32,
    /// `None` follows the break duration.
    probe_timeout: Option<Duration>,
    /// The fleet to share the breaker's state with.
    #[cfg(feature = "redis")]
    shared: Option<super::RedisBreakerState>,
    #[cfg(feature = "metrics")]
    label: Option<Cow<'static, str>>,
}

impl Default for CircuitBreakerBuilder {
    fn default() -> Self {
        Self {
            name: Cow::Borrowed(DEFAULT_NAME),
            failure_threshold: None,
            failure_ratio: None,
            minimum_throughput: DEFAULT_MINIMUM_THROUGHPUT,
            sampling_window: DEFAULT_SAMPLING_WINDOW,
            break_duration: DEFAULT_BREAK_DURATION,
            break_growth: None,
            max_break_duration: None,
            half_open_probes: DEFAULT_HALF_OPEN_PROBES,
            probe_timeout: None,
            #[cfg(feature = "redis")]
            shared: None,
            #[cfg(feature = "metrics")]
            label: None,
        }
    }
}

impl CircuitBreakerBuilder {
    /// Names the breaker (default `"circuit_breaker"`), for its `Debug`
    /// output and, with the `metrics` feature, the `breaker` label of its
    /// `resilient_circuit_state` gauge.
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    ///
    /// let breaker = CircuitBreaker::builder().name("payments").build().unwrap();
    /// assert_eq!(breaker.name(), "payments");
    /// assert!(format!("{breaker:?}").contains(r#"name: "payments""#));
    /// ```
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

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
    /// (default 10; 0 behaves like 1). A window counts at most 2²⁴ − 1
    /// calls, so larger values behave like 2²⁴ − 1. Has no effect without
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

    /// Makes the break grow with the breaker's consecutive openings: the
    /// n-th opening since the breaker was last closed (1 for the first)
    /// holds it open for `break_of(n)`, capped by
    /// [`max_break_duration`](Self::max_break_duration). A failed probe
    /// counts as another opening; closing (a successful probe, or
    /// [`reset`](super::CircuitBreaker::reset)) starts the count again.
    ///
    /// [`break_duration`](Self::break_duration) then serves only as the
    /// default probe timeout. A zero break is taken as one nanosecond.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::{Duration, Instant};
    ///
    /// // 1 s, 2 s, 4 s, ... up to a minute.
    /// let breaker = CircuitBreaker::builder()
    ///     .failure_threshold(1)
    ///     .break_duration_with(|n| Duration::from_secs(1).saturating_mul(2u32.saturating_pow(n - 1)))
    ///     .max_break_duration(Duration::from_secs(60))
    ///     .build()
    ///     .unwrap();
    /// let t0 = Instant::now();
    /// breaker.try_acquire(t0).unwrap().record_failure(t0);
    /// let t1 = t0 + Duration::from_secs(1);
    /// breaker.try_acquire(t1).unwrap().record_failure(t1); // a failed probe
    /// assert_eq!(breaker.state(t1 + Duration::from_millis(1999)), CircuitState::Open);
    /// assert_eq!(breaker.state(t1 + Duration::from_secs(2)), CircuitState::HalfOpen);
    /// ```
    pub fn break_duration_with(mut self, break_of: fn(u32) -> Duration) -> Self {
        self.break_growth = Some(break_of);
        self
    }

    /// The longest a [growing](Self::break_duration_with) break gets
    /// (default: no cap beyond what the break function returns).
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use std::time::Duration;
    ///
    /// let breaker = CircuitBreaker::builder()
    ///     .break_duration_with(|n| Duration::from_secs(u64::from(n) * 10))
    ///     .max_break_duration(Duration::from_secs(300))
    ///     .build()
    ///     .unwrap();
    /// # let _ = breaker;
    /// ```
    pub fn max_break_duration(mut self, duration: Duration) -> Self {
        self.max_break_duration = Some(duration);
        self
    }

    /// How many probes may run at once while half-open (default 1; must not
    /// be zero). Values above 2²⁹ − 1 behave like 2²⁹ − 1.
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

    /// How long half-open probes may stay silent before their slots are
    /// taken back (default: the [break duration](Self::break_duration); must
    /// not be zero).
    ///
    /// A probe that never reports (its call hangs, or its permit was leaked
    /// with [`mem::forget`](std::mem::forget)) would otherwise hold its slot
    /// for good, and the breaker would never close nor open again. When every
    /// slot is taken and no probe has been admitted for this long, the next
    /// call starts a new half-open period and runs as its first probe; the
    /// silent probes' permits then change nothing, whenever they report.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::{Duration, Instant};
    ///
    /// let breaker = CircuitBreaker::builder()
    ///     .failure_threshold(1)
    ///     .break_duration(Duration::from_secs(30))
    ///     .probe_timeout(Duration::from_secs(5))
    ///     .build()
    ///     .unwrap();
    /// let t0 = Instant::now();
    /// breaker.try_acquire(t0).unwrap().record_failure(t0);
    ///
    /// let t30 = t0 + Duration::from_secs(30);
    /// let hung = breaker.try_acquire(t30).unwrap();
    /// assert!(breaker.try_acquire(t30 + Duration::from_secs(4)).is_err());
    /// let probe = breaker.try_acquire(t30 + Duration::from_secs(5)).unwrap();
    /// assert!(probe.is_probe());
    ///
    /// hung.record_failure(t30 + Duration::from_secs(6)); // too late: ignored
    /// assert_eq!(breaker.state(t30 + Duration::from_secs(6)), CircuitState::HalfOpen);
    /// ```
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = Some(timeout);
        self
    }

    /// Shares the breaker's state with every instance of the service that
    /// attaches a `RedisBreakerState` of the
    /// same Redis server and breaker name (feature `redis`).
    ///
    /// Each call is still decided by this breaker, with no I/O on its way:
    /// a background publisher sends the local counts every 100 ms or so
    /// and reads back the fleet's verdict. The fleet opens the breaker of
    /// every instance when its rule is met, and its half-open probes are
    /// limited across the fleet; while Redis is out of reach, each
    /// instance decides alone. The publisher runs on a thread of its own,
    /// with a single-threaded Tokio runtime of its own, so a shared breaker
    /// serves blocking and async calls alike and outlives any runtime.
    ///
    /// ```no_run
    /// use resilient::CircuitBreaker;
    /// use resilient::breaker::RedisBreakerState;
    /// use std::time::Duration;
    ///
    /// let fleet = RedisBreakerState::new("redis://127.0.0.1:6379/")?.quorum(2);
    /// let breaker = CircuitBreaker::builder()
    ///     .name("payments")
    ///     .failure_threshold(5)
    ///     .break_duration(Duration::from_secs(30))
    ///     .shared(fleet)
    ///     .build()?;
    /// # let _ = breaker;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "redis")]
    pub fn shared(mut self, state: super::RedisBreakerState) -> Self {
        self.shared = Some(state);
        self
    }

    /// The rules `build` checks, without building: for a builder kept as
    /// a template of breakers built later.
    /// Labels the breaker's gauge `label` rather than its name: for the
    /// breakers of [`EndpointBreakers`](crate::endpoint::EndpointBreakers),
    /// whose names past the limit on names share one label.
    #[cfg(feature = "metrics")]
    pub(crate) fn label(mut self, label: Cow<'static, str>) -> Self {
        self.label = Some(label);
        self
    }

    pub(crate) fn check(&self) -> Result<(), ConfigError> {
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
        if self.probe_timeout.is_some_and(|timeout| timeout.is_zero()) {
            return Err(ConfigError::ZeroDuration("probe_timeout"));
        }
        if self.sampling_window.is_zero() {
            return Err(ConfigError::ZeroDuration("sampling_window"));
        }
        if self.max_break_duration.is_some_and(|max| max.is_zero()) {
            return Err(ConfigError::ZeroDuration("max_break_duration"));
        }
        Ok(())
    }

    /// Validates the configuration and makes a closed breaker.
    ///
    /// # Errors
    ///
    /// [`ConfigError::ZeroFailureThreshold`], [`ConfigError::InvalidFailureRatio`]
    /// (NaN, not above 0 or above 1), [`ConfigError::ZeroHalfOpenProbes`], or
    /// [`ConfigError::ZeroDuration`] naming `break_duration`, `probe_timeout`
    /// or `sampling_window`; for a shared (`shared`, feature `redis`) breaker, those
    /// of `RedisBreakerState`'s settings too.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, ConfigError};
    ///
    /// let err = CircuitBreaker::builder().failure_ratio(f64::NAN).build().unwrap_err();
    /// assert!(matches!(err, ConfigError::InvalidFailureRatio(r) if r.is_nan()));
    /// ```
    pub fn build(self) -> Result<CircuitBreaker, ConfigError> {
        self.check()?;
        let ratio = self.failure_ratio.map(|failure_ratio| RatioConfig {
            failure_ratio,
            minimum_throughput: self.minimum_throughput.clamp(1, MAX_WINDOW_CALLS),
            window_nanos: saturating_nanos(self.sampling_window),
        });
        let failure_threshold = match (self.failure_threshold, ratio) {
            (Some(threshold), _) => Some(threshold),
            (None, None) => Some(DEFAULT_FAILURE_THRESHOLD),
            (None, Some(_)) => None,
        };
        let config = Config {
            name: self.name,
            failure_threshold,
            ratio,
            break_nanos: saturating_nanos(self.break_duration),
            break_growth: self.break_growth,
            max_break_nanos: self.max_break_duration.map_or(u64::MAX, saturating_nanos),
            half_open_probes: self.half_open_probes.min(MAX_PROBES),
            probe_timeout_nanos: saturating_nanos(
                self.probe_timeout.unwrap_or(self.break_duration),
            ),
            #[cfg(feature = "metrics")]
            label: self.label,
        };
        let anchor = Instant::now();
        #[cfg(feature = "redis")]
        let fleet = match self.shared {
            Some(state) => {
                let breaker = super::redis_state::Breaking {
                    name: &config.name,
                    break_nanos: config.break_nanos,
                    probe_timeout_nanos: config.probe_timeout_nanos,
                };
                Some(state.attach(breaker, anchor)?)
            }
            None => None,
        };
        #[cfg(not(feature = "redis"))]
        let fleet = None;
        Ok(CircuitBreaker::with_config(config, anchor, fleet))
    }
}
