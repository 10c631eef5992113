//! Separate processes (`idem_child`) sharing one idempotency key through a
//! real `redis-server`: the body runs once across them, and a new process
//! replays the stored value. The body counts its runs in Redis
//! (`INCR runs:<key>`). Real time, with leases of 300 ms. What happens
//! under faults is `idempotency_faults.rs`.

#[path = "support/child.rs"]
mod child;
#[path = "support/redis_server.rs"]
mod redis_server;

use child::Process;
use redis::Commands;
use redis_server::RedisServer;

const LEASE_MS: &str = "300";

fn runs(redis: &mut redis::Connection, key: &str) -> u32 {
    redis.get(format!("runs:{key}")).unwrap()
}

#[test]
fn two_processes_with_one_key_run_the_body_once_and_print_the_same_value() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let url = server.url();
    let mut redis = server.client().get_connection().unwrap();

    let leader = Process::start(&[&url, "order-1", LEASE_MS, "hold"]);
    leader.running();
    let follower = Process::start(&[&url, "order-1", LEASE_MS, "quick"]);
    assert_eq!(follower.next_line(), "waiting");
    let _: () = redis.rpush("go:order-1", "go").unwrap();

    assert_eq!(leader.ended("Executed"), "stored");
    let line = follower.next_line();
    let made = format!("Joined made by process {} ", leader.pid());
    assert!(line.starts_with(&made), "expected {made:?}…, got {line:?}");
    leader.finish();
    follower.finish();
    assert_eq!(runs(&mut redis, "order-1"), 1);
}

#[test]
fn a_new_process_replays_the_value_an_earlier_one_stored() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let url = server.url();
    let mut redis = server.client().get_connection().unwrap();

    let first = Process::start(&[&url, "order-3", LEASE_MS, "quick"]);
    first.running();
    assert_eq!(first.ended("Executed"), "stored");
    let restarted = Process::start(&[&url, "order-3", LEASE_MS, "quick"]);
    let line = restarted.next_line();
    let made = format!("Replayed made by process {} ", first.pid());
    assert!(line.starts_with(&made), "expected {made:?}…, got {line:?}");
    first.finish();
    restarted.finish();
    assert_eq!(runs(&mut redis, "order-3"), 1);
}
