//! One replica of a service, for the tests across network namespaces
//! (`tests/replicas_netns.rs`), which start it inside a namespace with
//! `ip netns exec`.
//!
//! ```text
//! replica_child <ip:port>
//! ```
//!
//! It answers every request with `200 OK` and a body of 4 KiB, naming the
//! address it serves, and closes the connection; it prints `ready` once
//! it listens. The body is large enough that a link throttled to a few
//! hundred bytes a second can't carry it within an attempt's timeout.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::thread;

fn serve(mut stream: TcpStream, body: &str) {
    let mut request = Vec::new();
    let mut buffer = [0; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
}

fn main() -> ExitCode {
    let Some(address) = std::env::args().nth(1) else {
        eprintln!("usage: replica_child <ip:port>");
        return ExitCode::FAILURE;
    };
    let listener = match TcpListener::bind(&address) {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!("cannot listen on {address}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let mut body = format!("replica {address}\n");
    body.push_str(&"x".repeat(4096 - body.len()));
    println!("ready");
    for stream in listener.incoming().map_while(Result::ok) {
        let body = body.clone();
        thread::spawn(move || serve(stream, &body));
    }
    ExitCode::SUCCESS
}
