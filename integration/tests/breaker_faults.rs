//! A circuit breaker shared through Redis under faults, on real processes
//! (`breaker_child`) and a real `redis-server`: Redis killed and paused,
//! an instance cut from Redis by a proxy, an instance killed while it
//! holds the fleet's probe, and a poisoned instance that fails every call
//! while the others succeed. The guide's table of the fleet's faults
//! (`src/guide/breaker.md`) is this file. Real time, with breaks of 600 ms, leases of 300 ms, a report
//! every 50 ms, and bounded waits.

#[path = "support/child.rs"]
mod child;
#[path = "support/dependency.rs"]
mod dependency;
#[allow(dead_code, reason = "each test file uses its own part")]
#[path = "support/proxy.rs"]
mod proxy;
#[allow(dead_code, reason = "each test file uses its own part")]
#[path = "support/redis_server.rs"]
mod redis_server;

use std::thread::sleep;
use std::time::{Duration, Instant};

use child::Process;
use dependency::Dependency;
use proxy::Proxy;
use redis_server::RedisServer;

/// Generous next to what each step takes (a few hundred milliseconds), so
/// that a loaded machine doesn't fail the test.
const WITHIN: Duration = Duration::from_secs(8);

/// One `breaker_child`, and the latest state it printed.
struct Instance {
    process: Process,
    local: String,
    fleet: String,
    said: Vec<String>,
}

impl Instance {
    fn start(url: &str, dependency: &Dependency, options: &[&str]) -> Instance {
        let port = dependency.port();
        let mut args = vec![url, port.as_str(), "shared"];
        args.extend_from_slice(options);
        let mut instance = Instance {
            process: Process::of(env!("CARGO_BIN_EXE_breaker_child"), &args),
            local: String::new(),
            fleet: String::new(),
            said: Vec::new(),
        };
        instance.wait("its first state", |_, _| true);
        instance
    }

    /// Reads its lines until `until(local, fleet)` holds, within [`WITHIN`].
    fn wait(&mut self, what: &str, until: impl Fn(&str, &str) -> bool) {
        let give_up = Instant::now() + WITHIN;
        while !self
            .said
            .last()
            .is_some_and(|_| until(&self.local, &self.fleet))
        {
            let left = give_up.saturating_duration_since(Instant::now());
            let Some(line) = self.process.line_within(left) else {
                panic!("no {what} within {WITHIN:?}; it said {:?}", self.said);
            };
            self.take(line);
        }
    }

    fn take(&mut self, line: String) {
        let mut words = line.split(' ').skip(1);
        self.local = words.next().unwrap_or_default().to_owned();
        self.fleet = words.next().unwrap_or_default().to_owned();
        self.said.push(line);
    }

    /// Every state it printed during the next `span`.
    fn watch(&mut self, span: Duration) -> &[String] {
        let from = self.said.len();
        let end = Instant::now() + span;
        while let Some(line) = self
            .process
            .line_within(end.saturating_duration_since(Instant::now()))
        {
            self.take(line);
        }
        &self.said[from..]
    }

    fn joined(&mut self) {
        self.wait("word from the fleet", |_, fleet| fleet != "alone");
    }

    fn alone(&mut self) {
        self.wait("fallback to its local breaker", |_, fleet| fleet == "alone");
    }
}

#[test]
fn redis_killed_leaves_each_instance_to_its_local_breaker_until_it_comes_back() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let dependency = Dependency::start();
    let url = server.url();
    let mut fleet: Vec<Instance> = (0..2)
        .map(|_| Instance::start(&url, &dependency, &[]))
        .collect();
    fleet.iter_mut().for_each(Instance::joined);

    server.stop();
    fleet.iter_mut().for_each(Instance::alone);
    // Alone, each local breaker still opens on its own failures.
    dependency.down();
    for instance in &mut fleet {
        instance.wait("its local breaker open", |local, _| local == "open");
    }
    dependency.up();
    server.restart();
    for instance in &mut fleet {
        instance.wait("the fleet again", |local, fleet| {
            fleet == "closed" && local == "closed"
        });
    }
}

#[test]
fn redis_paused_leaves_each_instance_alone_until_it_answers_again() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let dependency = Dependency::start();
    let url = server.url();
    let mut fleet: Vec<Instance> = (0..2)
        .map(|_| Instance::start(&url, &dependency, &[]))
        .collect();
    fleet.iter_mut().for_each(Instance::joined);

    server.signal("STOP");
    fleet.iter_mut().for_each(Instance::alone);
    server.signal("CONT");
    fleet.iter_mut().for_each(Instance::joined);
}

