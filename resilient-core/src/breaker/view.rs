//! [`View`]: what a breaker publishes for the people watching it — its
//! state, since when, and its gauge (feature `metrics`) — kept apart from
//! the words the breaker decides on, so that a reader never touches those;
//! and the views of the live breakers, which the `metrics` refresh and the
//! dashboard read.
//!
//! The breaker writes its view on each transition only, which is rare; a
//! reader (the `metrics` refresh, the dashboard) derives open → half-open
//! from the time, as [`CircuitBreaker::state`](super::CircuitBreaker::state)
//! does, so nothing has to run when a break ends.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use super::shared::Fleet;
use super::{CircuitState, FleetState};

/// A breaker's published state. Shared (in an `Arc`) between the breaker
/// and the registry of breakers, which holds it weakly.
#[derive(Debug)]
pub(crate) struct View {
    pub(crate) name: Cow<'static, str>,
    /// The breaker's time scale (see `CircuitBreaker::nanos`).
    anchor: Instant,
    /// The break of the latest open period, or the builder's before the
    /// first: written by the breaker when it opens, before it publishes
    /// `Open`, so that an open breaker's reader derives half-open from the
    /// break in force (a configured one, a grown one).
    break_nanos: AtomicU64,
    /// What the breaker was built with.
    #[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
    pub(crate) built: Built,
    /// `generation << 8 | state code`, raised with `fetch_max`: the writer
    /// of an older transition that stores late can't undo a newer one.
    state: AtomicU64,
    /// When the state in `state` began, on the breaker's time scale.
    since: AtomicU64,
    /// The fleet of a shared breaker.
    #[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
    fleet: Option<Weak<Fleet>>,
    /// The `breaker` label of its gauge, when it is not its name.
    #[cfg(feature = "metrics")]
    label: Option<Cow<'static, str>>,
}

/// What a breaker was built with, for the dashboard: the settings that
/// the installed configuration may override (`[breakers.NAME]`).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
pub(crate) struct Built {
    /// The consecutive failures that open it; `None`: it doesn't count them.
    pub(crate) failure_threshold: Option<u32>,
    pub(crate) break_nanos: u64,
    /// Whether its break grows with its openings (`break_duration_with`),
    /// up to `max_break_nanos`; a configured break then doesn't apply.
    pub(crate) grows: bool,
    pub(crate) max_break_nanos: u64,
}

/// Live breakers (a dropped breaker leaves a dead entry, swept on reading).
static BREAKERS: Mutex<Vec<Weak<View>>> = Mutex::new(Vec::new());

/// The gauge's value of a state: 0 closed, 1 half-open, 2 open, 3 isolated.
pub(crate) const fn code(state: CircuitState) -> u8 {
    match state {
        CircuitState::Closed => 0,
        CircuitState::HalfOpen => 1,
        CircuitState::Open => 2,
        CircuitState::Isolated => 3,
    }
}

const fn of_code(code: u64) -> CircuitState {
    match code {
        0 => CircuitState::Closed,
        1 => CircuitState::HalfOpen,
        3 => CircuitState::Isolated,
        _ => CircuitState::Open,
    }
}

impl View {
    /// A closed breaker's view, as of `since` on the scale of `anchor`.
    pub(super) fn new(
        name: Cow<'static, str>,
        anchor: Instant,
        built: Built,
        since: u64,
        fleet: Option<Weak<Fleet>>,
    ) -> Self {
        View {
            name,
            anchor,
            break_nanos: AtomicU64::new(built.break_nanos),
            built,
            state: AtomicU64::new(0),
            since: AtomicU64::new(since),
            fleet,
            #[cfg(feature = "metrics")]
            label: None,
        }
    }

    /// The view with its gauge labelled `label` rather than its name.
    #[cfg(feature = "metrics")]
    pub(crate) fn labelled(mut self, label: Option<Cow<'static, str>>) -> Self {
        self.label = label;
        self
    }

