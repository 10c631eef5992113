//! [`Shared`]: what every call of a layer, or of the reqwest middleware,
//! shares whatever the layer's type parameters: the name, the gates, the
//! throttle, the limiters, the hedges, chaos and the hooks. Set by the
//! setters of `layer.rs`, read by the call of `call.rs`.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use crate::chaos::Switches;
use crate::engine::hooks::RetryEvent;
use crate::limit::{Limiter, Priority};
use crate::report::ExecutionReport;
use crate::throttle::RetryBudget;

/// A gate shared by every call of every service of a layer: a `&'static`
/// one or one in an `Arc` (a `CircuitBreaker`, an `AdaptiveThrottle`).
pub(crate) type Held<G> = Arc<dyn Deref<Target = G> + Send + Sync>;

/// Declares [`HeldGates`] from the rows of `shared_gates!`.
macro_rules! held_gates {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($arg:ident: $ty:ty) => $field:ident: $gate:ident, E: $bound:path, $maker:ident,
        on a layer: [$($setup:literal),* $(,)?] $value:literal;
    )*) => {
        /// The gates of one shared value a layer holds, each set or not
        /// (see `shared_gates!`): every call's operation takes each that
        /// is set, by that operation's setter of the same name.
        #[derive(Clone, Default)]
        pub(crate) struct HeldGates {
            $(pub(crate) $field: Option<Held<$ty>>,)*
        }

        impl HeldGates {
            /// Whether any is set: a call's first attempt then needs a
            /// gate's admission.
            #[cfg_attr(not(feature = "reqwest"), allow(dead_code))]
            pub(crate) fn any(&self) -> bool {
                false $(|| self.$field.is_some())*
            }

            /// `op` with every gate that is set.
            pub(crate) fn on<'b, T, E, C, H>(
                &'b self,
                op: crate::engine::Operation<'b, T, E, C, H>,
            ) -> crate::engine::Operation<'b, T, E, C, H>
            where
                $(E: $bound,)*
            {
                $(let op = match self.$field.as_deref() {
                    Some(held) => op.$name(&**held),
                    None => op,
                };)*
                op
            }
        }

        impl fmt::Debug for HeldGates {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct("HeldGates")
                    $(.field(stringify!($name), &self.$field.is_some()))*
                    .finish()
            }
        }
    };
}

crate::engine::gates::shared_gates!(held_gates);
pub(crate) type RetryHook = Arc<dyn Fn(&RetryEvent<'_>) + Send + Sync>;
pub(crate) type ReportHook = Arc<dyn Fn(&ExecutionReport) + Send + Sync>;
/// A request's priority, by the user's function of a `Req`.
pub(crate) type PriorityFn = Arc<dyn Fn(&dyn std::any::Any) -> Option<Priority> + Send + Sync>;

/// What a layer's (or a middleware's) calls share whatever its type
/// parameters: the name, the breaker, the throttle, the limiters and the
/// hooks. By default, a retry budget of its own (see [`default_budget`]).
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) name: Option<Cow<'static, str>>,
    /// The breaker, the adaptive throttle: each gate of one shared value.
    pub(crate) gates: HeldGates,
    pub(crate) throttle: Option<Arc<dyn RetryBudget>>,
    pub(crate) on_retry: Option<RetryHook>,
    pub(crate) on_report: Option<ReportHook>,
    /// Taken in order before each attempt.
    pub(crate) limiters: Vec<Arc<dyn Limiter>>,
    pub(crate) limit_wait: Duration,
    /// Each request's priority, by the user's function.
    pub(crate) priority_of: Option<PriorityFn>,
    /// The hedge delay, and how many hedges may run beside an attempt
    /// (`None`: one).
    pub(crate) hedge: Option<Duration>,
    /// The measured delay and the cap on hedges, if either is set.
    pub(crate) hedge_window: Option<Arc<crate::engine::hedge_window::HedgeWindow>>,
    pub(crate) max_hedges: Option<u32>,
    /// What chaos injects into the attempts, and the switches that decide.
    pub(crate) chaos: Option<ChaosSpec>,
    /// State per endpoint: a breaker and a throttle in place of `breaker`
    /// and `throttle`, limiters after `limiters`; and the key function.
    pub(crate) per_key: crate::endpoint::PerKey,
    /// The layer's replicas (the middleware keeps its own).
    pub(crate) replicas: Option<super::replicas::LayerReplicas>,
    /// The header each attempt's deadline is sent in; read by the reqwest
    /// middleware (the layer sends it with `SendDeadline`).
    #[cfg(feature = "http")]
    pub(crate) send_deadline: Option<crate::deadline::header::DeadlineHeader>,
    /// The header each attempt that holds the retries below sends the
    /// hold in; read by the reqwest middleware (the layer sends it with
    /// `SendHold`).
    #[cfg(feature = "http")]
    pub(crate) send_hold: Option<crate::deadline::header::HoldHeader>,
}

/// A layer's chaos: the switches, and the fault and latency it injects.
#[derive(Clone, Default)]
pub(crate) struct ChaosSpec {
    pub(crate) switches: Option<Switches<'static>>,
    pub(crate) fault: Option<FaultMaker>,
    pub(crate) latency: Option<Duration>,
}

