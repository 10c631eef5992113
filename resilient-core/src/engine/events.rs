//! `tracing` events, behind the `tracing` feature; their names and fields
//! are listed in the crate documentation. Every event carries the
//! operation's name as its `operation` field. Without the feature every
//! function here is empty and compiles away.

#![cfg_attr(not(feature = "tracing"), allow(unused_variables))]

use std::time::Duration;

use crate::report::{DelaySource, ExecutionError};

#[cfg(feature = "tracing")]
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

pub(crate) fn attempt_failed(operation: &str, attempt: u32, error: &ExecutionError) {
    #[cfg(feature = "tracing")]
    {
        let (kind, retryable, message) = (error.kind(), error.retryable(), error.message());
        if retryable {
            tracing::warn!(name: "attempt.failed", operation, attempt, ?kind, retryable, error = message);
        } else {
            tracing::error!(name: "attempt.failed", operation, attempt, ?kind, retryable, error = message);
        }
    }
}

pub(crate) fn retry_scheduled(operation: &str, attempt: u32, delay: Duration, source: DelaySource) {
    #[cfg(feature = "tracing")]
    tracing::info!(name: "retry.scheduled", operation, attempt, delay_ms = millis(delay), ?source);
}

pub(crate) fn rate_limit_wait_exceeded(
    operation: &str,
    attempt: u32,
    hint: Duration,
    waited: Duration,
    max_wait: Duration,
) {
    #[cfg(feature = "tracing")]
    tracing::warn!(
        name: "rate_limit.wait_exceeded",
        operation,
        attempt,
        hint_ms = millis(hint),
        waited_ms = millis(waited),
        max_wait_ms = millis(max_wait)
    );
}

pub(crate) fn circuit_rejected(operation: &str, attempt: u32) {
    #[cfg(feature = "tracing")]
    tracing::warn!(name: "circuit.rejected", operation, attempt);
}

pub(crate) fn fallback_used(operation: &str, attempt: u32, ok: bool) {
    #[cfg(feature = "tracing")]
    tracing::info!(name: "fallback.used", operation, attempt, ok);
}
