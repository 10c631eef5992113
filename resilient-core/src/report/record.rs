//! One attempt, as the report keeps it: [`AttemptRecord`], its kind, the
//! delay before it and how it failed; and the attempt log, inline for the
//! first attempt so that a successful call allocates nothing.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::chaos::Injection;
use crate::time::Nanos;

/// Whether an attempt ran the body, a hedge of it, or a fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AttemptKind {
    /// The function's own body.
    Primary,
    /// A fallback, after the primary attempts failed.
    Fallback,
    /// An extra copy of the body, started while an attempt was still
    /// running (`hedge`). Counted in `attempt_count`, never in `retry_count`.
    Hedge,
}

impl AttemptKind {
    /// The kind's name in the report's table and in its JSON form.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            AttemptKind::Primary => "primary",
            AttemptKind::Fallback => "fallback",
            AttemptKind::Hedge => "hedge",
        }
    }
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
    /// A hedged attempt (or the attempt it hedged) was dropped because
    /// another attempt of its round ended the round first: it succeeded,
    /// or failed with an error that is not retried.
    Cancelled,
    /// A limiter refused the attempt (see [`limit`](crate::limit)); the
    /// body did not run.
    LimitExceeded,
    /// An adaptive throttle refused the attempt locally (see
    /// [`AdaptiveThrottle`](crate::throttle::AdaptiveThrottle)); the body
    /// did not run.
    Rejected,
}

impl FailureKind {
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    /// The kind's name in the report's JSON form.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            FailureKind::Operation => "operation",
            FailureKind::Timeout => "timeout",
            FailureKind::CircuitOpen => "circuit_open",
            FailureKind::Validation => "validation",
            FailureKind::Cancelled => "cancelled",
            FailureKind::LimitExceeded => "limit_exceeded",
            FailureKind::Rejected => "rejected",
        }
    }
}

/// Why a delay was slept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DelaySource {
    /// The backoff schedule; the retry counted against `retries`.
    Backoff,
    /// A server's Retry-After hint; the retry did not count against `retries`.
    RetryAfter,
}

impl DelaySource {
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    /// The source's name in the report's JSON form.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            DelaySource::Backoff => "backoff",
            DelaySource::RetryAfter => "retry_after",
        }
    }
}

/// A delay slept before an attempt, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Delay {
    duration: Duration,
    source: DelaySource,
}

impl Delay {
    pub(crate) const fn new(duration: Duration, source: DelaySource) -> Self {
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
///
/// It displays as the error's own text, and is an [`Error`](std::error::Error)
/// so that it can be logged or wrapped like one.
///
/// ```
/// use resilient::{FakeClock, FailureKind, Operation};
///
/// let outcome = Operation::new().clock(FakeClock::new()).run(|_| Err::<(), _>("refused"));
/// let error = outcome.report().attempts()[0].error().unwrap();
/// assert_eq!(error.kind(), FailureKind::Operation);
/// assert_eq!(error.to_string(), "refused");
/// ```
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
    /// attempt, the final one and the fallbacks included.
    pub fn retryable(&self) -> bool {
        self.retryable
    }

    /// The error's `Display` text.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ExecutionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExecutionError {}

/// One attempt: when it ran, for how long, what it was granted, what
/// preceded it and how it failed.
#[derive(Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    number: u32,
    tags: Tags,
    /// The HTTP status the attempt's response carried; 0 for none.
    status: u16,
    started_at: Nanos,
    elapsed: Nanos,
    deadline: Nanos,
    delay: Nanos,
    queued: Nanos,
    /// What only some attempts have: a failure's error, the endpoint of
    /// an attempt sent through the tower layer or the reqwest middleware.
    /// Boxed, so that a plain function's success carries 8 bytes of it:
    /// a failure allocates its message anyway, and a layer's call its
    /// future.
    rare: Option<Box<Rare>>,
}

/// The boxed part of an [`AttemptRecord`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Rare {
    error: Option<ExecutionError>,
    endpoint: Option<Arc<str>>,
}

