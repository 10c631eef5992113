//! Properties of the engine over random policies and random scripts of
//! attempts, checked against a model of the behaviour the guide states, on
//! virtual clocks: `FakeClock` for blocking runs, paused tokio time for async ones.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use proptest::option;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{RngAlgorithm, TestCaseError};
use resilient_core::{
    Attempt, AttemptKind, Backoff, Clock, ConfigError, DelaySource, FailureKind, FakeClock, Jitter,
    Operation, Outcome, RetryEvent, RetryPolicy, RetryPolicyBuilder, StopReason, TimedOut,
};

const DEFAULT_RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);
const DEFAULT_RATE_LIMIT_RETRIES: u32 = 10;
const FALLBACK_ID: usize = 1_000_000;
/// Virtual time below which every offset is an exact `Instant` and fits
/// the report's records.
const REPRESENTABLE: Duration = Duration::from_secs(1 << 33);
/// The longest wait or deadline the engine uses (584 years): longer ones are
/// cut to it, so that the report records exactly what was slept and granted
/// (`report_delays_equal_the_sleeps_past_584_years`,
/// `record_deadline_equals_the_attempts_past_584_years`).
const RECORD_CAP: Duration = Duration::from_nanos(u64::MAX - 1);

fn clip(d: Duration) -> Duration {
    d.min(RECORD_CAP)
}

const fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// The error type and the scripts.

#[derive(Debug, Clone, PartialEq)]
enum Fail {
    Transient(usize),
    Fatal(usize),
    Limited(usize, Duration),
    Timeout,
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<TimedOut> for Fail {
    fn from(_: TimedOut) -> Self {
        Fail::Timeout
    }
}

fn retryable(e: &Fail) -> bool {
    !matches!(e, Fail::Fatal(_))
}

/// What one scripted attempt does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    Succeed,
    Transient,
    Fatal,
    /// A retryable error carrying a Retry-After hint.
    Limited(Duration),
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Scripted {
    took: Duration,
    step: Step,
}

fn respond(step: Step, id: usize) -> Result<u32, Fail> {
    match step {
        Step::Succeed => Ok(u32::try_from(id).unwrap()),
        Step::Transient => Err(Fail::Transient(id)),
        Step::Fatal => Err(Fail::Fatal(id)),
        Step::Limited(hint) => Err(Fail::Limited(id, hint)),
    }
}

// ---------------------------------------------------------------------------
// Policies.

#[derive(Debug, Clone)]
struct Policy {
    max_attempts: u32,
    base: Duration,
    max: Duration,
    multiplier: f64,
    jitter: Jitter,
    timeout: Option<Duration>,
    /// Cut async attempts at their deadline even without a timeout.
    interrupt: bool,
    budget: Option<Duration>,
    /// `max_elapsed` and its `min_retries` floor.
    soft: Option<(Duration, u32)>,
    /// Whether the operation reads Retry-After hints at all.
    hints: bool,
    max_rate_limit_wait: Option<Duration>,
    max_rate_limit_retries: Option<u32>,
    seed: Option<u64>,
    /// Configure through a validated `RetryPolicy` where it is valid.
    via_policy: bool,
}

impl Policy {
    fn backoff(&self) -> Backoff {
        Backoff::exponential(self.base, self.max)
            .multiplier(self.multiplier)
            .jitter(self.jitter)
    }

    fn rate_limit_wait(&self) -> Duration {
        self.max_rate_limit_wait.unwrap_or(DEFAULT_RATE_LIMIT_WAIT)
    }

    fn rate_limit_retries(&self) -> u32 {
        self.max_rate_limit_retries
            .unwrap_or(DEFAULT_RATE_LIMIT_RETRIES)
    }

    fn builder(&self) -> RetryPolicyBuilder {
        let mut b = RetryPolicy::builder()
            .max_attempts(self.max_attempts)
            .backoff(self.backoff());
        if let Some(budget) = self.budget {
            b = b.budget(budget);
        }
        if let Some((cap, floor)) = self.soft {
            b = b.max_elapsed(cap).min_retries(floor);
        }
        if let Some(wait) = self.max_rate_limit_wait {
            b = b.max_retry_after_wait(wait);
        }
        if let Some(retries) = self.max_rate_limit_retries {
            b = b.max_retry_after_retries(retries);
        }
        if let Some(seed) = self.seed {
            b = b.jitter_seed(seed);
        }
        b
    }

    fn violations(&self) -> Vec<&'static str> {
        violations(&Settings {
            max_attempts: self.max_attempts,
            base: self.base,
            max: self.max,
            multiplier: self.multiplier,
            budget: self.budget,
            max_elapsed: self.soft.map(|(cap, _)| cap),
            min_retries: self.soft.map_or(0, |(_, floor)| floor),
        })
    }

    /// The deadline the contract grants an attempt starting at `started_at`.
    fn deadline(&self, started_at: Duration) -> Option<Duration> {
        let remaining = self.budget.map(|b| b.saturating_sub(started_at));
        match (self.timeout, remaining) {
            (Some(t), Some(r)) => Some(t.min(r)),
            (t, r) => t.or(r),
        }
    }
}

/// The builder's inputs, for the validity oracle.
#[derive(Debug, Clone)]
struct Settings {
    max_attempts: u32,
    base: Duration,
    max: Duration,
    multiplier: f64,
    budget: Option<Duration>,
    max_elapsed: Option<Duration>,
    min_retries: u32,
}

fn multiplier_is_valid(m: f64) -> bool {
    m >= 1.0
}

/// Which rules of the contract these settings break, by error name.
fn violations(s: &Settings) -> Vec<&'static str> {
    let mut v = Vec::new();
    if s.max_attempts == 0 {
        v.push("ZeroAttempts");
    }
    if !multiplier_is_valid(s.multiplier) {
        v.push("InvalidMultiplier");
    }
    if s.base > s.max {
        v.push("BaseAboveMax");
    }
    if s.budget == Some(Duration::ZERO) {
        v.push("ZeroDuration");
    }
    if let (Some(budget), Some(cap)) = (s.budget, s.max_elapsed)
        && budget < cap
    {
        v.push("BudgetBelowMaxElapsed");
    }
    if s.max_attempts > 0 && s.min_retries > s.max_attempts - 1 {
        v.push("MinRetriesAboveRetries");
    }
    v
}

fn error_name(e: &ConfigError) -> &'static str {
    match e {
        ConfigError::ZeroAttempts => "ZeroAttempts",
        ConfigError::InvalidMultiplier(_) => "InvalidMultiplier",
        ConfigError::BaseAboveMax { .. } => "BaseAboveMax",
        ConfigError::BudgetBelowMaxElapsed { .. } => "BudgetBelowMaxElapsed",
        ConfigError::MinRetriesAboveRetries { .. } => "MinRetriesAboveRetries",
        ConfigError::ZeroDuration(_) => "ZeroDuration",
        _ => "other",
    }
}