    /// What a shared breaker knows of its fleet; `None` for a breaker that
    /// is not shared (or is gone).
    #[cfg_attr(not(feature = "dashboard"), allow(dead_code))]
    pub(crate) fn fleet_state(&self) -> Option<FleetState> {
        self.fleet.as_ref()?.upgrade().map(|fleet| fleet.state())
    }

    /// The view of a breaker that was just built: it is registered, and
    /// its gauge reads closed.
    pub(crate) fn publish(self) -> Arc<View> {
        let view = Arc::new(self);
        {
            let mut breakers = BREAKERS.lock().unwrap_or_else(PoisonError::into_inner);
            breakers.retain(|breaker| breaker.strong_count() > 0);
            breakers.push(Arc::downgrade(&view));
        }
        #[cfg(feature = "metrics")]
        {
            crate::catalog::describe();
            view.gauge(CircuitState::Closed);
        }
        view
    }

    /// Every live breaker's view, in the order they were built.
    pub(crate) fn live() -> Vec<Arc<View>> {
        let mut breakers = BREAKERS.lock().unwrap_or_else(PoisonError::into_inner);
        breakers.retain(|breaker| breaker.strong_count() > 0);
        breakers.iter().filter_map(Weak::upgrade).collect()
    }

    /// The break of the open period that begins: written before the
    /// breaker publishes `Open` (with `entered`, which releases it).
    pub(crate) fn set_break(&self, nanos: u64) {
        self.break_nanos.store(nanos, Ordering::Relaxed);
    }

    /// The break of the latest open period (the builder's before the
    /// first).
    #[cfg(feature = "dashboard")]
    pub(crate) fn break_in_force(&self) -> Duration {
        Duration::from_nanos(self.break_nanos.load(Ordering::Relaxed))
    }

    /// The breaker entered `state` in `generation`, at `at`.
    pub(crate) fn entered(&self, generation: u32, state: CircuitState, at: u64) {
        let packed = u64::from(generation) << 8 | u64::from(code(state));
        let previous = self.state.fetch_max(packed, Ordering::AcqRel);
        if previous < packed {
            self.since.store(at, Ordering::Release);
        }
    }

    /// The state at `now`, and for how long it has held: an open breaker
    /// whose break has elapsed is half-open, since the break's end.
    pub(crate) fn state_at(&self, now: Instant) -> (CircuitState, Duration) {
        let state = of_code(self.state.load(Ordering::Acquire) & 0xff);
        let since = self.since.load(Ordering::Acquire);
        let now = super::on_scale(self.anchor, now);
        let ends = since.saturating_add(self.break_nanos.load(Ordering::Relaxed));
        let (state, since) = match state {
            CircuitState::Open if now >= ends => (CircuitState::HalfOpen, ends),
            state => (state, since),
        };
        (state, Duration::from_nanos(now.saturating_sub(since)))
    }

    /// The time left of an open breaker's break at `now`, after which it
    /// lets a probe through; `None` in any other state.
    #[cfg(feature = "dashboard")]
    pub(crate) fn break_left(&self, now: Instant) -> Option<Duration> {
        let state = of_code(self.state.load(Ordering::Acquire) & 0xff);
        let since = self.since.load(Ordering::Acquire);
        let ends = since.saturating_add(self.break_nanos.load(Ordering::Relaxed));
        let now = super::on_scale(self.anchor, now);
        (state == CircuitState::Open && now < ends).then(|| Duration::from_nanos(ends - now))
    }

    /// Sets the breaker's gauge to `state`.
    #[cfg(feature = "metrics")]
    pub(crate) fn gauge(&self, state: CircuitState) {
        let label = self.label.as_ref().unwrap_or(&self.name).clone();
        ::metrics::gauge!(crate::catalog::CIRCUIT_STATE, "breaker" => label)
            .set(f64::from(code(state)));
    }
}