impl AttemptRecord {
    /// A placeholder for unused inline slots; never visible.
    pub(crate) const EMPTY: AttemptRecord = AttemptRecord {
        number: 0,
        tags: Tags::of(AttemptKind::Primary, None),
        status: 0,
        started_at: Nanos::ZERO,
        elapsed: Nanos::ZERO,
        deadline: Nanos::NONE,
        delay: Nanos::ZERO,
        queued: Nanos::ZERO,
        rare: None,
    };

    /// The record of an attempt as it is opened: its number and kind,
    /// its start from the operation's, its deadline and whether that is
    /// inherited, the delay before it, its wait for permits, what chaos
    /// did to it and its HTTP status (0: none). `engine::attempt::open`
    /// is the only caller: an attempt's record is written there.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) const fn opened(
        (number, kind): (u32, AttemptKind),
        started_at: u64,
        (deadline, inherited): (Nanos, bool),
        delay_before: Option<Delay>,
        queued: u64,
        injected: Option<Injection>,
        status: u16,
    ) -> AttemptRecord {
        let mut record = AttemptRecord::begin(number, kind, started_at, deadline, delay_before)
            .queued_for(queued);
        if let Some(injection) = injected {
            record.tags = record.tags.injected(injection);
        }
        if inherited {
            record.tags = record.tags.inherited();
        }
        record.status = status;
        record
    }

    /// A record for an attempt starting at `started_at` nanoseconds from
    /// the operation's start, not yet finished.
    #[inline]
    const fn begin(
        number: u32,
        kind: AttemptKind,
        started_at: u64,
        deadline: Nanos,
        delay_before: Option<Delay>,
    ) -> AttemptRecord {
        let (delay_source, delay) = match delay_before {
            Some(delay) => (Some(delay.source), Nanos::from_duration(delay.duration)),
            None => (None, Nanos::ZERO),
        };
        AttemptRecord {
            number,
            tags: Tags::of(kind, delay_source),
            status: 0,
            started_at: Nanos::from_u64(started_at),
            elapsed: Nanos::ZERO,
            deadline,
            delay,
            queued: Nanos::ZERO,
            rare: None,
        }
    }

    /// The same record, of an attempt that waited `queued` nanoseconds
    /// for its limiters' permits before it started.
    #[inline]
    const fn queued_for(mut self, queued: u64) -> AttemptRecord {
        self.queued = Nanos::from_u64(queued);
        self
    }

    /// Marks the attempt as ended at `end` nanoseconds from the operation's
    /// start; how long it ran.
    #[inline]
    pub(crate) const fn end_at(&mut self, end: u64) -> u64 {
        let elapsed = end.saturating_sub(self.started_at.as_u64());
        self.elapsed = Nanos::from_u64(elapsed);
        elapsed
    }

    /// Records the attempt's failure.
    pub(crate) fn set_error(&mut self, error: ExecutionError) -> &ExecutionError {
        self.rare.get_or_insert_default().error.insert(error)
    }

    /// Records the endpoint the attempt went to.
    pub(crate) fn set_endpoint(&mut self, endpoint: Arc<str>) {
        self.rare.get_or_insert_default().endpoint = Some(endpoint);
    }

    /// Records what chaos did to the attempt.
    pub(crate) fn set_injected(&mut self, injection: Injection) {
        self.tags = self.tags.injected(injection);
    }

    /// Records that the attempt's error is one the operation ignores.
    pub(crate) fn set_ignored(&mut self) {
        self.tags = self.tags.ignored();
    }

    /// Records the HTTP status of the attempt's response; 0 records none.
    pub(crate) fn set_status(&mut self, status: u16) {
        self.status = status;
    }

    /// 1-based number among all attempts, hedges and fallbacks included.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// Primary, hedge or fallback.
    pub fn kind(&self) -> AttemptKind {
        self.tags.kind()
    }

    /// When the attempt started, from the operation's start.
    pub fn started_at(&self) -> Duration {
        self.started_at.get()
    }

    /// How long the attempt ran.
    pub fn elapsed(&self) -> Duration {
        self.elapsed.get()
    }

    /// How long the attempt waited for its limiters' permits before it
    /// started (see [`Operation::limit_wait`](crate::Operation::limit_wait));
    /// zero without limits. [`started_at`](AttemptRecord::started_at) is
    /// after the wait.
    ///
    /// ```
    /// use resilient::limit::{Limiter, RateLimiter};
    /// use resilient::{FakeClock, LimitExceeded, Operation};
    /// use std::time::Duration;
    ///
    /// # #[derive(Debug, thiserror::Error)] #[error("busy")] struct Busy;
    /// # impl From<LimitExceeded> for Busy { fn from(_: LimitExceeded) -> Self { Busy } }
    /// let quota = RateLimiter::per_second(2).burst(1);
    /// let limiters: [&dyn Limiter; 1] = [&quota];
    /// let clock = FakeClock::new();
    /// let call = || {
    ///     Operation::new()
    ///         .clock(&clock)
    ///         .limit(&limiters)
    ///         .limit_wait(Duration::from_secs(1))
    ///         .run(|_| Ok::<_, Busy>(()))
    /// };
    /// assert_eq!(call().report().attempts()[0].queued(), Duration::ZERO);
    /// let second = call();
    /// let attempt = &second.report().attempts()[0];
    /// assert_eq!(attempt.queued(), Duration::from_millis(500));
    /// assert_eq!(attempt.started_at(), Duration::from_millis(500));
    /// ```
    pub fn queued(&self) -> Duration {
        self.queued.get()
    }

    /// The time granted to the attempt, `min(timeout, budget - elapsed)`,
    /// or `None` when neither limit is set.
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline.get_optional()
    }

    /// The delay slept right before this attempt, if any.
    pub fn delay_before(&self) -> Option<Delay> {
        self.tags
            .delay_source()
            .map(|source| Delay::new(self.delay.get(), source))
    }

    /// The attempt's failure, or `None` if it succeeded.
    pub fn error(&self) -> Option<&ExecutionError> {
        self.rare.as_deref()?.error.as_ref()
    }

    /// What chaos did to the attempt (`chaos` option), or `None` if it ran
    /// untouched. When latency and a fault or an outcome were both
    /// injected, the fault or the outcome: it decided the attempt's result.
    ///
    /// ```
    /// use resilient::chaos::{Chaos, Injection};
    /// use resilient::{FakeClock, Operation};
    ///
    /// static CHAOS: Chaos = Chaos::new().enabled(true).injection_rate(1.0);
    ///
    /// let outcome = Operation::new()
    ///     .clock(FakeClock::new())
    ///     .chaos(&CHAOS)
    ///     .chaos_fault(|| "injected")
    ///     .run(|_attempt| Ok::<_, &str>("real"));
    /// assert_eq!(outcome.result(), &Err("injected"));
    /// assert_eq!(outcome.report().attempts()[0].injected(), Some(Injection::Fault));
    /// ```
    pub fn injected(&self) -> Option<Injection> {
        self.tags.injection()
    }

    /// Whether the attempt's [`deadline`](AttemptRecord::deadline) is what
    /// the attempt this call was made inside had left, less than its own
    /// `min(timeout, budget - elapsed)` (see [`resilient::deadline`](crate::deadline)).
    ///
    /// ```
    /// use resilient::{FakeClock, Operation, TimedOut};
    /// use std::time::Duration;
    ///
    /// # #[derive(Debug, PartialEq)] struct Late;
    /// # impl std::fmt::Display for Late {
    /// #     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str("late") }
    /// # }
    /// # impl From<TimedOut> for Late { fn from(_: TimedOut) -> Self { Late } }
    /// let clock = FakeClock::new();
    /// let outer = Operation::new().clock(&clock).budget(Duration::from_secs(1)).run(|_| {
    ///     let inner = Operation::new()
    ///         .clock(&clock)
    ///         .timeout(Duration::from_secs(5))
    ///         .run(|_| Ok::<_, Late>(()));
    ///     let record = &inner.report().attempts()[0];
    ///     Ok::<_, Late>((record.deadline(), record.deadline_inherited()))
    /// });
    /// assert_eq!(outer.into_result(), Ok((Some(Duration::from_secs(1)), true)));
    /// ```
    pub fn deadline_inherited(&self) -> bool {
        self.tags.is_inherited()
    }

    /// The HTTP status of the attempt's response, for an attempt made
    /// through the tower layer or the reqwest middleware that got one
    /// (whatever the classifier made of it); `None` for an attempt that
    /// got no response (a connection error, a timeout) and for every
    /// attempt of a plain function.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation};
    ///
    /// let outcome = Operation::new()
    ///     .clock(FakeClock::new())
    ///     .run(|_attempt| Ok::<_, &str>("done"));
    /// assert_eq!(outcome.report().attempts()[0].status(), None);
    /// ```
    pub fn status(&self) -> Option<u16> {
        (self.status != 0).then_some(self.status)
    }

    /// The endpoint the attempt went to: `host:port` for the reqwest
    /// middleware, and for the tower layer the key its `endpoint_key`
    /// function gives the request (features `reqwest`, `tower`); `None` where none is known (a plain
    /// function, a layer without a key function, a fallback). The JSON
    /// form's `endpoint`, and the attempt's span's `server.address` and
    /// `server.port` (feature `tracing`).
    ///
    /// ```
    /// use resilient::{FakeClock, Operation};
    ///
    /// let outcome = Operation::new()
    ///     .clock(FakeClock::new())
    ///     .run(|_attempt| Ok::<_, &str>("done"));
    /// assert_eq!(outcome.report().attempts()[0].endpoint(), None);
    /// ```
    pub fn endpoint(&self) -> Option<&str> {
        self.rare.as_deref()?.endpoint.as_deref()
    }

    /// Whether the attempt failed with an error the operation ignores
    /// ([`Operation::ignore_if`](crate::Operation::ignore_if), the
    /// attribute's `ignore_on` and `ignore_if`): the call ended with it
    /// ([`StopReason::Ignored`](crate::StopReason::Ignored)), and it
    /// counted as neither a success nor a failure for the circuit breaker,
    /// the retry throttle and the adaptive limits.
    ///
    /// ```
    /// use resilient::{FakeClock, Operation, StopReason};
    ///
    /// let outcome = Operation::new()
    ///     .max_attempts(3)
    ///     .ignore_if(|error: &&str| *error == "cancelled by the user")
    ///     .clock(FakeClock::new())
    ///     .run(|_attempt| Err::<(), _>("cancelled by the user"));
    /// let report = outcome.report();
    /// assert_eq!(report.attempt_count(), 1);
    /// assert_eq!(report.stop_reason(), StopReason::Ignored);
    /// assert!(report.attempts()[0].ignored());
    /// ```
    pub fn ignored(&self) -> bool {
        self.tags.is_ignored()
    }
}