/// The operation for `p`, through a validated policy where `p` asks for
/// one and is valid, else through the operation's own setters.
fn configure(p: &Policy) -> Result<Operation<'static, u32, Fail>, TestCaseError> {
    let mut op = Operation::<u32, Fail>::new();
    let violations = p.violations();
    let built = p.via_policy.then(|| p.builder().build());
    let validated = matches!(built, Some(Ok(_)));
    match built {
        Some(Ok(policy)) => {
            prop_assert!(violations.is_empty(), "accepted {violations:?}: {p:?}");
            prop_assert_eq!(policy.max_attempts(), p.max_attempts);
            prop_assert_eq!(policy.backoff(), p.backoff());
            prop_assert_eq!(policy.budget(), p.budget);
            prop_assert_eq!(policy.max_elapsed(), p.soft.map(|(cap, _)| cap));
            op = op.policy(&policy);
        }
        Some(Err(e)) => {
            prop_assert!(
                violations.contains(&error_name(&e)),
                "rejected with {e:?}, expected one of {violations:?}: {p:?}"
            );
        }
        None => {}
    }
    if !validated {
        op = op.max_attempts(p.max_attempts).backoff(p.backoff());
        if let Some(budget) = p.budget {
            op = op.budget(budget);
        }
        if let Some((cap, floor)) = p.soft {
            op = op.max_elapsed(cap).min_retries(floor);
        }
        if let Some(wait) = p.max_rate_limit_wait {
            op = op.max_retry_after_wait(wait);
        }
        if let Some(retries) = p.max_rate_limit_retries {
            op = op.max_retry_after_retries(retries);
        }
        if let Some(seed) = p.seed {
            op = op.jitter_seed(seed);
        }
    }
    // Every record kept (at most 10 000 attempts here), so that each body
    // call is checked against its own record; the bound itself is tested
    // apart (`Records`' tests, `tests/suite/max_records.rs`).
    op = op.max_records(u32::MAX);
    if let Some(timeout) = p.timeout {
        op = op.timeout(timeout);
    }
    if p.interrupt {
        op = op.interrupt_at_deadline();
    }
    Ok(op)
}

// ---------------------------------------------------------------------------
// The delay oracle: min(base × multiplier^(n−1), max), computed in the log
// domain so that it shares no arithmetic with the engine.

fn to_duration(nanos: f64, cap: Duration) -> Duration {
    if nanos.is_nan() || nanos <= 0.0 {
        return Duration::ZERO;
    }
    if nanos >= cap.as_nanos() as f64 {
        return cap;
    }
    Duration::try_from_secs_f64(nanos / 1e9).map_or(cap, |d| d.min(cap))
}

/// Bounds on the nominal delay before backoff retry `retry`.
fn nominal_bounds(
    base: Duration,
    max: Duration,
    multiplier: f64,
    retry: u32,
) -> (Duration, Duration) {
    if base.is_zero() || max.is_zero() {
        return (Duration::ZERO, Duration::ZERO);
    }
    let m = if multiplier >= 1.0 { multiplier } else { 1.0 };
    let exponent = retry.saturating_sub(1);
    let growth = if exponent == 0 {
        0.0
    } else {
        f64::from(exponent) * m.log2()
    };
    let log_value = (base.as_nanos() as f64).log2() + growth;
    if log_value > (max.as_nanos() as f64).log2() + 1e-6 {
        return (max, max);
    }
    let value = log_value.exp2();
    let slack = value * 1e-6 + 2.0;
    (
        to_duration(value - slack, max),
        to_duration(value + slack, max),
    )
}

/// Bounds on the jittered backoff delay before backoff retry `retry`.
fn delay_bounds(p: &Policy, retry: u32) -> (Duration, Duration) {
    let (lo, hi) = nominal_bounds(p.base, p.max, p.multiplier, retry);
    match p.jitter {
        Jitter::None => (lo, hi),
        Jitter::Full => (Duration::ZERO, hi),
        Jitter::Equal => ((lo / 2).saturating_sub(Duration::from_nanos(1)), hi),
        // Grows from the previous delay, not the retry's number: within
        // [base, max] whatever came before.
        Jitter::Decorrelated => (p.base.min(p.max), p.max),
        // Up to twice the nominal delay, cut at the max.
        Jitter::Additive => (lo, hi.saturating_mul(2).min(p.max)),
        // Up to twice the nominal delay, which the max caps first.
        Jitter::AdditiveUncapped => (lo, hi.saturating_mul(2)),
        _ => (Duration::ZERO, Duration::MAX),
    }
}

// ---------------------------------------------------------------------------
// Running a case.

/// What a run left behind.
struct Observed {
    outcome: Outcome<u32, Fail>,
    /// The `Attempt` handed to each call of the body.
    seen: Vec<Attempt>,
    fallback_seen: Option<Attempt>,
    events: Vec<Event>,
    /// Every sleep the clock was asked for, in order.
    sleeps: Vec<Duration>,
    /// Virtual time the clock moved, from before the run to after it.
    clock_elapsed: Duration,
    /// Virtual time each `on_retry` call took, before its wait.
    listener: Duration,
    mode: Mode,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Blocking,
    Async,
}

type Event = (u32, Duration, DelaySource, FailureKind);

fn record_event<'a>(
    events: &'a RefCell<Vec<Event>>,
    slow: Option<(&'a FakeClock, Duration)>,
) -> impl Fn(&RetryEvent<'_>) + 'a {
    move |ev: &RetryEvent<'_>| {
        events
            .borrow_mut()
            .push((ev.attempt(), ev.delay(), ev.source(), ev.kind()));
        if let Some((clock, took)) = slow {
            clock.advance(took);
        }
    }
}

fn hint_reader(hints: bool) -> impl Fn(&Fail) -> Option<Duration> {
    move |e: &Fail| match e {
        Fail::Limited(_, d) if hints => Some(*d),
        _ => None,
    }
}

fn run_blocking(
    p: &Policy,
    script: &[Scripted],
    fallback: Option<Scripted>,
) -> Result<Observed, TestCaseError> {
    run_blocking_with_listener(p, script, fallback, Duration::ZERO)
}

/// A blocking run whose retry listener takes `listener` of virtual time.
fn run_blocking_with_listener(
    p: &Policy,
    script: &[Scripted],
    fallback: Option<Scripted>,
    listener: Duration,
) -> Result<Observed, TestCaseError> {
    let clock = FakeClock::new();
    let seen = RefCell::new(Vec::new());
    let fallback_seen = Cell::new(None);
    let events = RefCell::new(Vec::new());
    let calls = Cell::new(0usize);
    let op = configure(p)?
        .retry_if(retryable)
        .retry_after(hint_reader(p.hints))
        .on_retry(record_event(&events, Some((&clock, listener))))
        .clock(&clock);
    let body = |attempt: Attempt| {
        let k = calls.get();
        calls.set(k + 1);
        seen.borrow_mut().push(attempt);
        let s = script[k % script.len()];
        clock.advance(s.took);
        respond(s.step, k)
    };
    let outcome = match fallback {
        None => op.run(body),
        Some(s) => {
            let (clock, fallback_seen) = (&clock, &fallback_seen);
            op.run_with_fallback(
                body,
                Some(move |attempt: Attempt| {
                    fallback_seen.set(Some(attempt));
                    clock.advance(s.took);
                    respond(s.step, FALLBACK_ID)
                }),
            )
        }
    };
    Ok(Observed {
        outcome,
        seen: seen.into_inner(),
        fallback_seen: fallback_seen.get(),
        events: events.into_inner(),
        sleeps: clock.slept(),
        clock_elapsed: clock.elapsed(),
        listener,
        mode: Mode::Blocking,
    })
}

/// Tokio's clock, recording every sleep the engine asks of it.
#[derive(Clone, Default)]
struct RecordingTokioClock {
    sleeps: Arc<Mutex<Vec<Duration>>>,
    blocking_sleeps: Arc<Mutex<Vec<Duration>>>,
}

impl Clock for RecordingTokioClock {
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    fn sleep(&self, duration: Duration) {
        self.blocking_sleeps.lock().unwrap().push(duration);
    }

