//! An `idem_child` process (`src/bin/idem_child.rs`) that a test starts,
//! reads line by line, signals and kills; killed if the test ends first.
#![allow(dead_code, reason = "each test file uses its own part")]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

/// Generous next to what each step takes (milliseconds), so that a loaded
/// machine doesn't fail the test, while a broken protocol still does.
pub const STEP: Duration = Duration::from_secs(5);

pub struct Process {
    child: Child,
    lines: Receiver<String>,
}

impl Process {
    /// `idem_child` with these arguments: `<store-url> <key> <lease-ms>
    /// <mode> [control-url]`.
    pub fn start(args: &[&str]) -> Process {
        Process::of(env!("CARGO_BIN_EXE_idem_child"), args)
    }

    /// The program at `path` (one of this package's binaries) with these
    /// arguments.
    pub fn of(path: &str, args: &[&str]) -> Process {
        let mut child = Command::new(path)
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {path}: {err}"));
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
    pub fn next_line(&self) -> String {
        self.lines
            .recv_timeout(STEP)
            .unwrap_or_else(|err| panic!("no line from idem_child within {STEP:?}: {err}"))
    }

    /// The process's next line, if one comes within `within`.
    pub fn line_within(&self, within: Duration) -> Option<String> {
        self.lines.recv_timeout(within).ok()
    }

    /// The fencing token of the `running <token>` line that must come next.
    pub fn running(&self) -> u64 {
        let line = self.next_line();
        let token = line.strip_prefix("running ");
        let token = token.and_then(|token| token.parse().ok());
        token.unwrap_or_else(|| panic!("expected `running <token>`, got {line:?}"))
    }

    /// Checks that the next line says `status`, with a value made by this
    /// process, and returns what it says of the store (`stored=…`).
    pub fn ended(&self, status: &str) -> String {
        let line = self.next_line();
        let made_here = format!("{status} made by process {} ", self.pid());
        assert!(
            line.starts_with(&made_here),
            "expected {made_here:?}…, got {line:?}"
        );
        stored(&line).to_owned()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (`STOP`, `CONT`) to the process, through the shell's
    /// `kill`, which every system has.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("sh")
            .arg("-c")
            .arg(format!("kill -{signal} {}", self.pid()))
            .status()
            .expect("cannot run sh");
        assert!(status.success(), "kill -{signal} failed: {status}");
    }

    /// Kills the process and waits for it.
    pub fn kill(&mut self) {
        self.child.kill().expect("idem_child can be killed");
        self.child.wait().expect("idem_child can be waited on");
    }

    /// Every line until the process exits (within `within`), and whether
    /// it succeeded.
    pub fn rest(mut self, within: Duration) -> (Vec<String>, bool) {
        let mut lines = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(within) {
            lines.push(line);
        }
        let status = self.child.wait().expect("idem_child can be waited on");
        (lines, status.success())
    }

    /// Waits for the process to exit on its own and checks that it succeeded.
    pub fn finish(mut self) {
        let status = self.child.wait().expect("idem_child can be waited on");
        assert!(status.success(), "idem_child failed: {status}");
    }
}

/// What a status line says of the store: the word after `stored=`.
pub fn stored(line: &str) -> &str {
    line.rsplit_once("stored=").map_or("", |(_, stored)| stored)
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