/// An attempt's kind, the source of the delay before it and what chaos
/// did to it, in one byte, two bits each, whether its deadline was
/// inherited and whether its error is ignored, one bit each: with the
/// number and the status, one word.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Tags(u8);

impl Tags {
    const fn of(kind: AttemptKind, delay_source: Option<DelaySource>) -> Tags {
        let kind = match kind {
            AttemptKind::Primary => 0,
            AttemptKind::Fallback => 1,
            AttemptKind::Hedge => 2,
        };
        let source = match delay_source {
            None => 0,
            Some(DelaySource::Backoff) => 1,
            Some(DelaySource::RetryAfter) => 2,
        };
        Tags(kind | source << 2)
    }

    const fn injected(self, injection: Injection) -> Tags {
        let injected = match injection {
            Injection::Fault => 1,
            Injection::Outcome => 2,
            Injection::Latency => 3,
        };
        Tags(self.0 & 0b1100_1111 | injected << 4)
    }

    const fn inherited(self) -> Tags {
        Tags(self.0 | 1 << 6)
    }

    const fn is_inherited(self) -> bool {
        self.0 & 1 << 6 != 0
    }

    const fn ignored(self) -> Tags {
        Tags(self.0 | 1 << 7)
    }

    const fn is_ignored(self) -> bool {
        self.0 & 1 << 7 != 0
    }

