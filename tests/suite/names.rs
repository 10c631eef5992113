//! The operation's name through the attribute: the function's identifier
//! by default, for blocking and async functions and methods alike, or
//! `name = …`; the report, its table and its summary line carry it.

use std::time::Duration;

use resilient::{FakeClock, resilient};

#[derive(Debug, PartialEq, thiserror::Error)]
#[error("busy")]
struct Busy;

#[resilient]
fn load_profile() -> Result<u32, Busy> {
    Ok(1)
}

#[resilient]
async fn load_profile_async() -> Result<u32, Busy> {
    Ok(1)
}

// A raw identifier names the operation without its `r#`.
#[resilient]
fn r#match() -> Result<u32, Busy> {
    Ok(1)
}

struct Users;

impl Users {
    #[resilient]
    fn get(&self) -> Result<u32, Busy> {
        Ok(1)
    }

    #[resilient]
    async fn list(&self) -> Result<u32, Busy> {
        Ok(1)
    }

    #[resilient(retries = 1, backoff = constant("250ms"), clock = clock, name = "users.get")]
    fn get_named(&self, clock: &FakeClock) -> Result<u32, Busy> {
        // The first attempt fails, so the summary shows a retry and its wait.
        if clock.slept().is_empty() {
            Err(Busy)
        } else {
            Ok(1)
        }
    }
}

#[test]
fn a_blocking_fn_is_named_after_its_identifier() {
    assert_eq!(load_profile().report().name(), "load_profile");
    assert_eq!(r#match().report().name(), "match");
}

#[tokio::test(start_paused = true)]
async fn an_async_fn_is_named_after_its_identifier() {
    assert_eq!(
        load_profile_async().await.report().name(),
        "load_profile_async"
    );
}

#[tokio::test(start_paused = true)]
async fn a_method_is_named_after_its_identifier_alone() {
    assert_eq!(Users.get().report().name(), "get");
    assert_eq!(Users.list().await.report().name(), "list");
}

#[test]
fn name_overrides_the_identifier_and_leads_the_summary_line() {
    let outcome = Users.get_named(&FakeClock::new());
    let report = outcome.report();
    assert_eq!(report.name(), "users.get");
    let table = report.to_string();
    let summary = table.lines().last().unwrap();
    assert_eq!(
        summary,
        "users.get: 2 attempt(s), 1 retry, 250.0ms, stopped: succeeded"
    );
    assert_eq!(report.delays(), [Duration::from_millis(250)]);
}

// Evaluated on every call with the arguments in scope, like every option
// expression: one function, one name per shard.
#[resilient(name = format!("orders.shard{shard}"))]
async fn orders(shard: u8) -> Result<u8, Busy> {
    Ok(shard)
}

#[tokio::test(start_paused = true)]
async fn a_name_may_be_computed_from_the_arguments() {
    assert_eq!(orders(3).await.report().name(), "orders.shard3");
    assert_eq!(orders(12).await.report().name(), "orders.shard12");
}
