//! What happened: [`Outcome`] pairs the result with an [`ExecutionReport`],
//! one [`AttemptRecord`] per attempt.

use std::fmt;
use std::time::Duration;

use crate::error::RetryError;

/// Why the operation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// An attempt succeeded (the fallback included).
    Succeeded,
    /// The last error was classified as not retryable.
    NotRetryable,
    /// Every attempt the policy allows was made.
    AttemptsExhausted,
    /// The hard `budget` or the soft `max_elapsed` cap was reached.
    BudgetExhausted,
    /// A Retry-After wait would have overrun `max_rate_limit_wait`, the
    /// budget, or the number of rate-limited retries.
    RateLimitExhausted,
    /// The circuit breaker rejected the last attempt.
    CircuitOpen,
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
        })
    }
}

/// Whether an attempt ran the body or the fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttemptKind {
    /// The function's own body.
    Primary,
    /// The fallback, after the primary attempts failed.
    Fallback,
}

/// What kind of failure an attempt ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// The body returned an error.
    Operation,
    /// The attempt outlived its deadline.
    Timeout,
    /// The circuit breaker rejected the attempt; the body did not run.
    CircuitOpen,
    /// The body returned a value that failed validation.
    Validation,
}

/// Why a delay was slept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DelaySource {
    /// The backoff schedule; the retry counted against `retries`.
    Backoff,
    /// A server's Retry-After hint; the retry did not count against `retries`.
    RetryAfter,
}

/// A delay slept before an attempt, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Delay {
    duration: Duration,
    source: DelaySource,
}

impl Delay {
    pub(crate) fn new(duration: Duration, source: DelaySource) -> Self {
        Delay { duration, source }
    }

    /// How long was slept.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// Why.
    pub fn source(&self) -> DelaySource {
        self.source
    }
}

/// A failed attempt's error, as recorded in the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionError {
    kind: FailureKind,
    retryable: bool,
    message: String,
}

impl ExecutionError {
    pub(crate) fn new(kind: FailureKind, retryable: bool, message: String) -> Self {
        ExecutionError {
            kind,
            retryable,
            message,
        }
    }

    /// What kind of failure it was.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }

    /// Whether the classifier deemed it retryable. Recorded for every failed
    /// attempt, the final one and the fallback included.
    pub fn retryable(&self) -> bool {
        self.retryable
    }

    /// The error's `Display` text.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// A duration stored in 8 bytes (nanoseconds, saturating at 584 years), to
/// keep attempt records small: they are moved with every outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Nanos(u64);

impl Nanos {
    /// Marks "no value" where a field is optional.
    const NONE: Nanos = Nanos(u64::MAX);

    fn new(duration: Duration) -> Nanos {
        // `u64::MAX` is the `NONE` marker: real values stop one below.
        Nanos(u64::try_from(duration.as_nanos()).map_or(u64::MAX - 1, |n| n.min(u64::MAX - 1)))
    }

    fn optional(duration: Option<Duration>) -> Nanos {
        duration.map_or(Nanos::NONE, Nanos::new)
    }

    fn get(self) -> Duration {
        Duration::from_nanos(self.0)
    }

    fn get_optional(self) -> Option<Duration> {
        (self != Nanos::NONE).then(|| self.get())
    }
}

/// One attempt: when it ran, for how long, what it was granted, what
/// preceded it and how it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    number: u32,
    kind: AttemptKind,
    delay_source: Option<DelaySource>,
    started_at: Nanos,
    elapsed: Nanos,
    deadline: Nanos,
    delay: Nanos,
    // Boxed: only failures pay for it, and they allocate the message anyway.
    error: Option<Box<ExecutionError>>,
}

