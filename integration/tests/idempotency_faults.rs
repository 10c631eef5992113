//! The idempotency guarantee under faults, on real processes (`idem_child`)
//! and a real `redis-server`: a holder killed or paused mid-body, the
//! server restarted, the connection cut or blackholed through a proxy the
//! test controls, and a fleet killed at random. Each test counts the body's
//! runs and the values returned; the guide's table of faults (`src/guide/idempotency.md`) is this file.
//! Real time, with leases of 300 ms and bounded waits.

#[path = "support/child.rs"]
mod child;
#[path = "support/proxy.rs"]
mod proxy;
#[path = "support/redis_server.rs"]
mod redis_server;

use std::collections::BTreeMap;
use std::thread::sleep;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use child::{Process, STEP};
use proxy::Proxy;
use redis::Commands;
use redis_server::RedisServer;

const LEASE_MS: &str = "300";
const LEASE: Duration = Duration::from_millis(300);

fn runs(redis: &mut redis::Connection, key: &str) -> u32 {
    redis.get(format!("runs:{key}")).unwrap()
}

fn go(redis: &mut redis::Connection, key: &str) {
    let _: () = redis.rpush(format!("go:{key}"), "go").unwrap();
}

/// A fresh process that finds `key` stored by `maker`, and replays it.
fn assert_replays(url: &str, key: &str, maker: &Process) {
    let replay = Process::start(&[url, key, LEASE_MS, "quick"]);
    let line = replay.next_line();
    let made = format!("Replayed made by process {} ", maker.pid());
    assert!(line.starts_with(&made), "expected {made:?}…, got {line:?}");
    replay.finish();
}

#[test]
fn a_holder_killed_mid_body_leaves_the_key_to_a_waiter_after_its_lease() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (url, key) = (server.url(), "killed");
    let mut redis = server.client().get_connection().unwrap();

    let mut holder = Process::start(&[&url, key, LEASE_MS, "hold"]);
    let first = holder.running();
    let waiter = Process::start(&[&url, key, LEASE_MS, "quick"]);
    assert_eq!(waiter.next_line(), "waiting");
    holder.kill();

    let second = waiter.running();
    assert!(second > first, "fencing tokens {first} then {second}");
    assert_eq!(waiter.ended("Executed"), "stored");
    assert_replays(&url, key, &waiter);
    waiter.finish();
    assert_eq!(runs(&mut redis, key), 2);
}

#[test]
fn a_holder_paused_past_its_lease_runs_twice_and_its_late_value_is_refused() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (url, key) = (server.url(), "paused");
    let mut redis = server.client().get_connection().unwrap();

    let holder = Process::start(&[&url, key, LEASE_MS, "hold"]);
    let first = holder.running();
    holder.signal("STOP");
    let successor = Process::start(&[&url, key, LEASE_MS, "quick"]);
    assert_eq!(successor.next_line(), "waiting");
    let second = successor.running();
    assert!(second > first, "fencing tokens {first} then {second}");
    assert_eq!(successor.ended("Executed"), "stored");

    holder.signal("CONT");
    the_late_holder_is_refused(&mut redis, &url, key, holder, successor);
}

/// Lets `holder`, which lost its claim to `successor`, finish: its caller
/// gets its own value, which the store refuses to keep; the successor's
/// stays, and the body ran twice.
fn the_late_holder_is_refused(
    redis: &mut redis::Connection,
    url: &str,
    key: &str,
    holder: Process,
    successor: Process,
) {
    go(redis, key);
    assert_eq!(holder.ended("Executed"), "claim_lost");
    assert_replays(url, key, &successor);
    holder.finish();
    successor.finish();
    assert_eq!(runs(redis, key), 2);
}

#[test]
fn a_server_restarted_mid_body_loses_the_claim_and_the_holders_value_is_not_stored() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let (url, key) = (server.url(), "restarted");

    let holder = Process::start(&[&url, key, LEASE_MS, "hold"]);
    holder.running();
    server.restart();
    // Claims, values and counters were in the server's memory only.
    let successor = Process::start(&[&url, key, LEASE_MS, "quick"]);
    successor.running();
    assert_eq!(successor.ended("Executed"), "stored");

    let mut redis = server.client().get_connection().unwrap();
    go(&mut redis, key);
    assert_eq!(holder.ended("Executed"), "claim_lost");
    assert_replays(&url, key, &successor);
    holder.finish();
    successor.finish();
}

