//! `report = hook` keeps the declared return type, so the attribute fits
//! methods whose signature a trait fixes, blocking and async, and
//! functions whose callers expect a plain `Result`.
#![deny(warnings)]

use resilient::{ExecutionReport, resilient};
use std::sync::Mutex;

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("unavailable")]
struct Unavailable;

type AppResult<T> = Result<T, Unavailable>;

static REPORTS: Mutex<Vec<(String, u32)>> = Mutex::new(Vec::new());

fn record(report: &ExecutionReport) {
    let seen = (report.name().to_owned(), report.attempt_count());
    REPORTS.lock().unwrap().push(seen);
}

trait Provider {
    fn get(&self, id: u32) -> Result<u32, Unavailable>;

    async fn get_async(&self, id: u32) -> AppResult<u32>;
}

struct Client {
    log: Mutex<Vec<u32>>,
}

impl Provider for Client {
    #[resilient(retries = 2, backoff = none, report = record)]
    fn get(&self, id: u32) -> Result<u32, Unavailable> {
        Ok(id)
    }

    // A closure may use the arguments, `self` included.
    #[resilient(retries = 2, report = |report| self.log.lock().unwrap().push(report.attempt_count()))]
    async fn get_async(&self, id: u32) -> AppResult<u32> {
        tokio::task::yield_now().await;
        if id == 0 { Err(Unavailable) } else { Ok(id) }
    }
}

#[resilient(retries = 1, backoff = none, name = "config.load", report = record)]
fn load(path: &str) -> AppResult<usize> {
    Ok(path.len())
}

async fn through_the_trait(provider: &impl Provider) -> (Result<u32, Unavailable>, AppResult<u32>) {
    (provider.get(1), provider.get_async(0).await)
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn runs() {
    let client = Client {
        log: Mutex::new(Vec::new()),
    };
    assert_eq!(through_the_trait(&client).await, (Ok(1), Err(Unavailable)));
    assert_eq!(*client.log.lock().unwrap(), [3]);
    let length: AppResult<usize> = load("app.toml");
    assert_eq!(length, Ok(8));
    assert_eq!(
        *REPORTS.lock().unwrap(),
        [("get".to_owned(), 1), ("config.load".to_owned(), 1)]
    );
}
