//! A loopback TCP proxy that a test controls: it forwards between its
//! clients and one upstream server on 127.0.0.1 until told to cut every
//! connection (and refuse new ones) or to blackhole them (accept, read and
//! drop every byte, answer nothing), then to forward again.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

const FORWARD: u8 = 0;
const CUT: u8 = 1;
const BLACKHOLE: u8 = 2;

pub struct Proxy {
    port: u16,
    mode: Arc<AtomicU8>,
    /// Both ends of every connection made, to shut them down at once.
    streams: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    /// A proxy on a free port of 127.0.0.1, forwarding to `upstream`.
    pub fn start(upstream: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("no free port on 127.0.0.1");
        let port = listener.local_addr().expect("a bound port").port();
        let mode = Arc::new(AtomicU8::new(FORWARD));
        let streams = Arc::new(Mutex::new(Vec::new()));
        let (accepting, kept) = (Arc::clone(&mode), Arc::clone(&streams));
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if accepting.load(Ordering::SeqCst) == CUT {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                    continue;
                };
                let (Ok(client_reader), Ok(server_reader)) =
                    (client.try_clone(), server.try_clone())
                else {
                    continue;
                };
                kept.lock().unwrap().extend([
                    client.try_clone().expect("a clone of a socket"),
                    server.try_clone().expect("a clone of a socket"),
                ]);
                pump(client_reader, server, Arc::clone(&accepting));
                pump(server_reader, client, Arc::clone(&accepting));
            }
        });
        Proxy {
            port,
            mode,
            streams,
        }
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Resets every connection and refuses new ones.
    pub fn cut(&self) {
        self.mode.store(CUT, Ordering::SeqCst);
        self.shut_all();
    }

    /// Keeps every connection open, and accepts new ones, but drops every
    /// byte either way: requests go unanswered.
    pub fn blackhole(&self) {
        self.mode.store(BLACKHOLE, Ordering::SeqCst);
    }

    /// Forwards again. Connections that lived through a blackhole are
    /// reset first: bytes were lost in the middle of their stream.
    pub fn restore(&self) {
        if self.mode.swap(FORWARD, Ordering::SeqCst) == BLACKHOLE {
            self.shut_all();
        }
    }

    fn shut_all(&self) {
        for stream in self.streams.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// Copies `from` to `to` on a thread of its own while the proxy forwards;
/// drops the bytes while it blackholes; ends when either side closes.
fn pump(mut from: TcpStream, mut to: TcpStream, mode: Arc<AtomicU8>) {
    thread::spawn(move || {
        let mut buffer = [0; 16 * 1024];
        loop {
            let read = match from.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => read,
            };
            match mode.load(Ordering::SeqCst) {
                FORWARD => {
                    if to.write_all(&buffer[..read]).is_err() {
                        break;
                    }
                }
                BLACKHOLE => {}
                _ => break,
            }
        }
        let _ = to.shutdown(Shutdown::Both);
    });
}
