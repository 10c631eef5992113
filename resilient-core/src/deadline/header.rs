//! Deadlines on the wire: the text a client sends downstream, and what a
//! server makes of it; and the hold header (`HoldHeader`, feature
//! `http`), which tells a service that a caller up the chain retries the
//! request, so that its own calls don't.
//!
//! Two formats: gRPC's own `grpc-timeout` (a number of at most 8 digits
//! and a unit, `H` `M` `S` `m` `u` `n`: `250m` is 250 ms), and a plain
//! number of milliseconds for a header the user names. Formatting never
//! shortens a deadline: what can't be said exactly is rounded up, and a
//! deadline too long for 8 digits of hours says `99999999H`. Parsing
//! refuses anything but digits and a unit (no sign, no spaces inside, no
//! more than 8 digits for gRPC), and never panics.
//!
//! ```
//! use resilient::deadline::header;
//! use std::time::Duration;
//!
//! assert_eq!(header::format_grpc_timeout(Duration::from_millis(250)), "250m");
//! assert_eq!(header::format_grpc_timeout(Duration::from_secs(120)), "2M");
//! assert_eq!(header::parse_grpc_timeout("250m"), Ok(Duration::from_millis(250)));
//! assert!(header::parse_grpc_timeout("-1S").is_err());
//!
//! assert_eq!(header::format_millis(Duration::from_micros(1500)), "2");
//! assert_eq!(header::parse_millis("1500"), Ok(Duration::from_millis(1500)));
//! ```

use std::time::Duration;

/// The most digits gRPC allows in a `grpc-timeout` value.
const GRPC_DIGITS: usize = 8;
/// The largest number 8 digits say.
const GRPC_MAX_VALUE: u128 = 99_999_999;

/// gRPC's units, coarsest first, with their length in nanoseconds.
const GRPC_UNITS: [(u8, u128); 6] = [
    (b'H', 3_600_000_000_000),
    (b'M', 60_000_000_000),
    (b'S', 1_000_000_000),
    (b'm', 1_000_000),
    (b'u', 1_000),
    (b'n', 1),
];

/// Why a deadline header's value was refused.
///
/// ```
/// use resilient::deadline::header::{self, BadDeadline};
///
/// assert_eq!(header::parse_grpc_timeout("123456789S"), Err(BadDeadline::TooManyDigits));
/// assert_eq!(header::parse_grpc_timeout("10x"), Err(BadDeadline::UnknownUnit));
/// assert_eq!(header::parse_millis(""), Err(BadDeadline::Empty));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BadDeadline {
    /// The value was empty, or had a unit and no number.
    Empty,
    /// Something other than an ASCII digit where the number goes (a sign,
    /// a space, a decimal point).
    NotANumber,
    /// More digits than the format allows (8 for `grpc-timeout`), or a
    /// number too large for any duration.
    TooManyDigits,
    /// A `grpc-timeout` value whose last character is not one of
    /// `H` `M` `S` `m` `u` `n`.
    UnknownUnit,
}

impl std::fmt::Display for BadDeadline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BadDeadline::Empty => "the deadline header is empty",
            BadDeadline::NotANumber => "the deadline header's number is not made of digits",
            BadDeadline::TooManyDigits => "the deadline header's number has too many digits",
            BadDeadline::UnknownUnit => "the deadline header's unit is not one of H M S m u n",
        })
    }
}

impl std::error::Error for BadDeadline {}

/// The `grpc-timeout` text for `remaining`: the coarsest unit that says it
/// exactly in at most 8 digits, or else the finest unit whose rounded-up
/// value fits, so the receiver is never given less time than was left.
///
/// ```
/// use resilient::deadline::header::format_grpc_timeout;
/// use std::time::Duration;
///
/// assert_eq!(format_grpc_timeout(Duration::from_secs(3600)), "1H");
/// assert_eq!(format_grpc_timeout(Duration::from_nanos(1_500)), "1500n");
/// // 123 456 789 ns needs 9 digits in ns: rounded up to whole µs.
/// assert_eq!(format_grpc_timeout(Duration::from_nanos(123_456_789)), "123457u");
/// assert_eq!(format_grpc_timeout(Duration::MAX), "99999999H");
/// ```
pub fn format_grpc_timeout(remaining: Duration) -> String {
    let nanos = remaining.as_nanos();
    let exact = GRPC_UNITS
        .iter()
        .find(|&&(_, len)| nanos.is_multiple_of(len) && nanos / len <= GRPC_MAX_VALUE);
    let (unit, value) = match exact {
        Some(&(unit, len)) => (unit, nanos / len),
        None => GRPC_UNITS
            .iter()
            .rev()
            .map(|&(unit, len)| (unit, nanos.div_ceil(len)))
            .find(|&(_, value)| value <= GRPC_MAX_VALUE)
            .unwrap_or((b'H', GRPC_MAX_VALUE)),
    };
    format!("{value}{}", char::from(unit))
}

