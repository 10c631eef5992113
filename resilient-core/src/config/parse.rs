//! Reading a configuration: each value by its key's rule, each key
//! placed by its path and line, the sections assembled into a [`Config`].

use std::collections::BTreeMap;
use std::time::Duration;

use super::{
    AdaptiveThrottleConfig, BreakerConfig, ChaosConfig, Config, ConfigFileError, LimitConfig,
    OperationConfig, ThrottleConfig,
};
use crate::a6;
use crate::{ConfigError, Jitter};

/// The sections a configuration may have.
pub(super) const SECTIONS: [&str; 6] = [
    "operations",
    "breakers",
    "limits",
    "throttles",
    "adaptive_throttles",
    "chaos",
];

/// A value as read, before its key's rule.
pub(super) enum Raw {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Other(&'static str),
}

impl Raw {
    /// What kind of value it is, for an error that says what was found.
    fn kind(&self) -> &'static str {
        match self {
            Raw::Int(_) => "whole number",
            Raw::Float(_) => "number",
            Raw::Str(_) => "string",
            Raw::Bool(_) => "boolean",
            Raw::Other(kind) => kind,
        }
    }
}

pub(super) struct Cursor<'a> {
    path: String,
    line: Option<usize>,
    raw: &'a Raw,
}

impl<'a> Cursor<'a> {
    /// The value of `entry`, placed at `path`.
    pub(super) fn new(path: String, entry: &'a RawEntry) -> Self {
        Cursor {
            path,
            line: entry.line,
            raw: &entry.raw,
        }
    }

    pub(super) fn fail(&self, reason: impl Into<String>) -> ConfigFileError {
        ConfigFileError {
            path: self.path.clone(),
            line: self.line,
            reason: reason.into(),
            rule: None,
            more: Box::default(),
        }
    }

    pub(super) fn count(&self, min: u32) -> Result<u32, ConfigFileError> {
        let number = match self.raw {
            Raw::Int(number) => *number,
            Raw::Str(text) => text
                .trim()
                .parse::<i64>()
                .map_err(|_| self.fail(format!("expected a whole number, got {text:?}")))?,
            Raw::Float(number) => {
                return Err(self.fail(format!("expected a whole number, got {number}")));
            }
            Raw::Bool(_) | Raw::Other(_) => {
                let kind = self.raw.kind();
                return Err(self.fail(format!("expected a whole number, got a {kind}")));
            }
        };
        if number < i64::from(min) {
            return Err(self.fail(format!("must be at least {min}, got {number}")));
        }
        u32::try_from(number)
            .ok()
            .filter(|n| *n < u32::MAX)
            .ok_or_else(|| self.fail(format!("{number} is too large")))
    }

    fn duration(&self, positive: bool) -> Result<Duration, ConfigFileError> {
        let Raw::Str(text) = self.raw else {
            return Err(self.fail("expected a duration such as \"250ms\" or \"2s\""));
        };
        let duration = parse_duration(text).map_err(|why| {
            self.fail(format!(
                "{why}: write a number and a unit, like \"250ms\", \"10s\", \"1.5s\" or \"2m\" (units: ns, us, ms, s, m, h)"
            ))
        })?;
        if positive && duration.is_zero() {
            return Err(self.fail("must be greater than zero"));
        }
        Ok(duration)
    }

    fn number(&self) -> Result<f64, ConfigFileError> {
        match self.raw {
            Raw::Int(number) => Ok(*number as f64),
            Raw::Float(number) => Ok(*number),
            Raw::Str(text) => text
                .trim()
                .parse::<f64>()
                .map_err(|_| self.fail(format!("expected a number, got {text:?}"))),
            Raw::Bool(_) | Raw::Other(_) => {
                let kind = self.raw.kind();
                Err(self.fail(format!("expected a number, got a {kind}")))
            }
        }
    }

    fn multiplier(&self) -> Result<f64, ConfigFileError> {
        let value = self.number()?;
        if !value.is_finite() || value < 1.0 {
            let mut error = self.fail(format!("must be a finite number >= 1.0, got {value}"));
            error.rule = Some(ConfigError::InvalidMultiplier(value));
            return Err(error);
        }
        Ok(value)
    }

    /// `true` or `false`; from the environment, as written in any case.
    fn boolean(&self) -> Result<bool, ConfigFileError> {
        match self.raw {
            Raw::Bool(truth) => Ok(*truth),
            Raw::Str(text) if text.trim().eq_ignore_ascii_case("true") => Ok(true),
            Raw::Str(text) if text.trim().eq_ignore_ascii_case("false") => Ok(false),
            Raw::Str(text) => Err(self.fail(format!("expected true or false, got {text:?}"))),
            _ => {
                let kind = self.raw.kind();
                Err(self.fail(format!("expected true or false, got a {kind}")))
            }
        }
    }

