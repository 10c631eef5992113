//! Every decision of a run, in one place, as pure functions: what becomes
//! of an attempt its gates refused ([`refused`]), whether a failure ends
//! its round ([`ends_round`]), what comes after a round that failed
//! ([`after_round`], and inside it [`schedule`], the retry rule), and
//! whether the budget ran out during a wait ([`after_wait`]).
//!
//! A primary attempt without hedges is a round of one, so the hedged and
//! the unhedged paths ask the same questions. No clock, no state, no side
//! effect: the execution feeds these functions and carries out their
//! answers.

use std::time::Duration;

use crate::report::{AttemptKind, Delay, DelaySource, StopReason};
use crate::settings::{LONGEST, Settings};

/// What becomes of an attempt that a gate refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// It is not started, and leaves no record: a hedge, whose round goes
    /// on with the attempts already running.
    Skip,
    /// It is recorded as failed with the refusal's error, and the call
    /// stops with the refusal's reason, whatever the classifier says: the
    /// attempt never reached the dependency, so another would fare no
    /// better.
    EndCall,
}

/// What becomes of a refused attempt of `kind`.
pub(crate) fn refused(kind: AttemptKind) -> Refused {
    match kind {
        AttemptKind::Hedge => Refused::Skip,
        AttemptKind::Primary | AttemptKind::Fallback => Refused::EndCall,
    }
}

/// Whether `failure` ends its round, which then is decided on: when it is
/// the `last` attempt of the round still running, or when no other attempt
/// of the round could change the answer (it was refused, or its error is
/// not retried).
pub(crate) fn ends_round(failure: &LastFailure, last: bool) -> bool {
    last || !failure.retryable || failure.ends.is_some()
}

/// The decision after a round that failed with `failure` at `elapsed`:
/// the wait before the next round, or why the call stops. A refusal stops
/// it; otherwise [`schedule`] decides.
pub(crate) fn after_round(
    settings: &Settings,
    counters: &Counters,
    elapsed: Duration,
    failure: LastFailure,
    delay: impl FnOnce(u32, Duration) -> Option<Duration>,
    allows_retry: impl FnOnce() -> bool,
) -> Result<Delay, Stop> {
    match failure.ends {
        Some(reason) => Err(Stop::Reason(reason)),
        None => schedule(settings, counters, elapsed, failure, delay, allows_retry),
    }
}

/// After a wait that ended at `elapsed`: why the call stops if the budget
/// passed while it slept.
pub(crate) fn after_wait(settings: &Settings, elapsed: Duration) -> Option<StopReason> {
    settings
        .budget
        .is_some_and(|budget| elapsed >= budget)
        .then_some(StopReason::BudgetExhausted)
}

/// What the attempts so far have used up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    /// Primary attempts made, the one that just failed included.
    pub(crate) primaries: u32,
    /// Retries taken on the Retry-After path; they don't spend `retries`.
    pub(crate) rate_limit_retries: u32,
    /// Time waited on the Retry-After path so far.
    pub(crate) rate_limit_waited: Duration,
}

impl Counters {
    /// The counters once `delay` has been decided: a Retry-After wait is
    /// counted against its own limits.
    pub(crate) fn after(mut self, delay: Delay) -> Counters {
        if delay.source() == DelaySource::RetryAfter {
            self.rate_limit_retries = self.rate_limit_retries.saturating_add(1);
            self.rate_limit_waited = self.rate_limit_waited.saturating_add(delay.duration());
        }
        self
    }
}

/// How the last attempt failed, as far as the decision cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LastFailure {
    /// The classifier's verdict.
    pub(crate) retryable: bool,
    /// Set when the attempt ends the call whatever the classifier says
    /// (a gate refused it, or its error is ignored): the reason.
    pub(crate) ends: Option<StopReason>,
    /// A Retry-After hint, read from a retryable error only.
    pub(crate) hint: Option<Duration>,
    /// Whether a call around this one holds its retries
    /// (`Nested::NoRetry`): read from a retryable error only.
    pub(crate) caller_retries: bool,
}

/// Why a Retry-After hint was not followed, for the event that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RateLimitRefused {
    pub(crate) hint: Duration,
    pub(crate) waited: Duration,
}