    const fn kind(self) -> AttemptKind {
        match self.0 & 0b11 {
            0 => AttemptKind::Primary,
            1 => AttemptKind::Fallback,
            _ => AttemptKind::Hedge,
        }
    }

    const fn delay_source(self) -> Option<DelaySource> {
        match self.0 >> 2 & 0b11 {
            0 => None,
            1 => Some(DelaySource::Backoff),
            _ => Some(DelaySource::RetryAfter),
        }
    }

    const fn injection(self) -> Option<Injection> {
        match self.0 >> 4 & 0b11 {
            0 => None,
            1 => Some(Injection::Fault),
            2 => Some(Injection::Outcome),
            _ => Some(Injection::Latency),
        }
    }
}

impl fmt::Debug for AttemptRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AttemptRecord")
            .field("number", &self.number)
            .field("kind", &self.kind())
            .field("started_at", &self.started_at())
            .field("elapsed", &self.elapsed())
            .field("deadline", &self.deadline())
            .field("delay_before", &self.delay_before())
            .field("error", &self.error())
            .field("injected", &self.injected())
            .field("status", &self.status())
            .field("endpoint", &self.endpoint())
            .field("ignored", &self.ignored())
            .finish()
    }
}

/// Attempts kept inline before the log moves to the heap. One is enough
/// for a successful first attempt to allocate nothing; a failed attempt
/// allocates its message anyway, so more inline slots would only make every
/// outcome bigger to move.
const INLINE_ATTEMPTS: usize = 1;