/// The duration a `grpc-timeout` value says, or why it says none.
///
/// Spaces around the value are allowed; inside it they are not.
///
/// ```
/// use resilient::deadline::header::parse_grpc_timeout;
/// use std::time::Duration;
///
/// assert_eq!(parse_grpc_timeout("2M"), Ok(Duration::from_secs(120)));
/// assert_eq!(parse_grpc_timeout(" 5S "), Ok(Duration::from_secs(5)));
/// assert!(parse_grpc_timeout("1.5S").is_err());
/// assert!(parse_grpc_timeout("S").is_err());
/// ```
pub fn parse_grpc_timeout(value: &str) -> Result<Duration, BadDeadline> {
    let value = value.trim().as_bytes();
    let Some((&unit, digits)) = value.split_last() else {
        return Err(BadDeadline::Empty);
    };
    let Some(&(_, len)) = GRPC_UNITS.iter().find(|&&(u, _)| u == unit) else {
        return Err(BadDeadline::UnknownUnit);
    };
    let number = digits_value(digits, GRPC_DIGITS)?;
    Ok(nanos_saturating(u128::from(number) * len))
}

/// The header text for `remaining` in whole milliseconds, rounded up (a
/// deadline of 1.5 ms is sent as `2`).
///
/// ```
/// use resilient::deadline::header::format_millis;
/// use std::time::Duration;
///
/// assert_eq!(format_millis(Duration::from_millis(250)), "250");
/// assert_eq!(format_millis(Duration::from_nanos(1)), "1");
/// assert_eq!(format_millis(Duration::ZERO), "0");
/// ```
pub fn format_millis(remaining: Duration) -> String {
    remaining.as_nanos().div_ceil(1_000_000).to_string()
}

/// The duration a header of milliseconds says, or why it says none. A
/// number too large for a `u64` is refused; any other is the server's to
/// cap.
///
/// ```
/// use resilient::deadline::header::parse_millis;
/// use std::time::Duration;
///
/// assert_eq!(parse_millis("250"), Ok(Duration::from_millis(250)));
/// assert!(parse_millis("+250").is_err());
/// assert!(parse_millis("-250").is_err());
/// ```
pub fn parse_millis(value: &str) -> Result<Duration, BadDeadline> {
    // u64::MAX has 20 digits.
    let number = digits_value(value.trim().as_bytes(), 20)?;
    Ok(Duration::from_millis(number))
}

/// Which text a deadline header carries.
///
/// ```
/// use resilient::deadline::header::Format;
/// use std::time::Duration;
///
/// assert_eq!(Format::GrpcTimeout.format(Duration::from_millis(250)), "250m");
/// assert_eq!(Format::Millis.parse("250"), Ok(Duration::from_millis(250)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// gRPC's `grpc-timeout`: [`format_grpc_timeout`], [`parse_grpc_timeout`].
    GrpcTimeout,
    /// Whole milliseconds: [`format_millis`], [`parse_millis`].
    Millis,
}

impl Format {
    /// The text for `remaining` in this format.
    ///
    /// ```
    /// use resilient::deadline::header::Format;
    /// use std::time::Duration;
    ///
    /// assert_eq!(Format::Millis.format(Duration::from_secs(2)), "2000");
    /// ```
    pub fn format(self, remaining: Duration) -> String {
        match self {
            Format::GrpcTimeout => format_grpc_timeout(remaining),
            Format::Millis => format_millis(remaining),
        }
    }