    fn sleep_async(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        self.sleeps.lock().unwrap().push(duration);
        tokio::time::sleep(duration)
    }
}

fn run_async(
    p: &Policy,
    script: &[Scripted],
    fallback: Option<Scripted>,
) -> Result<Observed, TestCaseError> {
    let runtime = crate::common::paused_runtime();
    runtime.block_on(async {
        let clock = RecordingTokioClock::default();
        let seen = RefCell::new(Vec::new());
        let fallback_seen = Cell::new(None);
        let events = RefCell::new(Vec::new());
        let calls = Cell::new(0usize);
        let op = configure(p)?
            .retry_if(retryable)
            .retry_after(hint_reader(p.hints))
            .on_retry(record_event(&events, None))
            .clock(clock.clone());
        let start = tokio::time::Instant::now();
        let body = async |attempt: Attempt| {
            let k = calls.get();
            calls.set(k + 1);
            seen.borrow_mut().push(attempt);
            let s = script[k % script.len()];
            tokio::time::sleep(s.took).await;
            respond(s.step, k)
        };
        let fallback_seen_ref = &fallback_seen;
        let outcome = match fallback {
            None => op.run_async(body).await,
            Some(s) => {
                op.run_async_with_fallback(
                    body,
                    Some(async move |attempt: Attempt| {
                        fallback_seen_ref.set(Some(attempt));
                        tokio::time::sleep(s.took).await;
                        respond(s.step, FALLBACK_ID)
                    }),
                )
                .await
            }
        };
        let clock_elapsed = start.elapsed();
        prop_assert_eq!(clock.blocking_sleeps.lock().unwrap().len(), 0);
        let sleeps = clock.sleeps.lock().unwrap().clone();
        Ok::<_, TestCaseError>(Observed {
            outcome,
            seen: seen.into_inner(),
            fallback_seen: fallback_seen.get(),
            events: events.into_inner(),
            sleeps,
            clock_elapsed,
            listener: Duration::ZERO,
            mode: Mode::Async,
        })
    })
}

// ---------------------------------------------------------------------------
// The model.

/// What the contract says follows a retryable failure.
#[derive(Debug)]
enum Decision {
    /// Stop, with one of these reasons (the contract does not rank them).
    Stop(Vec<StopReason>),
    /// Sleep a delay within `[lo, hi]` from `source`; `may_stop`: a draw
    /// near `hi` would start the next attempt past the budget, so stopping
    /// for the budget is also allowed.
    Wait {
        source: DelaySource,
        lo: Duration,
        hi: Duration,
        may_stop: bool,
    },
}

/// The run's counters so far, as the contract defines them.
#[derive(Debug, Default)]
struct Counters {
    rate_limit_retries: u32,
    rate_limit_waited: Duration,
    backoff_retries: u32,
}

fn decide(
    p: &Policy,
    primaries: u32,
    elapsed: Duration,
    hint: Option<Duration>,
    c: &Counters,
) -> Decision {
    let mut reasons = Vec::new();
    // Stopping for the budget is allowed (not required) when only this holds.
    let mut may_stop = false;
    if p.budget.is_some_and(|b| elapsed >= b) {
        reasons.push(StopReason::BudgetExhausted);
    }
    if let Some((cap, floor)) = p.soft {
        let retries_run = primaries - 1;
        // An operation counts a floor above the retries allowed as all of
        // them (see `floor_above_the_retries_allowed_counts_as_all_of_them`);
        // here either reading passes.
        let clamped = floor.min(p.max_attempts.max(1) - 1);
        if elapsed >= cap && retries_run >= floor {
            reasons.push(StopReason::BudgetExhausted);
        } else if elapsed >= cap && retries_run >= clamped {
            may_stop = true;
        }
    }
    let decision = decide_path(p, primaries, elapsed, hint, c, reasons);
    match decision {
        Decision::Stop(mut reasons) if may_stop => {
            reasons.push(StopReason::BudgetExhausted);
            Decision::Stop(reasons)
        }
        Decision::Wait {
            source,
            lo,
            hi,
            may_stop: m,
        } => Decision::Wait {
            source,
            lo,
            hi,
            may_stop: m || may_stop,
        },
        stop => stop,
    }
}

/// The Retry-After or backoff path, after the caps.
fn decide_path(
    p: &Policy,
    primaries: u32,
    elapsed: Duration,
    hint: Option<Duration>,
    c: &Counters,
    mut reasons: Vec<StopReason>,
) -> Decision {
    if let Some(hint) = hint {
        if c.rate_limit_retries >= p.rate_limit_retries()
            || c.rate_limit_waited.saturating_add(hint) > p.rate_limit_wait()
            || p.budget.is_some_and(|b| elapsed.saturating_add(hint) >= b)
        {
            reasons.push(StopReason::RateLimitExhausted);
        }
        if !reasons.is_empty() {
            return Decision::Stop(reasons);
        }
        return Decision::Wait {
            source: DelaySource::RetryAfter,
            lo: hint,
            hi: hint,
            may_stop: false,
        };
    }
    if primaries - c.rate_limit_retries >= p.max_attempts {
        reasons.push(StopReason::AttemptsExhausted);
    }
    if !reasons.is_empty() {
        return Decision::Stop(reasons);
    }
    let (lo, hi) = delay_bounds(p, c.backoff_retries + 1);
    match p.budget {
        Some(b) if elapsed.saturating_add(lo) >= b => {
            Decision::Stop(vec![StopReason::BudgetExhausted])
        }
        Some(b) => Decision::Wait {
            source: DelaySource::Backoff,
            lo,
            hi,
            may_stop: elapsed.saturating_add(hi) >= b,
        },
        None => Decision::Wait {
            source: DelaySource::Backoff,
            lo,
            hi,
            may_stop: false,
        },
    }
}

/// How an attempt ended, once a possible timeout is accounted for.
#[derive(Debug, Clone, PartialEq)]
enum Ended {
    Ok(u32),
    Failed { error: Fail, kind: FailureKind },
}

