//! One replica of a service, for the tests across network namespaces
//! (`tests/replicas_netns.rs`), which start it inside a namespace with
//! `ip netns exec`.
//!
//! ```text
//! replica_child <ip:port>
//! ```
//!
//! It answers every request with `200 OK` and a body of 64 KiB, naming
//! the address it serves, written a kibibyte at a time with Nagle's
//! algorithm off, and closes the connection; it prints `ready` once it
//! listens.

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
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.set_nodelay(true);
    let _ = stream.write_all(head.as_bytes());
    for chunk in body.as_bytes().chunks(1024) {
        if stream.write_all(chunk).is_err() {
            return;
        }
    }
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
    body.push_str(&"x".repeat(65_536 - body.len()));
    println!("ready");
    for stream in listener.incoming().map_while(Result::ok) {
        let body = body.clone();
        thread::spawn(move || serve(stream, &body));
    }
    ExitCode::SUCCESS
}
