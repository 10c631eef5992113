//! [`AdaptiveThrottle`]: client-side adaptive throttling, after the Google
//! SRE book ("Handling Overload", *Client-side throttling*), Envoy's
//! admission control filter and failsafe-go's adaptive throttler.
//!
//! A backend that is overloaded still spends work on every request it
//! refuses. A client that sees most of its requests refused can refuse
//! some of them itself, before they leave: over a sliding window it counts
//! the requests it made and the ones the backend accepted, and refuses a
//! new attempt with probability
//!
//! ```text
//! min(max_rejection, max(0, (requests − K·accepts) / (requests + 1)))
//! ```
//!
//! While the backend accepts at least one request in K, the probability is
//! zero; past that, the client sheds just enough load locally that what it
//! sends is about K times what gets accepted. A request refused locally
//! counts as a request, and not as an accept: the more the backend refuses,
//! the more the client sheds, and the probability falls back as accepts
//! come in again.
//!
//! # State
//!
//! The window is 16 buckets of a sixteenth of its length each, kept under
//! one small lock with the random source: an attempt takes the lock once
//! to be admitted and once when it ends. Counts older than the window
//! leave it a bucket at a time. Time is the clock of the calls that use
//! the throttle, so a `FakeClock` or tokio's paused clock drives the
//! window in tests.

use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Buckets of the sliding window.
const BUCKETS: usize = 16;

/// The SRE book's K: requests may reach twice the accepts before any is
/// refused.
const DEFAULT_MULTIPLIER: f64 = 2.0;
/// Two minutes, as the SRE book keeps.
const DEFAULT_WINDOW: Duration = Duration::from_secs(120);
/// Never refuse more than nine attempts in ten: some must still reach the
/// backend to see it recover.
const DEFAULT_MAX_REJECTION: f64 = 0.9;

/// Client-side adaptive throttling: refuses attempts locally, with a
/// probability that grows as the backend accepts fewer of them (Google SRE
/// book, "Handling Overload").
///
/// Over a sliding window (default 2 minutes) it counts `requests`, the
/// attempts it was asked to admit, and `accepts`, those that succeeded.
/// Each attempt, a call's first included, is refused locally with
/// probability `min(max_rejection, max(0, (requests − K·accepts) /
/// (requests + 1)))`, read from the counts before it, once the window
/// holds at least `min_requests` requests. A refused attempt never runs
/// its body: it fails with `E::from(`[`Rejected`](crate::throttle::Rejected)`)` and ends the call
/// with [`StopReason::Throttled`](crate::StopReason::Throttled).
///
/// How each attempt counts:
///
/// * a success is an accept;
/// * a failure that counts for the circuit breaker (an error, a timeout,
///   an invalid value, retried or not) is a request and not an accept;
/// * an ignored error ([`Operation::ignore_if`](crate::Operation::ignore_if)),
///   a hedge dropped because another attempt won, and an attempt another
///   gate refused count for neither;
/// * an admitted attempt is counted when it ends, its request and its
///   accept at the same moment; one refused locally is a request at once.
///
/// Share one per backend, as a `static`: its `const` setters build it
/// there.
///
/// ```
/// use resilient::throttle::{AdaptiveThrottle, Rejected};
/// use resilient::{FakeClock, Operation, StopReason};
///
/// static BACKEND: AdaptiveThrottle = AdaptiveThrottle::new().min_requests(10).seed(7);
///
/// #[derive(Debug)]
/// enum Error { Overloaded, Rejected }
/// impl From<Rejected> for Error {
///     fn from(_: Rejected) -> Self { Error::Rejected }
/// }
/// impl std::fmt::Display for Error {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "{self:?}")
///     }
/// }
///
/// let clock = FakeClock::new();
/// let call = || {
///     Operation::new()
///         .adaptive_throttle(&BACKEND)
///         .clock(clock.clone())
///         .run(|_attempt| Err::<(), _>(Error::Overloaded))
/// };
/// // The backend refuses everything: past 10 requests, the throttle
/// // starts refusing locally, at most 9 attempts in 10.
/// let stops: Vec<StopReason> = (0..100).map(|_| call().report().stop_reason()).collect();
/// let refused = stops.iter().filter(|stop| **stop == StopReason::Throttled).count();
/// assert!((60..=90).contains(&refused), "{refused} refused");
/// assert_eq!(BACKEND.requests(), 100);
/// assert_eq!(BACKEND.accepts(), 0);
/// assert!(BACKEND.rejection_probability() <= 0.9);
/// ```
pub struct AdaptiveThrottle {
    name: Option<&'static str>,
    settings: Settings,
    seed: Option<u64>,
    state: Mutex<State>,
}

