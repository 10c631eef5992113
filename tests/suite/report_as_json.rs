//! With the `serde` feature, the report of an annotated function
//! serializes with the function's name and every attempt.
#![cfg(feature = "serde")]

use std::time::Duration;

use resilient::{Attempt, FakeClock, resilient};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
enum LookupError {
    #[error("503 from the primary")]
    Unavailable,
    #[error("404")]
    NotFound,
}

#[resilient(
    retries = 2,
    retry_on = [Unavailable],
    backoff = constant("250ms"),
    clock = clock,
    fallback = from_cache,
)]
fn lookup_user(clock: &FakeClock, #[attempt] attempt: Attempt) -> Result<String, LookupError> {
    clock.advance(Duration::from_millis(100));
    match attempt.number() {
        1 => Err(LookupError::Unavailable),
        _ => Err(LookupError::NotFound),
    }
}

fn from_cache(clock: &FakeClock) -> Result<String, LookupError> {
    clock.advance(Duration::from_millis(5));
    Ok("ada".to_owned())
}

#[resilient(name = "users.get", clock = clock)]
fn renamed(clock: &FakeClock) -> Result<u32, LookupError> {
    Ok(1)
}

#[test]
fn the_json_of_an_annotated_fn_is_named_after_it() {
    let outcome = lookup_user(&FakeClock::new());
    let value = serde_json::to_value(outcome.report()).unwrap();
    let expected = json!({
        "name": "lookup_user",
        "attempt_count": 3,
        "retry_count": 1,
        "records_left_out": 0,
        "stop_reason": "not_retryable",
        "fallback_used": true,
        "elapsed_ms": 455.0,
        "attempts": [
            {
                "number": 1, "kind": "primary", "started_ms": 0.0, "duration_ms": 100.0, "queued_ms": 0.0,
                "deadline_ms": null, "deadline_inherited": false, "delay_ms": null, "delay_source": null,
                "error": "503 from the primary", "failure": "operation", "retryable": true,
                "ignored": false, "injected": null, "status": null, "endpoint": null
            },
            {
                "number": 2, "kind": "primary", "started_ms": 350.0, "duration_ms": 100.0, "queued_ms": 0.0,
                "deadline_ms": null, "deadline_inherited": false, "delay_ms": 250.0, "delay_source": "backoff",
                "error": "404", "failure": "operation", "retryable": false,
                "ignored": false, "injected": null, "status": null, "endpoint": null
            },
            {
                "number": 3, "kind": "fallback", "started_ms": 450.0, "duration_ms": 5.0, "queued_ms": 0.0,
                "deadline_ms": null, "deadline_inherited": false, "delay_ms": null, "delay_source": null,
                "error": null, "failure": null, "retryable": null,
                "ignored": false, "injected": null, "status": null, "endpoint": null
            }
        ],
        "idempotency": null,
        "idempotency_stored": null
    });
    #[cfg(feature = "config")]
    let expected = {
        let mut expected = expected;
        expected["settings_source"] = json!("attribute");
        expected["config_version"] = json!(null);
        expected["config_origin"] = json!(null);
        expected
    };
    assert_eq!(value, expected);
}

#[test]
fn the_json_carries_the_name_option() {
    let outcome = renamed(&FakeClock::new());
    let value = serde_json::to_value(outcome.report()).unwrap();
    assert_eq!(value["name"], "users.get");
    assert_eq!(value["attempt_count"], 1);
    assert_eq!(value["stop_reason"], "succeeded");
}
