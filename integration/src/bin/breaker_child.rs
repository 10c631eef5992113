//! One instance of a service whose circuit breaker is shared with its
//! fleet through Redis; the fleet tests (`tests/breaker_faults.rs`,
//! `tests/breaker_fleet.rs`) start several.
//!
//! ```text
//! breaker_child <redis-url> <dependency-port> <shared|local> [option=value …]
//! ```
//!
//! It calls the dependency (a line over TCP, answered `ok` or `fail`)
//! through the engine, `Operation::circuit_breaker`, every `every` ms, and
//! prints `state <local> <fleet>` each time its breaker's local state or
//! what it knows of the fleet changes (`fleet` is `closed`, `open`,
//! `half-open`, `alone`, or `-` for a breaker that is not shared).
//!
//! Options: `every` (ms, default 5), `threshold` (consecutive failures
//! that open the local breaker, default 5), `ratio` (a local failure
//! ratio over 20 calls instead), `break` (ms, default 600), `lease` (the
//! probe timeout, ms, default 300), `window` (the fleet's sampling window,
//! ms, default 1000), `publish` (ms, default 50), `quorum` (default 2),
//! `throughput` (the fleet's minimum, default 20), and `poisoned=1`: every
//! call fails at once, without reaching the dependency, as with a broken
//! network of its own; `fail_every=N` fails every Nth call the same way.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::thread::sleep;
use std::time::{Duration, Instant};

use resilient::breaker::{FleetState, RedisBreakerState};
use resilient::{CircuitBreaker, CircuitOpen, CircuitState, Operation};

#[derive(Debug)]
enum CallError {
    Open,
    Failed,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<CircuitOpen> for CallError {
    fn from(_: CircuitOpen) -> Self {
        CallError::Open
    }
}

/// The connection to the dependency, opened again after it breaks.
struct Dependency {
    port: u16,
    link: Option<(TcpStream, BufReader<TcpStream>)>,
}

impl Dependency {
    fn call(&mut self) -> Result<(), CallError> {
        if self.link.is_none() {
            let stream =
                TcpStream::connect(("127.0.0.1", self.port)).map_err(|_| CallError::Failed)?;
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .map_err(|_| CallError::Failed)?;
            let reader = BufReader::new(stream.try_clone().map_err(|_| CallError::Failed)?);
            self.link = Some((stream, reader));
        }
        let (stream, reader) = self.link.as_mut().expect("connected above");
        let mut answer = String::new();
        let asked = writeln!(stream, "call {}", std::process::id());
        if asked.is_err() || reader.read_line(&mut answer).map_or(true, |read| read == 0) {
            self.link = None;
            return Err(CallError::Failed);
        }
        match answer.trim() {
            "ok" => Ok(()),
            _ => Err(CallError::Failed),
        }
    }
}

fn option(options: &[String], name: &str, default: u64) -> u64 {
    options
        .iter()
        .find_map(|option| option.strip_prefix(name)?.strip_prefix('='))
        .map_or(default, |value| value.parse().expect("a whole number"))
}

fn describe(state: CircuitState) -> &'static str {
    state.as_str()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, port, mode, options @ ..] = args.as_slice() else {
        eprintln!(
            "usage: breaker_child <redis-url> <dependency-port> <shared|local> [option=value …]"
        );
        return ExitCode::FAILURE;
    };
    let ms = |name, default| Duration::from_millis(option(options, name, default));
    let mut builder = CircuitBreaker::builder()
        .name("fleet.dependency")
        .break_duration(ms("break", 600))
        .probe_timeout(ms("lease", 300));
    builder = match option(options, "ratio", 0) {
        0 => builder.failure_threshold(u32::try_from(option(options, "threshold", 5)).unwrap()),
        percent => builder
            .failure_ratio(percent as f64 / 100.0)
            .minimum_throughput(20)
            .sampling_window(Duration::from_secs(10)),
    };
    if mode == "shared" {
        let state = RedisBreakerState::new(url.as_str())
            .expect("a valid URL")
            .sampling_window(ms("window", 1000))
            .publish_every(ms("publish", 50))
            .quorum(u32::try_from(option(options, "quorum", 2)).unwrap())
            .minimum_throughput(u32::try_from(option(options, "throughput", 20)).unwrap());
        builder = builder.shared(state);
    }
    let breaker = builder.build().expect("a valid breaker");
    let poisoned = option(options, "poisoned", 0) == 1;
    let fail_every = option(options, "fail_every", 0);
    let mut calls = 0_u64;
    let every = ms("every", 5);
    let mut dependency = Dependency {
        port: port.parse().expect("a port"),
        link: None,
    };
    let mut said = String::new();
    loop {
        let now = Instant::now();
        let fleet = match breaker.fleet_state() {
            None => "-",
            Some(FleetState::Alone) => "alone",
            Some(FleetState::Joined(state)) => describe(state),
        };
        let state = format!("state {} {fleet}", describe(breaker.local_state(now)));
        if state != said {
            println!("{state}");
            said = state;
        }
        let _ = Operation::new()
            .name("fleet.call")
            .circuit_breaker(&breaker)
            .run(|_| {
                calls += 1;
                if poisoned || (fail_every > 0 && calls.is_multiple_of(fail_every)) {
                    Err(CallError::Failed)
                } else {
                    dependency.call()
                }
            });
        sleep(every);
    }
}