impl AttemptRecord {
    /// A record for an attempt starting at `started_at`, not yet finished.
    pub(crate) fn begin(
        number: u32,
        kind: AttemptKind,
        started_at: Duration,
        deadline: Option<Duration>,
        delay_before: Option<Delay>,
    ) -> AttemptRecord {
        AttemptRecord {
            number,
            kind,
            delay_source: delay_before.map(|d| d.source),
            started_at: Nanos::new(started_at),
            elapsed: Nanos(0),
            deadline: Nanos::optional(deadline),
            delay: Nanos::new(delay_before.map_or(Duration::ZERO, |d| d.duration)),
            error: None,
        }
    }

    /// Marks the attempt as ended at `end` (from the operation's start).
    pub(crate) fn end_at(&mut self, end: Duration) {
        self.elapsed = Nanos::new(end.saturating_sub(self.started_at.get()));
    }

    /// Records the attempt's failure.
    pub(crate) fn set_error(&mut self, error: ExecutionError) -> &ExecutionError {
        self.error.insert(Box::new(error))
    }

    /// 1-based number among all attempts, the fallback included.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// Primary or fallback.
    pub fn kind(&self) -> AttemptKind {
        self.kind
    }

    /// When the attempt started, from the operation's start.
    pub fn started_at(&self) -> Duration {
        self.started_at.get()
    }

    /// How long the attempt ran.
    pub fn elapsed(&self) -> Duration {
        self.elapsed.get()
    }

    /// The time granted to the attempt, `min(timeout, budget - elapsed)`.
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline.get_optional()
    }

    /// The delay slept right before this attempt, if any.
    pub fn delay_before(&self) -> Option<Delay> {
        self.delay_source
            .map(|source| Delay::new(self.delay.get(), source))
    }

    /// The attempt's failure, or `None` if it succeeded.
    pub fn error(&self) -> Option<&ExecutionError> {
        self.error.as_deref()
    }
}

/// Attempts kept inline before the log moves to the heap. One is enough
/// for a successful first attempt to allocate nothing; a failed attempt
/// allocates its message anyway, so more inline slots would only make every
/// outcome bigger to move.
const INLINE_ATTEMPTS: usize = 1;

impl AttemptRecord {
    /// A placeholder for unused inline slots; never visible.
    const EMPTY: AttemptRecord = AttemptRecord {
        number: 0,
        kind: AttemptKind::Primary,
        delay_source: None,
        started_at: Nanos(0),
        elapsed: Nanos(0),
        deadline: Nanos::NONE,
        delay: Nanos(0),
        error: None,
    };
}

/// The attempt log: inline for the first attempts, then on the heap.
// The inline variant is the larger on purpose: boxing it would allocate on
// every call, which is what it exists to avoid.
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
enum Records {
    Inline {
        len: usize,
        items: [AttemptRecord; INLINE_ATTEMPTS],
    },
    Heap(Vec<AttemptRecord>),
}

impl Records {
    const fn new() -> Self {
        Records::Inline {
            len: 0,
            items: [AttemptRecord::EMPTY; INLINE_ATTEMPTS],
        }
    }

    fn push(&mut self, record: AttemptRecord) {
        match self {
            Records::Inline { len, items } if *len < INLINE_ATTEMPTS => {
                items[*len] = record;
                *len += 1;
            }
            Records::Inline { items, .. } => {
                let mut heap = Vec::with_capacity(4);
                heap.extend(
                    items
                        .iter_mut()
                        .map(|r| std::mem::replace(r, AttemptRecord::EMPTY)),
                );
                heap.push(record);
                *self = Records::Heap(heap);
            }
            Records::Heap(heap) => heap.push(record),
        }
    }

