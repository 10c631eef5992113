//! Separate processes (`idem_child`) sharing one idempotency key through a
//! real `redis-server`: the body runs once across them, a killed leader's
//! key passes to a waiting process once its lease runs out, and a new
//! process replays the stored value. The body counts its runs in Redis
//! (`INCR runs:<key>`). Real time, with leases of 300 ms.

#[path = "support/redis_server.rs"]
mod redis_server;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use redis::Commands;
use redis_server::RedisServer;

const LEASE_MS: &str = "300";
/// Generous next to what each step takes (milliseconds), so that a loaded
/// machine doesn't fail the test, while a broken protocol still does.
const STEP: Duration = Duration::from_secs(5);

/// An `idem_child` process, killed if the test ends before it does.
struct Process {
    child: Child,
    lines: Receiver<String>,
}

impl Process {
    fn start(server: &RedisServer, key: &str, mode: &str) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_idem_child"))
            .args([server.url().as_str(), key, LEASE_MS, mode])
            .stdout(Stdio::piped())
            .spawn()
            .expect("cannot start idem_child");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (send, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Process { child, lines }
    }

    /// The process's next line, which must come within [`STEP`].
    fn next_line(&self) -> String {
        self.lines
            .recv_timeout(STEP)
            .unwrap_or_else(|err| panic!("no line from idem_child within {STEP:?}: {err}"))
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the process to exit on its own and checks that it succeeded.
    fn finish(mut self) {
        let status = self.child.wait().expect("idem_child can be waited on");
        assert!(status.success(), "idem_child failed: {status}");
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn runs(redis: &mut redis::Connection, key: &str) -> u32 {
    redis.get(format!("runs:{key}")).unwrap()
}

#[test]
fn two_processes_with_one_key_run_the_body_once_and_print_the_same_value() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut redis = server.client().get_connection().unwrap();

    let leader = Process::start(&server, "order-1", "hold");
    assert_eq!(leader.next_line(), "running");
    let follower = Process::start(&server, "order-1", "quick");
    assert_eq!(follower.next_line(), "waiting");
    let _: () = redis.rpush("go:order-1", "go").unwrap();

    let value = format!("made by process {}", leader.pid());
    assert_eq!(leader.next_line(), format!("Executed {value}"));
    assert_eq!(follower.next_line(), format!("Joined {value}"));
    leader.finish();
    follower.finish();
    assert_eq!(runs(&mut redis, "order-1"), 1);
}

#[test]
fn a_killed_leader_loses_the_key_to_a_waiting_process_when_its_lease_runs_out() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut redis = server.client().get_connection().unwrap();

    let mut leader = Process::start(&server, "order-2", "hold");
    assert_eq!(leader.next_line(), "running");
    let successor = Process::start(&server, "order-2", "quick");
    assert_eq!(successor.next_line(), "waiting");

    leader.child.kill().unwrap();
    leader.child.wait().unwrap();
    let killed_at = Instant::now();
    assert_eq!(successor.next_line(), "running");
    // The lease (300 ms) plus a poll (at most 250 ms), with room to spare.
    assert!(
        killed_at.elapsed() < Duration::from_secs(2),
        "took {:?}",
        killed_at.elapsed()
    );
    let value = format!("made by process {}", successor.pid());
    assert_eq!(successor.next_line(), format!("Executed {value}"));
    successor.finish();
    assert_eq!(runs(&mut redis, "order-2"), 2);
}

#[test]
fn a_new_process_replays_the_value_an_earlier_one_stored() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let mut redis = server.client().get_connection().unwrap();

    let first = Process::start(&server, "order-3", "quick");
    assert_eq!(first.next_line(), "running");
    let value = format!("made by process {}", first.pid());
    assert_eq!(first.next_line(), format!("Executed {value}"));
    first.finish();

    let restarted = Process::start(&server, "order-3", "quick");
    assert_eq!(restarted.next_line(), format!("Replayed {value}"));
    restarted.finish();
    assert_eq!(runs(&mut redis, "order-3"), 1);
}