/// Checks one run against the contract. Time-dependent checks apply while
/// virtual time stays representable; the counting and ordering ones always.
fn check(
    p: &Policy,
    script: &[Scripted],
    fallback: Option<Scripted>,
    obs: &Observed,
) -> Result<(), TestCaseError> {
    let report = obs.outcome.report();
    let records = report.attempts();
    let exact = obs.clock_elapsed < REPRESENTABLE;
    let interrupting = obs.mode == Mode::Async && (p.timeout.is_some() || p.interrupt);

    // Counting.
    let n = records
        .iter()
        .take_while(|r| r.kind() == AttemptKind::Primary)
        .count();
    prop_assert!(n >= 1, "no primary attempt");
    prop_assert!(records.len() <= n + 1, "records after the fallback");
    prop_assert_eq!(obs.seen.len(), n, "body calls vs primary records");
    // `max_attempts(0)` still makes the first attempt.
    let allowed = u64::from(p.max_attempts.max(1)) + u64::from(p.rate_limit_retries());
    prop_assert!(
        n as u64 <= allowed,
        "{n} primary attempts, at most {allowed} allowed"
    );
    prop_assert_eq!(report.retry_count() as usize, n - 1);
    prop_assert_eq!(report.attempt_count() as usize, records.len());

    // Sleeps: only before retries, each one attributed but for at most one
    // after which the budget had passed; the clock's list equal to the
    // report's.
    let delays = report.delays();
    let attributed: Vec<Duration> = records
        .iter()
        .filter_map(|r| r.delay_before().map(|d| d.duration()))
        .collect();
    prop_assert!(delays.len() <= attributed.len() + 1);
    prop_assert_eq!(&delays[..attributed.len()], &attributed[..]);
    let unattributed = delays.get(attributed.len()).copied();
    prop_assert!(records[0].delay_before().is_none());
    prop_assert!(records[1..n].iter().all(|r| r.delay_before().is_some()));
    prop_assert!(records[n..].iter().all(|r| r.delay_before().is_none()));
    // An attempt's timer is made only if the attempt is still pending after
    // its first poll: a body that sleeps zero finishes at once and asks for
    // no timer.
    let expected_sleeps: Vec<Duration> = records[..n]
        .iter()
        .enumerate()
        .flat_map(|(k, r)| {
            let pending = script[k % script.len()].took > Duration::ZERO;
            let timer = r.deadline().filter(|_| interrupting && pending);
            r.delay_before()
                .map(|d| d.duration())
                .into_iter()
                .chain(timer)
        })
        .chain(unattributed)
        .collect();
    let sleeps: Vec<Duration> = obs.sleeps.iter().copied().map(clip).collect();
    prop_assert_eq!(&sleeps, &expected_sleeps, "sleeps asked of the clock");

    // Retry events: one per wait, before it.
    let expected_events: Vec<Event> = (1..n)
        .map(|k| {
            let d = records[k].delay_before().unwrap();
            let kind = records[k - 1]
                .error()
                .map_or(FailureKind::Operation, |e| e.kind());
            (records[k - 1].number(), d.duration(), d.source(), kind)
        })
        .collect();
    let events: Vec<Event> = obs
        .events
        .iter()
        .map(|&(attempt, delay, source, kind)| (attempt, clip(delay), source, kind))
        .collect();
    prop_assert_eq!(&events[..events.len().min(n - 1)], &expected_events[..]);
    prop_assert_eq!(events.len(), n - 1 + usize::from(unattributed.is_some()));
    if let Some(u) = unattributed {
        let (attempt, delay, _, kind) = events[n - 1];
        prop_assert_eq!((attempt, delay), (records[n - 1].number(), u));
        prop_assert_eq!(Some(kind), records[n - 1].error().map(|e| e.kind()));
        prop_assert_eq!(report.stop_reason(), StopReason::BudgetExhausted);
    }

    // Replay the primary attempts.
    let mut elapsed = Duration::ZERO;
    let mut counters = Counters::default();
    let mut pending: Option<Decision> = None;
    let mut reasons: Option<Vec<StopReason>> = None;
    let mut last_result = None;
    // Whether the model accounts for a delay slept after the last attempt.
    let mut explained = false;
    for (k, rec) in records[..n].iter().enumerate() {
        let last = k + 1 == n;
        let number = u32::try_from(k + 1).unwrap();
        prop_assert_eq!(rec.number(), number);
        let attempt = obs.seen[k];
        prop_assert_eq!(
            (
                attempt.number(),
                attempt.retry_number(),
                attempt.deadline().map(clip),
                attempt.is_fallback()
            ),
            (number, number - 1, rec.deadline(), false),
            "attempt {} as handed to the body",
            number
        );

        if let Some(decision) = pending.take() {
            let Decision::Wait { source, lo, hi, .. } = decision else {
                unreachable!("only waits are kept pending");
            };
            let delay = rec.delay_before().unwrap();
            prop_assert_eq!(
                delay.source(),
                source,
                "source of the delay before attempt {}",
                number
            );
            let d = delay.duration();
            match source {
                DelaySource::RetryAfter => {
                    prop_assert_eq!(d, clip(lo), "Retry-After wait before attempt {}", number);
                    counters.rate_limit_retries += 1;
                    counters.rate_limit_waited = counters.rate_limit_waited.saturating_add(d);
                    prop_assert!(counters.rate_limit_retries <= p.rate_limit_retries());
                    prop_assert!(counters.rate_limit_waited <= p.rate_limit_wait());
                }
                DelaySource::Backoff => {
                    counters.backoff_retries += 1;
                    // Uncapped additive jitter may pass the max, up to twice it.
                    let most = match p.jitter {
                        Jitter::AdditiveUncapped => p.max.saturating_mul(2),
                        _ => p.max,
                    };
                    prop_assert!(
                        d <= most,
                        "backoff delay {d:?} above {most:?} (max {:?})",
                        p.max
                    );
                    prop_assert!(
                        clip(lo) <= d && d <= clip(hi),
                        "backoff delay {:?} before attempt {} outside [{:?}, {:?}]",
                        d,
                        number,
                        lo,
                        hi
                    );
                }
            }
            if exact && let Some(budget) = p.budget {
                prop_assert!(
                    elapsed.saturating_add(d) < budget,
                    "slept {d:?} at {elapsed:?} into the budget {budget:?}"
                );
            }
            elapsed = elapsed.saturating_add(obs.listener).saturating_add(d);
        }

        if exact {
            prop_assert_eq!(rec.started_at(), elapsed, "start of attempt {}", number);
            prop_assert_eq!(
                rec.deadline(),
                p.deadline(elapsed).map(clip),
                "deadline of attempt {}",
                number
            );
        }
        if k > 0
            && let Some(budget) = p.budget
        {
            prop_assert!(
                rec.started_at() < budget,
                "attempt {} started at {:?}, budget {:?}",
                number,
                rec.started_at(),
                budget
            );
        }

        let s = script[k % script.len()];
        let tie = interrupting && rec.deadline() == Some(s.took);
        let cut = interrupting && rec.deadline().is_some_and(|d| s.took > d);
        let timed_out = cut
            || (tie
                && rec
                    .error()
                    .is_some_and(|e| e.kind() == FailureKind::Timeout));
        let (ran, ended) = if timed_out {
            (
                rec.deadline().unwrap(),
                Ended::Failed {
                    error: Fail::Timeout,
                    kind: FailureKind::Timeout,
                },
            )
        } else {
            let ended = match respond(s.step, k) {
                Ok(v) => Ended::Ok(v),
                Err(error) => Ended::Failed {
                    error,
                    kind: FailureKind::Operation,
                },
            };
            (s.took, ended)
        };
        if exact {
            prop_assert_eq!(rec.elapsed(), ran, "duration of attempt {}", number);
        }
        elapsed = elapsed.saturating_add(ran);

        match &ended {
            Ended::Ok(_) => {
                prop_assert!(rec.error().is_none());
                prop_assert!(
                    last,
                    "attempt {} succeeded but the operation went on",
                    number
                );
                reasons = Some(vec![StopReason::Succeeded]);
            }
            Ended::Failed { error, kind } => {
                let recorded = rec.error();
                prop_assert!(recorded.is_some(), "failed attempt {} has no error", number);
                let recorded = recorded.unwrap();
                prop_assert_eq!(recorded.kind(), *kind);
                prop_assert_eq!(recorded.retryable(), retryable(error));
                prop_assert_eq!(recorded.message(), error.to_string());
                let hint = hint_reader(p.hints)(error);
                if !retryable(error) {
                    prop_assert!(last, "non-retryable attempt {} was retried", number);
                    reasons = Some(vec![StopReason::NotRetryable]);
                } else if exact {
                    let primaries = u32::try_from(k + 1).unwrap();
                    match decide(p, primaries, elapsed, hint, &counters) {
                        Decision::Stop(why) => {
                            prop_assert!(
                                last,
                                "went on after attempt {} though the contract stops ({:?}) at {:?}",
                                number,
                                why,
                                elapsed
                            );
                            reasons = Some(why);
                        }
                        Decision::Wait { source, lo, hi, .. } if last && unattributed.is_some() => {
                            // Slept, then found the budget gone on waking.
                            let u = unattributed.unwrap();
                            prop_assert_eq!(obs.events[n - 1].2, source);
                            prop_assert!(
                                clip(lo) <= u && u <= clip(hi),
                                "{:?} outside [{:?}, {:?}]",
                                u,
                                lo,
                                hi
                            );
                            let budget = p.budget;
                            prop_assert!(
                                budget.is_some(),
                                "slept {:?} after the last attempt without a budget",
                                u
                            );
                            let budget = budget.unwrap();
                            prop_assert!(
                                elapsed.saturating_add(u) < budget,
                                "slept {u:?} at {elapsed:?} into the budget"
                            );
                            elapsed = elapsed.saturating_add(obs.listener).saturating_add(u);
                            prop_assert!(
                                elapsed >= budget,
                                "woke at {:?} before the budget {:?} and stopped",
                                elapsed,
                                budget
                            );
                            explained = true;
                            reasons = Some(vec![StopReason::BudgetExhausted]);
                        }
                        Decision::Wait { may_stop, .. } if last => {
                            prop_assert!(
                                may_stop,
                                "stopped after attempt {} at {:?} ({:?}) where the contract retries",
                                number,
                                elapsed,
                                report.stop_reason()
                            );
                            reasons = Some(vec![StopReason::BudgetExhausted]);
                        }
                        wait => pending = Some(wait),
                    }
                } else if !last {
                    // Time is not representable: check only the path taken.
                    pending = Some(match hint {
                        Some(h) => Decision::Wait {
                            source: DelaySource::RetryAfter,
                            lo: h,
                            hi: h,
                            may_stop: false,
                        },
                        None => {
                            let (lo, hi) = delay_bounds(p, counters.backoff_retries + 1);
                            Decision::Wait {
                                source: DelaySource::Backoff,
                                lo,
                                hi,
                                may_stop: false,
                            }
                        }
                    });
                }
            }
        }
        if last {
            last_result = Some(ended);
        }
    }

    if exact {
        prop_assert!(
            unattributed.is_none() || explained,
            "slept {:?} after the last attempt",
            unattributed
        );
    }
    let primary = last_result.unwrap();
    let stop = report.stop_reason();
    prop_assert_eq!(
        stop == StopReason::Succeeded,
        matches!(primary, Ended::Ok(_)),
        "stop reason {:?} for {:?}",
        stop,
        primary
    );
    if let Some(reasons) = &reasons {
        prop_assert!(
            reasons.contains(&stop),
            "stop reason {stop:?}, expected one of {reasons:?}"
        );
    }

    // The fallback.
    let expected_result = match (fallback, &primary) {
        (Some(s), Ended::Failed { .. }) => {
            prop_assert_eq!(records.len(), n + 1, "the fallback did not run");
            prop_assert!(report.fallback_used());
            let rec = &records[n];
            let number = u32::try_from(n + 1).unwrap();
            prop_assert_eq!(rec.kind(), AttemptKind::Fallback);
            prop_assert_eq!(rec.number(), number);
            prop_assert_eq!(rec.deadline(), None);
            let attempt = obs.fallback_seen;
            prop_assert!(attempt.is_some(), "fallback record without a call");
            let attempt = attempt.unwrap();
            prop_assert_eq!(
                (
                    attempt.number(),
                    attempt.retry_number(),
                    attempt.deadline(),
                    attempt.is_fallback()
                ),
                (number, number - 2, None, true)
            );
            if exact {
                prop_assert_eq!(rec.started_at(), elapsed);
                prop_assert_eq!(rec.elapsed(), s.took);
            }
            elapsed = elapsed.saturating_add(s.took);
            let result = respond(s.step, FALLBACK_ID);
            match &result {
                Ok(_) => prop_assert!(rec.error().is_none()),
                Err(e) => {
                    let recorded = rec.error().unwrap();
                    prop_assert_eq!(recorded.kind(), FailureKind::Operation);
                    prop_assert_eq!(recorded.retryable(), retryable(e));
                    prop_assert_eq!(recorded.message(), e.to_string());
                }
            }
            result
        }
        (_, ended) => {
            prop_assert_eq!(records.len(), n);
            prop_assert!(!report.fallback_used());
            prop_assert!(
                obs.fallback_seen.is_none(),
                "fallback called after {:?}",
                ended
            );
            match ended {
                Ended::Ok(v) => Ok(*v),
                Ended::Failed { error, .. } => Err(error.clone()),
            }
        }
    };
    prop_assert_eq!(obs.outcome.result(), &expected_result);

    // Time: the attempts' durations plus the sleeps, nothing else.
    if exact {
        prop_assert_eq!(report.elapsed(), elapsed, "report's elapsed");
        prop_assert_eq!(obs.clock_elapsed, elapsed, "clock's elapsed");
    } else {
        prop_assert!(report.elapsed() <= obs.clock_elapsed);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Strategies.

fn up_to(max: Duration) -> impl Strategy<Value = Duration> {
    (0..=u64::try_from(max.as_nanos()).unwrap()).prop_map(Duration::from_nanos)
}

fn millis(range: std::ops::RangeInclusive<u64>) -> impl Strategy<Value = Duration> {
    range.prop_map(Duration::from_millis)
}

fn jitter() -> impl Strategy<Value = Jitter> {
    prop_oneof![
        Just(Jitter::Full),
        Just(Jitter::Equal),
        Just(Jitter::None),
        Just(Jitter::Decorrelated),
        Just(Jitter::Additive),
        Just(Jitter::AdditiveUncapped),
    ]
}

#[derive(Debug, Clone)]
enum MaxMode {
    Above(Duration),
    Equal,
    Zero,
    Huge,
    Any(Duration),
}

fn backoff_parts() -> impl Strategy<Value = (Duration, Duration, f64, Jitter)> {
    let base = prop_oneof![
        1 => Just(Duration::ZERO),
        8 => up_to(secs(10)),
        1 => Just(Duration::MAX),
    ];
    let max = prop_oneof![
        6 => up_to(secs(100)).prop_map(MaxMode::Above),
        1 => Just(MaxMode::Equal),
        1 => Just(MaxMode::Zero),
        1 => Just(MaxMode::Huge),
        1 => up_to(secs(20)).prop_map(MaxMode::Any),
    ];
    let multiplier = prop_oneof![
        2 => Just(1.0),
        2 => Just(2.0),
        2 => 1.0f64..4.0,
        1 => 1.0f64..1e12,
        1 => Just(1e9),
        1 => Just(f64::MAX),
        // Out of contract: a builder rejects these, an operation counts them as 1.
        1 => prop_oneof![Just(f64::NAN), Just(0.5), Just(0.0), Just(-1.0), Just(f64::NEG_INFINITY)],
    ];
    (base, max, multiplier, jitter()).prop_map(|(base, max, multiplier, jitter)| {
        let max = match max {
            MaxMode::Above(extra) => base.saturating_add(extra),
            MaxMode::Equal => base,
            MaxMode::Zero => Duration::ZERO,
            MaxMode::Huge => Duration::MAX,
            MaxMode::Any(d) => d,
        };
        (base, max, multiplier, jitter)
    })
}

prop_compose! {
    fn policy()(
        max_attempts in prop_oneof![30 => 1..=50u32, 1 => Just(0u32)],
        (base, max, multiplier, jitter) in backoff_parts(),
        timeout in option::of(up_to(secs(30))),
        budget in option::weighted(0.5, prop_oneof![
            4 => millis(1..=120_000),
            2 => up_to(secs(120)),
            1 => Just(Duration::MAX),
            1 => Just(Duration::ZERO),
        ]),
        soft in option::weighted(0.4, (up_to(secs(120)), any::<u32>(), prop::bool::weighted(0.15))),
        hints in any::<bool>(),
        max_rate_limit_wait in option::of(prop_oneof![
            Just(Duration::ZERO),
            millis(0..=100_000),
            Just(secs(1_000_000_000)),
            Just(Duration::MAX),
        ]),
        max_rate_limit_retries in option::of(0..=20u32),
        seed in option::of(any::<u64>()),
        via_policy in any::<bool>(),
    ) -> Policy {
        Policy {
            max_attempts,
            base,
            max,
            multiplier,
            jitter,
            timeout,
            interrupt: false,
            budget,
            soft: soft.map(|(cap, floor, above)| {
                // Out of contract when `above`: more retries than allowed.
                let retries = max_attempts.saturating_sub(1);
                (cap, if above { retries + 1 + floor % 100 } else { floor % (retries + 1) })
            }),
            hints,
            max_rate_limit_wait,
            max_rate_limit_retries,
            seed,
            via_policy,
        }
    }
}

fn hint() -> impl Strategy<Value = Duration> {
    prop_oneof![
        3 => Just(Duration::ZERO),
        3 => millis(0..=5_000),
        3 => up_to(secs(120)),
        1 => Just(secs(1_000_000)),
        1 => Just(secs(u64::from(u32::MAX))),
        1 => Just(Duration::MAX),
    ]
}

fn step(hint: impl Strategy<Value = Duration>) -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => Just(Step::Succeed),
        10 => Just(Step::Transient),
        2 => Just(Step::Fatal),
        6 => hint.prop_map(Step::Limited),
    ]
}

