//! [`Core`]: the untyped half of an [`Execution`](super::Execution), the
//! bookkeeping of a run (the report, the counters, the schedule, events)
//! without knowing `T` or `E`, compiled once, in this crate. A successful
//! first attempt touches only its few fast fields; everything a retry
//! needs lives in [`Slow`], allocated on the first failure.

use std::borrow::Cow;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::attempt::open::Open;
use super::decide::{self, Counters, LastFailure, Stop};
use super::events::{self, OutcomeLabel};
use super::hooks::{OnRetry, RetryEvent};
use crate::attempt::Attempt;
use crate::backoff::Jitter;
use crate::chaos::Injection as Injected;
use crate::observe::Tally;
use crate::report::{
    AttemptKind, AttemptRecord, Delay, ExecutionError, ExecutionReport, FailureKind, StopReason,
};
use crate::settings::{Settings, deadline};
use crate::time::Nanos;

/// What a failed attempt told the shell, in terms the core understands.
/// A custom schedule's answer for retry number `n`: its delay, `Some(None)`
/// once it has ended, or `None` where the backoff decides.
pub(crate) type CustomDelay<'a> = &'a dyn Fn(u32) -> Option<Option<Duration>>;

pub(crate) struct AttemptFailure {
    pub(crate) kind: FailureKind,
    pub(crate) retryable: bool,
    pub(crate) hint: Option<Duration>,
    pub(crate) message: String,
    /// Set when the call ends with this attempt, for this reason,
    /// whatever the classifier says: a gate refused the attempt
    /// ([`StopReason::CircuitOpen`], …), or its error is ignored
    /// ([`StopReason::Ignored`]).
    pub(crate) ends: Option<StopReason>,
}

/// The untyped half of an execution.
///
/// Until an attempt fails, the report is not built: the first attempt's
/// start, end and deadline are three numbers, and a successful first
/// attempt turns them into a report of one record in place. The first
/// failure moves them into [`Slow`] with everything a retry needs.
pub(crate) struct Core<'o> {
    /// The clock's reading when the operation started.
    pub(crate) start: u64,
    /// The latest reading, reused where no time can have passed.
    pub(crate) now: u64,
    /// The first attempt's deadline, until its record is made.
    pub(crate) first_deadline: Nanos,
    /// Whether the first attempt has begun.
    pub(crate) begun: bool,
    /// What chaos did to the first attempt, until its record is made.
    pub(crate) first_injected: Option<Injected>,
    /// The HTTP status of the first attempt's result, until its record
    /// is made; 0 for none.
    pub(crate) first_status: u16,
    /// Whether the first attempt's deadline is the enclosing attempt's.
    pub(crate) first_inherited: bool,
    /// What the attempt this call was made inside had left when the call
    /// started (`Nanos::NONE`: no such attempt): no attempt of this call
    /// is granted more than what is left of it.
    pub(crate) cap: Nanos,
    /// How long the latest attempt waited for its gates' permits.
    pub(crate) queued: u64,
    pub(crate) stop: Option<StopReason>,
    /// Its report was made: finished, or cancelled.
    pub(crate) finished: bool,
    pub(crate) name: &'o Cow<'static, str>,
    /// The operation's tally, where the keys of its series are kept.
    #[cfg(feature = "metrics")]
    pub(crate) tally: Option<&'static Tally>,
    pub(crate) slow: Option<Box<Slow>>,
    /// The settings of a call whose operation has an entry in the
    /// installed configuration, read when it started.
    #[cfg(feature = "config")]
    pub(crate) configured: Option<Box<Configured>>,
}

/// The settings a call read from the installed configuration when it
/// started, and the version they came from.
#[cfg(feature = "config")]
pub(crate) struct Configured {
    pub(crate) settings: Settings,
    pub(crate) version: u64,
    pub(crate) hedge_delay: Option<Duration>,
}

/// What only a retry needs.
pub(crate) struct Slow {
    pub(crate) report: ExecutionReport,
    pub(crate) settings: Settings,
    pub(crate) counters: Counters,
    /// The wait decided before the next attempt.
    pub(crate) pending: Option<Delay>,
    pub(crate) rng: Option<SmallRng>,
}
/// The settings a run decides its retries by: `settings` clamped, and the
/// enclosing attempt's deadline `cap` bounding the call as its own budget
/// does, so that no wait outlasts it.
fn capped(settings: &Settings, cap: Nanos) -> Settings {
    let mut settings = settings.clamped();
    if let Some(cap) = cap.get_optional() {
        settings.budget = Some(settings.budget.map_or(cap, |budget| budget.min(cap)));
    }
    settings
}