/// What decides the probability: K, the window, the volume it needs and
/// the most it refuses.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Settings {
    multiplier: f64,
    window: Duration,
    min_requests: u32,
    max_rejection: f64,
}

/// Requests and accepts of one bucket, or of the window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    requests: u64,
    accepts: u64,
}

/// The window and the random source.
#[derive(Debug)]
struct State {
    /// The time of the first attempt: bucket `n` starts `n` bucket
    /// lengths after it.
    origin: Option<Instant>,
    /// The number of the newest bucket, from the origin.
    head: u64,
    /// Bucket `n` is at `n % BUCKETS`.
    buckets: [Counts; BUCKETS],
    /// splitmix64's state; `None` until the first draw.
    rng: Option<u64>,
    /// Attempts refused so far.
    rejected: u64,
    /// The probability the latest attempt was admitted or refused with.
    probability: f64,
    /// The probability the latest [`reading`](AdaptiveThrottle::reading)
    /// saw, which the gauge of it holds.
    reported: f64,
    /// The settings of the installed configuration's entry, and its
    /// generation.
    #[cfg(feature = "config")]
    configured: (u64, Option<Settings>),
}

/// A throttle's state as of its latest attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(not(any(feature = "metrics", feature = "dashboard")), allow(dead_code))]
pub(crate) struct Reading {
    /// Its name; `adaptive` for one without.
    pub(crate) name: &'static str,
    pub(crate) requests: u64,
    pub(crate) accepts: u64,
    pub(crate) probability: f64,
    /// Attempts refused since it was built.
    pub(crate) rejections: u64,
}

/// What an attempt the throttle admitted holds until it ends, when it is
/// counted: nothing, so that a call's future is no larger for it.
#[derive(Debug)]
pub(crate) struct Admitted;

impl Default for AdaptiveThrottle {
    fn default() -> Self {
        AdaptiveThrottle::new()
    }
}

impl fmt::Debug for AdaptiveThrottle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdaptiveThrottle")
            .field("name", &self.name)
            .field("multiplier", &self.settings.multiplier)
            .field("window", &self.settings.window)
            .field("min_requests", &self.settings.min_requests)
            .field("max_rejection", &self.settings.max_rejection)
            .field("requests", &self.requests())
            .field("accepts", &self.accepts())
            .finish_non_exhaustive()
    }
}

impl AdaptiveThrottle {
    /// A throttle with the SRE book's settings: K = 2, a window of 2
    /// minutes, no minimum of requests, and at most 9 attempts in 10
    /// refused.
    ///
    /// ```
    /// use resilient::throttle::AdaptiveThrottle;
    ///
    /// static BACKEND: AdaptiveThrottle = AdaptiveThrottle::new();
    /// assert_eq!(BACKEND.rejection_probability(), 0.0);
    /// ```
    pub const fn new() -> Self {
        AdaptiveThrottle {
            name: None,
            settings: Settings {
                multiplier: DEFAULT_MULTIPLIER,
                window: DEFAULT_WINDOW,
                min_requests: 0,
                max_rejection: DEFAULT_MAX_REJECTION,
            },
            seed: None,
            state: Mutex::new(State {
                origin: None,
                head: 0,
                buckets: [Counts {
                    requests: 0,
                    accepts: 0,
                }; BUCKETS],
                rng: None,
                rejected: 0,
                probability: 0.0,
                reported: f64::NAN,
                #[cfg(feature = "config")]
                configured: (0, None),
            }),
        }
    }

    /// K, how many requests per accept the backend may see before any is
    /// refused (default 2.0). Lower is more aggressive: 1.1 refuses as
    /// soon as a tenth of the requests fail. A value below 1 would refuse
    /// requests of a healthy backend, and is taken as 1; a NaN keeps the
    /// default.
    pub const fn multiplier(mut self, k: f64) -> Self {
        self.settings.multiplier = if k.is_nan() {
            DEFAULT_MULTIPLIER
        } else if k < 1.0 {
            1.0
        } else {
            k
        };
        self
    }