    /// The duration `value` says in this format, or why it says none.
    ///
    /// ```
    /// use resilient::deadline::header::Format;
    /// use std::time::Duration;
    ///
    /// assert_eq!(Format::GrpcTimeout.parse("3S"), Ok(Duration::from_secs(3)));
    /// assert!(Format::Millis.parse("3S").is_err());
    /// ```
    pub fn parse(self, value: &str) -> Result<Duration, BadDeadline> {
        match self {
            Format::GrpcTimeout => parse_grpc_timeout(value),
            Format::Millis => parse_millis(value),
        }
    }
}

/// The budget a server grants a request whose deadline header is `value`:
/// what the header says, but never more than `cap`; `cap` itself when the
/// header is absent or refused. A refused value (not UTF-8, or one
/// [`Format::parse`] refuses) is logged as a `tracing` warning with the
/// feature `tracing`, and never panics.
///
/// ```
/// use resilient::deadline::header::{Format, budget_from};
/// use std::time::Duration;
///
/// let cap = Duration::from_secs(5);
/// assert_eq!(budget_from(Some(b"250m"), Format::GrpcTimeout, cap), Duration::from_millis(250));
/// assert_eq!(budget_from(Some(b"1H"), Format::GrpcTimeout, cap), cap);
/// assert_eq!(budget_from(Some(b"-1"), Format::Millis, cap), cap);
/// assert_eq!(budget_from(None, Format::Millis, cap), cap);
/// ```
pub fn budget_from(value: Option<&[u8]>, format: Format, cap: Duration) -> Duration {
    let Some(value) = value else {
        return cap;
    };
    let parsed = std::str::from_utf8(value)
        .map_err(|_| BadDeadline::NotANumber)
        .and_then(|text| format.parse(text));
    match parsed {
        Ok(asked) => asked.min(cap),
        Err(_why) => {
            #[cfg(feature = "tracing")]
            tracing::warn!(
                name: "deadline.header_refused",
                ?format,
                value = %String::from_utf8_lossy(value),
                reason = %_why,
                "an incoming deadline header was refused; the server's cap applies"
            );
            cap
        }
    }
}

/// A deadline header: its name and its [`Format`], for a client that sends
/// each attempt's deadline downstream and a server that reads it (feature
/// `http`).
///
/// ```
/// use resilient::deadline::header::{DeadlineHeader, Format};
/// use std::time::Duration;
///
/// let grpc = DeadlineHeader::grpc_timeout();
/// assert_eq!(grpc.name(), "grpc-timeout");
/// assert_eq!(grpc.value(Duration::from_millis(250)), "250m");
///
/// let millis = DeadlineHeader::millis(http::HeaderName::from_static("x-request-timeout-ms"));
/// assert_eq!(millis.format(), Format::Millis);
/// assert_eq!(millis.value(Duration::from_millis(250)), "250");
/// ```
#[cfg(feature = "http")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadlineHeader {
    name: http::HeaderName,
    format: Format,
}

#[cfg(feature = "http")]
impl DeadlineHeader {
    /// gRPC's `grpc-timeout`, in its own format.
    ///
    /// ```
    /// use resilient::deadline::header::{DeadlineHeader, Format};
    ///
    /// assert_eq!(DeadlineHeader::grpc_timeout().format(), Format::GrpcTimeout);
    /// ```
    pub fn grpc_timeout() -> Self {
        DeadlineHeader {
            name: http::HeaderName::from_static("grpc-timeout"),
            format: Format::GrpcTimeout,
        }
    }

    /// A header of the user's naming, in whole milliseconds.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    ///
    /// let header = DeadlineHeader::millis(http::HeaderName::from_static("x-request-timeout-ms"));
    /// assert_eq!(header.name(), "x-request-timeout-ms");
    /// ```
    pub fn millis(name: http::HeaderName) -> Self {
        DeadlineHeader {
            name,
            format: Format::Millis,
        }
    }

    /// The header's name.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    ///
    /// assert_eq!(DeadlineHeader::grpc_timeout().name(), "grpc-timeout");
    /// ```
    pub fn name(&self) -> &http::HeaderName {
        &self.name
    }