/// Scripts of three shapes: a random mix; failures only; failures that
/// end in a success at a random attempt.
fn script(
    took: impl Strategy<Value = Duration>,
    hint: impl Strategy<Value = Duration>,
    len: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = Vec<Scripted>> {
    let scripted = (took, step(hint)).prop_map(|(took, step)| Scripted { took, step });
    (prop::collection::vec(scripted, len), 0..3u8, any::<Index>()).prop_map(
        |(mut script, shape, at)| {
            if shape > 0 {
                for s in &mut script {
                    if matches!(s.step, Step::Succeed | Step::Fatal) {
                        s.step = Step::Transient;
                    }
                }
            }
            if shape == 2 {
                let i = at.index(script.len());
                script[i].step = Step::Succeed;
            }
            script
        },
    )
}

fn took() -> impl Strategy<Value = Duration> {
    prop_oneof![
        2 => Just(Duration::ZERO),
        4 => up_to(secs(20)),
        4 => millis(0..=20_000),
    ]
}

fn fallback(
    took: impl Strategy<Value = Duration>,
    hint: impl Strategy<Value = Duration>,
) -> impl Strategy<Value = Option<Scripted>> {
    option::weighted(
        0.4,
        (took, step(hint)).prop_map(|(took, step)| Scripted { took, step }),
    )
}

prop_compose! {
    fn async_policy()(
        max_attempts in 1..=8u32,
        base in millis(0..=2_000),
        extra in millis(0..=5_000),
        multiplier in prop_oneof![Just(1.0), Just(2.0), Just(3.0)],
        timeout in option::of(millis(0..=15_000)),
        interrupt in any::<bool>(),
        budget in option::of(millis(1..=60_000)),
        soft in option::weighted(0.3, (millis(0..=60_000), any::<u32>())),
        hints in any::<bool>(),
        max_rate_limit_wait in option::of(millis(0..=30_000)),
        max_rate_limit_retries in option::of(0..=5u32),
        via_policy in any::<bool>(),
    ) -> Policy {
        Policy {
            max_attempts,
            base,
            max: base + extra,
            multiplier,
            jitter: Jitter::None,
            timeout,
            interrupt,
            budget,
            soft: soft.map(|(cap, floor)| (cap, floor % max_attempts)),
            hints,
            max_rate_limit_wait,
            max_rate_limit_retries,
            seed: None,
            via_policy,
        }
    }
}

fn any_duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        1 => Just(Duration::ZERO),
        1 => Just(Duration::MAX),
        3 => up_to(secs(1_000)),
        3 => (any::<u64>(), 0..1_000_000_000u32).prop_map(|(s, n)| Duration::new(s, n)),
    ]
}

