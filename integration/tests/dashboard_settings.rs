//! Each tile shows its effective settings and their source, on a real
//! server on 127.0.0.1: the snapshot's JSON of an operation and its
//! breaker before and after a configuration is installed (the values as
//! compiled, then the configured ones with the configuration's version),
//! and a breaker whose break the configuration shortened seen half-open
//! when that break ends, not when the compiled one would. Then in
//! headless Chromium: a tile shows a configured value and where it came
//! from. Saves `target/dashboard-settings.png` and
//! `docs/dashboard-settings.png`.
//!
//! The configuration is one per process: the tests take turns. Real
//! time, bounded: every wait gives up after a few seconds.

#[path = "support/chromium.rs"]
mod chromium;

use std::sync::LazyLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use resilient::{CircuitBreaker, CircuitOpen, CircuitState, config, resilient};
use serde_json::{Value, json};
use tokio::sync::{Mutex, MutexGuard};

use chromium::Chromium;

static SLOT: Mutex<()> = Mutex::const_new(());

async fn slot() -> MutexGuard<'static, ()> {
    SLOT.lock().await
}

#[derive(Debug, thiserror::Error)]
enum StoreError {
    #[error("down")]
    Down,
    #[error("breaker open")]
    Open,
    #[error("timed out")]
    TimedOut,
}

impl From<resilient::TimedOut> for StoreError {
    fn from(_: resilient::TimedOut) -> Self {
        StoreError::TimedOut
    }
}

impl From<CircuitOpen> for StoreError {
    fn from(_: CircuitOpen) -> Self {
        StoreError::Open
    }
}

static DOWN: AtomicBool = AtomicBool::new(false);

#[resilient(name = "settings.lookup", retries = 1, backoff = constant("20ms"), budget = "5s")]
async fn lookup() -> Result<u32, StoreError> {
    if DOWN.load(Ordering::Relaxed) {
        Err(StoreError::Down)
    } else {
        Ok(3)
    }
}

static STORE: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("settings.store")
        .failure_threshold(5)
        .break_duration(Duration::from_secs(30))
        .build()
        .expect("a valid breaker")
});

