//! With the `serde` feature, a report serializes with stable keys.
#![cfg(feature = "serde")]

use std::time::Duration;

use resilient_core::{Backoff, FakeClock, Operation};

const fn millis(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn the_json_of_a_real_report_is_pinned() {
    let clock = FakeClock::new();
    let outcome = Operation::new()
        .name("users.get")
        .max_attempts(2)
        .backoff(Backoff::constant(millis(250)))
        .budget(Duration::from_secs(10))
        .retry_after(|e: &&str| (*e == "429").then_some(millis(1500)))
        .retry_if(|e: &&str| *e != "404")
        .clock(&clock)
        .run_with_fallback(
            |attempt| {
                clock.advance(millis(100));
                match attempt.number() {
                    1 => Err("503"),
                    2 => Err("429"),
                    _ => Err("404"),
                }
            },
            Some(|_| {
                clock.advance(millis(5));
                Ok::<_, &str>("cached")
            }),
        );
    assert_eq!(outcome.result(), &Ok("cached"));
    let json = serde_json::to_string_pretty(outcome.report()).unwrap();
    let expected = r#"{
  "name": "users.get",
  "attempt_count": 4,
  "retry_count": 2,
  "stop_reason": "not_retryable",
  "fallback_used": true,
  "elapsed_ms": 2055.0,
  "attempts": [
    {
      "number": 1,
      "kind": "primary",
      "started_ms": 0.0,
      "duration_ms": 100.0,
      "queued_ms": 0.0,
      "deadline_ms": 10000.0,
      "deadline_inherited": false,
      "delay_ms": null,
      "delay_source": null,
      "error": "503",
      "failure": "operation",
      "retryable": true,
      "ignored": false,
      "injected": null,
      "status": null,
      "endpoint": null
    },
    {
      "number": 2,
      "kind": "primary",
      "started_ms": 350.0,
      "duration_ms": 100.0,
      "queued_ms": 0.0,
      "deadline_ms": 9650.0,
      "deadline_inherited": false,
      "delay_ms": 250.0,
      "delay_source": "backoff",
      "error": "429",
      "failure": "operation",
      "retryable": true,
      "ignored": false,
      "injected": null,
      "status": null,
      "endpoint": null
    },
    {
      "number": 3,
      "kind": "primary",
      "started_ms": 1950.0,
      "duration_ms": 100.0,
      "queued_ms": 0.0,
      "deadline_ms": 8050.0,
      "deadline_inherited": false,
      "delay_ms": 1500.0,
      "delay_source": "retry_after",
      "error": "404",
      "failure": "operation",
      "retryable": false,
      "ignored": false,
      "injected": null,
      "status": null,
      "endpoint": null
    },
    {
      "number": 4,
      "kind": "fallback",
      "started_ms": 2050.0,
      "duration_ms": 5.0,
      "queued_ms": 0.0,
      "deadline_ms": null,
      "deadline_inherited": false,
      "delay_ms": null,
      "delay_source": null,
      "error": null,
      "failure": null,
      "retryable": null,
      "ignored": false,
      "injected": null,
      "status": null,
      "endpoint": null
    }
  ],
  "records_left_out": 0,
  "idempotency": null,
  "idempotency_stored": null
}"#;
    // With `config`, where the settings came from, last.
    #[cfg(feature = "config")]
    let expected = expected.replace(
        "\"idempotency_stored\": null\n}",
        "\"idempotency_stored\": null,\n  \"settings_source\": \"attribute\",\n  \"config_version\": null,\n  \"config_origin\": null\n}",
    );
    assert_eq!(json, expected);
}