    /// The sliding window the counts are kept over (default 2 minutes),
    /// in 16 buckets. A window under 16 nanoseconds is taken as 16.
    pub const fn window(mut self, window: Duration) -> Self {
        self.settings.window = if window.as_nanos() < BUCKETS as u128 {
            Duration::from_nanos(BUCKETS as u64)
        } else {
            window
        };
        self
    }

    /// The requests the window must hold before the throttle refuses any
    /// (default 0): too few say little of the backend.
    pub const fn min_requests(mut self, min_requests: u32) -> Self {
        self.settings.min_requests = min_requests;
        self
    }

    /// The highest rejection probability (default 0.9), within `0..=1`: a
    /// value outside is taken to the nearer end, a NaN keeps the default.
    pub const fn max_rejection(mut self, max_rejection: f64) -> Self {
        self.settings.max_rejection = if max_rejection.is_nan() {
            DEFAULT_MAX_REJECTION
        } else {
            max_rejection.clamp(0.0, 1.0)
        };
        self
    }

    /// Seeds the draws, so that a test can assert exactly which attempts
    /// are refused. Without it, the source is seeded from the thread's
    /// random generator on the first draw.
    pub const fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Names the throttle: its series, its row on the dashboard and its
    /// entry in the configuration (`[adaptive_throttles.NAME]`, feature
    /// `config`) go by this name.
    pub const fn named(mut self, name: &'static str) -> Self {
        self.name = Some(name);
        self
    }