    /// The header's format.
    ///
    /// ```
    /// use resilient::deadline::header::{DeadlineHeader, Format};
    ///
    /// assert_eq!(DeadlineHeader::grpc_timeout().format(), Format::GrpcTimeout);
    /// ```
    pub fn format(&self) -> Format {
        self.format
    }

    /// The header's value for a deadline of `remaining`.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    /// use std::time::Duration;
    ///
    /// assert_eq!(DeadlineHeader::grpc_timeout().value(Duration::from_secs(2)), "2S");
    /// ```
    pub fn value(&self, remaining: Duration) -> http::HeaderValue {
        // Digits and a unit letter: always a valid header value.
        http::HeaderValue::try_from(self.format.format(remaining))
            .unwrap_or_else(|_| http::HeaderValue::from_static("0"))
    }

    /// Sets the header in `headers` to what the current attempt has left
    /// ([`remaining`](crate::deadline::remaining)), replacing any value it
    /// had; leaves `headers` as they are outside an attempt with a
    /// deadline. Returns the deadline sent.
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    ///
    /// let mut headers = http::HeaderMap::new();
    /// assert_eq!(DeadlineHeader::grpc_timeout().stamp(&mut headers), None);
    /// assert!(headers.is_empty());
    /// ```
    pub fn stamp(&self, headers: &mut http::HeaderMap) -> Option<Duration> {
        let remaining = crate::deadline::remaining()?;
        headers.insert(self.name.clone(), self.value(remaining));
        Some(remaining)
    }

    /// The budget a server with the cap `cap` grants a request whose
    /// headers are `headers`: see [`budget_from`].
    ///
    /// ```
    /// use resilient::deadline::header::DeadlineHeader;
    /// use std::time::Duration;
    ///
    /// let mut headers = http::HeaderMap::new();
    /// headers.insert("grpc-timeout", http::HeaderValue::from_static("300m"));
    /// let cap = Duration::from_secs(5);
    /// assert_eq!(DeadlineHeader::grpc_timeout().budget(&headers, cap), Duration::from_millis(300));
    /// assert_eq!(DeadlineHeader::grpc_timeout().budget(&http::HeaderMap::new(), cap), cap);
    /// ```
    pub fn budget(&self, headers: &http::HeaderMap, cap: Duration) -> Duration {
        budget_from(
            headers.get(&self.name).map(http::HeaderValue::as_bytes),
            self.format,
            cap,
        )
    }
}

/// Why a hold header's value was refused: it says neither `1` nor `0`.
///
/// ```
/// use resilient::deadline::header::{BadHold, parse_hold};
///
/// assert_eq!(parse_hold("1"), Ok(true));
/// assert_eq!(parse_hold("yes"), Err(BadHold));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadHold;

crate::marker::marker_error!(BadHold, "the hold header says neither 1 nor 0");

/// Whether a hold header's value says that a caller up the chain retries
/// the request: `1` yes, `0` no, spaces around allowed; anything else is
/// refused.
///
/// ```
/// use resilient::deadline::header::parse_hold;
///
/// assert_eq!(parse_hold(" 1 "), Ok(true));
/// assert_eq!(parse_hold("0"), Ok(false));
/// assert!(parse_hold("true").is_err());
/// assert!(parse_hold("").is_err());
/// ```
pub fn parse_hold(value: &str) -> Result<bool, BadHold> {
    match value.trim() {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(BadHold),
    }
}

/// Whether a request whose hold header is `value` is held: retried by a
/// caller up the chain, so that the calls its handler makes should not
/// retry. No header is no hold; a refused value (not UTF-8, or neither
/// `1` nor `0`) is no hold either, logged as a `tracing` warning with the
/// feature `tracing`, and never panics.
///
/// ```
/// use resilient::deadline::header::held_from;
///
/// assert!(held_from(Some(b"1")));
/// assert!(!held_from(Some(b"0")));
/// assert!(!held_from(Some(b"\xff")));
/// assert!(!held_from(None));
/// ```
pub fn held_from(value: Option<&[u8]>) -> bool {
    let Some(value) = value else {
        return false;
    };
    let parsed = std::str::from_utf8(value)
        .map_err(|_| BadHold)
        .and_then(parse_hold);
    match parsed {
        Ok(held) => held,
        Err(why) => {
            hold_refused(value, why);
            false
        }
    }
}