    /// A share of attempts, within `0..=1`.
    fn share(&self) -> Result<f64, ConfigFileError> {
        let value = self.number()?;
        if !(0.0..=1.0).contains(&value) {
            return Err(self.fail(format!(
                "must be within 0..=1 (a share of attempts: 0.05 is one in twenty), got {value}"
            )));
        }
        Ok(value)
    }

    /// A retry throttle's `max_tokens`, by `RetryThrottle::try_new`'s rule.
    fn max_tokens(&self) -> Result<u32, ConfigFileError> {
        let max_tokens = self.count(0)?;
        a6::check_max_tokens(max_tokens).map_err(|rule| self.broke(rule))?;
        Ok(max_tokens)
    }

    /// A retry throttle's `token_ratio`, by `RetryThrottle::try_new`'s rule.
    fn token_ratio(&self) -> Result<f64, ConfigFileError> {
        let ratio = self.number()?;
        a6::check_token_ratio(ratio).map_err(|rule| self.broke(rule))?;
        Ok(ratio)
    }

    /// A builder's `rule` broken here.
    fn broke(&self, rule: ConfigError) -> ConfigFileError {
        let mut error = self.fail(rule.to_string());
        error.rule = Some(rule);
        error
    }

    /// A rate limiter's rate or burst: at least 1, as a limiter of 0
    /// admits nothing.
    fn cells(&self) -> Result<u32, ConfigFileError> {
        match self.count(0)? {
            0 => Err(self.fail(
                "must be at least 1, got 0: a rate limiter of 0 admits nothing \
                 (to stop calls, isolate a breaker)",
            )),
            cells => Ok(cells),
        }
    }

    fn jitter(&self) -> Result<Jitter, ConfigFileError> {
        let Raw::Str(text) = self.raw else {
            return Err(self.fail(JITTERS));
        };
        match text.trim().to_ascii_lowercase().as_str() {
            "full" => Ok(Jitter::Full),
            "equal" => Ok(Jitter::Equal),
            "none" => Ok(Jitter::None),
            "decorrelated" => Ok(Jitter::Decorrelated),
            "additive" => Ok(Jitter::Additive),
            "additive_uncapped" => Ok(Jitter::AdditiveUncapped),
            _ => Err(self.fail(format!("unknown jitter {text:?}: {JITTERS}"))),
        }
    }
}

/// What a jitter may be, for the error that names another.
const JITTERS: &str = "expected \"full\", \"equal\", \"none\", \"decorrelated\", \"additive\" or \"additive_uncapped\"";

pub(super) const NANOS_PER_SEC: u128 = 1_000_000_000;

/// Reads `"<number><unit>"` as the attribute does: the number may have a
/// fractional part as long as the result is a whole number of nanoseconds.
pub(super) fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    if trimmed.starts_with('-') {
        return Err("a duration can't be negative".to_owned());
    }
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    if number.is_empty() {
        return Err(format!("{text:?} doesn't start with a number"));
    }
    // The attribute's units (resilient-macros' duration.rs), in nanoseconds.
    let factor: &u128 = match unit.trim() {
        "ns" => &1,
        "us" | "µs" => &1_000,
        "ms" => &1_000_000,
        "s" => &NANOS_PER_SEC,
        "m" => &(60 * NANOS_PER_SEC),
        "h" => &(3_600 * NANOS_PER_SEC),
        _ => return Err(format!("{text:?} has no known unit")),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if fraction.contains('.') || (whole.is_empty() && fraction.is_empty()) {
        return Err(format!("{text:?} is not a number and a unit"));
    }
    let too_long = || format!("{text:?} is too long");
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| too_long())?
    };
    let mut nanos = whole.checked_mul(*factor).ok_or_else(too_long)?;
    let mut scale = *factor;
    for digit in fraction.bytes() {
        let digit = u128::from(digit - b'0');
        if !scale.is_multiple_of(10) {
            if digit != 0 {
                return Err(format!("{text:?} is not a whole number of nanoseconds"));
            }
            continue;
        }
        scale /= 10;
        nanos = nanos.checked_add(digit * scale).ok_or_else(too_long)?;
    }
    let secs = u64::try_from(nanos / NANOS_PER_SEC).map_err(|_| too_long())?;
    // Below one second by construction.
    let subsec = (nanos % NANOS_PER_SEC) as u32;
    Ok(Duration::new(secs, subsec))
}

