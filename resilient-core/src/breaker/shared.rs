//! [`Fleet`]: what a breaker shared with a fleet keeps of the fleet, in
//! atomics the call path reads without I/O, and [`FleetState`], what it
//! tells of it.
//!
//! The call path only ever touches this side: a closed call adds its
//! outcome to one counter (one uncontended add); a call while the fleet
//! holds the breaker open reads the verdict, and one in the fleet's
//! half-open period takes the fleet's probe slot this instance holds, if
//! any. A background publisher (`redis_state`) takes the counts, talks to
//! the fleet, and writes back the verdict and the probe slot: it is the
//! only writer of the verdict, so the verdict needs no compare-and-swap.
//!
//! The probe slot ([`Fleet::grant`]) is the one word both sides change: the
//! publisher makes it ready once the fleet granted it, a call takes it,
//! the call's outcome (or its drop, unreported) settles it, and the
//! publisher tells the fleet and frees it. Each step is a swap that
//! expects the step before, in the fleet's epoch the slot was granted in.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::CircuitState;
use super::atomic::{AtomicBool, AtomicU64, Ordering};

/// What a shared breaker knows of its fleet, from
/// [`CircuitBreaker::fleet_state`](super::CircuitBreaker::fleet_state).
///
/// ```
/// use resilient::breaker::FleetState;
/// use resilient::CircuitState;
///
/// let state = FleetState::Joined(CircuitState::Open);
/// assert_eq!(state.as_str(), "open");
/// assert_eq!(FleetState::Alone.as_str(), "alone");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FleetState {
    /// The fleet's verdict, as last read: [`Closed`](CircuitState::Closed)
    /// leaves every call to the local breaker; [`Open`](CircuitState::Open)
    /// rejects every call until the fleet's break ends;
    /// [`HalfOpen`](CircuitState::HalfOpen) lets through only the probes the
    /// fleet grants.
    Joined(CircuitState),
    /// The fleet is out of reach (Redis down, paused or cut off, or not yet
    /// reached): the local breaker decides alone until it answers again.
    Alone,
}

impl FleetState {
    /// `closed`, `open`, `half-open` or `alone`: the dashboard's words.
    ///
    /// ```
    /// use resilient::breaker::FleetState;
    /// use resilient::CircuitState;
    ///
    /// assert_eq!(FleetState::Joined(CircuitState::HalfOpen).as_str(), "half-open");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            // The fleet's verdict is never isolated: isolation is local.
            FleetState::Joined(state) => state.as_str(),
            FleetState::Alone => "alone",
        }
    }
}

/// The verdict's tags: `epoch << 2 | tag`.
const ALONE: u64 = 0;
const CLOSED: u64 = 1;
const OPEN: u64 = 2;

/// The probe slot's states: `epoch << 3 | state`.
const NONE: u64 = 0;
const READY: u64 = 1;
const RUNNING: u64 = 2;
const SUCCEEDED: u64 = 3;
const FAILED: u64 = 4;
const RELEASED: u64 = 5;

/// One outcome, as the counter adds it: a call, and a failure or not.
const CALL: u64 = 1 << 32;

/// What a call may do while the fleet is consulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Admission {
    /// The fleet has no say: the local breaker's answer stands.
    Pass,
    /// The fleet holds the breaker open.
    Reject,
    /// The call runs as the fleet's probe, under this tag (never 0).
    Probe(u16),
}

/// How a fleet probe ended, for the publisher to tell the fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProbeEnd {
    Succeeded,
    Failed,
    /// Dropped unreported (its caller gave up): the slot goes back.
    Released,
}

