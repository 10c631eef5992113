//! Health for readiness probes: whether the dependencies this process
//! calls are fit to be called, read from its breakers, and what its
//! limiters hold, in one [`Health`] (features `metrics` or `dashboard`).
//!
//! A [`Probe`] says which breakers decide: by default every breaker built
//! in the process, and a breaker that is open or isolated makes the
//! process unhealthy. Half-open counts as up (trial calls are going
//! through) unless [`Probe::half_open_is_down`] says otherwise. Limiters
//! are listed with what they hold, and (feature `dashboard`, which keeps
//! each operation's latest reading) retry throttles with their tokens,
//! by operation; neither decides.
//!
//! With the `dashboard` feature, [`dashboard::health`](crate::dashboard::health)
//! serves a probe as a route answering `200` or `503` with JSON in the
//! shape Spring Boot's actuator and Kubernetes probes read.
//!
//! ```
//! use resilient::CircuitBreaker;
//! use resilient::health::{Probe, Status};
//! use std::time::Instant;
//!
//! let ledger = CircuitBreaker::builder().name("ledger").failure_threshold(1).build().unwrap();
//! let probe = Probe::new().breakers(["ledger"]);
//! assert_eq!(probe.check().status(), Status::Up);
//!
//! let now = Instant::now();
//! ledger.try_acquire(now).unwrap().record_failure(now);
//! let health = probe.check();
//! assert_eq!(health.status(), Status::Down);
//! assert_eq!(health.breakers()[0].name(), "ledger");
//! ```

use std::borrow::Cow;
use std::fmt;
use std::time::Instant;

use super::levels;
use crate::breaker::{CircuitState, View, as_seen};

/// Up or down, as a readiness probe reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Fit to take traffic.
    Up,
    /// A dependency it can't do without is held off.
    Down,
}

impl Status {
    /// `UP` or `DOWN`, as Spring Boot's actuator writes it.
    ///
    /// ```
    /// assert_eq!(resilient::health::Status::Down.as_str(), "DOWN");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Up => "UP",
            Status::Down => "DOWN",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which breakers decide the process's health, and how.
///
/// ```
/// use resilient::health::Probe;
///
/// // Every breaker decides; half-open counts as down too.
/// let strict = Probe::new().half_open_is_down(true);
/// # let _ = strict;
/// ```
#[derive(Debug, Clone, Default)]
pub struct Probe {
    /// The names of the breakers that decide; `None`: every breaker.
    breakers: Option<Vec<Cow<'static, str>>>,
    half_open_is_down: bool,
}

impl Probe {
    /// Every breaker decides: one open or isolated is down.
    pub fn new() -> Probe {
        Probe::default()
    }

    /// Only the breakers of these names decide; the others are listed
    /// but can't make it down. A name no breaker has decides nothing.
    pub fn breakers<N: Into<Cow<'static, str>>>(
        mut self,
        names: impl IntoIterator<Item = N>,
    ) -> Probe {
        self.breakers = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Whether a half-open breaker that decides makes it down (default
    /// `false`: its trial calls are going through).
    pub fn half_open_is_down(mut self, down: bool) -> Probe {
        self.half_open_is_down = down;
        self
    }

    /// The health now.
    pub fn check(&self) -> Health {
        self.check_at(Instant::now())
    }

    /// The health at `now`, on the clock the breakers' calls are timed by.
    pub fn check_at(&self, now: Instant) -> Health {
        let breakers: Vec<BreakerHealth> = View::live()
            .iter()
            .map(|view| {
                let state = as_seen(view.state_at(now).0, view.fleet_state());
                let decides = self
                    .breakers
                    .as_ref()
                    .is_none_or(|names| names.iter().any(|name| *name == view.name));
                let down = match state {
                    CircuitState::Open | CircuitState::Isolated => true,
                    CircuitState::HalfOpen => self.half_open_is_down,
                    CircuitState::Closed => false,
                };
                BreakerHealth {
                    name: view.name.clone(),
                    state,
                    decides,
                    status: if down { Status::Down } else { Status::Up },
                }
            })
            .collect();
        let limits = levels::all()
            .into_iter()
            .map(|level| LimitHealth {
                name: level.name,
                in_flight: level.in_flight(),
                limit: level.current(),
            })
            .collect();
        let down = breakers
            .iter()
            .any(|breaker| breaker.decides && breaker.status == Status::Down);
        Health {
            status: if down { Status::Down } else { Status::Up },
            breakers,
            limits,
            throttles: throttles(),
        }
    }
}

/// Each operation's retry throttle as its latest call left it, by the
/// operation's name (the dashboard's readings); none without `dashboard`.
fn throttles() -> Vec<ThrottleHealth> {
    #[cfg(feature = "dashboard")]
    {
        use std::sync::atomic::Ordering::Relaxed;
        let mut throttles: Vec<ThrottleHealth> = Vec::new();
        for operation in super::registry::operations() {
            let counts = &operation.tally.counts;
            let (tokens, max) = (
                counts.throttle_milli.load(Relaxed),
                counts.throttle_max.load(Relaxed),
            );
            if tokens == u64::MAX || max == u64::MAX {
                continue;
            }
            throttles.retain(|known| known.operation != operation.name);
            throttles.push(ThrottleHealth {
                operation: operation.name.clone(),
                tokens_milli: tokens,
                max_milli: max,
            });
        }
        throttles
    }
    #[cfg(not(feature = "dashboard"))]
    Vec::new()
}

/// What a [`Probe`] found: up or down, each breaker, each limiter, each
/// operation's retry throttle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    status: Status,
    breakers: Vec<BreakerHealth>,
    limits: Vec<LimitHealth>,
    throttles: Vec<ThrottleHealth>,
}

impl Health {
    /// Down when a breaker that decides is down.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Every live breaker, in the order they were built.
    pub fn breakers(&self) -> &[BreakerHealth] {
        &self.breakers
    }