impl<'o> Core<'o> {
    /// The call's settings: the operation's (`plan`), or what the installed
    /// configuration made of them when the call started.
    #[inline(always)]
    pub(crate) fn own<'s>(&'s self, plan: &'s Settings) -> &'s Settings {
        #[cfg(feature = "config")]
        if let Some(configured) = &self.configured {
            return &configured.settings;
        }
        plan
    }

    /// The operation's tally, for the keys of its series (`None`: found by
    /// name, or no series recorded).
    #[inline]
    pub(crate) fn tally(&self) -> Option<&'static Tally> {
        #[cfg(feature = "metrics")]
        return self.tally;
        #[cfg(not(feature = "metrics"))]
        None
    }

    /// How many attempts the report holds so far: the number of the
    /// latest one.
    #[inline]
    pub(crate) fn attempts_recorded(&self) -> u32 {
        self.slow
            .as_ref()
            .map_or(1, |slow| slow.report.attempt_count())
    }

    /// How many hedges the report holds.
    pub(crate) fn hedges_started(&self) -> u64 {
        self.slow.as_ref().map_or(0, |slow| {
            let attempts = slow.report.attempts().iter();
            attempts.filter(|a| a.kind() == AttemptKind::Hedge).count() as u64
        })
    }

    /// The wait decided before the next attempt, if any.
    #[inline]
    pub(crate) fn pending(&self) -> Option<Duration> {
        self.slow.as_ref()?.pending.map(|delay| delay.duration())
    }

    /// Nanoseconds from the start to the latest reading.
    #[inline]
    pub(crate) fn elapsed(&self) -> u64 {
        self.now.saturating_sub(self.start)
    }

    /// After a wait at `now`: the budget may have passed while sleeping.
    #[cold]
    pub(crate) fn after_wait(&mut self, now: u64) -> bool {
        self.now = now;
        let elapsed = Duration::from_nanos(self.elapsed());
        let slow = self.slow.as_mut().expect("only a retry waits");
        let Some(stop) = decide::after_wait(&slow.settings, elapsed) else {
            return true;
        };
        slow.report.unattributed_delay =
            Nanos::optional(slow.pending.take().map(|delay| delay.duration()));
        self.stop = Some(stop);
        false
    }

    /// Begins an attempt of `kind`, which waited `queued` for its permits,
    /// at the latest reading: what it is granted, and where its record is.
    /// The first attempt leaves no record yet: it is made on the first
    /// failure, or when a hedge starts beside it.
    #[inline]
    pub(crate) fn begin(
        &mut self,
        kind: AttemptKind,
        queued: u64,
        settings: &Settings,
    ) -> (Attempt, usize) {
        if !self.begun {
            self.begun = true;
            self.queued = queued;
            if queued > 0 {
                // Its budget's share is what the wait left of it.
                let (deadline, inherited) = self.granted(self.own(settings), self.queued);
                (self.first_deadline, self.first_inherited) =
                    (Nanos::optional(deadline), inherited);
            }
            // By the settings the call runs with, as its retries are.
            let holds_retries = self.own(settings).holds_retries();
            let attempt = Attempt {
                number: 1,
                retry_number: 0,
                deadline: self.first_deadline.get_optional(),
                fallback: false,
                holds_retries,
            };
            return (attempt, 0);
        }
        // The first attempt's record, made with its own wait, before this
        // attempt's wait replaces it.
        if self.slow.is_none() {
            self.keep_first(settings);
        }
        self.queued = queued;
        self.push_record(kind, settings)
    }

    /// The state a retry needs, made on the first failure with the record
    /// of the first attempt, which ended at the latest reading.
    pub(crate) fn keep_report(&mut self, settings: &Settings) -> &mut Slow {
        let elapsed = self.elapsed();
        let made = self.slow.is_none();
        let slow = self.keep_first(settings);
        if made {
            slow.report.name_and(0).1.end_at(elapsed);
        }
        slow
    }

    /// The time granted to an attempt starting `started_at` nanoseconds
    /// into the call: `min(timeout, budget - started_at)`, and no more than
    /// the enclosing attempt had left then; whether that is what decided.
    #[inline]
    pub(crate) fn granted(&self, settings: &Settings, started_at: u64) -> (Option<Duration>, bool) {
        let own = deadline(settings, started_at);
        let Some(cap) = self.cap.get_optional() else {
            return (own, false);
        };
        let left = cap.saturating_sub(Duration::from_nanos(started_at));
        match own {
            Some(own) if own <= left => (Some(own), false),
            _ => (Some(left), true),
        }
    }

    /// Whether the enclosing attempt's deadline has passed at the latest
    /// reading: then no attempt of this call starts.
    #[inline]
    pub(crate) fn cap_spent(&self) -> bool {
        self.cap
            .get_optional()
            .is_some_and(|cap| Duration::from_nanos(self.elapsed()) >= cap)
    }

    /// The report, made (if it isn't yet) with the record of the first
    /// attempt, begun and not ended: when it fails, or when another
    /// attempt is to run beside it.
    #[cold]
    #[inline(never)]
    pub(crate) fn keep_first(&mut self, settings: &Settings) -> &mut Slow {
        let settings = *self.own(settings);
        let deadline = self.first_deadline;
        let (name, first_injected, queued) = (self.name, self.first_injected, self.queued);
        let (first_status, first_inherited, cap) =
            (self.first_status, self.first_inherited, self.cap);
        self.slow.get_or_insert_with(|| {
            let mut report = ExecutionReport::new(name.clone());
            let first = Open {
                injected: first_injected,
                status: first_status,
                inherited: first_inherited,
                ..Open::first(deadline, queued)
            };
            report.push(first.close(), settings.max_records);
            Box::new(Slow {
                report,
                settings: capped(&settings, cap),
                counters: Counters::default(),
                pending: None,
                rng: None,
            })
        })
    }

    /// Records the start of an attempt of `kind` at the latest reading;
    /// the attempt and where its record is. A primary attempt takes the
    /// wait that preceded it.
    #[cold]
    #[inline(never)]
    pub(crate) fn push_record(
        &mut self,
        kind: AttemptKind,
        settings: &Settings,
    ) -> (Attempt, usize) {
        let started_at = self.elapsed();
        let (deadline, inherited) = self.granted(self.own(settings), started_at);
        let slow = self
            .slow
            .as_mut()
            .expect("the first attempt's record comes before another's");
        let number = slow.report.attempt_count().saturating_add(1);
        let index = number as usize - 1;
        let delay_before = if kind == AttemptKind::Primary {
            slow.pending.take()
        } else {
            None
        };
        let open = Open {
            number,
            kind,
            started_at,
            deadline: Nanos::optional(deadline),
            inherited,
            delay_before,
            queued: self.queued,
            injected: None,
            status: 0,
        };
        slow.report.push(open.close(), slow.settings.max_records);
        let holds_retries = slow.settings.holds_retries();
        let attempt = Attempt {
            number,
            retry_number: slow.counters.primaries,
            deadline,
            fallback: false,
            holds_retries,
        };
        (attempt, index)
    }

    /// The kind of the attempt at `index`.
    pub(crate) fn kind_of(&self, index: usize) -> AttemptKind {
        self.slow
            .as_ref()
            .and_then(|slow| slow.report.attempts().get(index))
            .map_or(AttemptKind::Primary, AttemptRecord::kind)
    }

    /// Marks the attempt at `index` as ended at the latest reading, with
    /// the HTTP `status` of its result (0: none); how long it took.
    pub(crate) fn end_record(&mut self, index: usize, status: u16) -> u64 {
        let end = self.elapsed();
        match &mut self.slow {
            Some(slow) => {
                let record = slow.report.name_and(index).1;
                record.set_status(status);
                record.end_at(end)
            }
            None => {
                self.first_status = status;
                // The first attempt started after its queue.
                end.saturating_sub(self.queued)
            }
        }
    }

    /// Records the attempt at `index` as dropped at the latest reading,
    /// for the reason `why`; how long it ran.
    pub(crate) fn cancel(&mut self, index: usize, why: &str) -> u64 {
        let rtt = self.end_record(index, 0);
        if let Some(slow) = &mut self.slow {
            slow.report.name_and(index).1.set_error(ExecutionError::new(
                FailureKind::Cancelled,
                false,
                why.to_owned(),
            ));
        }
        rtt
    }

    /// Records the failure of the attempt whose record is at `index`, and
    /// decides what comes next when the failure ends its round: when it
    /// was the `last` of its round (no hedge of it still runs), or when no
    /// attempt of the round could change the answer (a refusal, or an
    /// error that is not retried). `allows_retry` asks the gates, last,
    /// whether a retry may start; `delays` gives a custom schedule's delay
    /// before retry number `n` (`Some(None)`: it has ended), or `None` for
    /// the backoff's.
    pub(crate) fn fail_at(
        &mut self,
        index: usize,
        failed: AttemptFailure,
        on_retry: &dyn OnRetry,
        allows_retry: &mut dyn FnMut() -> bool,
        delays: CustomDelay<'_>,
        last: bool,
    ) {
        let AttemptFailure {
            kind,
            retryable,
            hint,
            message,
            ends,
        } = failed;
        let (now, start, tally) = (self.now, self.start, self.tally());
        let slow = self
            .slow
            .as_mut()
            .expect("a report is kept once an attempt fails");
        let (name, record) = slow.report.name_and(index);
        let number = record.number();
        let attempt_kind = record.kind();
        if ends == Some(StopReason::Ignored) {
            record.set_ignored();
        }
        let recorded = record.set_error(ExecutionError::new(kind, retryable, message));
        if kind == FailureKind::CircuitOpen {
            events::circuit_rejected(name, number);
        }
        events::attempt_failed(name, number, recorded);
        events::attempt_ended(
            name,
            tally,
            attempt_kind,
            OutcomeLabel::of_failure(retryable),
        );
        let failure = LastFailure {
            retryable,
            ends,
            hint,
            caller_retries: retryable && crate::deadline::caller_retries(),
        };
        if !decide::ends_round(&failure, last) {
            return;
        }
        slow.counters.primaries = slow.counters.primaries.saturating_add(1);
        let elapsed = Duration::from_nanos(now.saturating_sub(start));
        let Slow {
            report,
            settings,
            counters,
            rng,
            pending,
        } = &mut **slow;
        let decision = decide::after_round(
            settings,
            counters,
            elapsed,
            failure,
            |retry, nominal| match delays(retry) {
                Some(custom) => custom,
                None => Some(jittered(settings, rng, report.last_backoff(), nominal)),
            },
            allows_retry,
        );
        match decision {
            Ok(delay) => {
                *counters = counters.after(delay);
                *pending = Some(delay);
                let (name, record) = report.name_and(index);
                let event = RetryEvent {
                    operation: name,
                    attempt: number,
                    delay: delay.duration(),
                    source: delay.source(),
                    error: record.error().expect("just recorded"),
                };
                on_retry.on_retry(&event);
                events::retry_scheduled(name, number, delay.duration(), delay.source());
            }
            Err(stop) => {
                if let Stop::RateLimit(refused) = stop {
                    events::rate_limit_wait_exceeded(
                        report.name_cow(),
                        number,
                        refused.hint,
                        refused.waited,
                        settings.max_retry_after_wait.get(),
                    );
                }
                self.stop = Some(stop.reason());
            }
        }
    }

    pub(crate) fn begin_fallback(&mut self, now: u64, settings: &Settings) -> Attempt {
        self.now = now;
        let started_at = self.elapsed();
        let slow = self.keep_report(settings);
        let number = slow.report.attempt_count().saturating_add(1);
        let max = slow.settings.max_records;
        slow.report
            .push(Open::fallback(number, started_at).close(), max);
        Attempt {
            number,
            retry_number: slow.counters.primaries.saturating_sub(1),
            deadline: None,
            fallback: true,
            holds_retries: false,
        }
    }

    /// Records the end of a fallback at `now`, and its failure: whether the
    /// classifier deemed it retryable, and its text.
    pub(crate) fn end_fallback(&mut self, now: u64, failed: Option<(bool, String)>) {
        self.now = now;
        let (end, tally) = (self.elapsed(), self.tally());
        let slow = self.slow.as_mut().expect("a fallback follows a failure");
        let (name, record) = slow.report.name_and_last();
        record.end_at(end);
        let ok = failed.is_none();
        events::attempt_ended(
            name,
            tally,
            AttemptKind::Fallback,
            failed
                .as_ref()
                .map_or(OutcomeLabel::Success, |(retryable, _)| {
                    OutcomeLabel::of_failure(*retryable)
                }),
        );
        if let Some((retryable, message)) = failed {
            record.set_error(ExecutionError::new(
                FailureKind::Operation,
                retryable,
                message,
            ));
        }
        events::fallback_used(name, record.number(), ok);
    }

    /// Chaos injected `kinds` (in the order they happen) into attempt
    /// `number`, whose record is (or, for a first attempt, will be) at
    /// `index`. The record keeps the last kind: the fault or the outcome
    /// decided the attempt's result.
    #[cold]
    #[inline(never)]
    pub(crate) fn injected(&mut self, number: u32, index: usize, kinds: [Option<Injected>; 2]) {
        for kind in kinds.into_iter().flatten() {
            events::chaos_injected(self.name, number, kind);
        }
        let Some(kept) = kinds[1].or(kinds[0]) else {
            return;
        };
        match &mut self.slow {
            Some(slow) => slow.report.name_and(index).1.set_injected(kept),
            None => self.first_injected = Some(kept),
        }
    }

    #[inline]
    pub(crate) fn finish(&mut self, deferred: bool) -> ExecutionReport {
        self.finished = true;
        let elapsed = self.elapsed();
        let report = match self.slow.take() {
            None => {
                let first = Open {
                    injected: self.first_injected,
                    status: self.first_status,
                    inherited: self.first_inherited,
                    ..Open::first(self.first_deadline, self.queued)
                };
                ExecutionReport::first_success(self.name.clone(), first.close(), elapsed)
            }
            Some(slow) => finish_slow(*slow, elapsed, self.stop),
        };
        self.report_made(report, deferred)
    }

    /// The report of a call its caller dropped at `now`, before it ended:
    /// the attempts made so far, those still running ended now with a
    /// [`Cancelled`](FailureKind::Cancelled) error, and the stop reason
    /// [`StopReason::Cancelled`].
    #[cold]
    #[inline(never)]
    pub(crate) fn cancelled(&mut self, now: u64) -> ExecutionReport {
        self.finished = true;
        self.now = now;
        let elapsed = self.elapsed();
        let mut report = match self.slow.take() {
            Some(slow) => slow.report,
            None => {
                let mut report = ExecutionReport::new(self.name.clone());
                if self.begun {
                    let first = Open {
                        injected: self.first_injected,
                        status: self.first_status,
                        inherited: self.first_inherited,
                        ..Open::first(self.first_deadline, self.queued)
                    };
                    report.push(first.close(), u16::MAX);
                }
                report
            }
        };
        // An attempt that ended without an error succeeded, and a call
        // with a success is not cancelled: every record without an error
        // is of an attempt still running.
        for record in report.records.as_mut_slice() {
            if record.error().is_none() {
                record.end_at(elapsed);
                record.set_error(ExecutionError::new(
                    FailureKind::Cancelled,
                    false,
                    "cancelled: its caller dropped the call".into(),
                ));
            }
        }
        report.elapsed = Nanos::from_u64(elapsed);
        report.stop_reason = StopReason::Cancelled;
        self.report_made(report, false)
    }

    /// `report`, made: with the configuration its call read, and told to
    /// the events unless its caller tells them (`deferred`).
    #[inline]
    fn report_made(&self, report: ExecutionReport, deferred: bool) -> ExecutionReport {
        let tally = self.tally();
        #[cfg(feature = "config")]
        let report = match &self.configured {
            Some(configured) => report.configured(configured.version),
            None => report,
        };
        if !deferred {
            events::finished(
                report.name_cow(),
                tally,
                report.elapsed(),
                report.stop_reason(),
            );
            events::call_ended(&report);
        }
        report
    }

    /// A primary attempt of `kind` succeeded.
    #[inline]
    pub(crate) fn record_success(&mut self, kind: AttemptKind) {
        events::attempt_ended(self.name, self.tally(), kind, OutcomeLabel::Success);
        self.stop = Some(StopReason::Succeeded);
    }
}