/// The decision after a failure at `elapsed`: the wait before the next
/// attempt, or why the operation stops.
///
/// `delay` turns the backoff's nominal delay before retry number `n` into
/// the one to sleep (the jitter), or says that the schedule has ended
/// (`None`: a custom schedule ran out); it is asked only when the backoff
/// path is taken. `throttle` says whether a
/// retry throttle lets the retry start; it is asked last, only when every
/// other rule allows a retry (a budget may spend a token when it says yes).
/// Checks run in this order: not retryable; the hard budget already spent;
/// the soft cap (once `min_retries` retries have run); the Retry-After path
/// (its count, its total wait, the budget); the attempts allowed; a backoff
/// wait that would start the next attempt at or past the budget; a caller
/// that holds the retry (`LeftToCaller`); last, the throttle.
///
/// `settings` must be [clamped](Settings::clamped).
pub(crate) fn schedule(
    settings: &Settings,
    counters: &Counters,
    elapsed: Duration,
    failure: LastFailure,
    delay: impl FnOnce(u32, Duration) -> Option<Duration>,
    throttle: impl FnOnce() -> bool,
) -> Result<Delay, Stop> {
    if !failure.retryable {
        return Err(Stop::Reason(StopReason::NotRetryable));
    }
    if settings.budget.is_some_and(|budget| elapsed >= budget) {
        return Err(Stop::Reason(StopReason::BudgetExhausted));
    }
    let retries_run = counters.primaries.saturating_sub(1);
    if settings
        .max_elapsed
        .is_some_and(|cap| elapsed >= cap && retries_run >= settings.min_retries)
    {
        return Err(Stop::Reason(StopReason::BudgetExhausted));
    }
    let starts_too_late = |wait: Duration| {
        settings
            .budget
            .is_some_and(|budget| elapsed.saturating_add(wait) >= budget)
    };
    let delay = if let Some(hint) = failure.hint {
        let waited = counters.rate_limit_waited.saturating_add(hint);
        // The cap is kept in nanoseconds, saturating at `LONGEST`: a cap
        // that saturated (`Duration::MAX`, say) bounds nothing.
        let max_wait = settings.max_retry_after_wait.get();
        if counters.rate_limit_retries >= settings.max_retry_after_retries
            || (max_wait < LONGEST && waited > max_wait)
            || starts_too_late(hint)
        {
            return Err(Stop::RateLimit(RateLimitRefused {
                hint,
                waited: counters.rate_limit_waited,
            }));
        }
        Delay::new(hint.min(LONGEST), DelaySource::RetryAfter)
    } else {
        // Attempts on the backoff path; Retry-After retries don't count.
        let backoff_attempts = counters
            .primaries
            .saturating_sub(counters.rate_limit_retries);
        if backoff_attempts >= settings.max_attempts {
            return Err(Stop::Reason(StopReason::AttemptsExhausted));
        }
        let nominal = settings.backoff.nominal_delay(backoff_attempts);
        let Some(wait) = delay(backoff_attempts, nominal) else {
            return Err(Stop::Reason(StopReason::AttemptsExhausted));
        };
        if starts_too_late(wait) {
            return Err(Stop::Reason(StopReason::BudgetExhausted));
        }
        Delay::new(wait.min(LONGEST), DelaySource::Backoff)
    };
    // Only a retry that would happen is left to the caller: a call that
    // would stop anyway stops for its own reason.
    if failure.caller_retries {
        return Err(Stop::Reason(StopReason::LeftToCaller));
    }
    if !throttle() {
        return Err(Stop::Reason(StopReason::Throttled));
    }
    Ok(delay)
}

/// Why the operation stops; a refused Retry-After hint keeps its numbers
/// for the event that reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Reason(StopReason),
    RateLimit(RateLimitRefused),
}