/// Logs a refused hold header's `value` as a `tracing` warning (feature
/// `tracing`).
fn hold_refused(value: &[u8], why: BadHold) {
    #[cfg(feature = "tracing")]
    tracing::warn!(
        name: "deadline.hold_header_refused",
        value = %String::from_utf8_lossy(value),
        reason = %why,
        "an incoming hold header was refused; the handler's calls retry as they would"
    );
    #[cfg(not(feature = "tracing"))]
    let _ = (value, why);
}

/// A hold header: the header a client sends on a request when a caller
/// up the chain retries it, so that the service it reaches runs its
/// handler with the hold set and the resilient calls the handler makes
/// don't retry ([`Nested::NoRetry`](crate::deadline::Nested), across
/// services; feature `http`). It says `1`, and is sent when the attempt
/// that sends the request holds the retries of the calls inside it (a
/// retrying call with `nested = "no_retry"`), or when the request is sent
/// from inside such an attempt, however deep.
///
/// The default name is [`x-caller-retries`](Self::DEFAULT_NAME); both
/// ends must use the same one.
///
/// ```
/// use resilient::deadline::header::HoldHeader;
///
/// let hold = HoldHeader::default();
/// assert_eq!(hold.name(), "x-caller-retries");
/// let own = HoldHeader::new(http::HeaderName::from_static("x-upstream-retries"));
/// assert_eq!(own.name(), "x-upstream-retries");
/// ```
#[cfg(feature = "http")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldHeader {
    name: http::HeaderName,
}

#[cfg(feature = "http")]
impl Default for HoldHeader {
    fn default() -> Self {
        HoldHeader::new(http::HeaderName::from_static(Self::DEFAULT_NAME))
    }
}

#[cfg(feature = "http")]
impl HoldHeader {
    /// The name [`HoldHeader::default`] uses: `x-caller-retries`, "a
    /// caller up the chain retries this request; don't retry below".
    ///
    /// ```
    /// use resilient::deadline::header::HoldHeader;
    ///
    /// assert_eq!(HoldHeader::DEFAULT_NAME, "x-caller-retries");
    /// ```
    pub const DEFAULT_NAME: &'static str = "x-caller-retries";

    /// A hold header of the user's naming.
    ///
    /// ```
    /// use resilient::deadline::header::HoldHeader;
    ///
    /// let hold = HoldHeader::new(http::HeaderName::from_static("x-upstream-retries"));
    /// assert_eq!(hold.name(), "x-upstream-retries");
    /// ```
    pub fn new(name: http::HeaderName) -> Self {
        HoldHeader { name }
    }

    /// The header's name.
    ///
    /// ```
    /// use resilient::deadline::header::HoldHeader;
    ///
    /// assert_eq!(HoldHeader::default().name(), HoldHeader::DEFAULT_NAME);
    /// ```
    pub fn name(&self) -> &http::HeaderName {
        &self.name
    }

    /// Sets the header in `headers` to `1` when a caller around the code
    /// running here holds the retries of the calls inside it, replacing
    /// any value it had; leaves `headers` as they are otherwise. Returns
    /// whether it set it.
    ///
    /// ```
    /// use resilient::deadline::{Nested, header::HoldHeader};
    /// use resilient::{Backoff, FakeClock, Operation};
    ///
    /// let mut outside = http::HeaderMap::new();
    /// assert!(!HoldHeader::default().stamp(&mut outside));
    /// assert!(outside.is_empty());
    ///
    /// let clock = FakeClock::new();
    /// let sent = Operation::new()
    ///     .clock(&clock)
    ///     .max_attempts(2)
    ///     .backoff(Backoff::none())
    ///     .nested(Nested::NoRetry)
    ///     .run(|_| {
    ///         let mut headers = http::HeaderMap::new();
    ///         HoldHeader::default().stamp(&mut headers);
    ///         Ok::<_, String>(headers)
    ///     })
    ///     .into_result()
    ///     .unwrap();
    /// assert_eq!(sent["x-caller-retries"], "1");
    /// ```
    pub fn stamp(&self, headers: &mut http::HeaderMap) -> bool {
        let held = crate::deadline::caller_retries();
        if held {
            headers.insert(self.name.clone(), http::HeaderValue::from_static("1"));
        }
        held
    }