#[cold]
#[inline(never)]
fn finish_slow(slow: Slow, elapsed: u64, stop: Option<StopReason>) -> ExecutionReport {
    let mut report = slow.report;
    report.elapsed = Nanos::from_u64(elapsed);
    report.stop_reason = stop.unwrap_or(StopReason::Succeeded);
    report
}

/// The backoff's nominal delay, jittered with the operation's random source
/// (seeded when the settings say so, made on first use).
/// `previous` is the last backoff delay, which decorrelated jitter starts
/// from.
fn jittered(
    settings: &Settings,
    rng: &mut Option<SmallRng>,
    previous: Option<Duration>,
    nominal: Duration,
) -> Duration {
    let cap = settings.max_delay.get_optional().unwrap_or(Duration::MAX);
    let nominal = nominal.min(cap);
    if settings.backoff.jitter_kind() == Jitter::None || nominal.is_zero() {
        return nominal;
    }
    let rng = rng.get_or_insert_with(|| match settings.seeded {
        true => SmallRng::seed_from_u64(settings.seed),
        false => SmallRng::seed_from_u64(crate::seed::random_u64()),
    });
    let sample: f64 = rng.random();
    // Additive and decorrelated jitter may pass the nominal delay, and
    // so the cap applied to it; uncapped additive jitter may, by design.
    let jittered = settings.backoff.jitter_nominal(nominal, previous, sample);
    match settings.backoff.jitter_kind() {
        Jitter::AdditiveUncapped => jittered,
        _ => jittered.min(cap),
    }
}