/// The attempt log: inline for the first attempts, then on the heap, at
/// most `max_records` of them (see [`Kept`]).
// The inline variant is the larger on purpose: boxing it would allocate on
// every call, which is what it exists to avoid.
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Records {
    Inline {
        len: usize,
        items: [AttemptRecord; INLINE_ATTEMPTS],
    },
    Heap(Kept),
}

/// The records kept on the heap: the first `max / 2` and the latest, with
/// exact counts of those left out between them, so that a call that
/// retries for ever keeps constant memory and exact counts.
#[derive(Clone, Default)]
pub(crate) struct Kept {
    records: Vec<AttemptRecord>,
    /// Records left out, and how many of them were primary attempts.
    left_out: u32,
    primaries_left_out: u32,
}

impl Records {
    pub(crate) const fn new() -> Self {
        Records::Inline {
            len: 0,
            items: [AttemptRecord::EMPTY; INLINE_ATTEMPTS],
        }
    }

    /// A log of exactly one record, built in place.
    #[inline]
    pub(crate) const fn one(record: AttemptRecord) -> Self {
        Records::Inline {
            len: 1,
            items: [record],
        }
    }

    /// Adds `record`, keeping at most `max` records (at least 1). Records
    /// are left out only when a primary attempt or a fallback begins: the
    /// attempts before it have all ended then, so a hedge still running
    /// keeps its record, and a round of hedges may pass `max` by its
    /// hedges until the next round.
    pub(crate) fn push(&mut self, record: AttemptRecord, max: u16) {
        match self {
            Records::Inline { len, items } if *len < INLINE_ATTEMPTS => {
                items[*len] = record;
                *len += 1;
            }
            Records::Inline { items, .. } => {
                let mut records = Vec::with_capacity(4);
                records.extend(
                    items
                        .iter_mut()
                        .map(|r| std::mem::replace(r, AttemptRecord::EMPTY)),
                );
                let mut kept = Kept {
                    records,
                    ..Kept::default()
                };
                kept.push(record, max);
                *self = Records::Heap(kept);
            }
            Records::Heap(kept) => kept.push(record, max),
        }
    }