impl Stop {
    pub(crate) fn reason(self) -> StopReason {
        match self {
            Stop::Reason(reason) => reason,
            Stop::RateLimit(_) => StopReason::RateLimitExhausted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backoff::{Backoff, Jitter};
    use crate::time::Nanos;

    const fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    fn settings(max_attempts: u32) -> Settings {
        Settings {
            max_attempts,
            backoff: Backoff::exponential(secs(1), secs(8)).jitter(Jitter::None),
            ..Settings::DEFAULT
        }
        .clamped()
    }

    const RETRYABLE: LastFailure = LastFailure {
        retryable: true,
        ends: None,
        hint: None,
        caller_retries: false,
    };

    fn after(primaries: u32) -> Counters {
        Counters {
            primaries,
            ..Counters::default()
        }
    }

    fn decide(
        settings: &Settings,
        counters: &Counters,
        elapsed: Duration,
        failure: LastFailure,
    ) -> Result<Delay, StopReason> {
        schedule(
            settings,
            counters,
            elapsed,
            failure,
            |_, d| Some(d),
            || true,
        )
        .map_err(Stop::reason)
    }

    fn backoff(d: Duration) -> Result<Delay, StopReason> {
        Ok(Delay::new(d, DelaySource::Backoff))
    }

    #[test]
    fn backoff_doubles_until_the_attempts_run_out() {
        let s = settings(5);
        let waits: Vec<_> = (1..=5)
            .map(|n| decide(&s, &after(n), Duration::ZERO, RETRYABLE))
            .collect();
        assert_eq!(
            waits,
            [
                backoff(secs(1)),
                backoff(secs(2)),
                backoff(secs(4)),
                backoff(secs(8)),
                Err(StopReason::AttemptsExhausted)
            ]
        );
    }

    #[test]
    fn a_non_retryable_failure_stops_first() {
        let s = Settings {
            budget: Some(secs(1)),
            ..settings(3)
        };
        let fatal = LastFailure {
            retryable: false,
            ..RETRYABLE
        };
        assert_eq!(
            decide(&s, &after(1), secs(5), fatal),
            Err(StopReason::NotRetryable)
        );
    }

    #[test]
    fn the_budget_stops_at_or_past_it_and_refuses_a_wait_into_it() {
        let s = Settings {
            budget: Some(secs(30)),
            ..settings(10)
        };
        assert_eq!(
            decide(&s, &after(1), secs(30), RETRYABLE),
            Err(StopReason::BudgetExhausted)
        );
        // 29 s elapsed plus a 1 s wait would start the retry at the budget.
        assert_eq!(
            decide(&s, &after(1), secs(29), RETRYABLE),
            Err(StopReason::BudgetExhausted)
        );
        assert_eq!(
            decide(&s, &after(1), Duration::from_millis(28_999), RETRYABLE),
            backoff(secs(1))
        );
    }

    #[test]
    fn the_soft_cap_waits_for_the_retry_floor() {
        let s = Settings {
            max_elapsed: Some(secs(10)),
            min_retries: 2,
            ..settings(5)
        };
        assert_eq!(decide(&s, &after(1), secs(11), RETRYABLE), backoff(secs(1)));
        assert_eq!(decide(&s, &after(2), secs(12), RETRYABLE), backoff(secs(2)));
        assert_eq!(
            decide(&s, &after(3), secs(13), RETRYABLE),
            Err(StopReason::BudgetExhausted)
        );
    }

    #[test]
    fn a_hint_is_waited_exactly_without_spending_a_retry() {
        let s = settings(1);
        let limited = LastFailure {
            hint: Some(secs(7)),
            ..RETRYABLE
        };
        assert_eq!(
            decide(&s, &after(1), Duration::ZERO, limited),
            Ok(Delay::new(secs(7), DelaySource::RetryAfter))
        );
        let counters = after(1).after(Delay::new(secs(7), DelaySource::RetryAfter));
        assert_eq!(counters.rate_limit_retries, 1);
        assert_eq!(counters.rate_limit_waited, secs(7));
        // The retry that followed the hint failed without one: the backoff
        // path still has its single attempt spent, not two.
        let counters = Counters {
            primaries: 2,
            ..counters
        };
        assert_eq!(
            decide(&s, &counters, secs(7), RETRYABLE),
            Err(StopReason::AttemptsExhausted)
        );
    }

    #[test]
    fn the_rate_limit_path_has_three_limits() {
        let s = Settings {
            max_retry_after_retries: 2,
            max_retry_after_wait: Nanos::from_duration(secs(60)),
            budget: Some(secs(100)),
            ..settings(1)
        };
        let hint = |d| LastFailure {
            hint: Some(d),
            ..RETRYABLE
        };
        let used = |retries, waited| Counters {
            primaries: retries + 1,
            rate_limit_retries: retries,
            rate_limit_waited: waited,
        };
        let refused = |hint, waited| Err(Stop::RateLimit(RateLimitRefused { hint, waited }));
        let run = |counters: &Counters, elapsed, failure| {
            schedule(&s, counters, elapsed, failure, |_, d| Some(d), || true)
        };
        assert_eq!(
            run(&used(2, secs(2)), secs(2), hint(secs(1))),
            refused(secs(1), secs(2))
        );
        assert_eq!(
            run(&used(1, secs(50)), secs(50), hint(secs(11))),
            refused(secs(11), secs(50))
        );
        assert_eq!(
            run(&used(0, Duration::ZERO), secs(95), hint(secs(5))),
            refused(secs(5), Duration::ZERO)
        );
        assert!(run(&used(1, secs(50)), secs(50), hint(secs(10))).is_ok());
    }

    #[test]
    fn the_throttle_is_asked_last_and_only_when_a_retry_is_due() {
        let s = settings(3);
        let asked = std::cell::Cell::new(0);
        let refuse = || {
            asked.set(asked.get() + 1);
            false
        };
        let run = |counters: &Counters, failure| {
            schedule(
                &s,
                counters,
                Duration::ZERO,
                failure,
                |_, d| Some(d),
                refuse,
            )
            .map_err(Stop::reason)
        };
        assert_eq!(run(&after(1), RETRYABLE), Err(StopReason::Throttled));
        assert_eq!(asked.get(), 1);
        assert_eq!(
            run(&after(3), RETRYABLE),
            Err(StopReason::AttemptsExhausted),
            "no retry was due, so none was throttled"
        );
        let fatal = LastFailure {
            retryable: false,
            ..RETRYABLE
        };
        assert_eq!(run(&after(1), fatal), Err(StopReason::NotRetryable));
        assert_eq!(asked.get(), 1, "a throttle is not asked about a stop");
        let limited = LastFailure {
            hint: Some(secs(1)),
            ..RETRYABLE
        };
        assert_eq!(
            run(&after(1), limited),
            Err(StopReason::Throttled),
            "a Retry-After retry is a retry too"
        );
    }

    #[test]
    fn a_retry_due_is_left_to_a_caller_that_holds_it_and_no_other_stop() {
        let s = Settings {
            budget: Some(secs(10)),
            ..settings(3)
        };
        let held = LastFailure {
            caller_retries: true,
            ..RETRYABLE
        };
        let asked = std::cell::Cell::new(0);
        let throttle = || {
            asked.set(asked.get() + 1);
            true
        };
        let run = |counters: &Counters, elapsed, failure| {
            schedule(&s, counters, elapsed, failure, |_, d| Some(d), throttle).map_err(Stop::reason)
        };
        assert_eq!(run(&after(1), secs(0), held), Err(StopReason::LeftToCaller));
        assert_eq!(asked.get(), 0, "a retry left to the caller spends no token");
        let limited = LastFailure {
            hint: Some(secs(1)),
            ..held
        };
        assert_eq!(
            run(&after(1), secs(0), limited),
            Err(StopReason::LeftToCaller)
        );
        // A call that would stop anyway stops for its own reason.
        assert_eq!(
            run(&after(3), secs(0), held),
            Err(StopReason::AttemptsExhausted)
        );
        assert_eq!(
            run(&after(1), secs(10), held),
            Err(StopReason::BudgetExhausted)
        );
        let fatal = LastFailure {
            retryable: false,
            ..held
        };
        assert_eq!(
            run(&after(1), secs(0), fatal),
            Err(StopReason::NotRetryable)
        );
    }

    #[test]
    fn jitter_is_applied_to_the_nominal_delay_and_checked_against_the_budget() {
        let s = Settings {
            budget: Some(secs(10)),
            ..settings(4)
        };
        let halved = schedule(
            &s,
            &after(2),
            Duration::ZERO,
            RETRYABLE,
            |_, d| Some(d / 2),
            || true,
        );
        assert_eq!(halved, Ok(Delay::new(secs(1), DelaySource::Backoff)));
        let long = schedule(
            &s,
            &after(2),
            secs(9),
            RETRYABLE,
            |_, _| Some(secs(1)),
            || true,
        );
        assert_eq!(long, Err(Stop::Reason(StopReason::BudgetExhausted)));
    }

    #[test]
    fn a_schedule_that_ends_ends_the_attempts_and_is_asked_with_the_retry_number() {
        let s = settings(10);
        let mut asked = None;
        let ended = schedule(
            &s,
            &after(3),
            Duration::ZERO,
            RETRYABLE,
            |retry, _| {
                asked = Some(retry);
                None
            },
            || true,
        );
        assert_eq!(
            ended.map_err(Stop::reason),
            Err(StopReason::AttemptsExhausted)
        );
        assert_eq!(asked, Some(3));
    }

    #[test]
    fn huge_values_saturate() {
        let s = Settings {
            max_attempts: u32::MAX,
            backoff: Backoff::exponential(Duration::MAX, Duration::MAX).multiplier(f64::MAX),
            ..Settings::DEFAULT
        }
        .clamped();
        let wait = decide(&s, &after(u32::MAX - 1), Duration::MAX, RETRYABLE);
        assert_eq!(wait, Ok(Delay::new(LONGEST, DelaySource::Backoff)));
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        fn duration() -> impl Strategy<Value = Duration> {
            prop_oneof![
                (0u64..120_000).prop_map(Duration::from_millis),
                Just(Duration::ZERO),
                Just(Duration::MAX),
                any::<u64>().prop_map(Duration::from_nanos),
            ]
        }

        fn settings() -> impl Strategy<Value = Settings> {
            (
                (0u32..8, duration(), duration(), 1.0f64..4.0),
                (
                    proptest::option::of(duration()),
                    proptest::option::of(duration()),
                    0u32..8,
                    duration(),
                    0u32..4,
                ),
            )
                .prop_map(
                    |((attempts, base, max, multiplier), (budget, soft, floor, wait, hints))| {
                        Settings {
                            max_attempts: attempts,
                            backoff: Backoff::exponential(base, max).multiplier(multiplier),
                            budget,
                            max_elapsed: soft,
                            min_retries: floor,
                            max_retry_after_wait: Nanos::from_duration(wait),
                            max_retry_after_retries: hints,
                            ..Settings::DEFAULT
                        }
                        .clamped()
                    },
                )
        }

        fn counters() -> impl Strategy<Value = Counters> {
            (1u32..12, 0u32..6, duration()).prop_map(|(primaries, hints, waited)| Counters {
                primaries,
                rate_limit_retries: hints.min(primaries - 1),
                rate_limit_waited: waited,
            })
        }

        fn failure() -> impl Strategy<Value = LastFailure> {
            (any::<bool>(), proptest::option::of(duration())).prop_map(|(retryable, hint)| {
                LastFailure {
                    retryable,
                    ends: None,
                    hint: hint.filter(|_| retryable),
                    caller_retries: false,
                }
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

            /// The contract's rules, checked on every
            /// answer of the schedule, whatever the input.
            #[test]
            fn every_decision_follows_the_contract(
                s in settings(),
                c in counters(),
                elapsed in duration(),
                f in failure(),
                fraction in 0.0f64..=1.0,
                allows in any::<bool>(),
            ) {
                let jitter = |_, nominal: Duration| Some(s.backoff.jitter_nominal(nominal, None, fraction));
                let decision = schedule(&s, &c, elapsed, f, jitter, || allows);
                let budget_passed = s.budget.is_some_and(|b| elapsed >= b);
                let backoff_attempts = c.primaries.saturating_sub(c.rate_limit_retries);
                match decision {
                    Err(stop) => {
                        if !f.retryable {
                            prop_assert_eq!(stop.reason(), StopReason::NotRetryable);
                        }
                        if stop.reason() == StopReason::Throttled {
                            prop_assert!(!allows, "a throttle that allows never stops a call");
                        }
                        if stop.reason() == StopReason::AttemptsExhausted {
                            prop_assert!(f.hint.is_none() && backoff_attempts >= s.max_attempts);
                        }
                    }
                    Ok(delay) => {
                        prop_assert!(f.retryable, "only a retryable failure is retried");
                        prop_assert!(allows, "a refusing throttle stops the call");
                        prop_assert!(!budget_passed, "no retry once the budget has passed");
                        if let Some(budget) = s.budget {
                            prop_assert!(elapsed.saturating_add(delay.duration()) < budget,
                                "no retry starts at or past the budget");
                        }
                        match (f.hint, delay.source()) {
                            (Some(hint), DelaySource::RetryAfter) => {
                                prop_assert_eq!(delay.duration(), hint.min(LONGEST));
                                prop_assert!(c.rate_limit_retries < s.max_retry_after_retries);
                                // A cap saturated at `LONGEST` bounds nothing.
                                let max_wait = s.max_retry_after_wait.get();
                                prop_assert!(max_wait >= LONGEST || c.rate_limit_waited.saturating_add(hint) <= max_wait);
                            }
                            (None, DelaySource::Backoff) => {
                                prop_assert!(backoff_attempts < s.max_attempts, "a retry is left");
                                prop_assert!(delay.duration() <= s.backoff.nominal_delay(backoff_attempts));
                                prop_assert!(delay.duration() <= s.backoff.max());
                            }
                            other => prop_assert!(false, "the wrong path: {other:?}"),
                        }
                    }
                }
            }
        }
    }
}