fn any_multiplier() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => any::<f64>(),
        3 => 0.0f64..1e3,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::MAX),
        1 => Just(f64::MIN_POSITIVE),
        1 => Just(-0.0),
        1 => Just(1.0),
        1 => Just(1.0 - f64::EPSILON),
    ]
}

// ---------------------------------------------------------------------------
// Properties.

proptest! {
    #![proptest_config(config(1500))]

    /// Blocking runs on a `FakeClock` follow the contract exactly.
    #[test]
    fn blocking_runs_follow_the_contract(
        p in policy(),
        script in script(took(), hint(), 1..=80),
        fallback in fallback(took(), hint()),
        listener in prop_oneof![4 => Just(Duration::ZERO), 1 => up_to(secs(30))],
    ) {
        let obs = run_blocking_with_listener(&p, &script, fallback, listener)?;
        check(&p, &script, fallback, &obs)?;
        if p.seed.is_some() {
            let again = run_blocking_with_listener(&p, &script, fallback, listener)?;
            prop_assert_eq!(again.sleeps, obs.sleeps, "a seeded schedule is reproducible");
            if obs.clock_elapsed < REPRESENTABLE {
                prop_assert_eq!(again.outcome.report().attempts(), obs.outcome.report().attempts());
            }
        }
    }
}

proptest! {
    #![proptest_config(config(1000))]

    /// Async runs on paused tokio time, with timeouts cutting attempts at
    /// `min(timeout, budget − elapsed)`, follow the contract exactly.
    #[test]
    fn async_runs_with_timeouts_follow_the_contract(
        p in async_policy(),
        script in script(millis(0..=12_000), prop_oneof![Just(Duration::ZERO), millis(0..=3_000)], 1..=20),
        fallback in fallback(millis(0..=5_000), millis(0..=3_000)),
    ) {
        let obs = run_async(&p, &script, fallback)?;
        check(&p, &script, fallback, &obs)?;
    }
}