/// The fleet as one breaker sees it. Shared (in an `Arc`) by the breaker
/// and its publisher, which holds it weakly and stops once the breaker is
/// gone.
pub(crate) struct Fleet {
    /// Outcomes since the publisher last took them: `calls << 32 | failures`.
    outcomes: AtomicU64,
    /// The fleet's verdict: `epoch << 2 | ALONE, CLOSED or OPEN`.
    verdict: AtomicU64,
    /// When the fleet's break ends, on the breaker's time scale.
    open_until: AtomicU64,
    /// Until when the verdict is trusted, on the breaker's time scale: a
    /// publisher that stopped answering can't hold the breaker open.
    fresh_until: AtomicU64,
    /// The fleet's probe slot this instance holds: `epoch << 3 | state`.
    grant: AtomicU64,
    /// A call found the fleet half-open and no slot ready.
    wanted: AtomicBool,
    /// Wakes the publisher before its next tick.
    wake: Arc<Notify>,
    /// The breaker's time scale (`CircuitBreaker::nanos`).
    anchor: Instant,
    /// The fleet's clock: real time, so that the fleet's break, which the
    /// other instances count too, ends when it ends for them.
    clock: fn() -> Instant,
}

#[cfg_attr(not(feature = "redis"), allow(dead_code))]
impl Fleet {
    /// A fleet not reached yet, on the time scale of `anchor`.
    pub(super) fn new(anchor: Instant, clock: fn() -> Instant) -> Self {
        Self {
            outcomes: AtomicU64::new(0),
            verdict: AtomicU64::new(ALONE),
            open_until: AtomicU64::new(0),
            fresh_until: AtomicU64::new(0),
            grant: AtomicU64::new(NONE),
            wanted: AtomicBool::new(false),
            wake: Arc::new(Notify::new()),
            anchor,
            clock,
        }
    }

    /// The publisher's wake-up call.
    pub(crate) fn waker(&self) -> Arc<Notify> {
        Arc::clone(&self.wake)
    }

    fn now(&self) -> u64 {
        super::on_scale(self.anchor, (self.clock)())
    }

    /// Counts an outcome of a call this breaker let run.
    #[inline]
    pub(super) fn count(&self, failed: bool) {
        self.outcomes
            .fetch_add(CALL | u64::from(failed), Ordering::Relaxed);
    }

    /// The calls and failures counted since the last take.
    pub(crate) fn take_outcomes(&self) -> (u32, u32) {
        let taken = self.outcomes.swap(0, Ordering::Relaxed);
        ((taken >> 32) as u32, taken as u32)
    }

    /// Whether the fleet may have a say: its verdict is open. One load,
    /// on the closed path.
    #[inline]
    pub(super) fn holds(&self) -> bool {
        self.verdict.load(Ordering::Acquire) & 0b11 == OPEN
    }

    /// What the fleet says of a call the local breaker admitted.
    pub(super) fn admit(&self) -> Admission {
        let verdict = self.verdict.load(Ordering::Acquire);
        if verdict & 0b11 != OPEN {
            return Admission::Pass;
        }
        let now = self.now();
        // Written before the verdict, which was loaded with acquire.
        if now >= self.fresh_until.load(Ordering::Relaxed) {
            return Admission::Pass;
        }
        if now < self.open_until.load(Ordering::Relaxed) {
            return Admission::Reject;
        }
        let epoch = verdict >> 2;
        let ready = slot(epoch, READY);
        match self.grant.compare_exchange(
            ready,
            slot(epoch, RUNNING),
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => Admission::Probe(tag(epoch)),
            Err(_) => {
                if !self.wanted.swap(true, Ordering::AcqRel) {
                    self.wake.notify_one();
                }
                Admission::Reject
            }
        }
    }

    /// The fleet probe tagged `tag` ended as `how`. Ignored if its slot
    /// was taken back meanwhile (a new epoch, the fleet lost).
    pub(super) fn settle(&self, tag: u16, how: ProbeEnd) {
        let current = self.grant.load(Ordering::Acquire);
        if current & 0b111 != RUNNING || self::tag(current >> 3) != tag {
            return;
        }
        let state = match how {
            ProbeEnd::Succeeded => SUCCEEDED,
            ProbeEnd::Failed => FAILED,
            ProbeEnd::Released => RELEASED,
        };
        let ended = slot(current >> 3, state);
        if self
            .grant
            .compare_exchange(current, ended, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            self.wake.notify_one();
        }
    }

