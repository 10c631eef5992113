//! [`CircuitPermit`]: one call's admission by a [`CircuitBreaker`], which
//! it reports the call's result to, or frees unreported when dropped.

use std::fmt;
use std::time::Instant;

use super::CircuitBreaker;
use super::shared::ProbeEnd;

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
    pub(super) generation: u32,
    pub(super) probe: bool,
    reported: bool,
    /// The tag of the fleet's probe this call runs as; 0 when none. Two
    /// bytes, so that the permit stays 16 bytes in the calls' futures.
    pub(super) fleet: u16,
}

impl<'a> CircuitPermit<'a> {
    pub(super) fn new(breaker: &'a CircuitBreaker, generation: u32, probe: bool) -> Self {
        Self {
            breaker,
            generation,
            probe,
            reported: false,
            fleet: 0,
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
        self.probe || self.fleet != 0
    }

    /// Tells the fleet how its probe ended, if this call was one.
    fn settle(&self, how: ProbeEnd) {
        if self.fleet != 0
            && let Some(fleet) = &self.breaker.fleet
        {
            fleet.settle(self.fleet, how);
        }
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
        self.settle(ProbeEnd::Succeeded);
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
        self.settle(ProbeEnd::Failed);
        self.breaker.on_failure(self.generation, self.probe, now);
    }
}

impl Drop for CircuitPermit<'_> {
    fn drop(&mut self) {
        if self.reported {
            return;
        }
        if self.probe {
            self.breaker.release_probe(self.generation);
        }
        self.settle(ProbeEnd::Released);
    }
}

impl fmt::Debug for CircuitPermit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CircuitPermit")
            .field("probe", &self.probe)
            .field("fleet_probe", &(self.fleet != 0))
            .finish_non_exhaustive()
    }
}
