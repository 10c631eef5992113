//! Duration literals such as `"250ms"` or `"1.5s"`, read exactly at expansion
//! time so that a typo is a compile error rather than a panic at run time.

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote_spanned;

const NANOS_PER_SEC: u128 = 1_000_000_000;

const UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", NANOS_PER_SEC),
    ("m", 60 * NANOS_PER_SEC),
    ("h", 3_600 * NANOS_PER_SEC),
];

/// What to write instead, shown with every malformed duration.
pub(crate) const HOW_TO: &str = "write a number and a unit, like \"250ms\", \"10s\", \"1.5s\" or \"2m\" \
     (units: ns, us, ms, s, m, h), or pass a `std::time::Duration`";

/// A duration checked at expansion time, in nanoseconds.
///
/// Always fits a `std::time::Duration`: [`parse`] rejects anything longer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Nanos(pub(crate) u128);

impl Nanos {
    pub(crate) const fn from_millis(millis: u128) -> Self {
        Nanos(millis * 1_000_000)
    }

    pub(crate) fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// `::core::time::Duration::new(secs, nanos)`, spanned at `span`.
    pub(crate) fn to_tokens(self, span: Span) -> TokenStream {
        let secs = u64::try_from(self.0 / NANOS_PER_SEC).unwrap_or(u64::MAX);
        let subsec = u32::try_from(self.0 % NANOS_PER_SEC).unwrap_or(0);
        let secs = Literal::u64_suffixed(secs);
        let subsec = Literal::u32_suffixed(subsec);
        quote_spanned!(span=> ::core::time::Duration::new(#secs, #subsec))
    }
}

/// Written with the largest unit that divides it, as in `"100ms"` or `"10s"`.
impl std::fmt::Display for Nanos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_zero() {
            return f.write_str("0s");
        }
        let (unit, factor) = UNITS
            .iter()
            .rev()
            .filter(|(unit, _)| *unit != "µs")
            .find(|(_, factor)| self.0.is_multiple_of(*factor))
            .copied()
            .unwrap_or(("ns", 1));
        write!(f, "{}{unit}", self.0 / factor)
    }
}