    /// The probe slot's end, if a probe ended: the word to free once the
    /// fleet heard it, its epoch, and how it ended.
    pub(crate) fn settlement(&self) -> Option<(u64, u64, ProbeEnd)> {
        let current = self.grant.load(Ordering::Acquire);
        let how = match current & 0b111 {
            SUCCEEDED => ProbeEnd::Succeeded,
            FAILED => ProbeEnd::Failed,
            RELEASED => ProbeEnd::Released,
            _ => return None,
        };
        Some((current, current >> 3, how))
    }

    /// Frees the probe slot if it still is `word`.
    pub(crate) fn free(&self, word: u64) {
        let _ = self
            .grant
            .compare_exchange(word, NONE, Ordering::AcqRel, Ordering::Acquire);
    }

    /// Whether this instance holds no probe slot.
    pub(crate) fn slot_free(&self) -> bool {
        self.grant.load(Ordering::Acquire) == NONE
    }

    /// Whether a call asked for a probe since the last look.
    pub(crate) fn probe_wanted(&self) -> bool {
        self.wanted.load(Ordering::Acquire) && self.wanted.swap(false, Ordering::AcqRel)
    }

    /// The fleet granted this instance a probe slot in `epoch`.
    pub(crate) fn granted(&self, epoch: u64) {
        let _ = self.grant.compare_exchange(
            NONE,
            slot(epoch, READY),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// A granted slot that no call took in time goes back: its lease in
    /// the fleet is over.
    pub(crate) fn expire_ready(&self, epoch: u64) {
        self.free(slot(epoch, READY));
    }

    /// The fleet answered: in `epoch`, open for `open_for` more (`None`:
    /// closed; zero: half-open), trusted for `fresh_for`. Says whether
    /// this instance was alone before.
    pub(crate) fn joined(
        &self,
        epoch: u64,
        open_for: Option<Duration>,
        fresh_for: Duration,
    ) -> bool {
        let now = self.now();
        let tag = match open_for {
            Some(left) => {
                self.open_until
                    .swap(now.saturating_add(nanos(left)), Ordering::Relaxed);
                OPEN
            }
            None => CLOSED,
        };
        self.fresh_until
            .swap(now.saturating_add(nanos(fresh_for)), Ordering::Relaxed);
        let verdict = (epoch & (u64::MAX >> 2)) << 2 | tag;
        let before = self.verdict.swap(verdict, Ordering::AcqRel);
        if before >> 2 != verdict >> 2 {
            // A slot of another epoch means nothing to the fleet any more.
            self.grant.swap(NONE, Ordering::AcqRel);
        }
        before & 0b11 == ALONE
    }

    /// The fleet is out of reach: the local breaker decides alone. Says
    /// whether this instance had joined it before.
    pub(crate) fn alone(&self) -> bool {
        let before = self.verdict.swap(ALONE, Ordering::AcqRel);
        self.grant.swap(NONE, Ordering::AcqRel);
        before & 0b11 != ALONE
    }

    /// The fleet's state at this moment, as this instance knows it.
    pub(crate) fn state(&self) -> FleetState {
        let verdict = self.verdict.load(Ordering::Acquire);
        let now = self.now();
        match verdict & 0b11 {
            CLOSED => FleetState::Joined(CircuitState::Closed),
            OPEN if now >= self.fresh_until.load(Ordering::Relaxed) => FleetState::Alone,
            OPEN if now < self.open_until.load(Ordering::Relaxed) => {
                FleetState::Joined(CircuitState::Open)
            }
            OPEN => FleetState::Joined(CircuitState::HalfOpen),
            _ => FleetState::Alone,
        }
    }
}

fn slot(epoch: u64, state: u64) -> u64 {
    (epoch & (u64::MAX >> 3)) << 3 | state
}

/// The tag a permit carries for a probe of `epoch`: never 0, which marks
/// a permit that is no fleet probe. A permit would have to outlive 65 535
/// of the fleet's epochs to be taken for one of the current epoch.
fn tag(epoch: u64) -> u16 {
    (epoch % 0xffff) as u16 + 1
}

fn nanos(duration: Duration) -> u64 {
    super::saturating_nanos(duration)
}
