//! Chaos as a gate: admits every attempt, and draws as it does whether to
//! inject a fault, an outcome or latency into it (see [`crate::chaos`]).
//!
//! The kinds given (in the order fault, outcome, latency) take the
//! operation's switches in turn. One switch serves every kind: it draws
//! once per attempt, and a hit injects all of them. With a switch per
//! kind, each draws on its own. A fault and an outcome drawn together make
//! the fault: an attempt has one result.

use std::any::Any;

use super::{Admission, Gate, Interference, Refusal, Settlement};
use crate::chaos::{Chaos, Injection as Kind, Switches};
use crate::clock::Clock;
use crate::time::Nanos;

/// The switches and what each kind injects.
pub(crate) struct ChaosGate<'b, T, E> {
    pub(crate) switches: Switches<'b>,
    pub(crate) fault: Option<Fault<'b, E>>,
    pub(crate) outcome: Option<fn() -> T>,
    /// `Nanos::NONE` for none: 8 bytes, which every call's operation
    /// holds.
    pub(crate) latency: Nanos,
}

/// Makes an injected fault: the attribute's closure, which captures
/// nothing, or a layer's, made from what the layer holds (borrowed for
/// the call, as `Any`, so that the operation's type keeps no bound on `E`).
pub(crate) enum Fault<'b, E> {
    Fn(fn() -> E),
    #[cfg_attr(not(feature = "tower"), allow(dead_code))]
    From(
        fn(&(dyn Any + Send + Sync)) -> E,
        &'b (dyn Any + Send + Sync),
    ),
}

impl<T, E> Default for ChaosGate<'_, T, E> {
    fn default() -> Self {
        ChaosGate {
            switches: Switches::NONE,
            fault: None,
            outcome: None,
            latency: Nanos::NONE,
        }
    }
}

/// What the draws gave one attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Drawn {
    fault: bool,
    outcome: bool,
    latency: bool,
}

impl<T, E> ChaosGate<'_, T, E> {
    /// The switch of each kind given, in the order fault, outcome,
    /// latency; `None` for a kind not given or without a switch.
    fn paired(&self) -> [Option<&Chaos>; 3] {
        let given = [
            self.fault.is_some(),
            self.outcome.is_some(),
            self.latency != Nanos::NONE,
        ];
        let mut next = 0;
        given.map(|given| {
            if !given {
                return None;
            }
            let switch = self.switches.get(next);
            if self.switches.len() > 1 {
                next += 1;
            }
            switch
        })
    }

    /// Draws once per switch, each switch's draw shared by its kinds.
    fn draw(&self) -> Drawn {
        let [fault, outcome, latency] = self.paired();
        if self.switches.len() == 1 {
            let hit = self.switches.get(0).is_some_and(Chaos::should_inject);
            return Drawn {
                fault: hit && fault.is_some(),
                outcome: hit && outcome.is_some(),
                latency: hit && latency.is_some(),
            };
        }
        Drawn {
            fault: fault.is_some_and(Chaos::should_inject),
            outcome: outcome.is_some_and(Chaos::should_inject),
            latency: latency.is_some_and(Chaos::should_inject),
        }
    }
}

impl<'b, T, E> Gate<T, E> for ChaosGate<'b, T, E> {
    type Permit = Drawn;

    #[inline]
    fn admit<C: Clock>(&self, _: &C, _: &Admission) -> Result<Drawn, Refusal<E>> {
        Ok(self.draw())
    }

    /// While every switch is off there is nothing to draw: the first
    /// attempt keeps the fast path, for one relaxed load per switch.
    #[inline]
    fn free_permit(&self) -> Option<Drawn> {
        (!self.switches.any_enabled()).then_some(Drawn::default())
    }

    fn inject(&self, drawn: &mut Drawn) -> Option<Interference<T, E>> {
        let delay = match self.latency.get_optional() {
            Some(latency) if drawn.latency && !latency.is_zero() => Some(latency),
            _ => None,
        };
        let result = match (&self.fault, &self.outcome) {
            (Some(Fault::Fn(fault)), _) if drawn.fault => Some((Kind::Fault, Err(fault()))),
            (Some(Fault::From(fault, from)), _) if drawn.fault => {
                Some((Kind::Fault, Err(fault(*from))))
            }
            (_, Some(outcome)) if drawn.outcome => Some((Kind::Outcome, Ok(outcome()))),
            _ => None,
        };
        if delay.is_none() && result.is_none() {
            return None;
        }
        Some(Interference { delay, result })
    }

    #[inline]
    fn settle<C: Clock>(&self, _: &C, _: Drawn, _: &Settlement) {}
}

impl<T, E> Interference<T, E> {
    /// The kinds injected, in the order they happen: the latency, then
    /// the fault or the outcome.
    pub(crate) fn kinds(&self) -> [Option<Kind>; 2] {
        let latency = self.delay.map(|_| Kind::Latency);
        let result = self.result.as_ref().map(|(kind, _)| *kind);
        [latency, result]
    }
}