#[test]
fn an_instance_cut_from_redis_decides_alone_while_the_fleet_opens_without_it() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let dependency = Dependency::start();
    let url = server.url();
    let proxy = Proxy::start(server.port());
    let mut cut = Instance::start(&proxy.url(), &dependency, &["break=1500"]);
    // The others' own breakers never open, so they go on failing once the
    // dependency is down and their windows fill with failures. Breakers
    // that opened after five failures would leave the fleet those five
    // beside a window of successes, whose ratio reaches the threshold
    // only at the moment the successes leave the window: the fleet would
    // open or not by the phase of the reports.
    let mut others: Vec<Instance> = (0..2)
        .map(|_| Instance::start(&url, &dependency, &["break=1500", "threshold=1000000000"]))
        .collect();
    cut.joined();
    others.iter_mut().for_each(Instance::joined);

    proxy.cut();
    cut.alone();
    assert!(
        others.iter_mut().all(|other| {
            other.watch(Duration::from_millis(300));
            other.fleet == "closed"
        }),
        "the others stay joined"
    );
    dependency.down();
    for other in &mut others {
        other.wait("the fleet open", |_, fleet| fleet == "open");
    }
    cut.wait("its local breaker open", |local, fleet| {
        local == "open" && fleet == "alone"
    });
    proxy.restore();
    cut.wait("the fleet's verdict", |_, fleet| {
        fleet == "open" || fleet == "half-open"
    });
}

#[test]
fn an_instance_killed_holding_the_fleets_probe_frees_it_after_its_lease() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let dependency = Dependency::start();
    let url = server.url();
    // Local breakers that never open: the fleet's verdict is the only
    // rule, and their failures fill the window once the dependency is
    // down (see the test above).
    let mut fleet: Vec<Instance> = (0..3)
        .map(|_| Instance::start(&url, &dependency, &["threshold=1000000000"]))
        .collect();
    fleet.iter_mut().for_each(Instance::joined);
    dependency.down();
    for instance in &mut fleet {
        instance.wait("the fleet open", |_, fleet| fleet == "open");
    }
    // The break ends; the first probe hangs on the dependency.
    dependency.hang();
    let from = dependency.calls();
    let give_up = Instant::now() + WITHIN;
    while dependency.calls() == from {
        assert!(Instant::now() < give_up, "no probe within {WITHIN:?}");
        sleep(Duration::from_millis(5));
    }
    // One probe for the fleet: nobody else calls while it holds the slot.
    sleep(Duration::from_millis(150));
    let callers = dependency.callers_since(from);
    assert_eq!(callers.len(), 1, "probes while one hangs: {callers:?}");
    let holder = fleet
        .iter()
        .position(|instance| instance.process.pid() == callers[0])
        .expect("the probe came from the fleet");
    let mut holder = fleet.swap_remove(holder);
    holder.process.kill();
    dependency.up();

    // Its lease (300 ms) runs out, another instance probes, and the
    // dependency's answer closes the fleet's breaker for every instance.
    let killed = Instant::now();
    for instance in &mut fleet {
        instance.wait("the fleet closed again", |local, fleet| {
            fleet == "closed" && local == "closed"
        });
    }
    assert!(
        killed.elapsed() < Duration::from_secs(3),
        "closed {:?} after the holder died",
        killed.elapsed()
    );
}

/// A poisoned instance fails every call at once, many times faster than
/// the others call, and never opens its own breaker (its threshold is out
/// of reach): its failures alone are most of the fleet's calls.
fn a_poisoned_instance(quorum: &str) -> (Vec<Instance>, Instance, Dependency, RedisServer) {
    let server = RedisServer::start().expect("checked by the caller");
    let dependency = Dependency::start();
    let url = server.url();
    let quorum = format!("quorum={quorum}");
    let healthy: Vec<Instance> = (0..3)
        .map(|_| Instance::start(&url, &dependency, &["every=20", &quorum]))
        .collect();
    let poisoned = Instance::start(
        &url,
        &dependency,
        &["every=1", "poisoned=1", "threshold=1000000000", &quorum],
    );
    (healthy, poisoned, dependency, server)
}