pub(crate) type FaultMaker = Arc<dyn Fn() -> ::tower::BoxError + Send + Sync>;

/// The retry budget of a layer or middleware that sets none: Finagle's
/// default, tower's `TpsBudget::default()`. Retries and hedges within
/// 20 % of the successes of the last 10 s, plus 10 a second (a reserve of
/// 100 over those 10 s), so that a client of a failing backend adds at
/// most that to its load; `no_retry_budget` opts out.
pub(crate) fn default_budget() -> Arc<dyn RetryBudget> {
    Arc::new(::tower::retry::budget::TpsBudget::default())
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            name: None,
            gates: HeldGates::default(),
            throttle: Some(default_budget()),
            on_retry: None,
            on_report: None,
            limiters: Vec::new(),
            limit_wait: Duration::ZERO,
            priority_of: None,
            hedge: None,
            hedge_window: None,
            max_hedges: None,
            chaos: None,
            per_key: crate::endpoint::PerKey::default(),
            replicas: None,
            #[cfg(feature = "http")]
            send_deadline: None,
            #[cfg(feature = "http")]
            send_hold: None,
        }
    }
}

impl Shared {
    /// The operation's name, as its panels show it: the one given, or
    /// the unnamed operation's.
    pub(crate) fn operation(&self) -> &str {
        self.name.as_deref().unwrap_or(crate::report::UNNAMED)
    }

    /// `request`'s priority by the user's function, if it has one that
    /// takes a `Req`.
    pub(crate) fn priority_of<Req: 'static>(&self, request: &Req) -> Option<Priority> {
        self.priority_of.as_ref().and_then(|of| of(request))
    }

    /// A copy of these with the state of `request`'s endpoint, when
    /// state is kept per endpoint: its key by the user's key function, or
    /// else by `default_key`, or else `""`. The key's breaker and throttle
    /// take the place of the layer's; its limiters are taken after the
    /// layer's own.
    pub(crate) fn for_endpoint<Req: 'static>(
        &self,
        request: &Req,
        default_key: impl FnOnce(&Req) -> Option<String>,
    ) -> Option<Shared> {
        let per_key = &self.per_key;
        if !per_key.is_set() {
            return None;
        }
        let key = per_key
            .key_of(request)
            .or_else(|| default_key(request))
            .unwrap_or_default();
        let mut shared = self.clone();
        if let Some(breakers) = &per_key.breakers {
            shared.gates.breaker = Some(Arc::new(breakers.get(&key)));
            #[cfg(feature = "dashboard")]
            breakers.show_under(self.operation());
        }
        if let Some(throttles) = &per_key.throttles {
            shared.throttle = Some(throttles.get(&key));
        }
        if let Some(limits) = &per_key.limits {
            shared.limiters.extend(limits.get(&key).iter().cloned());
        }
        Some(shared)
    }

    /// Whether a call's first attempt needs the engine for what these
    /// hold: a gate to admit it (one of [`HeldGates`], a limit, a chaos
    /// switch), a hedge beside it, or a header stamped as the engine sends
    /// it (a deadline, a hold).
    #[cfg(feature = "reqwest")]
    pub(crate) fn gated(&self) -> bool {
        self.gates.any()
            || !self.limiters.is_empty()
            || self.chaos.as_ref().is_some_and(|c| c.switches.is_some())
            || self.hedge_delay().is_some()
            || self.has_headers()
    }

    /// Whether each attempt sends a header the engine stamps (the
    /// middleware's feature brings `http`).
    #[cfg(feature = "reqwest")]
    fn has_headers(&self) -> bool {
        self.send_deadline.is_some() || self.send_hold.is_some()
    }

    /// The hedge delay, when the configuration hedges: a delay is set and
    /// `max_hedges` is not 0.
    #[inline]
    pub(crate) fn hedge_delay(&self) -> Option<Duration> {
        let at_percentile = self
            .hedge_window
            .as_ref()
            .is_some_and(|window| window.measures());
        // The fixed delay serves until the window holds enough samples.
        let fixed = self
            .hedge
            .or(at_percentile.then_some(crate::engine::hedge_window::FALLBACK));
        fixed.filter(|_| self.max_hedges != Some(0))
    }
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut f = f.debug_struct("Shared");
        f.field("name", &self.name)
            .field("gates", &self.gates)
            .field("throttle", &self.throttle.is_some())
            .field("on_retry", &self.on_retry.is_some())
            .field("on_report", &self.on_report.is_some())
            .field(
                "limiters",
                &self.limiters.iter().map(|l| l.name()).collect::<Vec<_>>(),
            )
            .field("limit_wait", &self.limit_wait)
            .field("hedge", &self.hedge)
            .field("max_hedges", &self.max_hedges)
            .field(
                "chaos",
                &self
                    .chaos
                    .as_ref()
                    .map(|chaos| (chaos.fault.is_some(), chaos.latency)),
            )
            .field("per_key", &self.per_key);
        #[cfg(feature = "http")]
        f.field("send_deadline", &self.send_deadline);
        #[cfg(feature = "http")]
        f.field("send_hold", &self.send_hold);
        f.finish()
    }
}