    /// Every limiter a call has used, in the order first used.
    pub fn limits(&self) -> &[LimitHealth] {
        &self.limits
    }

    /// The retry throttle of each operation that has one, as its latest
    /// call left it (feature `dashboard`; empty without it).
    pub fn throttles(&self) -> &[ThrottleHealth] {
        &self.throttles
    }
}

/// One operation's retry throttle in a [`Health`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrottleHealth {
    operation: Cow<'static, str>,
    tokens_milli: u64,
    max_milli: u64,
}

impl ThrottleHealth {
    /// The operation's name.
    pub fn operation(&self) -> &str {
        &self.operation
    }

    /// Its tokens, and the most it holds: retries run while the tokens
    /// are above half the most.
    pub fn tokens(&self) -> (f64, f64) {
        (
            self.tokens_milli as f64 / 1000.0,
            self.max_milli as f64 / 1000.0,
        )
    }
}

/// One breaker in a [`Health`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakerHealth {
    name: Cow<'static, str>,
    state: CircuitState,
    decides: bool,
    status: Status,
}

impl BreakerHealth {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its state.
    pub fn state(&self) -> CircuitState {
        self.state
    }

    /// Whether the probe counts it.
    pub fn decides(&self) -> bool {
        self.decides
    }

    /// Down when open or isolated (or half-open, if the probe says so),
    /// whether or not it decides.
    pub fn status(&self) -> Status {
        self.status
    }
}

/// One limiter in a [`Health`], as its latest call left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitHealth {
    name: &'static str,
    in_flight: Option<u64>,
    limit: Option<u64>,
}

impl LimitHealth {
    /// Its name.
    pub fn name(&self) -> &str {
        self.name
    }

    /// Attempts holding its permits; `None` for a limiter that doesn't count them.
    pub fn in_flight(&self) -> Option<u64> {
        self.in_flight
    }

    /// The concurrency limit in force; `None` for a limiter without one.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breaker::CircuitBreaker;
    use std::time::Duration;

    fn of<'h>(health: &'h Health, name: &str) -> &'h BreakerHealth {
        health.breakers().iter().find(|b| b.name() == name).unwrap()
    }

    #[test]
    fn half_open_is_up_unless_the_probe_says_down_and_only_named_breakers_decide() {
        let breaker = CircuitBreaker::builder()
            .name("health.tests.half_open")
            .failure_threshold(1)
            .break_duration(Duration::from_secs(10))
            .build()
            .unwrap();
        let t0 = Instant::now();
        breaker.try_acquire(t0).unwrap().record_failure(t0);
        let mine = Probe::new().breakers(["health.tests.half_open"]);
        let someone_else = Probe::new().breakers(["health.tests.another"]);
        let open = mine.check_at(t0);
        assert_eq!(
            (open.status(), of(&open, "health.tests.half_open").state()),
            (Status::Down, CircuitState::Open)
        );
        assert_eq!(someone_else.check_at(t0).status(), Status::Up);
        assert!(!of(&someone_else.check_at(t0), "health.tests.half_open").decides());

        let later = t0 + Duration::from_secs(10);
        let half_open = mine.check_at(later);
        assert_eq!(
            of(&half_open, "health.tests.half_open").state(),
            CircuitState::HalfOpen
        );
        assert_eq!(half_open.status(), Status::Up);
        assert_eq!(
            mine.half_open_is_down(true).check_at(later).status(),
            Status::Down
        );

        breaker.isolate();
        assert_eq!(
            Probe::new()
                .breakers(["health.tests.half_open"])
                .check_at(later)
                .status(),
            Status::Down
        );
    }
}