/// The path of a key, quoted where it isn't a bare TOML key.
pub(super) fn key_path(section: &str, name: &str, key: Option<&str>) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let name = if bare {
        name.to_owned()
    } else {
        format!("{name:?}")
    };
    match key {
        Some(key) => format!("{section}.{name}.{key}"),
        None => format!("{section}.{name}"),
    }
}

pub(super) struct RawEntry {
    pub(super) key: String,
    pub(super) line: Option<usize>,
    pub(super) raw: Raw,
}

pub(super) fn build_operation(
    name: &str,
    entries: &[RawEntry],
    errors: &mut Vec<ConfigFileError>,
) -> OperationConfig {
    let mut out = OperationConfig::default();
    let mut lines: BTreeMap<&str, Option<usize>> = BTreeMap::new();
    read_each(entries, errors, |entry| {
        let at = Cursor {
            path: key_path("operations", name, Some(&entry.key)),
            line: entry.line,
            raw: &entry.raw,
        };
        lines.insert(entry.key.as_str(), entry.line);
        match entry.key.as_str() {
            "retries" => out.retries = Some(at.count(0)?),
            "min_retries" => out.min_retries = Some(at.count(0)?),
            "timeout" => out.timeout = Some(at.duration(true)?),
            "budget" => out.budget = Some(at.duration(true)?),
            "max_elapsed" => out.max_elapsed = Some(at.duration(true)?),
            "base_delay" => out.base_delay = Some(at.duration(false)?),
            "max_delay" => out.max_delay = Some(at.duration(false)?),
            "multiplier" => out.multiplier = Some(at.multiplier()?),
            "jitter" => out.jitter = Some(at.jitter()?),
            "retry_after_max" => out.retry_after_max = Some(at.duration(false)?),
            "hedge_delay" => out.hedge_delay = Some(at.duration(false)?),
            other => {
                return Err(at.fail(format!(
                    "unknown key {other:?}; known: retries, min_retries, timeout, budget, \
                     max_elapsed, base_delay, max_delay, multiplier, jitter, \
                     retry_after_max, hedge_delay"
                )));
            }
        }
        Ok(())
    });
    let pair_error = |key: &str, reason: String, rule: ConfigError| ConfigFileError {
        path: key_path("operations", name, Some(key)),
        line: lines.get(key).copied().flatten(),
        reason,
        rule: Some(rule),
        more: Box::default(),
    };
    if let (Some(min_retries), Some(retries)) = (out.min_retries, out.retries)
        && min_retries > retries
    {
        errors.push(pair_error(
            "min_retries",
            format!("min_retries ({min_retries}) must not exceed retries ({retries})"),
            ConfigError::MinRetriesAboveRetries {
                min_retries,
                retries,
            },
        ));
    }
    if let (Some(base), Some(max)) = (out.base_delay, out.max_delay)
        && base > max
    {
        errors.push(pair_error(
            "base_delay",
            format!("base_delay ({base:?}) must not exceed max_delay ({max:?})"),
            ConfigError::BaseAboveMax { base, max },
        ));
    }
    if let (Some(budget), Some(max_elapsed)) = (out.budget, out.max_elapsed)
        && budget < max_elapsed
    {
        errors.push(pair_error(
            "budget",
            format!("budget ({budget:?}) must not be below max_elapsed ({max_elapsed:?})"),
            ConfigError::BudgetBelowMaxElapsed {
                budget,
                max_elapsed,
            },
        ));
    }
    out
}

pub(super) fn build_breaker(
    name: &str,
    entries: &[RawEntry],
    errors: &mut Vec<ConfigFileError>,
) -> BreakerConfig {
    let mut out = BreakerConfig::default();
    read_each(entries, errors, |entry| {
        let at = Cursor {
            path: key_path("breakers", name, Some(&entry.key)),
            line: entry.line,
            raw: &entry.raw,
        };
        match entry.key.as_str() {
            "failure_threshold" => out.failure_threshold = Some(at.count(1)?),
            "break_duration" => out.break_duration = Some(at.duration(true)?),
            other => {
                return Err(at.fail(format!(
                    "unknown key {other:?}; known: failure_threshold, break_duration"
                )));
            }
        }
        Ok(())
    });
    out
}

pub(super) fn build_limit(
    name: &str,
    entries: &[RawEntry],
    errors: &mut Vec<ConfigFileError>,
) -> LimitConfig {
    let mut out = LimitConfig::default();
    read_each(entries, errors, |entry| {
        let at = Cursor::new(key_path("limits", name, Some(&entry.key)), entry);
        match entry.key.as_str() {
            "max_concurrent" => out.max_concurrent = Some(at.count(1)?),
            "rate" => out.rate = Some(at.cells()?),
            "per" => out.per = Some(at.duration(true)?),
            "burst" => out.burst = Some(at.cells()?),
            other => {
                return Err(at.fail(format!(
                    "unknown key {other:?}; known: max_concurrent, rate, per, burst"
                )));
            }
        }
        Ok(())
    });
    out
}