#[test]
fn a_poisoned_instance_failing_every_call_never_opens_the_fleets_breaker() {
    if RedisServer::start().is_none() {
        return;
    }
    let (mut healthy, mut poisoned, _dependency, _server) = a_poisoned_instance("2");
    healthy.iter_mut().for_each(Instance::joined);
    poisoned.joined();
    // Three windows of 1 s.
    let said = poisoned.watch(Duration::from_secs(3)).to_vec();
    assert!(
        said.iter().all(|line| !line.contains("open")),
        "the poisoned instance saw: {said:?}"
    );
    for instance in &mut healthy {
        let said = instance.watch(Duration::from_millis(10));
        assert!(
            said.iter().all(|line| line == "state closed closed"),
            "{said:?}"
        );
        assert_eq!((&*instance.local, &*instance.fleet), ("closed", "closed"));
    }
}

/// The trap the quorum alone leaves open: beside the poisoned instance, a
/// healthy one that calls twice a second and fails one call in two looks
/// failing too, which makes two failing instances, and the poisoned one's
/// failures carry the fleet's ratio. Without the poisoned instance the
/// rest are healthy, so the fleet stays closed.
#[test]
fn a_poisoned_instance_and_a_stray_failure_elsewhere_never_open_the_fleets_breaker() {
    if RedisServer::start().is_none() {
        return;
    }
    let (mut healthy, mut poisoned, dependency, server) = a_poisoned_instance("2");
    let mut stray = Instance::start(&server.url(), &dependency, &["every=500", "fail_every=2"]);
    healthy.iter_mut().for_each(Instance::joined);
    poisoned.joined();
    stray.joined();
    // Three windows of 1 s, each with one of the stray instance's failures.
    let said = poisoned.watch(Duration::from_secs(3)).to_vec();
    assert!(
        said.iter().all(|line| !line.contains("open")),
        "the poisoned instance saw: {said:?}"
    );
    for instance in healthy.iter_mut().chain([&mut stray]) {
        let said = instance.watch(Duration::from_millis(10));
        assert!(
            said.iter().all(|line| line == "state closed closed"),
            "{said:?}"
        );
        assert_eq!((&*instance.local, &*instance.fleet), ("closed", "closed"));
    }
}

/// What the ratio alone, without the poisoned instance, leaves open: the
/// rest of the fleet must reach the minimum throughput too. Beside the
/// poisoned instance, a quiet one fails its two calls a second and another
/// succeeds at its one: without the poisoned instance, 2 failures in 3
/// calls pass the ratio, but 3 calls are far below the minimum of 20, so
/// the fleet stays closed.
#[test]
fn a_poisoned_instance_and_a_quiet_rest_below_the_minimum_throughput_never_open_the_fleet() {
    if RedisServer::start().is_none() {
        return;
    }
    let server = RedisServer::start().expect("checked above");
    let dependency = Dependency::start();
    let url = server.url();
    let mut poisoned = Instance::start(
        &url,
        &dependency,
        &["every=1", "poisoned=1", "threshold=1000000000"],
    );
    let mut failing = Instance::start(
        &url,
        &dependency,
        &["every=500", "fail_every=1", "threshold=1000000000"],
    );
    let mut succeeding = Instance::start(&url, &dependency, &["every=1000"]);
    poisoned.joined();
    failing.joined();
    succeeding.joined();
    // Three windows of 1 s.
    let said = poisoned.watch(Duration::from_secs(3)).to_vec();
    assert!(
        said.iter().all(|line| !line.contains("open")),
        "the poisoned instance saw: {said:?}"
    );
    for instance in [&mut failing, &mut succeeding] {
        let said = instance.watch(Duration::from_millis(10));
        assert!(said.iter().all(|line| !line.contains("open")), "{said:?}");
        assert_eq!(&*instance.fleet, "closed");
    }
}

/// The trap the quorum closes: with a quorum of one, the same poisoned
/// instance opens every instance's breaker.
#[test]
fn with_a_quorum_of_one_the_same_poisoned_instance_opens_the_fleets_breaker() {
    if RedisServer::start().is_none() {
        return;
    }
    let (mut healthy, _poisoned, _dependency, _server) = a_poisoned_instance("1");
    for instance in &mut healthy {
        instance.wait("the fleet open", |_, fleet| fleet == "open");
    }
}
