//! The report as people read it: a table, one line per attempt, then a
//! summary line with the operation's name.

use std::fmt;
use std::time::Duration;

use super::outcome::ExecutionReport;
use super::record::DelaySource;

impl fmt::Display for ExecutionReport {
    /// A table, one line per attempt, then a summary line.
    ///
    /// ```
    /// use resilient::{Backoff, FakeClock, Operation};
    /// use std::time::Duration;
    ///
    /// let outcome = Operation::new()
    ///     .name("users.get")
    ///     .max_attempts(2)
    ///     .backoff(Backoff::constant(Duration::from_millis(250)))
    ///     .clock(FakeClock::new())
    ///     .run(|attempt| if attempt.number() == 1 { Err("busy") } else { Ok(()) });
    /// let table = outcome.report().to_string();
    /// assert!(table.ends_with("users.get: 2 attempt(s), 1 retry, 250.0ms, stopped: succeeded"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The column of injections shows only in a report that has one, so
        // that reports of calls chaos never touched stay as narrow as ever.
        let chaos = self.attempts().iter().any(|r| r.injected().is_some());
        // So does the time waited for limiters' permits, when any was,
        // and the HTTP status, when an attempt got one.
        let queued = self.attempts().iter().any(|r| !r.queued().is_zero());
        let http = self.attempts().iter().any(|r| r.status().is_some());
        // And where each attempt went, when any endpoint is known, as wide
        // as the longest.
        let endpoints = self
            .attempts()
            .iter()
            .filter_map(|r| r.endpoint())
            .map(str::len)
            .max()
            .map(|longest| longest.max("endpoint".len()));
        let column = |text: &str| match endpoints {
            Some(width) => format!("{text:<width$}  "),
            None => String::new(),
        };
        writeln!(
            f,
            "{:>3}  {:<8}  {:>9}  {}{:>9}  {}{}{:<22}  {:<9}  {}error",
            "#",
            "kind",
            "started",
            if queued { "   queued  " } else { "" },
            "took",
            if http { "status  " } else { "" },
            column("endpoint"),
            "delay before",
            "retryable",
            if chaos { "injected  " } else { "" }
        )?;
        let mut previous = 0;
        for r in self.attempts() {
            // Records left out (past `max_records`) leave a gap in the
            // numbers: one line says how many.
            let gap = r.number().saturating_sub(previous).saturating_sub(1);
            if gap > 0 {
                writeln!(f, "  …  {gap} attempt(s) left out of the report")?;
            }
            previous = r.number();
            let delay = r.delay_before().map_or_else(
                || "-".to_owned(),
                |d| {
                    let source = match d.source() {
                        DelaySource::Backoff => "backoff",
                        DelaySource::RetryAfter => "retry-after",
                    };
                    format!("{} ({source})", Short(d.duration()))
                },
            );
            // An ignored error is neither retried nor counted: the column
            // says so rather than "no".
            let (retryable, error) = r.error().map_or(("-", "-"), |e| {
                let verdict = match (e.retryable(), r.ignored()) {
                    (true, _) => "yes",
                    (false, true) => "ignored",
                    (false, false) => "no",
                };
                (verdict, e.message())
            });
            let injected = match (chaos, r.injected()) {
                (false, _) => String::new(),
                (true, injected) => format!("{:<8}  ", injected.map_or("-", |i| i.as_str())),
            };
            let status = match (http, r.status()) {
                (false, _) => String::new(),
                (true, None) => format!("{:>6}  ", "-"),
                (true, Some(status)) => format!("{status:>6}  "),
            };
            let waited = match queued {
                false => String::new(),
                true => format!("{:>9}  ", Short(r.queued()).to_string()),
            };
            writeln!(
                f,
                "{:>3}  {:<8}  {:>9}  {waited}{:>9}  {status}{}{:<22}  {:<9}  {injected}{}",
                r.number(),
                r.kind().name(),
                Short(r.started_at()).to_string(),
                Short(r.elapsed()).to_string(),
                column(r.endpoint().unwrap_or("-")),
                delay,
                retryable,
                error
            )?;
        }
        let retries = self.retry_count();
        write!(
            f,
            "{}: {} attempt(s), {retries} retr{}, {}, stopped: {}{}",
            self.name(),
            self.attempt_count(),
            if retries == 1 { "y" } else { "ies" },
            Short(self.elapsed()),
            self.stop_reason(),
            if self.fallback_used() {
                ", fallback used"
            } else {
                ""
            }
        )?;
        if let Some(status) = self.idempotency() {
            write!(f, ", {status}")?;
        }
        if let Some(stored) = self.idempotency_stored() {
            write!(f, " ({stored})")?;
        }
        // Only a call that ran on an entry of the installed configuration
        // says so; one on its own values reads as without the feature.
        #[cfg(feature = "config")]
        if let source @ crate::report::SettingsSource::Config { version } = self.settings_source() {
            write!(f, ", settings: configuration {version}")?;
            if let Some(origin) = source.origin() {
                write!(f, " ({origin})")?;
            }
        }
        Ok(())
    }
}

