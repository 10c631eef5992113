//! [`BreakerSnapshot`]: what a breaker knows, taken out of one process and
//! put back into a breaker of the next, so that a restart (a deploy, a
//! serverless instance started cold) doesn't close a breaker that was
//! holding a failing dependency off.

use std::time::{Duration, Instant, SystemTime};

use super::word::{Streak, Tag, Word};
use super::{CircuitBreaker, CircuitState, atomic, saturating_nanos};

/// Where a [`CircuitBreaker`] stood when [`snapshot`](CircuitBreaker::snapshot)
/// was taken: its state, the counts of its closed period, and when its
/// break ends in wall-clock time, so that another process can
/// [`restore`](CircuitBreaker::restore) it. With the `serde` feature it is
/// `Serialize` and `Deserialize`; its JSON names its
/// [format](BreakerSnapshot::FORMAT), which `restore` checks.
///
/// ```
/// use resilient::{CircuitBreaker, CircuitState};
/// use std::time::{Duration, Instant};
///
/// let breaker = || {
///     CircuitBreaker::builder()
///         .name("payments")
///         .failure_threshold(1)
///         .break_duration(Duration::from_secs(60))
///         .build()
///         .unwrap()
/// };
/// let before = breaker();
/// let now = Instant::now();
/// before.try_acquire(now).unwrap().record_failure(now);
/// let snapshot = before.snapshot();
/// assert_eq!(snapshot.state(), CircuitState::Open);
///
/// // In the next process: the break goes on where it was.
/// let after = breaker();
/// after.restore(&snapshot).unwrap();
/// assert_eq!(after.state(Instant::now()), CircuitState::Open);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BreakerSnapshot {
    pub(super) format: u32,
    name: String,
    state: CircuitState,
    consecutive_failures: u32,
    window_calls: u32,
    window_failures: u32,
    /// Openings in a row since it last closed (a growing break's count).
    openings: u64,
    /// The open period's whole length, in milliseconds; 0 when not open.
    break_ms: u64,
    /// When the break ends, in milliseconds since the Unix epoch; `None`
    /// when not open.
    break_ends_at_ms: Option<u64>,
}

/// Why [`CircuitBreaker::restore`] refused a snapshot; the breaker is as
/// it was.
///
/// ```
/// use resilient::CircuitBreaker;
/// use resilient::breaker::SnapshotError;
///
/// let payments = CircuitBreaker::builder().name("payments").build().unwrap();
/// let search = CircuitBreaker::builder().name("search").build().unwrap();
/// let refused = search.restore(&payments.snapshot()).unwrap_err();
/// assert!(matches!(refused, SnapshotError::Name { .. }));
/// assert_eq!(refused.to_string(), "a snapshot of breaker `payments` can't restore breaker `search`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The snapshot was written in a format this version doesn't read.
    Format {
        /// The snapshot's format.
        found: u32,
        /// [`BreakerSnapshot::FORMAT`].
        expected: u32,
    },
    /// The snapshot is of a breaker by another name.
    Name {
        /// The name in the snapshot.
        snapshot: String,
        /// The name of the breaker asked to restore it.
        breaker: String,
    },
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SnapshotError::Format { found, expected } => write!(
                f,
                "a breaker snapshot in format {found}, which this version can't read (it reads format {expected})"
            ),
            SnapshotError::Name { snapshot, breaker } => write!(
                f,
                "a snapshot of breaker `{snapshot}` can't restore breaker `{breaker}`"
            ),
        }
    }
}

impl std::error::Error for SnapshotError {}

impl BreakerSnapshot {
    /// The format this version writes and reads; a snapshot of another is
    /// refused by [`restore`](CircuitBreaker::restore).
    pub const FORMAT: u32 = 1;

    /// The format it was written in.
    pub fn format(&self) -> u32 {
        self.format
    }

    /// The name of the breaker it was taken of.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The breaker's state when it was taken (an open breaker whose break
    /// had ended is [`HalfOpen`](CircuitState::HalfOpen)).
    pub fn state(&self) -> CircuitState {
        self.state
    }

    /// The consecutive failures of its closed period.
    pub fn consecutive_failures(&self) -> u32 {
        self.consecutive_failures
    }