    /// Whether a request whose headers are `headers` is held: see
    /// [`held_from`].
    ///
    /// ```
    /// use resilient::deadline::header::HoldHeader;
    ///
    /// let mut headers = http::HeaderMap::new();
    /// assert!(!HoldHeader::default().held(&headers));
    /// headers.insert("x-caller-retries", http::HeaderValue::from_static("1"));
    /// assert!(HoldHeader::default().held(&headers));
    /// ```
    pub fn held(&self, headers: &http::HeaderMap) -> bool {
        held_from(headers.get(&self.name).map(http::HeaderValue::as_bytes))
    }
}

/// The number `digits` says: ASCII digits only, at most `most` of them,
/// and within a `u64`.
fn digits_value(digits: &[u8], most: usize) -> Result<u64, BadDeadline> {
    if digits.is_empty() {
        return Err(BadDeadline::Empty);
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return Err(BadDeadline::NotANumber);
    }
    if digits.len() > most {
        return Err(BadDeadline::TooManyDigits);
    }
    digits.iter().try_fold(0u64, |acc, &d| {
        acc.checked_mul(10)
            .and_then(|acc| acc.checked_add(u64::from(d - b'0')))
            .ok_or(BadDeadline::TooManyDigits)
    })
}

/// A duration of `nanos`, or [`Duration::MAX`] past it.
fn nanos_saturating(nanos: u128) -> Duration {
    let secs = nanos / 1_000_000_000;
    match u64::try_from(secs) {
        // The remainder is below 10^9, so it fits a u32.
        Ok(secs) => Duration::new(secs, (nanos % 1_000_000_000) as u32),
        Err(_) => Duration::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn grpc_format_picks_the_coarsest_exact_unit() {
        let cases = [
            (Duration::ZERO, "0H"),
            (Duration::from_nanos(1), "1n"),
            (Duration::from_micros(7), "7u"),
            (Duration::from_millis(250), "250m"),
            (Duration::from_secs(1), "1S"),
            (Duration::from_secs(90), "90S"),
            (Duration::from_secs(120), "2M"),
            (Duration::from_secs(7200), "2H"),
            (Duration::from_nanos(99_999_999), "99999999n"),
        ];
        for (d, text) in cases {
            assert_eq!(format_grpc_timeout(d), text, "{d:?}");
        }
    }

    #[test]
    fn grpc_format_rounds_up_what_it_cannot_say_exactly() {
        // 9 digits of ns: the next unit up, rounded up.
        assert_eq!(
            format_grpc_timeout(Duration::from_nanos(100_000_001)),
            "100001u"
        );
        // 100 000 s and 1 ns: 9 digits in ms too, so whole seconds.
        assert_eq!(format_grpc_timeout(Duration::new(100_000, 1)), "100001S");
        assert_eq!(format_grpc_timeout(Duration::MAX), "99999999H");
    }

    #[test]
    fn grpc_parse_refuses_what_is_not_a_timeout() {
        use BadDeadline::*;
        let cases = [
            ("", Empty),
            ("   ", Empty),
            ("m", Empty),
            ("10", UnknownUnit),
            ("10s", UnknownUnit),
            ("10ms", UnknownUnit),
            ("-1S", NotANumber),
            ("+1S", NotANumber),
            ("1 S", NotANumber),
            ("1.5S", NotANumber),
            ("１S", NotANumber),
            ("123456789n", TooManyDigits),
            ("99999999999999999999999H", TooManyDigits),
        ];
        for (text, why) in cases {
            assert_eq!(parse_grpc_timeout(text), Err(why), "{text:?}");
        }
        assert_eq!(
            parse_grpc_timeout("99999999H"),
            Ok(Duration::from_secs(99_999_999 * 3600))
        );
        assert_eq!(parse_grpc_timeout("00000001S"), Ok(Duration::from_secs(1)));
    }

    #[test]
    fn millis_parse_and_format() {
        assert_eq!(parse_millis("0"), Ok(Duration::ZERO));
        assert_eq!(parse_millis(" 42 "), Ok(Duration::from_millis(42)));
        assert_eq!(
            parse_millis("18446744073709551615"),
            Ok(Duration::from_millis(u64::MAX))
        );
        assert_eq!(
            parse_millis("18446744073709551616"),
            Err(BadDeadline::TooManyDigits)
        );
        assert_eq!(parse_millis("1e3"), Err(BadDeadline::NotANumber));
        assert_eq!(parse_millis("-1"), Err(BadDeadline::NotANumber));
        assert_eq!(format_millis(Duration::from_nanos(1_000_001)), "2");
        assert_eq!(format_millis(Duration::MAX), "18446744073709551616000");
    }

    #[test]
    fn the_servers_cap_always_applies() {
        let cap = Duration::from_secs(2);
        let cases: [(Option<&[u8]>, Format, Duration); 8] = [
            (None, Format::GrpcTimeout, cap),
            (
                Some(b"500m"),
                Format::GrpcTimeout,
                Duration::from_millis(500),
            ),
            (Some(b"3S"), Format::GrpcTimeout, cap),
            (Some(b"99999999H"), Format::GrpcTimeout, cap),
            (Some(b"garbage"), Format::GrpcTimeout, cap),
            (Some(b"\xff\xfe"), Format::Millis, cap),
            (Some(b"750"), Format::Millis, Duration::from_millis(750)),
            (Some(b"-750"), Format::Millis, cap),
        ];
        for (value, format, budget) in cases {
            assert_eq!(
                budget_from(value, format, cap),
                budget,
                "{value:?} {format:?}"
            );
        }
    }

    #[test]
    fn a_hold_says_one_or_zero_and_anything_else_is_no_hold() {
        let cases: [(Option<&[u8]>, bool); 9] = [
            (None, false),
            (Some(b"1"), true),
            (Some(b" 1\t"), true),
            (Some(b"0"), false),
            (Some(b""), false),
            (Some(b"2"), false),
            (Some(b"01"), false),
            (Some(b"true"), false),
            (Some(b"\xff1"), false),
        ];
        for (value, held) in cases {
            assert_eq!(held_from(value), held, "{value:?}");
        }
    }

    proptest! {
        #[test]
        fn a_hold_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..8)) {
            let _ = held_from(Some(&bytes));
        }


        #[test]
        fn budget_never_exceeds_the_cap(bytes in proptest::collection::vec(any::<u8>(), 0..24), cap_ms in 0u64..10_000) {
            let cap = Duration::from_millis(cap_ms);
            for format in [Format::GrpcTimeout, Format::Millis] {
                prop_assert!(budget_from(Some(&bytes), format, cap) <= cap);
            }
        }

        #[test]
        fn grpc_parse_never_panics(text in ".{0,24}") {
            let _ = parse_grpc_timeout(&text);
            let _ = parse_millis(&text);
        }

        #[test]
        fn grpc_roundtrip_never_shortens(secs in 0u64..=u64::MAX, nanos in 0u32..1_000_000_000) {
            let d = Duration::new(secs, nanos);
            let text = format_grpc_timeout(d);
            prop_assert!(text.len() <= GRPC_DIGITS + 1);
            let back = parse_grpc_timeout(&text).expect("what we format parses");
            // Never less time than was left, unless the value saturated.
            prop_assert!(back >= d || text == "99999999H", "{d:?} -> {text} -> {back:?}");
        }

        #[test]
        fn grpc_roundtrip_is_exact_when_it_fits(nanos in 0u64..=99_999_999) {
            let d = Duration::from_nanos(nanos);
            prop_assert_eq!(parse_grpc_timeout(&format_grpc_timeout(d)), Ok(d));
        }

        #[test]
        fn millis_roundtrip_rounds_up_by_under_a_millisecond(ms in 0u64..1 << 40, extra in 0u32..1_000_000) {
            let d = Duration::from_millis(ms) + Duration::from_nanos(u64::from(extra));
            let back = parse_millis(&format_millis(d)).expect("what we format parses");
            prop_assert!(back >= d && back - d < Duration::from_millis(1));
        }
    }
}
