//! [`Outcome`] pairs an operation's result with its [`ExecutionReport`]:
//! every attempt, every delay, and why the operation stopped.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::record::{AttemptKind, AttemptRecord, DelaySource, Records};
use crate::error::RetryError;
use crate::idempotency::{IdempotencyStatus, IdempotencyStored};
use crate::time::Nanos;

/// Why the primary attempts ended.
///
/// A fallback doesn't change it: after the attempts failed and a fallback
/// ran, the stop reason still says why the attempts ended, and
/// [`ExecutionReport::fallback_used`] says that a fallback ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// A primary (or hedged) attempt succeeded. Never set by a fallback.
    Succeeded,
    /// The last error was classified as not retryable.
    NotRetryable,
    /// Every attempt the policy allows was made.
    AttemptsExhausted,
    /// The hard `budget` or the soft `max_elapsed` cap was reached.
    BudgetExhausted,
    /// A Retry-After wait would have overrun `max_retry_after_wait`, the
    /// budget, or the number of rate-limited retries.
    RateLimitExhausted,
    /// The circuit breaker rejected the last attempt.
    CircuitOpen,
    /// A retry throttle refused the next attempt: the dependency is failing
    /// for many callers, and retries would only add load.
    Throttled,
    /// A limiter refused the last attempt (see [`limit`](crate::limit)):
    /// the call is not retried.
    LimitExceeded,
    /// This call was made inside an attempt of another that retries, and
    /// asked the calls inside it to leave it that retry
    /// ([`Nested::NoRetry`](crate::deadline::Nested::NoRetry)), directly or
    /// through a call between them, or through a request that said so
    /// (`deadline::header::HoldHeader`): this call
    /// did not retry, and failed with its last error, a retryable one.
    LeftToCaller,
    /// The last attempt failed with an error the operation ignores
    /// (`ignore_on`, `ignore_if`): the call ended at once, and the
    /// attempt counted as neither a success nor a failure for the circuit
    /// breaker, the retry throttle and the adaptive limits.
    Ignored,
    /// The call was dropped before it ended: its caller gave up (a cut
    /// connection, a `timeout` around it). Its report, with the attempts
    /// made so far (those still running failed with
    /// [`FailureKind::Cancelled`](crate::FailureKind::Cancelled)), is the
    /// one the report hook, the metrics and the dashboard get; the caller
    /// gets none.
    Cancelled,
}

impl StopReason {
    #[cfg_attr(not(any(feature = "serde", feature = "metrics")), allow(dead_code))]
    /// The reason's name in the report's JSON form: `snake_case`.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            StopReason::Succeeded => "succeeded",
            StopReason::NotRetryable => "not_retryable",
            StopReason::AttemptsExhausted => "attempts_exhausted",
            StopReason::BudgetExhausted => "budget_exhausted",
            StopReason::RateLimitExhausted => "rate_limit_exhausted",
            StopReason::CircuitOpen => "circuit_open",
            StopReason::Throttled => "throttled",
            StopReason::LimitExceeded => "limit_exceeded",
            StopReason::LeftToCaller => "left_to_caller",
            StopReason::Ignored => "ignored",
            StopReason::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::Succeeded => "succeeded",
            StopReason::NotRetryable => "error not retryable",
            StopReason::AttemptsExhausted => "attempts exhausted",
            StopReason::BudgetExhausted => "time budget exhausted",
            StopReason::RateLimitExhausted => "rate-limit wait exhausted",
            StopReason::CircuitOpen => "circuit open",
            StopReason::Throttled => "retries throttled",
            StopReason::LimitExceeded => "limit exceeded",
            StopReason::LeftToCaller => "retry left to the caller",
            StopReason::Ignored => "error ignored",
            StopReason::Cancelled => "cancelled by its caller",
        })
    }
}