proptest! {
    #![proptest_config(config(1000))]

    /// `RetryPolicy::run_with_clock` makes the same attempts and sleeps as
    /// an operation on the same policy, and reports them in `RetryError`.
    #[test]
    fn plain_run_agrees_with_the_operation(
        max_attempts in 1..=20u32,
        (base, max, multiplier, jitter) in backoff_parts(),
        seed in any::<u64>(),
        budget in option::of(millis(1..=60_000)),
        script in script(took(), Just(Duration::ZERO), 1..=30),
    ) {
        // Keep to what a builder accepts.
        let (base, max) = (base.min(max), base.max(max));
        let multiplier = if multiplier >= 1.0 { multiplier } else { 2.0 };
        let mut builder = RetryPolicy::builder()
            .max_attempts(max_attempts)
            .backoff(Backoff::exponential(base, max).multiplier(multiplier).jitter(jitter))
            .jitter_seed(seed);
        if let Some(budget) = budget {
            builder = builder.budget(budget);
        }
        let policy = builder.build();
        prop_assert!(policy.is_ok(), "{:?}", policy);
        let policy = policy.unwrap();
        let body = |clock: &FakeClock, calls: &Cell<usize>, _: Attempt| {
            let k = calls.get();
            calls.set(k + 1);
            let s = script[k % script.len()];
            clock.advance(s.took);
            match s.step {
                Step::Succeed => Ok(k),
                _ => Err(k),
            }
        };
        let (plain_clock, plain_calls) = (FakeClock::new(), Cell::new(0));
        let plain = policy.run_with_clock(&plain_clock, |a| body(&plain_clock, &plain_calls, a));
        let (op_clock, op_calls) = (FakeClock::new(), Cell::new(0));
        let outcome = Operation::<usize, usize>::new()
            .policy(&policy)
            .clock(&op_clock)
            .run(|a| body(&op_clock, &op_calls, a));
        prop_assert_eq!(plain_clock.slept(), op_clock.slept());
        prop_assert_eq!(plain_clock.elapsed(), op_clock.elapsed());
        prop_assert_eq!(plain_calls.get(), op_calls.get());
        prop_assert_eq!(plain_calls.get(), outcome.report().attempt_count() as usize);
        match (plain, outcome.into_result()) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(e), Err(cause)) => {
                prop_assert_eq!(e.attempts() as usize, plain_calls.get());
                prop_assert_eq!(*e.cause(), cause);
                prop_assert_eq!(e.into_cause(), plain_calls.get() - 1);
            }
            (a, b) => prop_assert!(false, "plain {:?}, operation {:?}", a, b),
        }
    }
}

proptest! {
    #![proptest_config(config(2000))]

    /// The builder never panics, accepts exactly the valid settings, and
    /// names a broken rule when it rejects.
    #[test]
    fn builder_accepts_exactly_the_valid_settings(
        max_attempts in prop_oneof![Just(0u32), Just(1), Just(u32::MAX), any::<u32>(), 0..=60u32],
        base in any_duration(),
        max in any_duration(),
        multiplier in any_multiplier(),
        jitter in jitter(),
        budget in option::of(any_duration()),
        max_elapsed in option::of(any_duration()),
        min_retries in prop_oneof![Just(0u32), Just(u32::MAX), any::<u32>(), 0..=60u32],
        max_rate_limit_wait in option::of(any_duration()),
        max_rate_limit_retries in option::of(any::<u32>()),
        seed in option::of(any::<u64>()),
    ) {
        let backoff = Backoff::exponential(base, max).multiplier(multiplier).jitter(jitter);
        let mut b = RetryPolicy::builder()
            .max_attempts(max_attempts)
            .backoff(backoff)
            .min_retries(min_retries);
        if let Some(d) = budget {
            b = b.budget(d);
        }
        if let Some(d) = max_elapsed {
            b = b.max_elapsed(d);
        }
        if let Some(d) = max_rate_limit_wait {
            b = b.max_retry_after_wait(d);
        }
        if let Some(r) = max_rate_limit_retries {
            b = b.max_retry_after_retries(r);
        }
        if let Some(s) = seed {
            b = b.jitter_seed(s);
        }
        let built = b.build();
        let broken = violations(&Settings {
            max_attempts, base, max, multiplier, budget, max_elapsed, min_retries,
        });
        if multiplier == f64::INFINITY {
            // The contract is silent on an infinite multiplier: either answer.
            if let Err(e) = &built {
                prop_assert!(
                    broken.contains(&error_name(e)) || matches!(e, ConfigError::InvalidMultiplier(_)),
                    "{:?}", e
                );
            }
            return Ok(());
        }
        match built {
            Ok(policy) => {
                prop_assert!(broken.is_empty(), "accepted settings that break {:?}", broken);
                prop_assert_eq!(policy.max_attempts(), max_attempts);
                prop_assert_eq!(policy.backoff(), backoff);
                prop_assert_eq!(policy.budget(), budget);
                prop_assert_eq!(policy.max_elapsed(), max_elapsed);
            }
            Err(e) => {
                prop_assert!(!broken.is_empty(), "rejected valid settings with {:?}", e);
                prop_assert!(
                    broken.contains(&error_name(&e)),
                    "rejected with {:?}, broken rules {:?}", e, broken
                );
                if let ConfigError::InvalidMultiplier(m) = e {
                    prop_assert!(m.to_bits() == multiplier.to_bits());
                }
            }
        }
    }

    /// A NaN, negative or below-1 multiplier is rejected as such.
    #[test]
    fn builder_rejects_multipliers_below_one(
        multiplier in prop_oneof![
            Just(f64::NAN),
            Just(-f64::NAN),
            Just(f64::NEG_INFINITY),
            Just(-0.0),
            Just(0.0),
            Just(1.0 - f64::EPSILON),
            -1e300f64..1.0,
            0.0f64..1.0,
        ],
        max_attempts in 1..=100u32,
        base in up_to(secs(10)),
        extra in any_duration(),
    ) {
        let built = RetryPolicy::builder()
            .max_attempts(max_attempts)
            .backoff(Backoff::exponential(base, base.saturating_add(extra)).multiplier(multiplier))
            .build();
        match built {
            Err(ConfigError::InvalidMultiplier(m)) => prop_assert!(m.to_bits() == multiplier.to_bits()),
            other => prop_assert!(false, "multiplier {} gave {:?}", multiplier, other),
        }
    }

    /// `nominal_delay` never panics, never exceeds `max`, and follows
    /// `min(base × multiplier^(n−1), max)` for any input.
    #[test]
    fn nominal_delay_follows_the_formula_for_any_input(
        base in any_duration(),
        max in any_duration(),
        multiplier in any_multiplier(),
        jitter in jitter(),
        retry in prop_oneof![Just(0u32), Just(1), Just(10_000), Just(u32::MAX), 1..=100u32, any::<u32>()],
    ) {
        let backoff = Backoff::exponential(base, max).multiplier(multiplier).jitter(jitter);
        let nominal = backoff.nominal_delay(retry);
        prop_assert!(nominal <= max, "{nominal:?} above {max:?}");
        let (lo, hi) = nominal_bounds(base, max, multiplier, retry);
        prop_assert!(
            lo <= nominal && nominal <= hi,
            "retry {retry}: {nominal:?} outside [{lo:?}, {hi:?}]"
        );
    }
}