    /// The throttle's name, if it has one.
    pub const fn name(&self) -> Option<&'static str> {
        self.name
    }

    /// The requests in the window as of the latest attempt: those
    /// admitted and those refused, less those that counted for neither.
    pub fn requests(&self) -> u64 {
        self.lock().window().requests
    }

    /// The accepts in the window as of the latest attempt: the attempts
    /// that succeeded.
    pub fn accepts(&self) -> u64 {
        self.lock().window().accepts
    }

    /// The probability the latest attempt was admitted or refused with,
    /// within `0..=max_rejection`.
    pub fn rejection_probability(&self) -> f64 {
        self.lock().probability
    }

    /// The attempts refused so far, since the throttle was built.
    pub fn rejections(&self) -> u64 {
        self.lock().rejected
    }

    /// The state as of the latest attempt, in one look, for the series and
    /// the dashboard; and whether its probability changed since the last
    /// reading.
    #[cfg_attr(not(any(feature = "metrics", feature = "dashboard")), allow(dead_code))]
    pub(crate) fn reading(&self) -> (Reading, bool) {
        let mut state = self.lock();
        let window = state.window();
        let changed = state.reported.to_bits() != state.probability.to_bits();
        state.reported = state.probability;
        let reading = Reading {
            name: self.name.unwrap_or("adaptive"),
            requests: window.requests,
            accepts: window.accepts,
            probability: state.probability,
            rejections: state.rejected,
        };
        (reading, changed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // Every update leaves the state whole: a panic elsewhere while it
        // was held leaves nothing half-done.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The settings in force: the configuration's entry for its name, if
    /// any, or its own.
    #[cfg_attr(not(feature = "config"), allow(unused_variables))]
    fn in_force(&self, state: &mut State) -> Settings {
        #[cfg(feature = "config")]
        if let Some(name) = self.name {
            let generation = crate::config::version();
            if state.configured.0 != generation {
                let entry = crate::config::adaptive_throttle_settings(name);
                state.configured = (generation, entry.map(|entry| self.settings.with(&entry)));
            }
            if let Some(settings) = state.configured.1 {
                return settings;
            }
        }
        self.settings
    }

    /// Admits an attempt at `now`, or refuses it: `Err` with the
    /// probability it was refused with. A refused attempt is a request at
    /// once; an admitted one is counted when it ends
    /// ([`ended`](Self::ended)), so that requests and accepts are counted
    /// at the same moment and an attempt that counts for neither is never
    /// counted at all.
    pub(crate) fn admit(&self, now: Instant) -> Result<Admitted, f64> {
        let mut state = self.lock();
        let settings = self.in_force(&mut state);
        state.advance(now, settings.window);
        let probability = settings.probability(state.window());
        state.probability = probability;
        if probability > 0.0 && state.draw(self.seed) < probability {
            state.bucket().requests += 1;
            state.rejected += 1;
            return Err(probability);
        }
        Ok(Admitted)
    }

    /// An admitted attempt ended at `now`: a request, and an accept if it
    /// was `accepted`.
    pub(crate) fn ended(&self, _: Admitted, now: Instant, accepted: bool) {
        let mut state = self.lock();
        let window = self.in_force(&mut state).window;
        state.advance(now, window);
        let bucket = state.bucket();
        bucket.requests += 1;
        bucket.accepts += u64::from(accepted);
    }
}

impl Settings {
    /// The rejection probability the counts `window` give.
    fn probability(&self, window: Counts) -> f64 {
        if window.requests < u64::from(self.min_requests) {
            return 0.0;
        }
        #[allow(clippy::cast_precision_loss)]
        let (requests, accepts) = (window.requests as f64, window.accepts as f64);
        let p = (requests - self.multiplier * accepts) / (requests + 1.0);
        p.clamp(0.0, self.max_rejection)
    }

    /// These settings with `entry`'s overrides.
    #[cfg(feature = "config")]
    fn with(self, entry: &crate::config::AdaptiveThrottleConfig) -> Settings {
        Settings {
            multiplier: entry.multiplier.unwrap_or(self.multiplier),
            window: entry.window.unwrap_or(self.window),
            min_requests: entry.min_requests.unwrap_or(self.min_requests),
            max_rejection: entry.max_rejection.unwrap_or(self.max_rejection),
        }
    }
}

/// Where bucket `n` is kept.
fn index(bucket: u64) -> usize {
    // The remainder of a division by 16 fits any `usize`.
    usize::try_from(bucket % BUCKETS as u64).unwrap_or(0)
}

impl State {
    /// Moves the window to `now`: the buckets that fell out of it are
    /// emptied as newer ones take their place.
    fn advance(&mut self, now: Instant, window: Duration) {
        let origin = *self.origin.get_or_insert(now);
        let length = (window / BUCKETS as u32).as_nanos().max(1);
        let at = now.saturating_duration_since(origin).as_nanos() / length;
        let at = u64::try_from(at).unwrap_or(u64::MAX);
        if at <= self.head {
            return;
        }
        let gone = (at - self.head).min(BUCKETS as u64);
        for bucket in (at - gone + 1)..=at {
            self.buckets[index(bucket)] = Counts::default();
        }
        self.head = at;
    }

    /// The newest bucket.
    fn bucket(&mut self) -> &mut Counts {
        &mut self.buckets[index(self.head)]
    }

    /// The counts of the whole window.
    fn window(&self) -> Counts {
        self.buckets
            .iter()
            .fold(Counts::default(), |sum, counts| Counts {
                requests: sum.requests.saturating_add(counts.requests),
                accepts: sum.accepts.saturating_add(counts.accepts),
            })
    }

    /// A uniform draw in `[0, 1)`: splitmix64, seeded with `seed` or from
    /// the process's random keys.
    fn draw(&mut self, seed: Option<u64>) -> f64 {
        let state = self
            .rng
            .get_or_insert_with(|| seed.unwrap_or_else(crate::seed::random_u64));
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        // The top 53 bits, as a fraction of 2^53.
        #[allow(clippy::cast_precision_loss)]
        let fraction = (z >> 11) as f64 / (1u64 << 53) as f64;
        fraction
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(origin: Instant, secs: u64) -> Instant {
        origin + Duration::from_secs(secs)
    }

    #[test]
    fn the_probability_follows_the_sre_formula_and_its_cap() {
        let settings = AdaptiveThrottle::new().settings;
        let p = |requests, accepts| settings.probability(Counts { requests, accepts });
        assert_eq!(p(0, 0), 0.0);
        // Accepts at half the requests or more: nothing refused.
        assert_eq!(p(100, 50), 0.0);
        // (100 − 2·30) / 101.
        assert_eq!(p(100, 30), 40.0 / 101.0);
        // (100 − 0) / 101, capped at 0.9.
        assert_eq!(p(100, 0), 0.9);
        let strict = AdaptiveThrottle::new()
            .multiplier(1.5)
            .max_rejection(0.5)
            .min_requests(50)
            .settings;
        let q = |requests, accepts| strict.probability(Counts { requests, accepts });
        assert_eq!(q(49, 0), 0.0);
        assert_eq!(q(100, 60), 10.0 / 101.0);
        assert_eq!(q(100, 0), 0.5);
    }

    #[test]
    fn out_of_range_settings_are_taken_to_the_nearest_sensible_value() {
        let throttle = AdaptiveThrottle::new()
            .multiplier(f64::NAN)
            .max_rejection(7.0)
            .window(Duration::ZERO);
        assert_eq!(throttle.settings.multiplier, 2.0);
        assert_eq!(throttle.settings.max_rejection, 1.0);
        assert_eq!(throttle.settings.window, Duration::from_nanos(16));
        let throttle = AdaptiveThrottle::new().multiplier(0.2).max_rejection(-1.0);
        assert_eq!(throttle.settings.multiplier, 1.0);
        assert_eq!(throttle.settings.max_rejection, 0.0);
        assert_eq!(
            AdaptiveThrottle::new()
                .max_rejection(f64::NAN)
                .settings
                .max_rejection,
            0.9
        );
    }

    #[test]
    fn counts_leave_the_window_a_bucket_at_a_time() {
        // Buckets of 1 s.
        let throttle = AdaptiveThrottle::new().window(Duration::from_secs(16));
        let origin = Instant::now();
        for second in 0..16 {
            let admitted = throttle.admit(at(origin, second)).expect("nothing refused");
            throttle.ended(admitted, at(origin, second), second % 2 == 0);
        }
        assert_eq!((throttle.requests(), throttle.accepts()), (16, 8));
        // At 17 s the buckets of 0 s and 1 s are gone.
        let admitted = throttle.admit(at(origin, 17)).expect("nothing refused");
        assert_eq!((throttle.requests(), throttle.accepts()), (14, 7));
        throttle.ended(admitted, at(origin, 17), false);
        assert_eq!((throttle.requests(), throttle.accepts()), (15, 7));
        // A minute later, only the new request is left.
        let admitted = throttle.admit(at(origin, 77)).expect("nothing refused");
        throttle.ended(admitted, at(origin, 77), false);
        assert_eq!((throttle.requests(), throttle.accepts()), (1, 0));
    }

    #[test]
    fn an_attempt_is_counted_when_it_ends_in_the_bucket_of_its_end() {
        let throttle = AdaptiveThrottle::new().window(Duration::from_secs(16));
        let origin = Instant::now();
        let admitted = throttle.admit(origin).expect("admitted");
        let dropped = throttle.admit(origin).expect("admitted");
        // Not counted while in flight; one that counts for neither never is.
        assert_eq!(throttle.requests(), 0);
        let _ = dropped;
        // It ends 20 s later, past the window of its start.
        throttle.ended(admitted, at(origin, 20), true);
        assert_eq!((throttle.requests(), throttle.accepts()), (1, 1));
    }

    #[test]
    fn a_seeded_throttle_draws_the_same_sequence() {
        let run = || {
            let throttle = AdaptiveThrottle::new().seed(42);
            let origin = Instant::now();
            (0..50)
                .map(|_| match throttle.admit(origin) {
                    Ok(admitted) => {
                        throttle.ended(admitted, origin, false);
                        false
                    }
                    Err(_) => true,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
        assert!(run().iter().any(|refused| *refused));
    }

    #[test]
    fn many_threads_lose_no_count() {
        let throttle = AdaptiveThrottle::new().min_requests(u32::MAX);
        let origin = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for i in 0..10_000 {
                        let admitted = throttle.admit(origin).expect("never refused");
                        match i % 3 {
                            0 => throttle.ended(admitted, origin, true),
                            1 => {
                                let _ = admitted;
                            }
                            _ => throttle.ended(admitted, origin, false),
                        }
                    }
                });
            }
        });
        // Of each thread's 10 000: 3 334 accepted, 3 333 dropped uncounted.
        assert_eq!(throttle.requests(), 4 * (10_000 - 3_333));
        assert_eq!(throttle.accepts(), 4 * 3_334);
    }
}