/// The account of one operation: every attempt, every delay, and why it
/// stopped.
///
/// ```
/// use resilient::{Backoff, FakeClock, Operation, StopReason};
/// use std::time::Duration;
///
/// let clock = FakeClock::new();
/// let outcome = Operation::new()
///     .name("inventory.reserve")
///     .max_attempts(3)
///     .backoff(Backoff::constant(Duration::from_secs(1)))
///     .clock(&clock)
///     .run(|attempt| if attempt.number() < 2 { Err("busy") } else { Ok(7) });
/// let report = outcome.report();
/// assert_eq!(report.name(), "inventory.reserve");
/// assert_eq!(report.attempt_count(), 2);
/// assert_eq!(report.retry_count(), 1);
/// assert_eq!(report.delays(), [Duration::from_secs(1)]);
/// assert_eq!(report.stop_reason(), StopReason::Succeeded);
/// assert!(report.attempts()[0].error().unwrap().retryable());
/// ```
#[derive(Clone)]
pub struct ExecutionReport {
    pub(crate) records: Records,
    /// A delay slept after which no attempt could start (the budget passed
    /// during the sleep); kept so that `delays()` lists every sleep.
    // 8 bytes (`Nanos::NONE` for none) rather than an `Option<Delay>`'s
    // 24, so that the outcome of a small value stays small enough to be
    // moved without a `memcpy` call.
    pub(crate) unattributed_delay: Nanos,
    pub(crate) elapsed: Nanos,
    pub(crate) stop_reason: StopReason,
    pub(crate) name: Cow<'static, str>,
    pub(crate) idempotency: Option<IdempotencyStatus>,
    pub(crate) idempotency_stored: Option<IdempotencyStored>,
    /// The call joined another's execution (`coalesce`): its `elapsed` is
    /// its own wait. 1 byte, in what was padding.
    pub(crate) coalesced: bool,
    /// The installed configuration the call read, packed
    /// (`config::packed`): whether its operation had an entry there, and
    /// that configuration's version. 4 bytes, in what was padding, so that
    /// the outcome stays as small as it is without the feature; a version
    /// past `2^31 - 2` (two billion installs) reads as `2^31 - 1`.
    #[cfg(feature = "config")]
    pub(crate) config_read: u32,
}

/// Where a call's settings came from (feature `config`): see
/// [`ExecutionReport::settings_source`].
///
/// ```
/// use resilient::{ExecutionReport, SettingsSource};
///
/// fn describe(report: &ExecutionReport) -> String {
///     match report.settings_source() {
///         SettingsSource::Attribute => "as compiled".to_owned(),
///         SettingsSource::Config { version } => format!("configuration {version}"),
///         _ => "elsewhere".to_owned(),
///     }
/// }
/// # let _ = describe;
/// ```
#[cfg(feature = "config")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SettingsSource {
    /// The values the operation was built with: the attribute's, the
    /// builder's, the layer's.
    Attribute,
    /// The operation's entry in the configuration installed as `version`
    /// ([`resilient::config::install`](crate::config::install)), over the
    /// attribute's values.
    Config {
        /// The configuration's version, as `install` returned it.
        version: u64,
    },
}

#[cfg(feature = "config")]
impl SettingsSource {
    /// Where the configuration came from (the code, a watched file, the
    /// control panel), while its version is among the latest 16 installed
    /// ([`config::origin`](crate::config::origin)); `None` for the
    /// attribute's values.
    ///
    /// ```
    /// use resilient::SettingsSource;
    /// use resilient::config::{self, Origin};
    ///
    /// let version = config::install_toml("[operations.fetch]\nretries = 2\n")?;
    /// assert_eq!(SettingsSource::Config { version }.origin(), Some(Origin::Code));
    /// assert_eq!(SettingsSource::Attribute.origin(), None);
    /// # config::clear();
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    pub fn origin(&self) -> Option<crate::config::Origin> {
        match self {
            SettingsSource::Config { version } => crate::config::origin(*version),
            SettingsSource::Attribute => None,
        }
    }
}

/// The name of an operation that was given none.
pub(crate) const UNNAMED: &str = "operation";

impl ExecutionReport {
    pub(crate) const fn new(name: Cow<'static, str>) -> Self {
        ExecutionReport {
            records: Records::new(),
            unattributed_delay: Nanos::NONE,
            elapsed: Nanos::ZERO,
            stop_reason: StopReason::Succeeded,
            name,
            idempotency: None,
            idempotency_stored: None,
            coalesced: false,
            #[cfg(feature = "config")]
            config_read: 0,
        }
    }

    /// The report of an operation whose first attempt, `record`,
    /// succeeded `elapsed` nanoseconds after the operation started, built
    /// in place: one record, no allocation.
    #[inline]
    pub(crate) const fn first_success(
        name: Cow<'static, str>,
        mut record: AttemptRecord,
        elapsed: u64,
    ) -> Self {
        record.end_at(elapsed);
        ExecutionReport {
            records: Records::one(record),
            unattributed_delay: Nanos::NONE,
            elapsed: Nanos::from_u64(elapsed),
            stop_reason: StopReason::Succeeded,
            name,
            idempotency: None,
            idempotency_stored: None,
            coalesced: false,
            #[cfg(feature = "config")]
            config_read: 0,
        }
    }

