//! The dashboard's control panel on a real server on 127.0.0.1: each
//! control refused without the token or with another one, and then
//! nothing changes; done with it, and its effect seen from the code (a
//! breaker isolated and reset, a chaos switch switched, a configuration
//! installed or refused whole); a GET of a control that changes nothing.
//! Then in headless Chromium: an operator enters the token, clicks
//! Isolate, and the next call through that breaker fails with
//! `CircuitOpen`. Saves `target/dashboard-control.png`.
//!
//! Real time, bounded: every request has a 5 s timeout, every wait on
//! the page gives up after a few seconds.

#[path = "support/chromium.rs"]
mod chromium;

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use resilient::chaos::Chaos;
use resilient::{CircuitBreaker, CircuitOpen, CircuitState, ConfigError, resilient};
use serde_json::Value;

use chromium::Chromium;

const TOKEN: &str = "operators-only-7f3a";

static INVENTORY: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("control.inventory")
        .build()
        .expect("a valid breaker")
});

static SHIPPING: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("control.shipping")
        .build()
        .expect("a valid breaker")
});

static PRICING_FAULTS: Chaos = Chaos::new().injection_rate(1.0);

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

async fn panel() -> String {
    resilient::dashboard::control_breaker(&INVENTORY);
    resilient::dashboard::control_breaker(&SHIPPING);
    resilient::dashboard::control_chaos("control.pricing", &PRICING_FAULTS);
    let router = resilient::dashboard::router_with_control(TOKEN).expect("a token");
    serve(Router::new().nest_service("/resilience", router)).await
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

/// POSTs `body` to `path` of the panel at `base`, with `authorization`
/// as the header if any; the status and the body of the answer.
async fn post(
    base: &str,
    path: &str,
    authorization: Option<&str>,
    body: &str,
) -> (StatusCode, String) {
    let mut request = client()
        .post(format!("{base}/resilience/control{path}"))
        .body(body.to_owned());
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.text().await.unwrap())
}

