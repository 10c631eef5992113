//! `fallback = [a, b, …]`: candidates tried in order, blocking or async,
//! free functions or `Self::` methods, with or without the `Attempt`. A
//! single fallback takes the arguments themselves, so they need not be
//! `Clone`.
#![deny(warnings)]

use resilient::{Attempt, resilient};

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("down")]
struct Down;

#[resilient(retries = 1, backoff = none, fallback = [replica, cache])]
fn get(key: String, region: &str) -> Result<String, Down> {
    let _ = (key.len(), region);
    Err(Down)
}

fn replica(key: String, region: &str) -> Result<String, Down> {
    let _ = (key, region);
    Err(Down)
}

fn cache(key: String, region: &str, attempt: Attempt) -> Result<String, Down> {
    Ok(format!("{key}@{region} #{}", attempt.number()))
}

/// Not `Clone`: fine with a single fallback.
struct Ticket(u32);

#[resilient(retries = 1, backoff = none, fallback = refund)]
fn redeem(ticket: Ticket) -> Result<u32, Down> {
    let _ = ticket.0;
    Err(Down)
}

fn refund(ticket: Ticket) -> Result<u32, Down> {
    Ok(ticket.0)
}

struct Store;

impl Store {
    #[resilient(retries = 1, fallback = [Self::replica, Self::cache])]
    async fn get(&self, id: u32) -> Result<u32, Down> {
        let _ = id;
        Err(Down)
    }

    async fn replica(&self, id: u32) -> Result<u32, Down> {
        tokio::task::yield_now().await;
        if id > 10 { Ok(id) } else { Err(Down) }
    }

    async fn cache(&self, id: u32, attempt: Attempt) -> Result<u32, Down> {
        tokio::task::yield_now().await;
        Ok(id * 100 + attempt.number())
    }
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let outcome = get("k".to_owned(), "eu");
    assert_eq!(outcome.report().attempt_count(), 4);
    assert_eq!(outcome.into_result(), Ok("k@eu #4".to_owned()));
    assert_eq!(redeem(Ticket(7)).into_result(), Ok(7));
    assert_eq!(Store.get(1).await.into_result(), Ok(104));
    assert_eq!(Store.get(11).await.report().attempt_count(), 3);
}
