//! What sharing a breaker gains a fleet: eight `breaker_child` processes
//! call one dependency, which goes down, stays down, and comes back. Each
//! run counts the calls that reach the dependency before every instance's
//! breaker is open, the calls (probes) that reach it while it stays down,
//! and the time until every instance is closed once it is back; shared
//! breakers against local ones, with the same local rule.
//!
//! The CI test holds the gain with a short outage; the table of the guide
//! and BENCHMARKS.md comes from the ignored one:
//!
//! ```sh
//! cargo test -p resilient-integration --release --test breaker_fleet -- --ignored --nocapture
//! ```

#[path = "support/child.rs"]
mod child;
#[path = "support/dependency.rs"]
mod dependency;
#[allow(dead_code, reason = "each test file uses its own part")]
#[path = "support/redis_server.rs"]
mod redis_server;

use std::thread::sleep;
use std::time::{Duration, Instant};

use child::Process;
use dependency::Dependency;
use redis_server::RedisServer;

const INSTANCES: usize = 8;
const WITHIN: Duration = Duration::from_secs(10);

/// One run's figures.
#[derive(Debug)]
struct Run {
    /// Calls that reached the dead dependency before every instance was open.
    before_all_open: usize,
    /// Calls that reached it after that, while it stayed down.
    while_down: usize,
    /// From the dependency's return to the moment every instance was closed.
    to_close: Duration,
}

/// One instance and what it said last.
struct Instance {
    process: Process,
    local: String,
    fleet: String,
}

impl Instance {
    /// Takes the lines it printed so far.
    fn read(&mut self) {
        while let Some(line) = self.process.line_within(Duration::ZERO) {
            let mut words = line.split(' ').skip(1);
            self.local = words.next().unwrap_or_default().to_owned();
            self.fleet = words.next().unwrap_or_default().to_owned();
        }
    }

    /// Whether it rejects calls: its own breaker or its fleet's is open.
    fn open(&self) -> bool {
        self.local == "open" || self.fleet == "open"
    }

    fn closed(&self) -> bool {
        self.local == "closed" && matches!(&*self.fleet, "closed" | "-")
    }
}

/// Reads every instance until `done` holds for all of them; returns the
/// dependency's count of calls at the moment the last one got there.
fn until_all(
    fleet: &mut [Instance],
    dependency: &Dependency,
    done: fn(&Instance) -> bool,
) -> usize {
    let give_up = Instant::now() + WITHIN;
    let mut reached = vec![None; fleet.len()];
    while reached.iter().any(Option::is_none) {
        assert!(Instant::now() < give_up, "not every instance got there");
        for (instance, reached) in fleet.iter_mut().zip(&mut reached) {
            instance.read();
            if reached.is_none() && done(instance) {
                *reached = Some(dependency.calls());
            }
        }
        sleep(Duration::from_millis(1));
    }
    reached.into_iter().flatten().max().unwrap_or(0)
}

/// Eight instances calling every `every` ms, whose breakers break for
/// 1 s; `mode` is `shared` or `local`.
fn run(mode: &str, every: &str, rule: &str, down_for: Duration) -> Option<Run> {
    let server = RedisServer::start()?;
    let dependency = Dependency::start();
    let (url, port) = (server.url(), dependency.port());
    let mut args = vec![url.as_str(), port.as_str(), mode];
    args.extend_from_slice(&[
        every,
        rule,
        "break=1000",
        "lease=500",
        "window=2000",
        "publish=100",
    ]);
    let mut fleet: Vec<Instance> = (0..INSTANCES)
        .map(|_| Instance {
            process: Process::of(env!("CARGO_BIN_EXE_breaker_child"), &args),
            local: String::new(),
            fleet: String::new(),
        })
        .collect();
    until_all(&mut fleet, &dependency, |instance| {
        instance.closed() && instance.fleet != "alone"
    });
    // Traffic for a while, so that the windows hold successes.
    sleep(Duration::from_secs(1));

    let calls = dependency.calls();
    let went_down = Instant::now();
    dependency.down();
    let all_open = until_all(&mut fleet, &dependency, Instance::open);
    sleep(down_for.saturating_sub(went_down.elapsed()));
    let at_return = dependency.calls();
    dependency.up();
    let back = Instant::now();
    until_all(&mut fleet, &dependency, Instance::closed);
    Some(Run {
        before_all_open: all_open - calls,
        while_down: at_return - all_open,
        to_close: back.elapsed(),
    })
}

#[test]
fn eight_shared_instances_send_a_dead_dependency_fewer_calls_than_eight_local_ones() {
    let down = Duration::from_secs(3);
    let Some(local) = run("local", "every=50", "threshold=5", down) else {
        return;
    };
    let shared = run("shared", "every=50", "threshold=5", down).expect("redis ran once");
    let total = |run: &Run| run.before_all_open + run.while_down;
    assert!(
        total(&shared) < total(&local),
        "shared {shared:?}, local {local:?}"
    );
    assert!(
        shared.while_down < local.while_down,
        "shared {shared:?}, local {local:?}"
    );
}

/// The guide's and BENCHMARKS.md's table: two paces of calls, each local
/// rule, local and shared, a 5 s outage.
#[test]
#[ignore = "a measurement of about a minute: run it with --ignored --nocapture"]
fn eight_instances_and_a_dependency_that_goes_down_for_five_seconds() {
    let down = Duration::from_secs(5);
    println!(
        "| calls per instance | local rule | breakers | calls before all open | calls while down | all closed after |"
    );
    println!("|---|---|---|---:|---:|---:|");
    for (pace, every) in [("20/s", "every=50"), ("5/s", "every=200")] {
        for (name, rule) in [
            ("5 failures in a row", "threshold=5"),
            ("50 % of 20 calls", "ratio=50"),
        ] {
            for mode in ["local", "shared"] {
                let Some(run) = run(mode, every, rule, down) else {
                    return;
                };
                println!(
                    "| {pace} | {name} | {mode} | {} | {} | {} ms |",
                    run.before_all_open,
                    run.while_down,
                    run.to_close.as_millis()
                );
            }
        }
    }
}