pub(super) fn build_throttle(
    name: &str,
    entries: &[RawEntry],
    errors: &mut Vec<ConfigFileError>,
) -> ThrottleConfig {
    let mut out = ThrottleConfig::default();
    read_each(entries, errors, |entry| {
        let at = Cursor::new(key_path("throttles", name, Some(&entry.key)), entry);
        match entry.key.as_str() {
            "max_tokens" => out.max_tokens = Some(at.max_tokens()?),
            "token_ratio" => out.token_ratio = Some(at.token_ratio()?),
            other => {
                return Err(at.fail(format!(
                    "unknown key {other:?}; known: max_tokens, token_ratio"
                )));
            }
        }
        Ok(())
    });
    out
}

pub(super) fn build_adaptive_throttle(
    name: &str,
    entries: &[RawEntry],
    errors: &mut Vec<ConfigFileError>,
) -> AdaptiveThrottleConfig {
    let mut out = AdaptiveThrottleConfig::default();
    read_each(entries, errors, |entry| {
        let at = Cursor::new(
            key_path("adaptive_throttles", name, Some(&entry.key)),
            entry,
        );
        match entry.key.as_str() {
            "multiplier" => out.multiplier = Some(at.multiplier()?),
            "window" => out.window = Some(at.duration(true)?),
            "min_requests" => out.min_requests = Some(at.count(0)?),
            "max_rejection" => out.max_rejection = Some(at.share()?),
            other => {
                return Err(at.fail(format!(
                    "unknown key {other:?}; known: multiplier, window, min_requests, max_rejection"
                )));
            }
        }
        Ok(())
    });
    out
}

pub(super) fn build_chaos(
    name: &str,
    entries: &[RawEntry],
    errors: &mut Vec<ConfigFileError>,
) -> ChaosConfig {
    let mut out = ChaosConfig::default();
    read_each(entries, errors, |entry| {
        let at = Cursor::new(key_path("chaos", name, Some(&entry.key)), entry);
        match entry.key.as_str() {
            "enabled" => out.enabled = Some(at.boolean()?),
            "injection_rate" => out.injection_rate = Some(at.share()?),
            other => {
                return Err(at.fail(format!(
                    "unknown key {other:?}; known: enabled, injection_rate"
                )));
            }
        }
        Ok(())
    });
    out
}

/// Reads every entry with `read`, going on past a bad one: its error
/// joins `errors`, so that one reading names every key to fix.
fn read_each<'e>(
    entries: &'e [RawEntry],
    errors: &mut Vec<ConfigFileError>,
    mut read: impl FnMut(&'e RawEntry) -> Result<(), ConfigFileError>,
) {
    errors.extend(entries.iter().filter_map(|entry| read(entry).err()));
}

pub(super) type Sections = BTreeMap<(String, String), (Option<usize>, Vec<RawEntry>)>;

pub(super) fn assemble(sections: Sections) -> Result<Config, ConfigFileError> {
    let mut config = Config::default();
    let mut errors = Vec::new();
    for ((section, name), (line, entries)) in sections {
        let errors = &mut errors;
        match section.as_str() {
            "operations" => {
                let built = build_operation(&name, &entries, errors);
                config.operations.insert(name, built);
            }
            "breakers" => {
                let built = build_breaker(&name, &entries, errors);
                config.breakers.insert(name, built);
            }
            "limits" => {
                let built = build_limit(&name, &entries, errors);
                config.limits.insert(name, built);
            }
            "throttles" => {
                let built = build_throttle(&name, &entries, errors);
                config.throttles.insert(name, built);
            }
            "adaptive_throttles" => {
                let built = build_adaptive_throttle(&name, &entries, errors);
                config.adaptive_throttles.insert(name, built);
            }
            "chaos" => {
                let built = build_chaos(&name, &entries, errors);
                config.chaos.insert(name, built);
            }
            other => errors.push(ConfigFileError {
                path: other.to_owned(),
                line,
                reason: format!("unknown section {other:?}; known: {}", SECTIONS.join(", ")),
                rule: None,
                more: Box::default(),
            }),
        }
    }
    match ConfigFileError::all_of(errors) {
        Some(error) => Err(error),
        None => Ok(config),
    }
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|byte| **byte == b'\n')
        .count()
        + 1
}