    /// Adds `record`, keeping at most `max` records (see `Records::push`).
    pub(crate) fn push(&mut self, record: AttemptRecord, max: u16) {
        self.records.push(record, max);
    }

    /// Records `endpoint` as where each attempt went, a fallback's aside:
    /// a call's attempts all go to the endpoint of its request.
    #[cold]
    pub(crate) fn went_to(&mut self, endpoint: &Arc<str>) {
        for record in self.records.as_mut_slice() {
            if record.kind() != AttemptKind::Fallback {
                record.set_endpoint(Arc::clone(endpoint));
            }
        }
    }

    /// Sets the endpoint of each attempt that `endpoint_of` names by its
    /// number (a replica chosen for it).
    #[cfg(feature = "tower")]
    pub(crate) fn each_went_to(&mut self, endpoint_of: impl Fn(u32) -> Option<Arc<str>>) {
        for record in self.records.as_mut_slice() {
            if let Some(endpoint) = endpoint_of(record.number()) {
                record.set_endpoint(endpoint);
            }
        }
    }

    /// Whether the report owns no memory, as a first success named by a
    /// `&'static str` does: then it needs no drop, and is forgotten
    /// instead. Its drop is an out-of-line call that checks every field,
    /// where these checks fold into constants once the report was just
    /// built.
    #[inline]
    pub(crate) fn owns_nothing(&self) -> bool {
        matches!(self.name, Cow::Borrowed(_)) && self.records.owns_nothing()
    }

    /// The operation's name beside the latest record, to update the one
    /// and report it under the other.
    pub(crate) fn name_and_last(&mut self) -> (&Cow<'static, str>, &mut AttemptRecord) {
        let last = self.records.as_slice().len().saturating_sub(1);
        self.name_and_kept(last)
    }

    /// The operation's name beside the record at `index` of the log as
    /// kept.
    fn name_and_kept(&mut self, index: usize) -> (&Cow<'static, str>, &mut AttemptRecord) {
        let record = self
            .records
            .as_mut_slice()
            .get_mut(index)
            .expect("an attempt was recorded");
        (&self.name, record)
    }

    /// The operation's name beside the record of attempt `index + 1`: the
    /// records of attempts still running are always kept (records are
    /// left out only when a primary attempt or a fallback begins).
    pub(crate) fn name_and(&mut self, index: usize) -> (&Cow<'static, str>, &mut AttemptRecord) {
        let number = u32::try_from(index).map_or(u32::MAX, |index| index.saturating_add(1));
        let record = self
            .records
            .numbered(number)
            .expect("a running attempt's record is kept");
        (&self.name, record)
    }