    /// The calls and failures its failure-ratio window had counted.
    pub fn window(&self) -> (u32, u32) {
        (self.window_calls, self.window_failures)
    }

    /// When its break ends, for an open breaker.
    pub fn break_ends_at(&self) -> Option<SystemTime> {
        self.break_ends_at_ms
            .map(|ms| SystemTime::UNIX_EPOCH + Duration::from_millis(ms))
    }
}

impl CircuitBreaker {
    /// Where the breaker stands now, to [`restore`](Self::restore) in
    /// another process: [`snapshot_at`](Self::snapshot_at) on the system's
    /// clocks. See [`BreakerSnapshot`].
    pub fn snapshot(&self) -> BreakerSnapshot {
        self.snapshot_at(Instant::now(), SystemTime::now())
    }

    /// Where the breaker stands at `now` (the instant its calls are timed
    /// by), with `wall` the wall-clock time at that instant, which dates
    /// the end of its break.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::{Duration, Instant, SystemTime};
    ///
    /// let breaker = CircuitBreaker::builder()
    ///     .failure_threshold(1)
    ///     .break_duration(Duration::from_secs(30))
    ///     .build()
    ///     .unwrap();
    /// let t0 = Instant::now();
    /// breaker.try_acquire(t0).unwrap().record_failure(t0);
    /// let wall = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
    /// let snapshot = breaker.snapshot_at(t0 + Duration::from_secs(10), wall);
    /// assert_eq!(snapshot.state(), CircuitState::Open);
    /// assert_eq!(snapshot.break_ends_at(), Some(wall + Duration::from_secs(20)));
    /// ```
    pub fn snapshot_at(&self, now: Instant, wall: SystemTime) -> BreakerSnapshot {
        self.obey_orders();
        let now = self.nanos(now);
        let word = self.settled_word();
        let streak = self.streak.load();
        let consecutive_failures = if streak.generation == word.generation {
            streak.failures
        } else {
            0
        };
        let (window_calls, window_failures) = self.window.counted(word.generation);
        let (state, break_nanos, left) = match word.tag {
            Tag::Open => {
                let length = self.break_nanos.load(atomic::Ordering::Relaxed);
                let ends = self
                    .opened_at
                    .load(atomic::Ordering::Relaxed)
                    .saturating_add(length);
                match ends.checked_sub(now).filter(|left| *left > 0) {
                    Some(left) => (CircuitState::Open, length, Some(left)),
                    None => (CircuitState::HalfOpen, length, None),
                }
            }
            Tag::HalfOpen => (CircuitState::HalfOpen, 0, None),
            Tag::Isolated => (CircuitState::Isolated, 0, None),
            _ => (CircuitState::Closed, 0, None),
        };
        let closed = state == CircuitState::Closed;
        BreakerSnapshot {
            format: BreakerSnapshot::FORMAT,
            name: self.config.name.to_string(),
            state,
            consecutive_failures: if closed { consecutive_failures } else { 0 },
            window_calls: if closed { window_calls } else { 0 },
            window_failures: if closed { window_failures } else { 0 },
            openings: self.openings.load(atomic::Ordering::Relaxed),
            break_ms: break_nanos / 1_000_000,
            break_ends_at_ms: left
                .map(|left| unix_ms(wall).saturating_add(left.div_ceil(1_000_000))),
        }
    }

    /// Puts the breaker where `snapshot` says its namesake stood: the
    /// counts of a closed one, an open one's break until the wall-clock
    /// time it ends (half-open at once if that time has passed), a
    /// half-open one as open with its break ended, so that the next call
    /// probes, and an isolation. [`restore_at`](Self::restore_at) on the
    /// system's clocks.
    ///
    /// For a breaker that has just been built, before it takes calls:
    /// calls admitted before the restore no longer count, as after a
    /// [`reset`](Self::reset). A shared (feature `redis`)
    /// breaker restores its own state; the fleet's comes from Redis.
    ///
    /// # Errors
    ///
    /// [`SnapshotError::Format`] for a snapshot of another format, and
    /// [`SnapshotError::Name`] for one of a breaker by another name; the
    /// breaker is left as it was.
    pub fn restore(&self, snapshot: &BreakerSnapshot) -> Result<(), SnapshotError> {
        self.restore_at(snapshot, Instant::now(), SystemTime::now())
    }