/// Each extreme setting the contract names, with 10 000 attempts: nothing
/// panics, and the counting and ordering properties still hold.
#[test]
fn extreme_settings_never_panic() {
    let max = Duration::MAX;
    let shapes: [(Duration, Duration, f64, Option<Duration>); 9] = [
        (max, max, f64::MAX, Some(max)),
        (max, max, f64::MAX, None),
        (Duration::ZERO, max, f64::MAX, Some(max)),
        (Duration::from_nanos(1), max, f64::MAX, None),
        (Duration::from_millis(1), secs(30), 1e9, None),
        (Duration::from_millis(1), secs(30), f64::MAX, Some(max)),
        (Duration::ZERO, Duration::ZERO, 1.0, None),
        (secs(1), secs(1), 1.0, Some(secs(10_000))),
        (Duration::from_nanos(1), max, 1.0 + 1e-12, None),
    ];
    let jitters = [Jitter::Full, Jitter::Equal, Jitter::None];
    let policy = |i: usize, max_attempts: u32, (base, max, multiplier, budget)| Policy {
        max_attempts,
        base,
        max,
        multiplier,
        jitter: jitters[i % 3],
        timeout: Some(Duration::MAX),
        interrupt: false,
        budget,
        soft: Some((Duration::MAX, max_attempts - 1)),
        hints: true,
        max_rate_limit_wait: Some(Duration::MAX),
        max_rate_limit_retries: Some(3),
        seed: Some(1),
        via_policy: i.is_multiple_of(2),
    };
    // Ten thousand attempts, one jitter per shape.
    let failing = [
        Scripted {
            took: Duration::ZERO,
            step: Step::Transient,
        },
        Scripted {
            took: secs(1),
            step: Step::Transient,
        },
    ];
    for (i, shape) in shapes.into_iter().enumerate() {
        let p = policy(i, 10_000, shape);
        let obs = run_blocking(&p, &failing, None).unwrap();
        check(&p, &failing, None, &obs).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let report = obs.outcome.report();
        if p.budget.is_none() {
            assert_eq!(report.attempt_count(), 10_000, "{p:?}");
            assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted, "{p:?}");
            assert!(report.delays().iter().all(|d| *d <= p.max), "{p:?}");
        }
    }
    // Hostile hints and durations, every jitter, both ways of configuring.
    let hinted = [
        Scripted {
            took: Duration::ZERO,
            step: Step::Limited(Duration::MAX),
        },
        Scripted {
            took: Duration::MAX,
            step: Step::Limited(Duration::ZERO),
        },
        Scripted {
            took: Duration::ZERO,
            step: Step::Transient,
        },
    ];
    let fallback = Some(Scripted {
        took: Duration::MAX,
        step: Step::Fatal,
    });
    for (i, shape) in shapes.into_iter().enumerate() {
        for j in 0..6 {
            let p = policy(i + j, 200, shape);
            let obs = run_blocking(&p, &hinted, fallback).unwrap();
            check(&p, &hinted, fallback, &obs).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        }
    }
}

/// The async path with `Duration::MAX` timeout, budget and delays, on
/// paused tokio time, neither panics nor hangs.
#[test]
fn extreme_async_settings_never_panic() {
    let p = Policy {
        max_attempts: 50,
        base: Duration::from_nanos(1),
        max: Duration::MAX,
        multiplier: f64::MAX,
        jitter: Jitter::Full,
        timeout: Some(Duration::MAX),
        interrupt: true,
        budget: Some(Duration::MAX),
        soft: None,
        hints: true,
        max_rate_limit_wait: Some(Duration::MAX),
        max_rate_limit_retries: Some(2),
        seed: None,
        via_policy: true,
    };
    let script = [
        Scripted {
            took: secs(1),
            step: Step::Limited(Duration::MAX),
        },
        Scripted {
            took: secs(1),
            step: Step::Transient,
        },
    ];
    let obs = run_async(&p, &script, None).unwrap();
    check(&p, &script, None, &obs).unwrap_or_else(|e| panic!("{e}"));
    let report = obs.outcome.report();
    assert!(report.attempt_count() >= 1);
    assert!(obs.outcome.result().is_err());
    // The first failure carries a hint of `Duration::MAX`: a wait that would
    // run into the budget is not taken.
    assert_eq!(report.stop_reason(), StopReason::RateLimitExhausted);
    assert_eq!(report.delays(), []);
}

/// Full jitter draws uniformly from `[0, delay]`, equal jitter from
/// `[delay / 2, delay]`: over many seeds the mean and the median sit in
/// the middle of the range.
#[test]
fn jitter_draws_uniformly_over_its_range() {
    let nominal = secs(8);
    for (jitter, low) in [(Jitter::Full, 0.0), (Jitter::Equal, 0.5)] {
        let fractions: Vec<f64> = (0..2_000u64)
            .map(|seed| {
                let clock = FakeClock::new();
                let _ = Operation::new()
                    .max_attempts(2)
                    .backoff(Backoff::exponential(nominal, nominal).jitter(jitter))
                    .jitter_seed(seed)
                    .clock(&clock)
                    .run(|_| Err::<(), _>(Fail::Transient(0)));
                let slept = clock.slept();
                assert_eq!(slept.len(), 1);
                slept[0].as_secs_f64() / nominal.as_secs_f64()
            })
            .collect();
        assert!(
            fractions.iter().all(|f| (low..=1.0).contains(f)),
            "{jitter:?}"
        );
        let mean = fractions.iter().sum::<f64>() / fractions.len() as f64;
        let middle = (low + 1.0) / 2.0;
        assert!((mean - middle).abs() < 0.02, "{jitter:?}: mean {mean}");
        let below =
            fractions.iter().filter(|f| **f < middle).count() as f64 / fractions.len() as f64;
        assert!(
            (below - 0.5).abs() < 0.05,
            "{jitter:?}: {below} below the middle"
        );
    }
}

// ---------------------------------------------------------------------------
// Engine bugs, pinned by the contract. Each fails today.

/// `delays()` is what was slept. Records keep durations as `u64`
/// nanoseconds, so a sleep past 2^64 ns (about 584 years) is reported
/// shorter than the clock was asked for.
#[test]

fn report_delays_equal_the_sleeps_past_584_years() {
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .max_attempts(2)
        .backoff(Backoff::constant(Duration::MAX))
        .clock(&clock)
        .run(|_| Err::<(), _>(Fail::Transient(0)));
    assert_eq!(clock.slept(), [RECORD_CAP]);
    assert_eq!(outcome.report().delays(), clock.slept());
}

/// Each attempt's deadline is `min(timeout, budget − elapsed)`;
/// the attempt and its record agree even for `budget(Duration::MAX)`.
#[test]

fn record_deadline_equals_the_attempts_past_584_years() {
    let seen = Cell::new(None);
    let outcome = Operation::new()
        .budget(Duration::MAX)
        .clock(FakeClock::new())
        .run(|attempt| {
            seen.set(attempt.deadline());
            Ok::<_, Fail>(())
        });
    assert_eq!(seen.get(), Some(RECORD_CAP));
    assert_eq!(outcome.report().attempts()[0].deadline(), seen.get());
}

/// `Operation` documents that "`min_retries` above the retries allowed
/// counts as all of them", the retries allowed being `max_attempts − 1` (the
/// builder's `MinRetriesAboveRetries`). The engine compares the raw floor
/// with every retry run, Retry-After ones included, so an oversized floor
/// keeps the soft cap from applying where the clamped floor stops.
#[test]

fn floor_above_the_retries_allowed_counts_as_all_of_them() {
    let run = |min_retries: u32| {
        Operation::new()
            .max_attempts(3)
            .backoff(Backoff::none())
            .max_elapsed(Duration::ZERO)
            .min_retries(min_retries)
            .retry_after(hint_reader(true))
            .clock(FakeClock::new())
            .run(|attempt| {
                let k = attempt.retry_number() as usize;
                Err::<(), _>(if k == 0 {
                    Fail::Limited(k, Duration::ZERO)
                } else {
                    Fail::Transient(k)
                })
            })
    };
    let clamped = run(2);
    assert_eq!(clamped.report().attempt_count(), 3);
    assert_eq!(clamped.report().stop_reason(), StopReason::BudgetExhausted);
    let oversized = run(99);
    assert_eq!(
        (
            oversized.report().attempt_count(),
            oversized.report().stop_reason()
        ),
        (
            clamped.report().attempt_count(),
            clamped.report().stop_reason()
        ),
        "min_retries(99) on 3 attempts should act as min_retries(2)"
    );
}