    /// The operation's name, as events carry it.
    pub(crate) fn name_cow(&self) -> &Cow<'static, str> {
        &self.name
    }

    /// The operation's name: `name = "…"`, or the function's identifier
    /// under the attribute, or `"operation"` when none was given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every attempt made: primary, hedged and fallback.
    pub fn attempt_count(&self) -> u32 {
        let kept = u32::try_from(self.attempts().len()).unwrap_or(u32::MAX);
        kept.saturating_add(self.records.left_out().0)
    }

    /// Primary attempts after the first. Hedged attempts and fallbacks are
    /// never retries.
    pub fn retry_count(&self) -> u32 {
        let primaries = self
            .attempts()
            .iter()
            .filter(|r| r.kind() == AttemptKind::Primary)
            .count();
        let primaries = u32::try_from(primaries).unwrap_or(u32::MAX);
        primaries
            .saturating_add(self.records.left_out().1)
            .saturating_sub(1)
    }

    /// The records kept of the attempts, in the order they started: every
    /// attempt's, unless the call made more than its `max_records` (64 by
    /// default). Then the first half of them and the latest are kept, and
    /// [`records_left_out`](Self::records_left_out) says how many between
    /// them were left out; [`attempt_count`](Self::attempt_count) and
    /// [`retry_count`](Self::retry_count) count them all. Each record's
    /// [`number`](AttemptRecord::number) stays the attempt's own.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation};
    /// use std::time::Duration;
    ///
    /// let outcome = Operation::new()
    ///     .max_attempts(10)
    ///     .max_records(4)
    ///     .clock(FakeClock::new())
    ///     .run(|_| Err::<(), _>("busy"));
    /// let report = outcome.report();
    /// let numbers: Vec<u32> = report.attempts().iter().map(|a| a.number()).collect();
    /// assert_eq!(numbers, [1, 2, 9, 10]);
    /// assert_eq!(report.records_left_out(), 6);
    /// assert_eq!((report.attempt_count(), report.retry_count()), (10, 9));
    /// ```
    pub fn attempts(&self) -> &[AttemptRecord] {
        self.records.as_slice()
    }

    /// How many attempts' records were left out to keep the report within
    /// its `max_records` (see [`attempts`](Self::attempts)); 0 for a call
    /// that made no more attempts than that.
    pub fn records_left_out(&self) -> u32 {
        self.records.left_out().0
    }

    /// Every delay slept, in order.
    pub fn delays(&self) -> Vec<Duration> {
        self.attempts()
            .iter()
            .filter_map(AttemptRecord::delay_before)
            .map(|d| d.duration())
            .chain(self.unattributed_delay.get_optional())
            .collect()
    }

    /// The last delay taken from the backoff, which decorrelated jitter
    /// grows from.
    pub(crate) fn last_backoff(&self) -> Option<Duration> {
        self.attempts()
            .iter()
            .rev()
            .filter_map(AttemptRecord::delay_before)
            .find(|delay| delay.source() == DelaySource::Backoff)
            .map(|delay| delay.duration())
    }

    /// Total time the operation took.
    pub fn elapsed(&self) -> Duration {
        self.elapsed.get()
    }

    /// Where the call's settings came from: the values the operation was
    /// built with, or its entry in the installed configuration, with that
    /// configuration's version. Read once, when the call started. (A
    /// version past `2^31 - 2`, two billion installs, reads as `2^31 - 1`.)
    ///
    /// ```
    /// use resilient::{config, resilient, SettingsSource};
    ///
    /// #[resilient(retries = 1)]
    /// fn settings_source_example() -> Result<u32, String> {
    ///     Ok(7)
    /// }
    ///
    /// let outcome = settings_source_example();
    /// assert_eq!(outcome.report().settings_source(), SettingsSource::Attribute);
    /// let version = config::install_toml("[operations.settings_source_example]\nretries = 3\n")?;
    /// let outcome = settings_source_example();
    /// assert_eq!(outcome.report().settings_source(), SettingsSource::Config { version });
    /// config::clear();
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    #[cfg(feature = "config")]
    pub fn settings_source(&self) -> SettingsSource {
        match crate::config::version_of(self.config_read) {
            None => SettingsSource::Attribute,
            Some(version) => SettingsSource::Config { version },
        }
    }

    /// The same report, of a call whose settings came from the
    /// configuration installed as `version`.
    #[cfg(feature = "config")]
    pub(crate) fn configured(mut self, version: u64) -> Self {
        self.config_read = crate::config::packed(version, true);
        self
    }

    /// Why the primary attempts ended: [`Succeeded`](StopReason::Succeeded)
    /// only when a primary (or hedged) attempt succeeded. A fallback that
    /// ran afterwards doesn't change it; see
    /// [`fallback_used`](ExecutionReport::fallback_used).
    pub fn stop_reason(&self) -> StopReason {
        self.stop_reason
    }

    /// How an idempotent call got its result: replayed from the store,
    /// joined to a run elsewhere, or executed here; `None` for a call
    /// without an idempotency key (or whose store failed before anything
    /// ran). A replayed or joined call made no attempt.
    pub fn idempotency(&self) -> Option<IdempotencyStatus> {
        self.idempotency
    }

    /// For a call that joined another's execution of the same key
    /// ([`Coalesce`](crate::coalesce::Coalesce)), how long it waited for
    /// it; `None` for a call that ran its own. A joined call's report is
    /// the execution's (its attempts, its stop reason), with this wait as
    /// its [`elapsed`](Self::elapsed).
    ///
    /// ```
    /// use resilient::Operation;
    ///
    /// let outcome = Operation::new().run(|_| Ok::<_, String>(1));
    /// assert_eq!(outcome.report().coalesced(), None);
    /// ```
    pub fn coalesced(&self) -> Option<Duration> {
        self.coalesced.then(|| self.elapsed())
    }

    /// Marks the report of a call that joined another's execution, after
    /// waiting `waited` for it.
    pub(crate) fn mark_coalesced(&mut self, waited: Duration) {
        self.coalesced = true;
        self.elapsed = Nanos::from_duration(waited);
    }

    /// Whether an executed idempotent call's value was stored for later
    /// calls, and why not: `None` for a call that did not execute (replayed,
    /// joined, refused) or has no idempotency key.
    ///
    /// ```
    /// use resilient::Operation;
    /// use resilient::idempotency::{IdempotencyInFlight, IdempotencyStored, MemoryStore, StoreError};
    ///
    /// #[derive(Debug)]
    /// struct AppError;
    /// impl std::fmt::Display for AppError {
    ///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str("app") }
    /// }
    /// impl From<IdempotencyInFlight> for AppError { fn from(_: IdempotencyInFlight) -> Self { AppError } }
    /// impl From<StoreError> for AppError { fn from(_: StoreError) -> Self { AppError } }
    ///
    /// static STORE: MemoryStore<u32> = MemoryStore::new();
    /// let first = Operation::new().idempotent(&STORE, "k").run(|_| Ok::<_, AppError>(1));
    /// assert_eq!(first.report().idempotency_stored(), Some(IdempotencyStored::Stored));
    /// let again = Operation::new().idempotent(&STORE, "k").run(|_| Ok::<_, AppError>(1));
    /// assert_eq!(again.report().idempotency_stored(), None);
    /// ```
    pub fn idempotency_stored(&self) -> Option<IdempotencyStored> {
        self.idempotency_stored
    }

    /// Whether a fallback ran, whatever its result.
    pub fn fallback_used(&self) -> bool {
        self.attempts()
            .iter()
            .any(|r| r.kind() == AttemptKind::Fallback)
    }
}

