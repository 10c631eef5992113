//! `hedge` and `max_hedges` on async functions and methods, with the
//! other options of an async fn beside them.
#![deny(warnings)]

use resilient::{AttemptKind, TimedOut, resilient};
use std::time::Duration;

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("timed out")]
struct Late;

impl From<TimedOut> for Late {
    fn from(_: TimedOut) -> Self {
        Late
    }
}

#[resilient(hedge = "200ms")]
async fn lookup(key: &str) -> Result<usize, Late> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Ok(key.len())
}

struct Replicas {
    delay: Duration,
}

impl Replicas {
    #[resilient(retries = 2, timeout = "2s", hedge = self.delay, max_hedges = 3, fallback = Self::stale)]
    async fn read(
        &self,
        key: &str,
        #[attempt] attempt: resilient::Attempt,
    ) -> Result<String, Late> {
        // Only the fourth attempt, the third hedge, answers in time.
        let took = if attempt.number() == 4 { 10 } else { 5_000 };
        tokio::time::sleep(Duration::from_millis(took)).await;
        Ok(format!("{key} from attempt {}", attempt.number()))
    }

    async fn stale(&self, key: &str) -> Result<String, Late> {
        Ok(format!("stale {key}"))
    }
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let outcome = lookup("abc").await;
    let kinds: Vec<_> = outcome
        .report()
        .attempts()
        .iter()
        .map(|r| r.kind())
        .collect();
    assert_eq!(kinds, [AttemptKind::Primary, AttemptKind::Hedge]);
    assert_eq!(outcome.into_result(), Ok(3));

    let replicas = Replicas {
        delay: Duration::from_millis(100),
    };
    let outcome = replicas.read("k").await;
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(outcome.into_result(), Ok("k from attempt 4".to_owned()));
}