    fn as_slice(&self) -> &[AttemptRecord] {
        match self {
            Records::Inline { len, items } => &items[..*len],
            Records::Heap(heap) => heap,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [AttemptRecord] {
        match self {
            Records::Inline { len, items } => &mut items[..*len],
            Records::Heap(heap) => heap,
        }
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
///     .max_attempts(3)
///     .backoff(Backoff::constant(Duration::from_secs(1)))
///     .clock(&clock)
///     .run(|attempt| if attempt.number() < 2 { Err("busy") } else { Ok(7) });
/// let report = outcome.report();
/// assert_eq!(report.attempt_count(), 2);
/// assert_eq!(report.retry_count(), 1);
/// assert_eq!(report.delays(), [Duration::from_secs(1)]);
/// assert_eq!(report.stop_reason(), StopReason::Succeeded);
/// assert!(report.attempts()[0].error().unwrap().retryable());
/// ```
#[derive(Clone)]
pub struct ExecutionReport {
    records: Records,
    /// A delay slept after which no attempt could start (the budget passed
    /// during the sleep); kept so that `delays()` lists every sleep.
    unattributed_delay: Option<Delay>,
    elapsed: Duration,
    stop_reason: StopReason,
}

impl ExecutionReport {
    pub(crate) const fn new() -> Self {
        ExecutionReport {
            records: Records::new(),
            unattributed_delay: None,
            elapsed: Duration::ZERO,
            stop_reason: StopReason::Succeeded,
        }
    }

    pub(crate) fn push(&mut self, record: AttemptRecord) {
        self.records.push(record);
    }

    pub(crate) fn last_mut(&mut self) -> Option<&mut AttemptRecord> {
        self.records.as_mut_slice().last_mut()
    }

    pub(crate) fn set_unattributed_delay(&mut self, delay: Option<Delay>) {
        self.unattributed_delay = delay;
    }

    pub(crate) fn finish(&mut self, elapsed: Duration, stop_reason: StopReason) {
        self.elapsed = elapsed;
        self.stop_reason = stop_reason;
    }

    /// Every attempt made, the fallback included.
    pub fn attempt_count(&self) -> u32 {
        u32::try_from(self.attempts().len()).unwrap_or(u32::MAX)
    }

    /// Primary attempts after the first. The fallback is never a retry.
    pub fn retry_count(&self) -> u32 {
        let primaries = self
            .attempts()
            .iter()
            .filter(|r| r.kind == AttemptKind::Primary)
            .count();
        u32::try_from(primaries.saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// The attempts, in order.
    pub fn attempts(&self) -> &[AttemptRecord] {
        self.records.as_slice()
    }

    /// Every delay slept, in order.
    pub fn delays(&self) -> Vec<Duration> {
        self.attempts()
            .iter()
            .filter_map(AttemptRecord::delay_before)
            .chain(self.unattributed_delay)
            .map(|d| d.duration)
            .collect()
    }

    /// Total time the operation took.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// Why the operation stopped.
    pub fn stop_reason(&self) -> StopReason {
        self.stop_reason
    }

    /// Whether the fallback ran.
    pub fn fallback_used(&self) -> bool {
        self.attempts()
            .last()
            .is_some_and(|r| r.kind == AttemptKind::Fallback)
    }
}

impl fmt::Debug for ExecutionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecutionReport")
            .field("attempts", &self.attempts())
            .field("elapsed", &self.elapsed)
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
    pub(crate) fn new(result: Result<T, E>, report: ExecutionReport) -> Self {
        Outcome { result, report }
    }

    /// The result, borrowed.
    pub fn result(&self) -> &Result<T, E> {
        &self.result
    }

    /// The result, dropping the report.
    pub fn into_result(self) -> Result<T, E> {
        self.result
    }

    /// The report.
    pub fn report(&self) -> &ExecutionReport {
        &self.report
    }

    /// The result and the report.
    pub fn into_parts(self) -> (Result<T, E>, ExecutionReport) {
        (self.result, self.report)
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

impl fmt::Display for ExecutionReport {
    /// A table, one line per attempt, then a summary line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>3}  {:<8}  {:>9}  {:>9}  {:<22}  {:<9}  error",
            "#", "kind", "started", "took", "delay before", "retryable"
        )?;
        for r in self.attempts() {
            let kind = match r.kind {
                AttemptKind::Primary => "primary",
                AttemptKind::Fallback => "fallback",
            };
            let delay = r.delay_before().map_or_else(
                || "-".to_owned(),
                |d| {
                    let source = match d.source {
                        DelaySource::Backoff => "backoff",
                        DelaySource::RetryAfter => "retry-after",
                    };
                    format!("{} ({source})", Short(d.duration))
                },
            );
            let (retryable, error) = r.error().map_or(("-", "-"), |e| {
                (if e.retryable { "yes" } else { "no" }, e.message.as_str())
            });
            writeln!(
                f,
                "{:>3}  {:<8}  {:>9}  {:>9}  {:<22}  {:<9}  {}",
                r.number,
                kind,
                Short(r.started_at()).to_string(),
                Short(r.elapsed()).to_string(),
                delay,
                retryable,
                error
            )?;
        }
        let retries = self.retry_count();
        write!(
            f,
            "{} attempt(s), {retries} retr{}, {}, stopped: {}{}",
            self.attempt_count(),
            if retries == 1 { "y" } else { "ies" },
            Short(self.elapsed),
            self.stop_reason,
            if self.fallback_used() {
                ", fallback used"
            } else {
                ""
            }
        )
    }
}

/// A duration rounded for people: `850µs`, `201.7ms`, `1.250s`.
struct Short(Duration);

impl fmt::Display for Short {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        if d.is_zero() {
            f.write_str("0s")
        } else if d < Duration::from_millis(1) {
            write!(f, "{}µs", d.as_micros())
        } else if d < Duration::from_secs(1) {
            write!(f, "{:.1}ms", d.as_secs_f64() * 1e3)
        } else {
            write!(f, "{:.3}s", d.as_secs_f64())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(number: u32, delay: Option<Delay>, error: Option<ExecutionError>) -> AttemptRecord {
        let started_at = Duration::from_millis(u64::from(number) * 100);
        let mut record =
            AttemptRecord::begin(number, AttemptKind::Primary, started_at, None, delay);
        record.end_at(started_at + Duration::from_micros(1500));
        if let Some(error) = error {
            record.set_error(error);
        }
        record
    }

    #[test]
    fn records_stay_small_and_saturate() {
        assert!(std::mem::size_of::<AttemptRecord>() <= 48);
        let mut record = AttemptRecord::begin(
            1,
            AttemptKind::Fallback,
            Duration::MAX,
            Some(Duration::MAX),
            None,
        );
        record.end_at(Duration::MAX);
        assert_eq!(record.deadline(), Some(Duration::from_nanos(u64::MAX - 1)));
        assert_eq!(record.elapsed(), Duration::from_nanos(u64::MAX - 1));
        assert_eq!(record.delay_before(), None);
    }

    #[test]
    fn the_log_moves_to_the_heap_past_its_inline_slots_in_order() {
        let mut report = ExecutionReport::new();
        for n in 1..=5 {
            report.push(record(n, None, None));
            let numbers: Vec<_> = report.attempts().iter().map(|r| r.number).collect();
            assert_eq!(numbers, (1..=n).collect::<Vec<_>>());
        }
        report.last_mut().unwrap().number = 9;
        assert_eq!(report.attempts()[4].number, 9);
    }

    #[test]
    fn display_is_a_table_with_a_summary() {
        let mut report = ExecutionReport::new();
        let busy = ExecutionError::new(FailureKind::Operation, true, "busy".into());
        report.push(record(1, None, Some(busy)));
        report.push(record(
            2,
            Some(Delay::new(
                Duration::from_millis(250),
                DelaySource::RetryAfter,
            )),
            None,
        ));
        report.finish(Duration::from_secs(2), StopReason::Succeeded);
        let text = report.to_string();
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[1].contains("100.0ms")
                && lines[1].contains("1.5ms")
                && lines[1].ends_with("yes        busy"),
            "{text}"
        );
        assert!(lines[2].contains("250.0ms (retry-after)"), "{text}");
        assert_eq!(
            lines[3],
            "2 attempt(s), 1 retry, 2.000s, stopped: succeeded"
        );
    }
}