    /// Whether the log holds no memory of its own: inline, no error text
    /// and no endpoint.
    #[inline]
    pub(crate) fn owns_nothing(&self) -> bool {
        match self {
            Records::Inline { items, .. } => items.iter().all(|item| item.rare.is_none()),
            Records::Heap(_) => false,
        }
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[AttemptRecord] {
        match self {
            Records::Inline { len, items } => &items[..*len],
            Records::Heap(kept) => &kept.records,
        }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [AttemptRecord] {
        match self {
            Records::Inline { len, items } => &mut items[..*len],
            Records::Heap(kept) => &mut kept.records,
        }
    }

    /// The record of attempt `number`, if it is kept.
    pub(crate) fn numbered(&mut self, number: u32) -> Option<&mut AttemptRecord> {
        let records = self.as_mut_slice();
        let at = records
            .binary_search_by_key(&number, AttemptRecord::number)
            .ok()?;
        records.get_mut(at)
    }

    /// Records left out, in all and of primary attempts.
    #[inline]
    pub(crate) fn left_out(&self) -> (u32, u32) {
        match self {
            Records::Inline { .. } => (0, 0),
            Records::Heap(kept) => (kept.left_out, kept.primaries_left_out),
        }
    }
}

impl Kept {
    fn push(&mut self, record: AttemptRecord, max: u16) {
        let max = usize::from(max.max(1));
        if record.kind() != AttemptKind::Hedge && self.records.len() >= max {
            // Keep the first half; leave out the oldest of the rest, and
            // as many more as a round of hedges added over `max`.
            let first = max / 2;
            let over = self.records.len() + 1 - max;
            for gone in self.records.drain(first..first + over) {
                self.left_out = self.left_out.saturating_add(1);
                if gone.kind() == AttemptKind::Primary {
                    self.primaries_left_out = self.primaries_left_out.saturating_add(1);
                }
            }
        }
        self.records.push(record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_stay_small_and_saturate() {
        // Five durations (the fifth, the wait for limiters' permits), a
        // boxed error, and the number and kinds packed in one word.
        assert!(std::mem::size_of::<AttemptRecord>() <= 56);
        let mut record = AttemptRecord::begin(
            1,
            AttemptKind::Fallback,
            u64::MAX,
            Nanos::optional(Some(Duration::MAX)),
            None,
        );
        record.end_at(u64::MAX);
        assert_eq!(record.deadline(), Some(Duration::from_nanos(u64::MAX - 1)));
        assert_eq!(record.started_at(), Duration::from_nanos(u64::MAX - 1));
        assert_eq!(record.delay_before(), None);
    }

    #[test]
    fn the_kind_the_delay_source_the_injection_and_the_status_read_back() {
        let kinds = [
            AttemptKind::Primary,
            AttemptKind::Fallback,
            AttemptKind::Hedge,
        ];
        let sources = [
            None,
            Some(DelaySource::Backoff),
            Some(DelaySource::RetryAfter),
        ];
        let injections = [
            None,
            Some(Injection::Fault),
            Some(Injection::Outcome),
            Some(Injection::Latency),
        ];
        for kind in kinds {
            for source in sources {
                for injected in injections {
                    let delay = source.map(|source| Delay::new(Duration::from_millis(7), source));
                    let mut record = AttemptRecord::begin(3, kind, 0, Nanos::NONE, delay);
                    if let Some(injected) = injected {
                        record.set_injected(injected);
                    }
                    record.set_status(503);
                    assert_eq!(record.kind(), kind);
                    assert_eq!(record.delay_before(), delay);
                    assert_eq!(record.injected(), injected);
                    assert_eq!(record.status(), Some(503));
                    assert_eq!(record.number(), 3);
                }
            }
        }
        assert_eq!(AttemptRecord::EMPTY.status(), None);
    }

    #[test]
    fn debug_shows_a_missing_deadline_as_none() {
        let record = AttemptRecord::begin(1, AttemptKind::Primary, 0, Nanos::NONE, None);
        let text = format!("{record:?}");
        assert!(text.contains("deadline: None"), "{text}");
        assert!(!text.contains("18446744073709551615"), "{text}");
        let granted =
            AttemptRecord::begin(1, AttemptKind::Primary, 0, Nanos::from_u64(2_000), None);
        assert!(format!("{granted:?}").contains("deadline: Some(2µs)"));
    }

    #[test]
    fn the_log_moves_to_the_heap_past_its_inline_slots_in_order() {
        let mut records = Records::new();
        for n in 1..=5 {
            records.push(
                AttemptRecord::begin(n, AttemptKind::Primary, 0, Nanos::NONE, None),
                64,
            );
            let numbers: Vec<_> = records.as_slice().iter().map(|r| r.number).collect();
            assert_eq!(numbers, (1..=n).collect::<Vec<_>>());
        }
        records.as_mut_slice()[4].number = 9;
        assert_eq!(records.as_slice()[4].number, 9);
    }

    fn begun(number: u32, kind: AttemptKind) -> AttemptRecord {
        AttemptRecord::begin(number, kind, 0, Nanos::NONE, None)
    }

    fn numbers(records: &Records) -> Vec<u32> {
        records.as_slice().iter().map(|r| r.number).collect()
    }

    #[test]
    fn past_its_most_the_log_keeps_the_first_half_and_the_latest_and_counts_the_rest() {
        let mut records = Records::new();
        for n in 1..=1000 {
            records.push(begun(n, AttemptKind::Primary), 64);
            assert!(records.as_slice().len() <= 64);
        }
        let expected: Vec<u32> = (1..=32).chain(969..=1000).collect();
        assert_eq!(numbers(&records), expected);
        assert_eq!(records.left_out(), (1000 - 64, 1000 - 64));
        assert!(records.numbered(500).is_none());
        assert_eq!(records.numbered(969).map(|r| r.number), Some(969));
        assert_eq!(records.numbered(32).map(|r| r.number), Some(32));
    }

    #[test]
    fn an_odd_most_keeps_one_more_of_the_latest_and_a_most_of_zero_keeps_one() {
        let mut records = Records::new();
        for n in 1..=9 {
            records.push(begun(n, AttemptKind::Primary), 5);
        }
        assert_eq!(numbers(&records), [1, 2, 7, 8, 9]);
        let mut records = Records::new();
        for n in 1..=9 {
            records.push(begun(n, AttemptKind::Primary), 0);
        }
        assert_eq!(numbers(&records), [9]);
        assert_eq!(records.left_out(), (8, 8));
    }

    #[test]
    fn hedges_are_never_left_out_while_their_round_runs() {
        let mut records = Records::new();
        // Rounds of a primary and two hedges, at most 4 records.
        let mut number = 0;
        for _round in 0..5 {
            for kind in [AttemptKind::Primary, AttemptKind::Hedge, AttemptKind::Hedge] {
                number += 1;
                records.push(begun(number, kind), 4);
            }
            // The round's three records are all kept while it runs.
            let kept = numbers(&records);
            assert_eq!(kept[kept.len() - 3..], [number - 2, number - 1, number]);
        }
        // The next primary leaves the rounds before it out, to 4 with it.
        records.push(begun(16, AttemptKind::Primary), 4);
        assert_eq!(numbers(&records), [1, 2, 15, 16]);
        // Of the 12 left out (3 to 14), 4 were primary attempts: 4, 7, 10
        // and 13.
        let (all, primaries) = records.left_out();
        assert_eq!(all, 12);
        assert_eq!(primaries, 4);
    }
}