#[resilient(name = "settings.save", circuit_breaker = &STORE)]
async fn save_item() -> Result<(), StoreError> {
    if DOWN.load(Ordering::Relaxed) {
        Err(StoreError::Down)
    } else {
        Ok(())
    }
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

async fn dashboard() -> String {
    serve(Router::new().nest_service("/resilience", resilient::dashboard::router())).await
}

/// The tile of `name` in the service's snapshot, once `check` holds of it
/// (the snapshot is at most a second old while a page watches), for at
/// most 5 s.
async fn tile_when(base: &str, name: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let body = client
            .get(format!("{base}/resilience/snapshot"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let snapshot: Value = serde_json::from_str(&body).unwrap();
        let tile = snapshot["operations"]
            .as_array()
            .and_then(|tiles| tiles.iter().find(|tile| tile["name"] == name))
            .cloned()
            .unwrap_or(Value::Null);
        if check(&tile) {
            return tile;
        }
        assert!(
            Instant::now() < deadline,
            "{what} within 5 s; the tile of {name} is {tile}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[resilient(name = "settings.only_ok_blocking", retries = 2, backoff = constant("30ms"))]
fn only_ok_blocking() -> Result<u32, StoreError> {
    Ok(1)
}

#[resilient(name = "settings.only_ok_async", retries = 4, budget = "2s")]
async fn only_ok_async() -> Result<u32, StoreError> {
    Ok(2)
}

/// Unnamed: its counts are a `static` of its own.
#[resilient(retries = 3, budget = "700ms")]
fn settings_only_ok_unnamed() -> Result<u32, StoreError> {
    Ok(3)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_function_whose_calls_only_succeed_shows_its_settings_too() {
    let _slot = slot().await;
    let base = dashboard().await;
    // Their operations are never built for a call: the first success
    // tells the tile what they would be built with.
    assert!(matches!(only_ok_blocking().into_result(), Ok(1)));
    assert!(matches!(only_ok_async().await.into_result(), Ok(2)));
    let tile = tile_when(&base, "settings.only_ok_blocking", "its settings", |tile| {
        tile["settings"]["known"] == true
    })
    .await;
    assert_eq!(tile["settings"]["retries"], 2);
    assert_eq!(tile["settings"]["base_delay_ms"], 30.0);
    assert_eq!(tile["settings"]["source"], "attribute");
    let tile = tile_when(&base, "settings.only_ok_async", "its settings", |tile| {
        tile["settings"]["known"] == true
    })
    .await;
    assert_eq!(tile["settings"]["retries"], 4);
    assert_eq!(tile["settings"]["budget_ms"], 2_000.0);
    assert!(matches!(settings_only_ok_unnamed().into_result(), Ok(3)));
    let tile = tile_when(&base, "settings_only_ok_unnamed", "its settings", |tile| {
        tile["settings"]["known"] == true
    })
    .await;
    assert_eq!(tile["settings"]["retries"], 3);
    assert_eq!(tile["settings"]["budget_ms"], 700.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tile_shows_its_settings_as_compiled_then_as_configured_with_the_version() {
    let _slot = slot().await;
    let base = dashboard().await;
    // A first attempt that fails builds the operation: its tile knows
    // what it was built with.
    DOWN.store(true, Ordering::Relaxed);
    assert!(lookup().await.result().is_err());
    DOWN.store(false, Ordering::Relaxed);
    let tile = tile_when(&base, "settings.lookup", "the compiled settings", |tile| {
        tile["settings"]["known"] == true
    })
    .await;
    assert_eq!(
        tile["settings"],
        json!({
            "source": "attribute", "version": null, "origin": null, "known": true, "configured": [],
            "retries": 1, "min_retries": 0, "budget_ms": 5_000.0,
            "base_delay_ms": 20.0, "max_delay_ms": 20.0, "multiplier": 1.0,
            "jitter": "none", "retry_after_max_ms": 60_000.0,
        })
    );

    let version = config::install_toml(
        "[operations.\"settings.lookup\"]\nretries = 4\nbase_delay = \"150ms\"\n",
    )
    .unwrap();
    let tile = tile_when(
        &base,
        "settings.lookup",
        "the configured settings",
        |tile| tile["settings"]["source"] == "config",
    )
    .await;
    assert_eq!(
        tile["settings"],
        json!({
            "source": "config", "version": version, "origin": "code", "known": true,
            "configured": ["retries", "base_delay_ms"],
            // Configured:
            "retries": 4, "base_delay_ms": 150.0, "max_delay_ms": 150.0,
            // As compiled:
            "min_retries": 0, "budget_ms": 5_000.0, "multiplier": 1.0,
            "jitter": "none", "retry_after_max_ms": 60_000.0,
        })
    );
    // The calls run with what the tile shows.
    assert_eq!(
        lookup().await.report().settings_source(),
        resilient::SettingsSource::Config { version }
    );
    config::clear();
    let tile = tile_when(
        &base,
        "settings.lookup",
        "the compiled settings again",
        |tile| tile["settings"]["source"] == "attribute",
    )
    .await;
    assert_eq!(tile["settings"]["retries"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_break_is_the_one_the_tile_counts_down_and_ends() {
    let _slot = slot().await;
    let base = dashboard().await;
    assert!(save_item().await.result().is_ok());
    let tile = tile_when(&base, "settings.save", "the breaker on the tile", |tile| {
        tile["breaker"].is_object()
    })
    .await;
    assert_eq!(
        tile["breaker"]["settings"],
        json!({
            "failure_threshold": 5, "break_s": 30.0, "break_in_force_s": 30.0,
            "grows": false, "max_break_s": null,
            "source": "attribute", "version": null, "origin": null, "configured": [],
        })
    );

    let version = config::install_toml(
        "[breakers.\"settings.store\"]\nfailure_threshold = 2\nbreak_duration = \"400ms\"\n",
    )
    .unwrap();
    DOWN.store(true, Ordering::Relaxed);
    for _ in 0..2 {
        assert!(matches!(save_item().await.result(), Err(StoreError::Down)));
    }
    DOWN.store(false, Ordering::Relaxed);
    let opened = Instant::now();
    assert_eq!(STORE.state(opened), CircuitState::Open);
    let tile = tile_when(&base, "settings.save", "the breaker shown open", |tile| {
        tile["breaker"]["state"] == "open"
    })
    .await;
    let breaker = &tile["breaker"];
    assert_eq!(
        breaker["settings"],
        json!({
            "failure_threshold": 2, "break_s": 0.4, "break_in_force_s": 0.4,
            "grows": false, "max_break_s": null,
            "source": "config", "version": version, "origin": "code",
            "configured": ["failure_threshold", "break_duration"],
        })
    );
    let left = breaker["break_left_s"].as_f64().expect("the break left");
    assert!(left > 0.0 && left <= 0.4, "{left} s of a 400 ms break left");
    // Once the configured break ends, the tile says half-open (the
    // compiled 30 s would still say open).
    let tile = tile_when(
        &base,
        "settings.save",
        "the breaker shown half-open",
        |tile| tile["breaker"]["state"] == "half-open",
    )
    .await;
    assert!(opened.elapsed() >= Duration::from_millis(400));
    assert!(opened.elapsed() < Duration::from_secs(5));
    assert_eq!(tile["breaker"]["break_left_s"], Value::Null);
    assert!(save_item().await.result().is_ok());
    assert_eq!(STORE.state(Instant::now()), CircuitState::Closed);
    config::clear();
}

/// What the page shows of a tile's settings: each line's value and its
/// source mark, by field.
const READ_SETTINGS: &str = r#"JSON.stringify(Object.fromEntries(Array.from(document.querySelectorAll("[data-operation]")).map(tile => [
    tile.dataset.operation,
    Object.fromEntries(Array.from(tile.querySelectorAll(".settings .row")).map(line => [
        line.querySelector(".value").dataset.field,
        { value: line.querySelector(".value").textContent, source: (line.querySelector(".source") || {}).textContent || null },
    ])),
])))"#;

async fn shown_settings(browser: &mut Chromium) -> Value {
    let text = browser.eval(READ_SETTINGS).await;
    serde_json::from_str(text.as_str().unwrap_or("{}")).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_a_configured_value_and_its_source_on_the_tile() {
    let Some(mut browser) = Chromium::start().await else {
        return;
    };
    let _slot = slot().await;
    let base = dashboard().await;
    let version = config::install_toml(
        "[operations.\"settings.lookup\"]\nretries = 6\n\
         [breakers.\"settings.store\"]\nbreak_duration = \"45s\"\n",
    )
    .unwrap();
    assert!(lookup().await.result().is_ok());
    assert!(save_item().await.result().is_ok());
    browser.open(&format!("{base}/resilience/")).await;
    let source = format!("config v{version} (code)");
    let deadline = Instant::now() + Duration::from_secs(10);
    let shown = loop {
        let shown = shown_settings(&mut browser).await;
        let lookup = &shown["settings.lookup"];
        let save = &shown["settings.save"];
        if lookup["setting-retries"]["value"] == "6" && save["breaker-break"]["value"] == "45.0 s" {
            break shown;
        }
        assert!(
            Instant::now() < deadline,
            "the configured values on the tiles within 10 s; the page shows {shown}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let looked_up = &shown["settings.lookup"];
    assert_eq!(looked_up["settings-source"]["value"], source);
    assert_eq!(looked_up["setting-retries"]["source"], source);
    // What the configuration doesn't set is as compiled, and not marked.
    assert_eq!(
        looked_up["setting-budget_ms"],
        json!({ "value": "5.0 s", "source": null })
    );
    let save = &shown["settings.save"];
    assert_eq!(save["breaker-break"]["source"], source);
    assert_eq!(
        save["breaker-threshold"],
        json!({ "value": "5 failures", "source": null })
    );
    // For the picture: a few more calls, until the figures show them.
    let figures = r#"document.querySelector('[data-operation="settings.lookup"] [data-field="calls-per-s"]').textContent !== "–""#;
    let deadline = Instant::now() + Duration::from_secs(5);
    while browser.eval(figures).await != Value::Bool(true) && Instant::now() < deadline {
        assert!(lookup().await.result().is_ok());
        assert!(save_item().await.result().is_ok());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    save_png("dashboard-settings.png", &browser.screenshot().await);
    config::clear();
}

/// Saves `png` to `target/` and, for the guide, to `docs/`.
fn save_png(name: &str, png: &[u8]) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in [root.join("target"), root.join("docs")] {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), png).unwrap();
    }
}