    /// [`restore`](Self::restore) at `now` (the instant its calls are
    /// timed by), with `wall` the wall-clock time at that instant.
    ///
    /// ```
    /// use resilient::{CircuitBreaker, CircuitState};
    /// use std::time::{Duration, Instant, SystemTime};
    ///
    /// let build = || CircuitBreaker::builder().failure_threshold(1).build().unwrap();
    /// let (old, new) = (build(), build());
    /// let (t0, wall) = (Instant::now(), SystemTime::UNIX_EPOCH + Duration::from_secs(1_000));
    /// old.try_acquire(t0).unwrap().record_failure(t0); // a 30 s break
    /// let snapshot = old.snapshot_at(t0, wall);
    ///
    /// // Restored 10 s later on the wall clock: 20 s of the break are left.
    /// let t1 = Instant::now();
    /// new.restore_at(&snapshot, t1, wall + Duration::from_secs(10)).unwrap();
    /// assert_eq!(new.state(t1 + Duration::from_secs(19)), CircuitState::Open);
    /// assert_eq!(new.state(t1 + Duration::from_secs(20)), CircuitState::HalfOpen);
    /// ```
    ///
    /// # Errors
    ///
    /// As [`restore`](Self::restore).
    pub fn restore_at(
        &self,
        snapshot: &BreakerSnapshot,
        now: Instant,
        wall: SystemTime,
    ) -> Result<(), SnapshotError> {
        if snapshot.format != BreakerSnapshot::FORMAT {
            return Err(SnapshotError::Format {
                found: snapshot.format,
                expected: BreakerSnapshot::FORMAT,
            });
        }
        if snapshot.name != self.config.name {
            return Err(SnapshotError::Name {
                snapshot: snapshot.name.clone(),
                breaker: self.config.name.to_string(),
            });
        }
        let now = self.nanos(now);
        let Some(held) = self.settle_then(now, |word| Some(word.next(Tag::Closing, 0))) else {
            return Ok(());
        };
        // The breaker is `Closing` and this thread's until it publishes.
        let generation = held.generation;
        self.begin_closed(generation, now);
        let tag = match snapshot.state {
            CircuitState::Closed => {
                self.streak.replace(Streak {
                    generation,
                    failures: snapshot.consecutive_failures,
                });
                self.window.resume(
                    generation,
                    now,
                    snapshot.window_calls,
                    snapshot.window_failures,
                );
                Tag::Closed
            }
            CircuitState::Open | CircuitState::HalfOpen => {
                let left = snapshot.break_ends_at_ms.map_or(0, |ends| {
                    ends.saturating_sub(unix_ms(wall)).saturating_mul(1_000_000)
                });
                // A growing break goes on at the length it had reached;
                // a fixed one keeps this breaker's own length.
                let length = match self.config.break_growth {
                    Some(_) if snapshot.break_ms > 0 => snapshot.break_ms.saturating_mul(1_000_000),
                    _ => self.break_nanos.load(atomic::Ordering::Relaxed),
                };
                self.openings
                    .store(snapshot.openings, atomic::Ordering::Relaxed);
                self.break_nanos.store(length, atomic::Ordering::Relaxed);
                #[cfg(any(feature = "metrics", feature = "dashboard"))]
                self.view.set_break(length);
                // Begun so that it ends `left` from now (at once when
                // nothing is left).
                self.opened_at.store(
                    now.saturating_add(left).saturating_sub(length),
                    atomic::Ordering::Relaxed,
                );
                Tag::Open
            }
            CircuitState::Isolated => Tag::Isolated,
        };
        // Nothing else changes a word in `Closing`, so this finds `held`.
        let _ = self.shift(now, |word| {
            (word == held).then(|| Word::new(tag, 0, generation))
        });
        Ok(())
    }

    /// The state word once no thread is moving it to `Open` or `Closed`.
    fn settled_word(&self) -> Word {
        loop {
            let word = self.word.load();
            if word.settled().is_some() {
                return word;
            }
            atomic::yield_now();
        }
    }
}

/// `wall` in milliseconds since the Unix epoch; 0 before it.
fn unix_ms(wall: SystemTime) -> u64 {
    wall.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| saturating_nanos(since) / 1_000_000)
}
