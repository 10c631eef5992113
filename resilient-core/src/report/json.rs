//! The report as data (feature `serde`): `ExecutionReport` and its parts
//! implement `serde::Serialize`, with stable keys, so a service can log a
//! report as JSON.
//!
//! The keys, written once here and pinned by a test of one real report:
//!
//! | key | value |
//! |---|---|
//! | `name` | the operation's name |
//! | `attempt_count`, `retry_count` | numbers |
//! | `stop_reason` | `succeeded`, `not_retryable`, `attempts_exhausted`, `budget_exhausted`, `rate_limit_exhausted`, `circuit_open`, `throttled`, `limit_exceeded`, `left_to_caller`, `ignored` |
//! | `fallback_used` | bool |
//! | `elapsed_ms` | float, milliseconds |
//! | `attempts` | one object per attempt kept, below |
//! | `coalesced_ms` | present only for a call that joined another's execution of its key (`coalesce::Coalesce`): how long it waited |
//! | `records_left_out` | how many attempts' records were left out past `max_records` (the first half and the latest are kept), 0 for most calls |
//! | `idempotency` | `replayed`, `joined`, `executed`, or `null` without an idempotency key (or when the call got no result from it: in flight, conflict, store error) |
//! | `idempotency_stored` | for an executed idempotent call, whether its value was stored and why not: `stored`, `ttl_zero`, `failure`, `fallback`, `injected`, `unserializable`, `does_not_read_back`, `store_failed`, `claim_lost`; else `null` |
//! | `settings_source` | with the feature `config`: `attribute` (the values the operation was built with) or `config` (its entry in the installed configuration) |
//! | `config_version` | with the feature `config`: that configuration's version, or `null` for `attribute` |
//! | `config_origin` | with the feature `config`: where that configuration came from, `code`, `control panel` or `file <path>` (`config::Origin`), while its version is among the latest 16; else `null` |
//!
//! Each attempt: `number`, `kind` (`primary`, `fallback`, `hedge`),
//! `started_ms`, `duration_ms`, `queued_ms` (the wait for the limiters'
//! permits before the start), `deadline_ms` (or `null`) and
//! `deadline_inherited` (whether that deadline is what the attempt the
//! call was made inside had left), `delay_ms` and
//! `delay_source` (`backoff` / `retry_after`, or both `null`), and `error`,
//! `failure` (`operation`, `timeout`, `circuit_open`, `validation`, `cancelled`, `limit_exceeded`, `rejected`) and
//! `retryable`, all three `null` for a successful attempt; `ignored`
//! (whether its error is one the operation ignores); `injected`
//! (`fault`, `outcome`, `latency`, or `null` when chaos left the attempt
//! alone); `status` (the HTTP status of the attempt's response through the
//! tower layer or the reqwest middleware, or `null`); `endpoint` (where
//! the attempt went, `host:port` or the layer's endpoint key, or `null`).

use std::time::Duration;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::outcome::{ExecutionReport, StopReason};
use super::record::{AttemptKind, AttemptRecord, DelaySource, FailureKind};
use crate::chaos::Injection;
use crate::idempotency::{IdempotencyStatus, IdempotencyStored};
use crate::time::duration_nanos;

/// Milliseconds, from whole nanoseconds so that round values stay round.
#[allow(clippy::cast_precision_loss)]
fn millis(duration: Duration) -> f64 {
    duration_nanos(duration) as f64 / 1e6
}

impl Serialize for ExecutionReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let entries = if cfg!(feature = "config") { 13 } else { 10 };
        let mut map = serializer.serialize_map(Some(entries + usize::from(self.coalesced)))?;
        map.serialize_entry("name", self.name())?;
        map.serialize_entry("attempt_count", &self.attempt_count())?;
        map.serialize_entry("retry_count", &self.retry_count())?;
        map.serialize_entry("stop_reason", &self.stop_reason())?;
        map.serialize_entry("fallback_used", &self.fallback_used())?;
        map.serialize_entry("elapsed_ms", &millis(self.elapsed()))?;
        map.serialize_entry("attempts", &Attempts(self.attempts()))?;
        map.serialize_entry("records_left_out", &self.records_left_out())?;
        map.serialize_entry("idempotency", &self.idempotency())?;
        map.serialize_entry("idempotency_stored", &self.idempotency_stored())?;
        // Only for a call that joined another's execution, so that every
        // other report's keys stay as they were.
        if let Some(waited) = self.coalesced() {
            map.serialize_entry("coalesced_ms", &millis(waited))?;
        }
        #[cfg(feature = "config")]
        {
            let version = match self.settings_source() {
                crate::report::SettingsSource::Config { version } => Some(version),
                _ => None,
            };
            let source = if version.is_some() {
                "config"
            } else {
                "attribute"
            };
            map.serialize_entry("settings_source", source)?;
            map.serialize_entry("config_version", &version)?;
            let origin = self
                .settings_source()
                .origin()
                .map(|origin| origin.to_string());
            map.serialize_entry("config_origin", &origin)?;
        }
        map.end()
    }
}

struct Attempts<'a>(&'a [AttemptRecord]);

impl Serialize for Attempts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for record in self.0 {
            seq.serialize_element(record)?;
        }
        seq.end()
    }
}

impl Serialize for AttemptRecord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let delay = self.delay_before();
        let error = self.error();
        let mut map = serializer.serialize_map(Some(16))?;
        map.serialize_entry("number", &self.number())?;
        map.serialize_entry("kind", &self.kind())?;
        map.serialize_entry("started_ms", &millis(self.started_at()))?;
        map.serialize_entry("duration_ms", &millis(self.elapsed()))?;
        map.serialize_entry("queued_ms", &millis(self.queued()))?;
        map.serialize_entry("deadline_ms", &self.deadline().map(millis))?;
        map.serialize_entry("deadline_inherited", &self.deadline_inherited())?;
        map.serialize_entry("delay_ms", &delay.map(|d| millis(d.duration())))?;
        map.serialize_entry("delay_source", &delay.map(|d| d.source()))?;
        map.serialize_entry("error", &error.map(|e| e.message()))?;
        map.serialize_entry("failure", &error.map(|e| e.kind()))?;
        map.serialize_entry("retryable", &error.map(|e| e.retryable()))?;
        map.serialize_entry("ignored", &self.ignored())?;
        map.serialize_entry("injected", &self.injected().map(Injection::as_str))?;
        map.serialize_entry("status", &self.status())?;
        map.serialize_entry("endpoint", &self.endpoint())?;
        map.end()
    }
}

/// Serializes an enum of the report as its stable `snake_case` name.
macro_rules! by_name {
    ($($kind:ty),*) => {$(
        impl Serialize for $kind {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }
    )*};
}

by_name!(
    StopReason,
    AttemptKind,
    FailureKind,
    DelaySource,
    IdempotencyStatus,
    IdempotencyStored
);
