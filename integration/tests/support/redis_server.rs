//! A real `redis-server` on a free port of 127.0.0.1, in a directory of its
//! own, without persistence; killed when dropped.
//!
//! Without `redis-server` on the PATH, [`RedisServer::start`] returns `None`
//! and the test skips with a message, unless `RESILIENT_REQUIRE_REDIS` is
//! set (CI sets it): then it fails, so a CI run can't skip silently.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// How long a fresh server may take to answer its first PING.
const READY_WITHIN: Duration = Duration::from_secs(5);

pub struct RedisServer {
    process: Option<Child>,
    port: u16,
    dir: PathBuf,
}

impl RedisServer {
    /// Starts a server, or returns `None` (after saying why) when
    /// `redis-server` is missing and the environment allows skipping.
    pub fn start() -> Option<RedisServer> {
        let installed = Command::new("redis-server")
            .arg("--version")
            .output()
            .is_ok_and(|output| output.status.success());
        if !installed {
            assert!(
                std::env::var_os("RESILIENT_REQUIRE_REDIS").is_none(),
                "RESILIENT_REQUIRE_REDIS is set but `redis-server` is not on the PATH \
                 (install it: apt-get install redis-server)"
            );
            // Straight to stderr: the test harness captures `eprintln!` of
            // passing tests, and a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: `redis-server` is not on the PATH (apt-get install redis-server); \
                 set RESILIENT_REQUIRE_REDIS=1 to make this a failure"
            );
            return None;
        }
        // A port found free can be taken before the server binds it: try
        // again on another.
        for _ in 0..3 {
            if let Some(server) = RedisServer::try_start() {
                return Some(server);
            }
        }
        panic!("redis-server did not start on 127.0.0.1 after 3 tries");
    }

    fn try_start() -> Option<RedisServer> {
        static STARTED: AtomicU32 = AtomicU32::new(0);
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("no free port on 127.0.0.1")
            .port();
        let dir = std::env::temp_dir().join(format!(
            "resilient-redis-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("cannot create the server's directory");
        let mut server = RedisServer {
            process: Some(spawn(port, &dir)),
            port,
            dir,
        };
        server.wait_until_ready().then_some(server)
    }

    /// Kills the server and starts a fresh one on the same port: whatever
    /// it held in memory is gone, as after a crash without persistence.
    #[allow(dead_code)]
    pub fn restart(&mut self) {
        self.stop();
        self.process = Some(spawn(self.port, &self.dir));
        assert!(self.wait_until_ready(), "redis-server did not restart");
    }

    /// Sends `signal` (`STOP`, `CONT`) to the server, through the shell's
    /// `kill`: a stopped server keeps its connections and answers nothing.
    #[allow(dead_code)]
    pub fn signal(&self, signal: &str) {
        let pid = self.process.as_ref().expect("the server runs").id();
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("kill -{signal} {pid}"))
            .status()
            .expect("cannot run sh");
        assert!(status.success(), "kill -{signal} failed: {status}");
    }

    /// The server's port on 127.0.0.1.
    #[allow(dead_code)]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Polls with PING until the server answers, or it exits, or time is up.
    fn wait_until_ready(&mut self) -> bool {
        let give_up = Instant::now() + READY_WITHIN;
        while Instant::now() < give_up {
            if let Some(process) = self.process.as_mut()
                && !matches!(process.try_wait(), Ok(None))
            {
                return false;
            }
            if self.answers_ping() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    fn answers_ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let mut answer = [0; 7];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut answer).is_ok()
            && &answer == b"+PONG\r\n"
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// A plain client, for a test to look at the keys.
    pub fn client(&self) -> redis::Client {
        redis::Client::open(self.url()).expect("the server's URL is valid")
    }

    /// Kills the server now (it is gone for good).
    pub fn stop(&mut self) {
        if let Some(mut process) = self.process.take() {
            let _ = process.kill();
            let _ = process.wait();
        }
    }
}

/// A `redis-server` on `port`, in `dir`, without persistence.
fn spawn(port: u16, dir: &std::path::Path) -> Child {
    Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start redis-server")
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
