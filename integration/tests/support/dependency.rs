//! A dependency the fleet tests take down and bring back: a TCP server on
//! 127.0.0.1 answering each line `ok` while up and `fail` while down, and
//! holding it unanswered while it hangs. It counts every line that reaches it, and
//! remembers which process sent each one (the line names its pid).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

const UP: u8 = 0;
const DOWN: u8 = 1;
const HANG: u8 = 2;

#[derive(Clone)]
pub struct Dependency {
    port: u16,
    mode: Arc<AtomicU8>,
    /// The pid of each call received, in order.
    calls: Arc<Mutex<Vec<u32>>>,
}

impl Dependency {
    /// A dependency that is up, on a free port.
    pub fn start() -> Dependency {
        let listener = TcpListener::bind("127.0.0.1:0").expect("no free port on 127.0.0.1");
        let dependency = Dependency {
            port: listener.local_addr().expect("a bound port").port(),
            mode: Arc::new(AtomicU8::new(UP)),
            calls: Arc::default(),
        };
        let serving = dependency.clone();
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(mut client) = client else { continue };
                let serving = serving.clone();
                thread::spawn(move || {
                    let Ok(reader) = client.try_clone() else {
                        return;
                    };
                    for line in BufReader::new(reader).lines().map_while(Result::ok) {
                        let pid = line.rsplit(' ').next().and_then(|pid| pid.parse().ok());
                        serving.calls.lock().unwrap().push(pid.unwrap_or(0));
                        // A hung call waits, unanswered, for the mode to change.
                        while serving.mode.load(Ordering::SeqCst) == HANG {
                            thread::sleep(std::time::Duration::from_millis(5));
                        }
                        let answer = match serving.mode.load(Ordering::SeqCst) {
                            UP => "ok\n",
                            _ => "fail\n",
                        };
                        if client.write_all(answer.as_bytes()).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        dependency
    }

    pub fn port(&self) -> String {
        self.port.to_string()
    }

    pub fn up(&self) {
        self.mode.store(UP, Ordering::SeqCst);
    }

    pub fn down(&self) {
        self.mode.store(DOWN, Ordering::SeqCst);
    }

    /// Calls are counted and left unanswered until the dependency is up
    /// or down again.
    #[allow(dead_code)]
    pub fn hang(&self) {
        self.mode.store(HANG, Ordering::SeqCst);
    }

    /// Calls received so far.
    pub fn calls(&self) -> usize {
        self.calls.lock().unwrap().len()
    }

    /// The pids of the calls received from the `from`-th on.
    #[allow(dead_code)]
    pub fn callers_since(&self, from: usize) -> Vec<u32> {
        self.calls.lock().unwrap()[from..].to_vec()
    }
}