#[test]
fn a_connection_cut_shorter_than_the_lease_is_ridden_out() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (url, key) = (server.url(), "short-cut");
    let mut redis = server.client().get_connection().unwrap();
    let proxy = Proxy::start(server.port());

    // A 3 s lease, renewed every 1.5 s, retried every 375 ms after a failure.
    let holder = Process::start(&[&proxy.url(), key, "3000", "hold", &url]);
    holder.running();
    let joiner = Process::start(&[&url, key, "3000", "quick"]);
    assert_eq!(joiner.next_line(), "waiting");
    proxy.cut();
    sleep(Duration::from_millis(500));
    proxy.restore();

    go(&mut redis, key);
    assert_eq!(holder.ended("Executed"), "stored");
    let line = joiner.next_line();
    let made = format!("Joined made by process {} ", holder.pid());
    assert!(line.starts_with(&made), "expected {made:?}…, got {line:?}");
    holder.finish();
    joiner.finish();
    assert_eq!(runs(&mut redis, key), 1);
}

/// The holder reaches Redis through `proxy`; `fault` breaks the proxy for
/// longer than the lease, while another process takes the key over.
fn a_fault_longer_than_the_lease(key: &str, fault: impl FnOnce(&Proxy)) {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let url = server.url();
    let mut redis = server.client().get_connection().unwrap();
    let proxy = Proxy::start(server.port());

    let holder = Process::start(&[&proxy.url(), key, LEASE_MS, "hold", &url]);
    let first = holder.running();
    fault(&proxy);
    let successor = Process::start(&[&url, key, LEASE_MS, "quick"]);
    assert_eq!(successor.next_line(), "waiting");
    let second = successor.running();
    assert!(second > first, "fencing tokens {first} then {second}");
    assert_eq!(successor.ended("Executed"), "stored");

    proxy.restore();
    // Time for the holder's connection to come back.
    sleep(LEASE);
    the_late_holder_is_refused(&mut redis, &url, key, holder, successor);
}

#[test]
fn a_connection_cut_longer_than_the_lease_runs_twice_and_the_first_value_is_refused() {
    a_fault_longer_than_the_lease("long-cut", Proxy::cut);
}

#[test]
fn a_blackholed_connection_runs_twice_and_the_first_value_is_refused() {
    a_fault_longer_than_the_lease("blackholed", Proxy::blackhole);
}

/// What the processes printed for one key: its value lines.
type Said = BTreeMap<String, Vec<String>>;

/// The `<key> <status> <value> stored=<why>` lines of `lines`.
fn calls(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .filter(|line| line.starts_with('k'))
        .collect()
}

/// Files each call's line under its key.
fn file_lines(said: &mut Said, lines: &[String]) {
    for line in lines {
        if let Some((key, rest)) = line.split_once(' ') {
            said.entry(key.to_owned())
                .or_default()
                .push(rest.to_owned());
        }
    }
}

#[test]
fn eight_processes_over_fifty_keys_killed_at_random_keep_one_value_per_key() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let url = server.url();
    let mut redis = server.client().get_connection().unwrap();
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |since| since.subsec_nanos() | 1);
    let mut random = u64::from(seed);
    let mut next = move |below: u64| {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        random % below
    };

    let mut fleet: Vec<Process> = (0..8)
        .map(|_| Process::start(&[&url, "k", LEASE_MS, "many"]))
        .collect();
    let mut killed = Vec::new();
    for _ in 0..3 {
        sleep(Duration::from_millis(20 + next(200)));
        let victim = usize::try_from(next(fleet.len() as u64)).unwrap();
        let mut process = fleet.swap_remove(victim);
        process.kill();
        killed.push(process);
    }

    let mut said = Said::new();
    for process in fleet {
        let (lines, succeeded) = process.rest(STEP);
        assert!(
            succeeded,
            "seed {seed}: a surviving process failed: {lines:?}"
        );
        let lines = calls(lines);
        assert_eq!(lines.len(), 50, "seed {seed}: {lines:?}");
        file_lines(&mut said, &lines);
    }
    for process in killed {
        file_lines(&mut said, &calls(process.rest(Duration::from_millis(10)).0));
    }
    // Every key settled: a last process replays each.
    let last = Process::start(&[&url, "k", LEASE_MS, "many"]);
    let (lines, succeeded) = last.rest(STEP);
    assert!(succeeded, "seed {seed}: {lines:?}");
    let lines = calls(lines);
    assert_eq!(lines.len(), 50, "seed {seed}: {lines:?}");
    assert!(
        lines.iter().all(|line| line.contains(" Replayed ")),
        "seed {seed}: {lines:?}"
    );
    file_lines(&mut said, &lines);

    for i in 0..50 {
        let key = format!("k{i}");
        let values: Vec<&str> = said[&key]
            .iter()
            .map(|rest| {
                let (_, value) = rest.split_once(' ').unwrap();
                value
                    .rsplit_once(" stored=")
                    .map_or(value, |(value, _)| value)
            })
            .collect();
        assert!(
            values.windows(2).all(|pair| pair[0] == pair[1]),
            "seed {seed}: {key} returned two values: {values:?}"
        );
        let runs = runs(&mut redis, &key);
        assert!(
            (1..=4).contains(&runs),
            "seed {seed}: {key} ran {runs} times with 3 processes killed"
        );
    }
}