/// Reads `"<number><unit>"`; the number may have a fractional part as long as
/// the result is a whole number of nanoseconds.
///
/// The error says what is wrong; callers add [`HOW_TO`].
pub(crate) fn parse(text: &str) -> Result<Nanos, String> {
    let trimmed = text.trim();
    let number_len = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(number_len);
    let unit = unit.trim_start();
    if number.is_empty() {
        return Err(if trimmed.is_empty() {
            "it is empty".to_owned()
        } else if trimmed.starts_with('-') {
            "a duration can't be negative".to_owned()
        } else {
            "it doesn't start with a number".to_owned()
        });
    }
    let Some(&(_, factor)) = UNITS.iter().find(|(name, _)| *name == unit) else {
        return Err(if unit.is_empty() {
            "it has no unit".to_owned()
        } else {
            format!("`{unit}` is not a unit")
        });
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let malformed = whole.is_empty()
        || fraction.contains('.')
        || (fraction.is_empty() && number.ends_with('.'));
    if malformed {
        return Err(format!("`{number}` is not a number"));
    }
    let too_long = || "it is longer than a `Duration` can hold".to_owned();
    let mut total = digits(whole)
        .and_then(|whole| whole.checked_mul(factor))
        .ok_or_else(too_long)?;
    let fraction = fraction.trim_end_matches('0');
    if !fraction.is_empty() {
        let finer = || "it is not a whole number of nanoseconds".to_owned();
        let scale = u32::try_from(fraction.len())
            .ok()
            .and_then(|len| 10u128.checked_pow(len))
            .ok_or_else(finer)?;
        let scaled = digits(fraction)
            .and_then(|fraction| fraction.checked_mul(factor))
            .ok_or_else(finer)?;
        if scaled % scale != 0 {
            return Err(finer());
        }
        total = total.checked_add(scaled / scale).ok_or_else(too_long)?;
    }
    if total / NANOS_PER_SEC > u128::from(u64::MAX) {
        return Err(too_long());
    }
    Ok(Nanos(total))
}

fn digits(text: &str) -> Option<u128> {
    text.chars().try_fold(0u128, |value, c| {
        value
            .checked_mul(10)?
            .checked_add(u128::from(c.to_digit(10)?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nanos(text: &str) -> u128 {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).0
    }

    #[test]
    fn reads_every_unit() {
        assert_eq!(nanos("7ns"), 7);
        assert_eq!(nanos("7us"), 7_000);
        assert_eq!(nanos("7µs"), 7_000);
        assert_eq!(nanos("250ms"), 250_000_000);
        assert_eq!(nanos("10s"), 10_000_000_000);
        assert_eq!(nanos("2m"), 120_000_000_000);
        assert_eq!(nanos("1h"), 3_600_000_000_000);
    }

    #[test]
    fn reads_fractions_exactly() {
        assert_eq!(nanos("1.5s"), 1_500_000_000);
        assert_eq!(nanos("0.1s"), 100_000_000);
        assert_eq!(nanos("0.001ms"), 1_000);
        assert_eq!(
            nanos("1.000000000000000000000000000000000000000000s"),
            NANOS_PER_SEC
        );
        assert_eq!(nanos("0.5m"), 30_000_000_000);
    }

    #[test]
    fn tolerates_spaces() {
        assert_eq!(nanos(" 10 s "), 10_000_000_000);
    }

    #[test]
    fn zero_is_a_duration() {
        assert!(parse("0s").unwrap().is_zero());
    }

    #[test]
    fn rejects_garbage_with_a_reason() {
        let reason = |text: &str| parse(text).unwrap_err();
        assert_eq!(reason("10"), "it has no unit");
        assert_eq!(reason("10 sec"), "`sec` is not a unit");
        assert_eq!(reason("10S"), "`S` is not a unit");
        assert_eq!(reason(""), "it is empty");
        assert_eq!(reason("-1s"), "a duration can't be negative");
        assert_eq!(reason("ms"), "it doesn't start with a number");
        assert_eq!(reason("1..5s"), "`1..5` is not a number");
        assert_eq!(reason("1.s"), "`1.` is not a number");
        assert_eq!(reason(".5s"), "`.5` is not a number");
        assert_eq!(reason("1.5ns"), "it is not a whole number of nanoseconds");
        assert_eq!(
            reason("0.0000000000000000000000000000000000000000001s"),
            "it is not a whole number of nanoseconds"
        );
    }

    #[test]
    fn rejects_what_a_duration_cannot_hold() {
        let max_secs = u128::from(u64::MAX);
        assert_eq!(nanos(&format!("{max_secs}s")), max_secs * NANOS_PER_SEC);
        assert!(parse(&format!("{}s", max_secs + 1)).is_err());
        assert!(parse("99999999999999999999999999999999999999999h").is_err());
        assert!(parse(&format!("{}h", u128::MAX)).is_err());
    }

    #[test]
    fn displays_with_the_largest_exact_unit() {
        let shown = |text: &str| parse(text).unwrap().to_string();
        assert_eq!(shown("100ms"), "100ms");
        assert_eq!(shown("10s"), "10s");
        assert_eq!(shown("10000ms"), "10s");
        assert_eq!(shown("1.5s"), "1500ms");
        assert_eq!(shown("90m"), "90m");
        assert_eq!(shown("120m"), "2h");
        assert_eq!(shown("7us"), "7us");
        assert_eq!(shown("1001ns"), "1001ns");
        assert_eq!(shown("0ms"), "0s");
    }

    #[test]
    fn emits_seconds_and_nanoseconds() {
        let tokens = nanos("1.5s");
        let out = Nanos(tokens).to_tokens(Span::call_site()).to_string();
        assert_eq!(
            out,
            ":: core :: time :: Duration :: new (1u64 , 500000000u32)"
        );
    }
}