/// A duration rounded for people: `850µs`, `201.7ms`, `1.250s`.
pub(crate) struct Short(pub(crate) Duration);

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
    use super::super::outcome::StopReason;
    use super::super::record::{AttemptKind, AttemptRecord, Delay, ExecutionError, FailureKind};
    use super::*;
    use crate::time::Nanos;

    fn record(number: u32, delay: Option<Delay>, error: Option<ExecutionError>) -> AttemptRecord {
        let started_at = u64::from(number) * 100_000_000;
        let mut record = AttemptRecord::opened(
            (number, AttemptKind::Primary),
            started_at,
            (Nanos::NONE, false),
            delay,
            0,
            None,
            0,
        );
        record.end_at(started_at + 1_500_000);
        if let Some(error) = error {
            record.set_error(error);
        }
        record
    }

    #[test]
    fn display_is_a_table_with_a_named_summary() {
        let mut report = ExecutionReport::new("users.get".into());
        let busy = ExecutionError::new(FailureKind::Operation, true, "busy".into());
        report.push(record(1, None, Some(busy)), 64);
        report.push(
            record(
                2,
                Some(Delay::new(
                    Duration::from_millis(250),
                    DelaySource::RetryAfter,
                )),
                None,
            ),
            64,
        );
        report.elapsed = Nanos::from_u64(2_000_000_000);
        report.stop_reason = StopReason::Succeeded;
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
            "users.get: 2 attempt(s), 1 retry, 2.000s, stopped: succeeded"
        );
    }

    #[test]
    fn injections_get_a_column_only_when_there_is_one() {
        use crate::chaos::Injection;
        let mut report = ExecutionReport::new("users.get".into());
        let injected = ExecutionError::new(FailureKind::Operation, true, "boom".into());
        let mut first = record(1, None, Some(injected));
        first.set_injected(Injection::Fault);
        report.push(first, 64);
        report.push(record(2, None, None), 64);
        let text = report.to_string();
        let lines: Vec<_> = text.lines().collect();
        assert!(lines[0].ends_with("retryable  injected  error"), "{text}");
        assert!(lines[1].ends_with("yes        fault     boom"), "{text}");
        assert!(lines[2].ends_with("-          -         -"), "{text}");

        let mut plain = ExecutionReport::new("users.get".into());
        plain.push(record(1, None, None), 64);
        assert!(
            plain
                .to_string()
                .lines()
                .next()
                .unwrap()
                .ends_with("retryable  error")
        );
    }

    #[test]
    fn short_durations_round_for_people() {
        let shown = |d| Short(d).to_string();
        assert_eq!(shown(Duration::ZERO), "0s");
        assert_eq!(shown(Duration::from_micros(850)), "850µs");
        assert_eq!(shown(Duration::from_micros(201_740)), "201.7ms");
        assert_eq!(shown(Duration::from_millis(1250)), "1.250s");
    }
}