/// The page as the router at `base` serves it.
async fn page_at(base: &str) -> String {
    let response = client().get(format!("{base}/resilience/")).send().await;
    response.unwrap().text().await.unwrap()
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// Every way to be refused: no header, another token, a prefix of the
/// token, the token with more after it, the token under another scheme.
fn refused() -> Vec<Option<String>> {
    vec![
        None,
        Some(bearer("operators-only-7f3b")),
        Some(bearer(&TOKEN[..TOKEN.len() - 1])),
        Some(bearer(&format!("{TOKEN}x"))),
        Some(format!("Basic {TOKEN}")),
        Some(TOKEN.to_owned()),
    ]
}

/// POSTs `body` to `path` in every way that is refused: each answers 401,
/// and `unchanged` still holds after each.
async fn refused_every_way(base: &str, path: &str, body: &str, unchanged: impl Fn() -> bool) {
    for authorization in refused() {
        let (status, _) = post(base, path, authorization.as_deref(), body).await;
        assert_eq!(
            status,
            StatusCode::UNAUTHORIZED,
            "{path} with {authorization:?}"
        );
        assert!(
            unchanged(),
            "{path} with {authorization:?} changed something"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_breaker_control_without_the_token_is_refused_and_with_it_isolates_and_resets() {
    let base = panel().await;
    let now = Instant::now;
    refused_every_way(&base, "/breakers/control.inventory/isolate", "", || {
        INVENTORY.state(now()) == CircuitState::Closed
    })
    .await;

    let token = bearer(TOKEN);
    let (status, body) = post(
        &base,
        "/breakers/control.inventory/isolate",
        Some(&token),
        "",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(INVENTORY.state(now()), CircuitState::Isolated);
    assert_eq!(INVENTORY.try_acquire(now()).unwrap_err(), CircuitOpen);
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["state"], "isolated");
    // The other breaker is untouched.
    assert_eq!(SHIPPING.state(now()), CircuitState::Closed);

    refused_every_way(&base, "/breakers/control.inventory/reset", "", || {
        INVENTORY.state(now()) == CircuitState::Isolated
    })
    .await;
    let (status, body) = post(&base, "/breakers/control.inventory/reset", Some(&token), "").await;
    assert_eq!(
        (status, body.contains("\"closed\"")),
        (StatusCode::OK, true),
        "{body}"
    );
    assert_eq!(INVENTORY.state(now()), CircuitState::Closed);
    assert!(INVENTORY.try_acquire(now()).is_ok());

    // A name nobody handed over.
    let (status, _) = post(&base, "/breakers/control.nothing/isolate", Some(&token), "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_of_a_control_changes_nothing() {
    let base = panel().await;
    for path in [
        "/breakers/control.shipping/isolate",
        "/breakers/control.shipping/reset",
        "/chaos/control.pricing/on",
        "/config",
    ] {
        let response = client()
            .get(format!("{base}/resilience/control{path}"))
            .header("authorization", bearer(TOKEN))
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "GET {path}"
        );
    }
    assert_eq!(SHIPPING.state(Instant::now()), CircuitState::Closed);
    assert!(!PRICING_FAULTS.is_enabled());

    // The list of controls is a GET, read-only, and needs the token too.
    let list = |authorization: Option<String>| {
        let mut request = client().get(format!("{base}/resilience/control"));
        if let Some(value) = authorization {
            request = request.header("authorization", value);
        }
        request.send()
    };
    assert_eq!(list(None).await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let listed = list(Some(bearer(TOKEN)))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let names: Vec<&str> = listed["breakers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|breaker| breaker["name"].as_str())
        .collect();
    assert!(
        names.contains(&"control.inventory") && names.contains(&"control.shipping"),
        "{listed}"
    );
    assert_eq!(listed["chaos"][0]["name"], "control.pricing");
    assert_eq!(listed["config"], true);

    // The read-only router has no controls at all.
    let shown =
        serve(Router::new().nest_service("/resilience", resilient::dashboard::router())).await;
    let (status, _) = post(
        &shown,
        "/breakers/control.shipping/isolate",
        Some(&bearer(TOKEN)),
        "",
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(SHIPPING.state(Instant::now()), CircuitState::Closed);
    let page = page_at(&shown).await;
    assert!(page.contains(r#"<body data-control="off">"#));
    let page = page_at(&base).await;
    assert!(page.contains(r#"<body data-control="on">"#));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chaos_switch_is_switched_with_the_token_only() {
    let base = panel().await;
    refused_every_way(&base, "/chaos/control.pricing/on", "", || {
        !PRICING_FAULTS.is_enabled()
    })
    .await;
    let token = bearer(TOKEN);
    let (status, body) = post(&base, "/chaos/control.pricing/on", Some(&token), "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(PRICING_FAULTS.is_enabled() && PRICING_FAULTS.should_inject());
    let (status, _) = post(&base, "/chaos/control.pricing/sideways", Some(&token), "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(PRICING_FAULTS.is_enabled());
    let (status, _) = post(&base, "/chaos/control.pricing/off", Some(&token), "").await;
    assert_eq!(status, StatusCode::OK);
    assert!(!PRICING_FAULTS.is_enabled());
}

/// The retries the installed configuration gives `control.checkout`.
fn checkout_retries() -> Option<u32> {
    let (_, settings) = resilient::config::operation_settings("control.checkout")?;
    settings.retries
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configuration_is_installed_whole_or_not_at_all() {
    let base = panel().await;
    let text = "[operations.\"control.checkout\"]\nretries = 4\ntimeout = \"2s\"\n";
    let before = resilient::config::version();
    refused_every_way(&base, "/config", text, || {
        resilient::config::version() == before
    })
    .await;

    let token = bearer(TOKEN);
    let (status, body) = post(&base, "/config", Some(&token), text).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let version = resilient::config::version();
    assert!(version > before);
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["version"], version);
    let (installed, _) = resilient::config::operation_settings("control.checkout").unwrap();
    assert_eq!(installed, version);
    assert_eq!(checkout_retries(), Some(4));
    assert_eq!(
        resilient::config::origin(version),
        Some(resilient::config::Origin::Panel)
    );

    // A good key before a bad one: neither is applied.
    let bad = "[operations.\"control.checkout\"]\nretries = 9\ntimeout = \"soon\"\n";
    let (status, body) = post(&base, "/config", Some(&token), bad).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let expected = resilient::config::Config::from_toml(bad)
        .unwrap_err()
        .to_string();
    assert_eq!(body, expected);
    assert!(
        body.contains("timeout") && body.contains("line 3"),
        "{body}"
    );
    assert_eq!(resilient::config::version(), version);
    assert_eq!(checkout_retries(), Some(4));
    resilient::config::clear();
}

#[test]
fn an_empty_token_is_refused_when_the_router_is_made() {
    for token in ["", " "] {
        assert_eq!(
            resilient::dashboard::router_with_control(token).err(),
            Some(ConfigError::EmptyControlToken)
        );
    }
}

#[derive(Debug, thiserror::Error)]
enum StockError {
    #[error("breaker open")]
    Open,
}

impl From<CircuitOpen> for StockError {
    fn from(_: CircuitOpen) -> Self {
        StockError::Open
    }
}

static WAREHOUSE: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("warehouse")
        .build()
        .expect("a valid breaker")
});

#[resilient(name = "warehouse.stock", circuit_breaker = &WAREHOUSE)]
async fn warehouse_stock() -> Result<u32, StockError> {
    Ok(12)
}

/// Whether the panel's controls are hidden.
const LOCKED: &str = r#"document.getElementById("controls").hidden"#;

/// Polls `expression` in the page until it is `true`, for at most 10 s.
async fn wait_until(browser: &mut Chromium, what: &str, expression: &str) {
    let said = r#"document.getElementById("control-said").textContent"#;
    browser.wait_until(what, expression, said).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_enters_the_token_and_isolates_a_breaker_in_the_browser() {
    let Some(mut browser) = Chromium::start().await else {
        return;
    };
    resilient::dashboard::control_breaker(&WAREHOUSE);
    let base = panel().await;
    assert!(matches!(warehouse_stock().await.result(), Ok(12)));

    browser.open(&format!("{base}/resilience/")).await;
    wait_until(
        &mut browser,
        "the token field",
        r#"!!document.getElementById("token") && !document.getElementById("control").hidden"#,
    )
    .await;
    // No control before the token: the panel asks for it.
    assert_eq!(browser.eval(LOCKED).await, Value::Bool(true));
    // A wrong token first: refused, and the panel stays locked.
    type_token(&mut browser, "not-the-token").await;
    wait_until(
        &mut browser,
        "the wrong token refused",
        r#"document.getElementById("control-said").textContent.includes("refused")"#,
    )
    .await;
    assert_eq!(browser.eval(LOCKED).await, Value::Bool(true));

    type_token(&mut browser, TOKEN).await;
    let warehouse = r#"document.querySelector('#control-breakers [data-breaker="warehouse"]')"#;
    let isolate = format!(r#"{warehouse}.querySelector('[data-action="isolate"]')"#);
    let shown =
        |state: &str| format!("{warehouse}.querySelector('.badge').textContent === {state:?}");
    wait_until(
        &mut browser,
        "the warehouse breaker's Isolate button",
        &format!("!!{isolate}"),
    )
    .await;
    // The token is nowhere but in the page's memory.
    assert_eq!(
        browser
            .eval(&format!(
                "document.cookie.includes({TOKEN:?}) || location.href.includes({TOKEN:?}) \
                 || JSON.stringify(localStorage).includes({TOKEN:?}) \
                 || JSON.stringify(sessionStorage).includes({TOKEN:?})"
            ))
            .await,
        Value::Bool(false)
    );
    browser.eval(&format!("{isolate}.click()")).await;
    wait_until(
        &mut browser,
        "the breaker shown isolated in the panel",
        &shown("isolated"),
    )
    .await;

    assert_eq!(WAREHOUSE.state(Instant::now()), CircuitState::Isolated);
    assert!(matches!(
        warehouse_stock().await.result(),
        Err(StockError::Open)
    ));
    browser.save_screenshot("dashboard-control.png").await;

    let reset = format!(r#"{warehouse}.querySelector('[data-action="reset"]').click()"#);
    browser.eval(&reset).await;
    wait_until(
        &mut browser,
        "the breaker shown closed in the panel",
        &shown("closed"),
    )
    .await;
    assert!(matches!(warehouse_stock().await.result(), Ok(12)));
}

/// Breakers per endpoint, handed over as a map: the panel lists each key's
/// breaker and isolates or resets it by its key, behind the token; a key
/// the map doesn't hold is not made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_breaker_per_endpoint_is_listed_and_controlled_by_its_key() {
    use resilient::endpoint::EndpointBreakers;
    use std::sync::Arc;

    let hosts = Arc::new(
        EndpointBreakers::builder("control.hosts")
            .template(CircuitBreaker::builder().failure_threshold(2))
            .build()
            .unwrap(),
    );
    let sick = hosts.get("10.0.0.7:8443");
    hosts.get("10.0.0.8:8443");
    hosts.under_control();
    let base = panel().await;
    let now = Instant::now;
    let path = "/endpoints/control.hosts/10.0.0.7%3A8443";
    refused_every_way(&base, &format!("{path}/isolate"), "", || {
        sick.state(now()) == CircuitState::Closed
    })
    .await;

    let token = bearer(TOKEN);
    let listed = client()
        .get(format!("{base}/resilience/control"))
        .header("authorization", &token)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let map = listed["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|map| map["prefix"] == "control.hosts")
        .expect("the map listed");
    assert_eq!(
        map["keys"],
        serde_json::json!([
            { "key": "10.0.0.7:8443", "state": "closed" },
            { "key": "10.0.0.8:8443", "state": "closed" },
        ])
    );

    let (status, body) = post(&base, &format!("{path}/isolate"), Some(&token), "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["state"], "isolated");
    assert_eq!(answer["key"], "10.0.0.7:8443");
    assert_eq!(sick.state(now()), CircuitState::Isolated);
    // The map's own breaker for the key, the one its calls get.
    assert!(Arc::ptr_eq(&hosts.get("10.0.0.7:8443"), &sick));
    assert_eq!(
        hosts.get("10.0.0.8:8443").state(now()),
        CircuitState::Closed
    );

    let (status, _) = post(&base, &format!("{path}/reset"), Some(&token), "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(sick.state(now()), CircuitState::Closed);

    // A key the map doesn't hold, and a map nobody handed over.
    let unknown = "/endpoints/control.hosts/10.9.9.9%3A1/isolate";
    let (status, _) = post(&base, unknown, Some(&token), "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(hosts.len(), 2, "no key made");
    let (status, _) = post(
        &base,
        "/endpoints/control.nothing/h%3A1/isolate",
        Some(&token),
        "",
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// Types `token` into the panel's token field as a person would, and
/// submits it.
async fn type_token(browser: &mut Chromium, token: &str) {
    browser
        .eval(r#"document.getElementById("token").focus()"#)
        .await;
    browser
        .call("Input.insertText", serde_json::json!({ "text": token }))
        .await;
    browser
        .eval(r#"document.querySelector('#unlock button[type="submit"]').click()"#)
        .await;
}