impl fmt::Debug for ExecutionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecutionReport")
            .field("name", &self.name)
            .field("attempts", &self.attempts())
            .field("elapsed", &self.elapsed())
            .field("stop_reason", &self.stop_reason)
            .finish()
    }
}

/// The result of an operation and the report of how it was reached.
///
/// ```
/// use resilient::Operation;
///
/// let outcome = Operation::new().run(|_| Ok::<_, String>(5));
/// assert!(outcome.is_ok());
/// assert_eq!(outcome.report().attempt_count(), 1);
/// assert_eq!(outcome.into_result(), Ok(5));
/// ```
#[derive(Debug, Clone)]
#[must_use = "an outcome holds the operation's result"]
pub struct Outcome<T, E> {
    result: Result<T, E>,
    report: ExecutionReport,
}

impl<T, E> Outcome<T, E> {
    #[inline]
    pub(crate) const fn new(result: Result<T, E>, report: ExecutionReport) -> Self {
        Outcome { result, report }
    }

    /// The result, borrowed.
    pub fn result(&self) -> &Result<T, E> {
        &self.result
    }

    /// The result, dropping the report.
    #[inline]
    pub fn into_result(self) -> Result<T, E> {
        // The report is read and dropped where it lies, not moved first:
        // a copy of the outcome made the instant the call wrote it waits
        // on the stores that built it (BENCHMARKS.md, "The outcome moved
        // at once").
        if self.report.owns_nothing() {
            std::mem::forget(self.report);
        }
        self.result
    }

    /// The report.
    pub fn report(&self) -> &ExecutionReport {
        &self.report
    }

    /// The result and the report.
    #[inline]
    pub fn into_parts(self) -> (Result<T, E>, ExecutionReport) {
        (self.result, self.report)
    }

    /// The outcome with its error made into another by `f`, which sees the
    /// report: the caller's own error type, carrying what the report
    /// knows (how many attempts, why it stopped), before it is returned.
    ///
    /// ```
    /// use resilient::{Operation, StopReason};
    ///
    /// #[derive(Debug, PartialEq)]
    /// enum Failed { GaveUp { attempts: u32, reason: StopReason } }
    ///
    /// let outcome = Operation::new().max_attempts(3).run(|_| Err::<(), _>("busy"));
    /// let mapped = outcome.map_err(|_, report| Failed::GaveUp {
    ///     attempts: report.attempt_count(),
    ///     reason: report.stop_reason(),
    /// });
    /// assert_eq!(mapped.into_result(), Err(Failed::GaveUp { attempts: 3, reason: StopReason::AttemptsExhausted }));
    /// ```
    pub fn map_err<E2>(self, f: impl FnOnce(E, &ExecutionReport) -> E2) -> Outcome<T, E2> {
        let Outcome { result, report } = self;
        let result = result.map_err(|error| f(error, &report));
        Outcome { result, report }
    }

    /// Whether the operation succeeded.
    pub fn is_ok(&self) -> bool {
        self.result.is_ok()
    }

    pub(crate) fn into_retry_result(self) -> Result<T, RetryError<E>> {
        let attempts = self.report.attempt_count();
        self.result
            .map_err(|cause| RetryError::new(attempts, cause))
    }
}
