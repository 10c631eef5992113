//! [`CircuitState`]: where a [`CircuitBreaker`](super::CircuitBreaker) stands.

use std::fmt;

/// Where a [`CircuitBreaker`](super::CircuitBreaker) stands.
///
/// ```
/// use resilient::{CircuitBreaker, CircuitState};
/// use std::time::Instant;
///
/// let breaker = CircuitBreaker::builder().build().unwrap();
/// assert_eq!(breaker.state(Instant::now()), CircuitState::Closed);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum CircuitState {
    /// Calls run; failures are counted.
    Closed,
    /// Calls are rejected until the break duration has elapsed.
    Open,
    /// A limited number of probe calls run; the first to report decides
    /// whether the breaker closes or opens again.
    HalfOpen,
    /// Held open by an operator through [`CircuitBreaker::isolate`](super::CircuitBreaker::isolate): every
    /// call is rejected, whatever the time, until
    /// [`CircuitBreaker::reset`](super::CircuitBreaker::reset).
    Isolated,
}

impl CircuitState {
    /// The state as a word: `closed`, `open`, `half-open` or `isolated`,
    /// as the dashboard shows it.
    ///
    /// ```
    /// use resilient::CircuitState;
    ///
    /// assert_eq!(CircuitState::Isolated.as_str(), "isolated");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            CircuitState::Closed => "closed",
            CircuitState::Open => "open",
            CircuitState::HalfOpen => "half-open",
            CircuitState::Isolated => "isolated",
        }
    }
}

impl fmt::Display for CircuitState {
    /// Writes [`as_str`](CircuitState::as_str).
    ///
    /// ```
    /// use resilient::CircuitState;
    ///
    /// assert_eq!(CircuitState::HalfOpen.to_string(), "half-open");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
