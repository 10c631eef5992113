//! The setters [`ResilientLayer`](super::ResilientLayer) and the reqwest
//! middleware share, declared once as a macro over a type with
//! `settings: Settings` and `shared: Shared` fields: the attribute's
//! options, the gates and the hooks.

/// The setters of the gates of `shared_gates!` on a layer or the reqwest
/// middleware, `$Type` (`$path` in the examples): each takes its gate as a
/// `&'static` one or one in an `Arc`, into the layer's
/// [`HeldGates`](super::shared::HeldGates), with the row's docs and its
/// example of a layer.
macro_rules! layer_gate_setters {
    ([$Type:ident, $path:literal] $(
        $(#[$doc:meta])*
        $name:ident($arg:ident: $ty:ty) => $field:ident: $gate:ident, E: $bound:path, $maker:ident,
        on a layer: [$($setup:literal),* $(,)?] $value:literal;
    )*) => {$(
        $(#[$doc])*
        ///
        /// On a layer, the gate is a `&'static` one or one in an `Arc`,
        /// shared by every call of every service; the refused call returns
        /// the refusal itself as its error ([`CircuitOpen`](crate::CircuitOpen),
        /// [`Rejected`](crate::throttle::Rejected)). The classifier's
        /// [`Verdict`](crate::tower::Verdict) tells the gate how each
        /// attempt that ran ended: a `Success` as a success, any other as a
        /// failure.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        $(#[doc = $setup])*
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).", stringify!($name), "(", $value, ");")]
        /// # let _ = layer;
        /// # Ok::<(), resilient::ConfigError>(())
        /// ```
        pub fn $name<G>(mut self, $arg: G) -> Self
        where
            G: ::std::ops::Deref<Target = $ty> + Send + Sync + 'static,
        {
            self.shared.gates.$field = Some(::std::sync::Arc::new($arg));
            self
        }
    )*};
}
pub(crate) use layer_gate_setters;

/// Declares, once, the setters that [`ResilientLayer`] and the reqwest
/// middleware share: the attribute's options and the hooks, for a type
/// with `settings: Settings` and `shared: Shared` fields. `$Type` and
/// `$path` name the type in the examples. A new option shared by both is
/// a field of `Settings` or `Shared` and a setter here.
macro_rules! resilient_setters {
    ($Type:ident, $path:literal) => {
        $crate::settings::settings_setters!();

        /// Retries after the first attempt, as the attribute's `retries = N`:
        /// `N + 1` attempts on the backoff path.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(3);")]
        /// # let _ = layer;
        /// ```
        pub fn retries(self, retries: u32) -> Self {
            self.max_attempts(retries.saturating_add(1))
        }

        /// Takes attempts, backoff, caps and Retry-After limits from a
        /// prebuilt policy; the [`timeout`](Self::timeout) stays.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::{Backoff, RetryPolicy};
        /// use std::time::Duration;
        ///
        /// let policy = RetryPolicy::builder()
        ///     .max_attempts(4)
        ///     .backoff(Backoff::constant(Duration::from_millis(250)))
        ///     .budget(Duration::from_secs(5))
        ///     .build()?;
        #[doc = concat!("let layer = ", stringify!($Type), "::new().policy(&policy);")]
        /// # let _ = layer;
        /// # Ok::<(), resilient::ConfigError>(())
        /// ```
        pub fn policy(mut self, policy: &$crate::RetryPolicy) -> Self {
            let timeout = self.settings.timeout;
            self.settings = policy.settings;
            self.settings.timeout = timeout;
            self
        }

        /// Per-attempt timeout. An attempt still running at its deadline,
        /// `min(timeout, budget - elapsed)`, is dropped (its response future
        /// with it) and fails with [`TimedOut`](crate::TimedOut), which is
        /// retryable. A call whose last attempt timed out returns that
        /// `TimedOut` as its error.
        ///
        /// Without a timeout an attempt is still cut at the
        /// [`budget`](Self::budget), if there is one.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).timeout(Duration::from_secs(3));")]
        /// # let _ = layer;
        /// ```
        pub fn timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.settings.timeout = Some(timeout);
            self
        }

        /// Names the operation: the report and every event carry the name
        /// (default `"operation"`). A `&'static str` costs nothing per call; an
        /// owned name is cloned into each call's report.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().name(\"billing.charge\");")]
        /// # let _ = layer;
        /// ```
        pub fn name(mut self, name: impl ::std::convert::Into<::std::borrow::Cow<'static, str>>) -> Self {
            self.shared.name = Some(name.into());
            self
        }

        $crate::engine::gates::shared_gates!($crate::tower::layer_gate_setters[$Type, $path]);

        /// Shares a retry budget with other calls: a
        /// [`RetryThrottle`](crate::RetryThrottle) as a `&'static` or in an
        /// `Arc`, or, since this feature is on, tower's `TpsBudget`. A refused
        /// retry ends the call with stop reason `Throttled`. It replaces
        /// the default budget (see [`no_retry_budget`](Self::no_retry_budget)).
        ///
        /// ```
        /// use resilient::RetryThrottle;
        #[doc = concat!("use ", $path, ";")]
        ///
        /// static THROTTLE: RetryThrottle = RetryThrottle::new(10, 0.1);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(3).throttle(&THROTTLE);")]
        /// # let _ = layer;
        /// ```
        pub fn throttle<B>(mut self, budget: B) -> Self
        where
            B: $crate::RetryBudget + 'static,
        {
            self.shared.throttle = Some(::std::sync::Arc::new(budget));
            self
        }

        /// Retries and hedges without the default retry budget, as many
        /// as the settings allow: for a client whose backend is known to
        /// take them, or whose calls are throttled elsewhere.
        ///
        /// By default each layer (each client: its clones share it) keeps
        /// them within Finagle's budget, tower's `TpsBudget::default()`:
        /// 20 % of the successes of the last 10 s plus 10 a second (a
        /// reserve of 100), so a failing backend receives at most that
        /// beyond its first attempts; a refused retry ends the call with
        /// stop reason `Throttled`. [`throttle`](Self::throttle) sets
        /// another budget. The process's
        /// [`budget_default`]($crate::throttle::budget_default) doesn't
        /// apply to a layer, with its own budget or without.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(3).no_retry_budget();")]
        /// # let _ = layer;
        /// ```
        pub fn no_retry_budget(mut self) -> Self {
            self.shared.throttle = Some(::std::sync::Arc::new($crate::throttle::Unlimited));
            self
        }

        /// Takes a permit from `limiter` before each attempt (the first, a
        /// retry or a hedge) and returns it when the attempt ends, as the
        /// attribute's `limit`: a `&'static` limiter, one in an `Arc`, or
        /// one the layer owns, shared by every call. Called again, it adds
        /// another limiter, taken after the ones before it.
        ///
        /// An attempt refused a permit doesn't run: the call ends there,
        /// without a retry, with [`LimitExceeded`](crate::LimitExceeded) as
        /// its error and stop reason `LimitExceeded`. It takes no throttle
        /// token and the breaker doesn't count it. By default a refused
        /// attempt doesn't wait: see [`limit_wait`](Self::limit_wait).
        ///
        /// ```
        /// use resilient::limit::{Bulkhead, RateLimiter};
        #[doc = concat!("use ", $path, ";")]
        ///
        /// static POOL: Bulkhead = Bulkhead::new(32).named("pool");
        /// static QUOTA: RateLimiter = RateLimiter::per_minute(60).named("quota");
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).limit(&POOL).limit(&QUOTA);")]
        /// # let _ = layer;
        /// ```
        pub fn limit<L>(mut self, limiter: L) -> Self
        where
            L: $crate::limit::Limiter + 'static,
        {
            self.shared.limiters.push(::std::sync::Arc::new(limiter));
            self
        }

        /// How long an attempt may wait for the permits of its
        /// [`limit`](Self::limit)s: up to `wait`, and never past the
        /// budget. The wait counts against the budget and is the attempt's
        /// [`queued`](crate::AttemptRecord::queued) time in the report.
        /// Default: 0, don't wait.
        ///
        /// ```
        /// use resilient::limit::Bulkhead;
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        /// static POOL: Bulkhead = Bulkhead::new(32);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().limit(&POOL).limit_wait(Duration::from_millis(100));")]
        /// # let _ = layer;
        /// ```
        pub fn limit_wait(mut self, wait: ::std::time::Duration) -> Self {
            self.shared.limit_wait = wait;
            self
        }

        /// Each request's [`Priority`](crate::limit::Priority), by `priority`,
        /// a function of the request, for the limiters that shed by
        /// priority; in place of the one set with `.priority(…)` for every
        /// request. [`priority_extension`](crate::limit::priority_extension)
        /// reads it from an `http::Request`'s extensions. (The reqwest
        /// middleware reads a `Priority` from the request's extensions
        /// itself: `.with_extension(Priority::High)`.)
        ///
        /// ```
        /// use resilient::limit::Priority;
        #[doc = concat!("use ", $path, ";")]
        ///
        /// // Requests to /admin are critical; the others say nothing.
        #[doc = concat!("let layer = ", stringify!($Type), "::new().priority_of(|path: &String| {")]
        ///     path.starts_with("/admin").then_some(Priority::Critical)
        /// });
        /// # let _ = layer;
        /// ```
        pub fn priority_of<Req, F>(mut self, priority: F) -> Self
        where
            Req: 'static,
            F: Fn(&Req) -> Option<$crate::limit::Priority> + Send + Sync + 'static,
        {
            self.shared.priority_of = Some(::std::sync::Arc::new(move |request: &dyn ::std::any::Any| {
                request.downcast_ref::<Req>().and_then(&priority)
            }));
            self
        }

        /// Injects chaos into the attempts, as the attribute's `chaos`: `switches`
        /// (a `&'static` [`Chaos`](crate::chaos::Chaos), or an array of one per
        /// kind, in the order fault, latency) decide attempt by attempt, and
        /// [`chaos_fault`](Self::chaos_fault) and
        /// [`chaos_latency`](Self::chaos_latency) say what to inject. While
        /// every switch is off, an attempt pays one relaxed load per switch.
        /// The report marks each injected attempt
        /// ([`AttemptRecord::injected`](crate::AttemptRecord::injected)).
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::chaos::Chaos;
        /// use std::time::Duration;
        ///
        /// // Off until a test or a staging config switches it on.
        /// static UPSTREAM: Chaos = Chaos::new().injection_rate(0.05);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new()")]
        ///     .retries(2)
        ///     .chaos(&UPSTREAM)
        ///     .chaos_fault(|| "injected outage")
        ///     .chaos_latency(Duration::from_millis(300));
        /// # let _ = layer;
        /// ```
        pub fn chaos(mut self, switches: impl ::std::convert::Into<$crate::chaos::Switches<'static>>) -> Self {
            self.shared.chaos.get_or_insert_with(::std::default::Default::default).switches =
                Some(switches.into());
            self
        }

        /// The error an injected fault fails the attempt with, made anew for
        /// each injection; the request is not sent. An injected fault is a
        /// retryable failure, as a dropped connection would be: the call
        /// retries it, the breaker counts it, and a call whose last attempt
        /// it was returns it. Needs [`chaos`](Self::chaos).
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::chaos::Chaos;
        ///
        /// static FAULTS: Chaos = Chaos::new().injection_rate(1.0);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().chaos(&FAULTS).chaos_fault(|| \"injected\");")]
        /// # let _ = layer;
        /// ```
        pub fn chaos_fault<F, X>(mut self, fault: F) -> Self
        where
            F: Fn() -> X + Send + Sync + 'static,
            X: ::std::convert::Into<::tower::BoxError>,
        {
            self.shared.chaos.get_or_insert_with(::std::default::Default::default).fault =
                Some(::std::sync::Arc::new(move || fault().into()));
            self
        }

        /// How long an injected attempt waits before it is sent, on the
        /// layer's clock and inside its deadline: a
        /// [`timeout`](Self::timeout) cuts it. Needs [`chaos`](Self::chaos).
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use resilient::chaos::Chaos;
        /// use std::time::Duration;
        ///
        /// static SLOW: Chaos = Chaos::new().injection_rate(0.1);
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().chaos(&SLOW).chaos_latency(Duration::from_secs(2));")]
        /// # let _ = layer;
        /// ```
        pub fn chaos_latency(mut self, latency: ::std::time::Duration) -> Self {
            self.shared.chaos.get_or_insert_with(::std::default::Default::default).latency =
                Some(latency);
            self
        }

        /// Hedges slow attempts, as the attribute's `hedge`: an attempt
        /// still running after `delay` gets another beside it, with its own
        /// copy of the request, and the first to succeed is the answer; the
        /// other is dropped. Only requests that can be copied and that
        /// [`hedge_if`](Self::hedge_if) accepts are hedged; the others are
        /// sent one attempt at a time. A hedge counts in `attempt_count`,
        /// never in `retry_count`; the report records it as
        /// [`AttemptKind::Hedge`](crate::AttemptKind::Hedge), and the attempt
        /// it beat as cancelled. The breaker and the throttle are consulted
        /// before each hedge.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).hedge(Duration::from_millis(300));")]
        /// # let _ = layer;
        /// ```
        pub fn hedge(mut self, delay: ::std::time::Duration) -> Self {
            self.shared.hedge = Some(delay);
            self
        }

        /// Hedges at the `percentile` (`0.95` for p95, within
        /// `0.01..=0.999`) of the durations of recent successful attempts
        /// in place of a fixed delay, as tower's `Hedge` does: measured
        /// over a decaying window of 30 s, within 1 ms and 10 s, and the
        /// [`hedge`](Self::hedge) delay (100 ms without one) until 20
        /// samples exist. Hedges stay within
        /// [`max_extra_load`](Self::max_extra_load) of the requests, 5 % by
        /// default.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().retries(2).hedge_at_percentile(0.95).max_extra_load(0.05);")]
        /// # let _ = layer;
        /// ```
        pub fn hedge_at_percentile(mut self, percentile: f64) -> Self {
            let window = match self.shared.hedge_window.take() {
                Some(window) => window.with_percentile(percentile),
                None => $crate::engine::hedge_window::HedgeWindow::new(
                    Some(percentile),
                    $crate::engine::hedge_window::DEFAULT_MAX_EXTRA_LOAD,
                ),
            };
            self.shared.hedge_window = Some(::std::sync::Arc::new(window));
            self
        }

        /// The most hedges may add to the load, as a share of the requests
        /// that may hedge, counted over a decaying window of 30 s
        /// (Finagle's `maxExtraLoad`): `0.05` lets one request in twenty
        /// hedge, and a request that would pass it isn't hedged. Within
        /// `0..=1`. Caps a fixed [`hedge`](Self::hedge) delay too; without
        /// one it hedges nothing by itself.
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().hedge(Duration::from_millis(200)).max_extra_load(0.1);")]
        /// # let _ = layer;
        /// ```
        pub fn max_extra_load(mut self, share: f64) -> Self {
            let window = match self.shared.hedge_window.take() {
                Some(window) => window.with_max_extra_load(share),
                None => $crate::engine::hedge_window::HedgeWindow::new(None, share),
            };
            self.shared.hedge_window = Some(::std::sync::Arc::new(window));
            self
        }

        /// How many hedges may run beside an attempt, one more after each
        /// [`hedge`](Self::hedge) delay, as the attribute's `max_hedges`
        /// (default 1; 0 turns hedging off).
        ///
        /// ```
        #[doc = concat!("use ", $path, ";")]
        /// use std::time::Duration;
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new().hedge(Duration::from_millis(300)).max_hedges(2);")]
        /// # let _ = layer;
        /// ```
        pub fn max_hedges(mut self, max_hedges: u32) -> Self {
            self.shared.max_hedges = Some(max_hedges);
            self
        }

        /// Calls `listener` before each wait, as the attribute's `on_retry`.
        ///
        /// ```
        /// use resilient::RetryEvent;
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new()")]
        ///     .retries(2)
        ///     .on_retry(|event: &RetryEvent<'_>| eprintln!("attempt {} failed; waiting {:?}", event.attempt(), event.delay()));
        /// # let _ = layer;
        /// ```
        pub fn on_retry<F>(mut self, listener: F) -> Self
        where
            F: Fn(&$crate::RetryEvent<'_>) + Send + Sync + 'static,
        {
            self.shared.on_retry = Some(::std::sync::Arc::new(listener));
            self
        }

        /// Hands the report of every call to `hook`, when the call ends and
        /// before its result is returned, whatever the result.
        ///
        /// The hook is shared by every call, so it cannot tell which request a
        /// report is about; each report also rides on its response with the
        /// layer's [`attach_report`](crate::tower::ResilientLayer::attach_report),
        /// and always with the reqwest middleware.
        ///
        /// ```
        /// use resilient::ExecutionReport;
        #[doc = concat!("use ", $path, ";")]
        ///
        #[doc = concat!("let layer = ", stringify!($Type), "::new()")]
        ///     .retries(2)
        ///     .on_report(|report: &ExecutionReport| eprintln!("{report}"));
        /// # let _ = layer;
        /// ```
        pub fn on_report<F>(mut self, hook: F) -> Self
        where
            F: Fn(&$crate::ExecutionReport) + Send + Sync + 'static,
        {
            self.shared.on_report = Some(::std::sync::Arc::new(hook));
            self
        }
    };
}

pub(crate) use resilient_setters;
