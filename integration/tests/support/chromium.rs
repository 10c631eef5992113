//! Headless Chromium, driven over the DevTools protocol: started on a
//! fresh profile with the flags that keep it off the network (no sync, no
//! component updates, no background requests), it loads pages from
//! 127.0.0.1 only. Killed when dropped.
//!
//! Without `chromium` on the PATH, [`Chromium::start`] returns `None` and the
//! test skips with a message, unless `RESILIENT_REQUIRE_CHROMIUM` is set (CI
//! sets it): then it fails.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long any one DevTools command may take.
const COMMAND_WITHIN: Duration = Duration::from_secs(10);

pub struct Chromium {
    process: Child,
    profile: PathBuf,
    /// The page's DevTools socket.
    page: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
}

impl Chromium {
    /// Starts Chromium with one blank page, or returns `None` (after saying
    /// why) when it is missing and the environment allows skipping.
    pub async fn start() -> Option<Chromium> {
        let installed = Command::new("chromium")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !installed {
            assert!(
                std::env::var_os("RESILIENT_REQUIRE_CHROMIUM").is_none(),
                "RESILIENT_REQUIRE_CHROMIUM is set but `chromium` is not on the PATH \
                 (install it: apt-get install chromium)"
            );
            let _ = writeln!(
                std::io::stderr(),
                "skipped: `chromium` is not on the PATH (apt-get install chromium); \
                 set RESILIENT_REQUIRE_CHROMIUM=1 to make this a failure"
            );
            return None;
        }
        let profile =
            std::env::temp_dir().join(format!("resilient-chromium-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).expect("a fresh profile directory");
        let mut process = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,860",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("chromium starts");
        // It prints where its DevTools endpoint listens; the port it chose
        // also serves the list of pages.
        let stderr = process.stderr.take().expect("piped stderr");
        let (found, endpoint) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ")
                    && let Some(found) = found.take()
                {
                    let _ = found.send(url.to_owned());
                }
            }
        });
        let browser = endpoint
            .recv_timeout(Duration::from_secs(20))
            .expect("chromium reports its DevTools endpoint within 20 s");
        let port = browser
            .trim_start_matches("ws://127.0.0.1:")
            .split('/')
            .next()
            .expect("a port")
            .to_owned();
        let pages = reqwest::get(format!("http://127.0.0.1:{port}/json/list"))
            .await
            .expect("the list of pages")
            .text()
            .await
            .expect("the list of pages");
        let pages: Value = serde_json::from_str(&pages).expect("the list of pages as JSON");
        let page = pages
            .as_array()
            .and_then(|pages| pages.iter().find(|page| page["type"] == "page"))
            .and_then(|page| page["webSocketDebuggerUrl"].as_str())
            .expect("a page to drive")
            .to_owned();
        let (page, _) = tokio_tungstenite::connect_async(page)
            .await
            .expect("the page's DevTools socket");
        Some(Chromium {
            process,
            profile,
            page,
            next_id: 0,
        })
    }

    /// Sends a DevTools command to the page and returns its result.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let command = json!({ "id": id, "method": method, "params": params });
        self.page
            .send(Message::Text(command.to_string().into()))
            .await
            .expect("the command is sent");
        let answer = async {
            while let Some(message) = self.page.next().await {
                let Ok(Message::Text(text)) = message else {
                    continue;
                };
                let reply: Value = serde_json::from_str(&text).expect("DevTools speaks JSON");
                if reply["id"] == id {
                    assert!(reply.get("error").is_none(), "{method} failed: {reply}");
                    return reply["result"].clone();
                }
            }
            panic!("the DevTools socket closed during {method}");
        };
        tokio::time::timeout(COMMAND_WITHIN, answer)
            .await
            .unwrap_or_else(|_| panic!("{method} took over {COMMAND_WITHIN:?}"))
    }

    /// Loads `url` in the page.
    pub async fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url })).await;
    }

    /// The value of a JavaScript expression in the page (JSON-like values).
    pub async fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true }),
            )
            .await;
        result["result"]["value"].clone()
    }

    /// A PNG of the page as it is shown.
    pub async fn screenshot(&mut self) -> Vec<u8> {
        let shot = self
            .call("Page.captureScreenshot", json!({ "format": "png" }))
            .await;
        let data = shot["data"].as_str().expect("the image, in base64");
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, data)
            .expect("valid base64")
    }

    /// Saves a screenshot of the page as `target/{name}`, for a person to
    /// open.
    #[allow(dead_code, reason = "each test binary uses what it needs of this file")]
    pub async fn save_screenshot(&mut self, name: &str) {
        let png = self.screenshot().await;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), png).unwrap();
    }

    /// Polls `expression` in the page until it is `true`, for at most
    /// 10 s; past that, fails saying `what` and the value of `context`.
    #[allow(dead_code, reason = "each test binary uses what it needs of this file")]
    pub async fn wait_until(&mut self, what: &str, expression: &str, context: &str) {
        let within = Duration::from_secs(10);
        let deadline = std::time::Instant::now() + within;
        loop {
            if self.eval(expression).await == Value::Bool(true) {
                return;
            }
            let seen = self.eval(context).await;
            assert!(
                std::time::Instant::now() < deadline,
                "{what} within {within:?}; {context} is {seen}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
