//! Ejected replicas as an operator sees them, on real servers on
//! 127.0.0.1: two replicas behind the reqwest middleware, one answering
//! 503. Once the detection ejects it, the dashboard's tile lists it
//! ejected, the control panel lists it behind the token, and the operator
//! returns it and ejects the other by hand: each refused without the
//! token, changing nothing. Then in headless Chromium: the tile shows the
//! ejected replica, and the operator's Return button brings it back.
//! Saves `target/dashboard-replicas-tile.png` (the tile) and
//! `target/dashboard-replicas.png` (the panel).
//!
//! Real time, bounded: every request has a 5 s timeout, every wait on the
//! page gives up after 10 s; the ejections last 60 s, longer than the test.

#[path = "support/chromium.rs"]
mod chromium;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use resilient::Backoff;
use resilient::endpoint::{OutlierDetection, Replicas};
use resilient::reqwest::ResilientMiddleware;
use serde_json::Value;

use chromium::Chromium;

const TOKEN: &str = "replicas-operator-51c2";

async fn serve(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    address
}

/// A replica answering `status` to everything.
async fn replica(status: StatusCode) -> String {
    let app = Router::new().fallback(move || async move { (status, "replica").into_response() });
    format!("http://{}", serve(app).await)
}

/// The dashboard with its controls, at its base URL.
async fn panel() -> String {
    let router = resilient::dashboard::router_with_control(TOKEN).expect("a token");
    let address = serve(Router::new().nest_service("/resilience", router)).await;
    format!("http://{address}/resilience")
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

/// A client of the operation `operation` over `replicas`, whose detection
/// ejects a replica at its first failure for 60 s, half the set at most.
fn client_of(
    operation: &'static str,
    replicas: &[String],
) -> (ClientWithMiddleware, OutlierDetection) {
    let detection = OutlierDetection::new()
        .consecutive_5xx(1)
        .base_ejection_time(Duration::from_secs(60))
        .max_ejection_time(Duration::from_secs(60))
        .max_ejection_percent(50);
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(
            ResilientMiddleware::new()
                .name(operation)
                .retries(2)
                .backoff(Backoff::none())
                .replicas(Replicas::fixed(replicas.to_vec()))
                .outlier_detection(detection.clone()),
        )
        .build();
    (client, detection)
}

/// Calls until the detection ejects a replica (two calls at most: the
/// turn reaches the failing one by the second).
async fn until_ejected(client: &ClientWithMiddleware, detection: &OutlierDetection) {
    for _ in 0..4 {
        let response = client.get("http://service.invalid/").send().await.unwrap();
        assert_eq!(response.status(), 200, "the healthy replica answers");
        if !detection.ejected().is_empty() {
            return;
        }
    }
    panic!("the failing replica was never ejected");
}

async fn control(base: &str, path: &str, authorization: Option<&str>) -> (StatusCode, Value) {
    let mut request = http().post(format!("{base}/control{path}"));
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn listed(base: &str) -> Value {
    let response = http()
        .get(format!("{base}/control"))
        .header("authorization", format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

/// The replicas `GET /control` lists for `operation`, each with whether
/// it is ejected, by URL.
async fn listed_replicas(base: &str, operation: &str) -> Vec<(String, bool)> {
    let listed = listed(base).await;
    let set = listed["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|set| set["operation"] == operation)
        .unwrap_or_else(|| panic!("{operation} is not listed: {listed}"));
    set["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["replica"].as_str().unwrap().to_owned(),
                row["ejected"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// The tile of `operation` in the dashboard's snapshot, once `shows`
/// holds of it, polled for at most 5 s.
async fn tile_of(base: &str, operation: &str, shows: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let response = http().get(format!("{base}/snapshot")).send().await;
        let snapshot: Value =
            serde_json::from_str(&response.unwrap().text().await.unwrap()).unwrap();
        let tile = snapshot["operations"]
            .as_array()
            .and_then(|tiles| tiles.iter().find(|tile| tile["name"] == operation))
            .cloned();
        match tile {
            Some(tile) if shows(&tile) => return tile,
            _ => assert!(
                Instant::now() < deadline,
                "no such tile of {operation}: {snapshot}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn by_url(mut replicas: [(String, bool); 2]) -> [(String, bool); 2] {
    replicas.sort();
    replicas
}

/// The path of `replica`'s control under `operation`.
fn path_of(operation: &str, replica: &str, action: &str) -> String {
    let encoded: String = replica
        .bytes()
        .map(|byte| match byte {
            b':' => "%3A".to_owned(),
            b'/' => "%2F".to_owned(),
            other => char::from(other).to_string(),
        })
        .collect();
    format!("/replicas/{operation}/{encoded}/{action}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ejected_replica_is_listed_and_an_operator_returns_and_ejects_one_by_hand() {
    let failing = replica(StatusCode::SERVICE_UNAVAILABLE).await;
    let healthy = replica(StatusCode::OK).await;
    let operation = "replicas.panel";
    let (client, detection) = client_of(operation, &[failing.clone(), healthy.clone()]);
    let base = panel().await;
    until_ejected(&client, &detection).await;
    assert_eq!(detection.ejected(), std::slice::from_ref(&failing));

    // The tile: the ejected replica first, for about the minute. A page
    // open elsewhere samples each second: the tile shows it by the next.
    let tile = tile_of(&base, operation, |tile| tile["replicas"][0]["ejected"] == 1).await;
    let set = &tile["replicas"][0];
    assert_eq!(
        (set["known"].as_u64(), set["ejected"].as_u64()),
        (Some(2), Some(1)),
        "{tile}"
    );
    assert_eq!(set["rows"][0]["replica"], failing.as_str());
    let left = set["rows"][0]["ejected_for_s"].as_f64().unwrap();
    assert!((50.0..=60.0).contains(&left), "{left} s left");
    assert_eq!(set["rows"][0]["times_ejected"], 1);
    assert_eq!(set["rows"][1]["replica"], healthy.as_str());
    assert!(set["rows"][1]["ejected_for_s"].is_null());

    // The panel lists both, behind the token.
    assert_eq!(
        listed_replicas(&base, operation).await,
        by_url([(failing.clone(), true), (healthy.clone(), false)])
    );
    let returned = path_of(operation, &failing, "return");
    for refused in [None, Some("Bearer replicas-operator-51c3"), Some(TOKEN)] {
        let (status, _) = control(&base, &returned, refused).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused:?}");
        assert_eq!(
            detection.ejected(),
            std::slice::from_ref(&failing),
            "nothing changed"
        );
    }

    let token = format!("Bearer {TOKEN}");
    let (status, answer) = control(&base, &returned, Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["replica"], failing.as_str());
    assert!(answer["ejected_for_s"].is_null());
    assert!(detection.ejected().is_empty(), "returned by hand");

    // By hand, the healthy one: for the detection's longest ejection,
    // whatever the cap (the other is ejected again at its next failure).
    let ejected = path_of(operation, &healthy, "eject");
    let (status, _) = control(&base, &ejected, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(detection.ejected().is_empty());
    let (status, answer) = control(&base, &ejected, Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["ejected_for_s"], 60.0);
    assert_eq!(detection.ejected(), std::slice::from_ref(&healthy));
    assert_eq!(
        listed_replicas(&base, operation).await,
        by_url([(failing.clone(), false), (healthy.clone(), true)])
    );
    // The next call goes to the failing one, the only one in the set: it
    // fails, and the detection doesn't eject past half the set.
    let response = client.get("http://service.invalid/").send().await.unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(detection.ejected(), std::slice::from_ref(&healthy));

    // A replica or an operation nobody knows, and an action there is not.
    for path in [
        path_of(operation, "http://10.9.9.9:1", "eject"),
        path_of("replicas.nobody", &healthy, "eject"),
        path_of(operation, &healthy, "sideways"),
    ] {
        let (status, _) = control(&base, &path, Some(&token)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(detection.ejected(), std::slice::from_ref(&healthy));
}

/// What the page shows of `operation`'s replicas: `url=state` each.
fn shown_replicas(operation: &str) -> String {
    format!(
        r#"JSON.stringify(Array.from(document.querySelectorAll('[data-operation="{operation}"] [data-field="replica-state"]'))
            .map(badge => badge.closest("[data-replica]").dataset.replica + "=" + badge.textContent))"#
    )
}

/// Polls `expression` in the page until it is `true`, for at most 10 s.
async fn wait_until(browser: &mut Chromium, what: &str, expression: &str) {
    let said = r#"document.getElementById("control-said").textContent"#;
    browser.wait_until(what, expression, said).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_an_ejected_replica_and_its_return_button_brings_it_back() {
    let Some(mut browser) = Chromium::start().await else {
        return;
    };
    let failing = replica(StatusCode::SERVICE_UNAVAILABLE).await;
    let healthy = replica(StatusCode::OK).await;
    let operation = "replicas.page";
    let (client, detection) = client_of(operation, &[failing.clone(), healthy.clone()]);
    let base = panel().await;
    until_ejected(&client, &detection).await;

    browser.open(&format!("{base}/")).await;
    let expected =
        serde_json::to_string(&[format!("{failing}=ejected"), format!("{healthy}=in")]).unwrap();
    wait_until(
        &mut browser,
        "the tile's replicas",
        &format!(
            "{} === {}",
            shown_replicas(operation),
            serde_json::to_string(&expected).unwrap()
        ),
    )
    .await;

    browser
        .eval(&format!(
            r#"document.querySelector('[data-operation="{operation}"]').scrollIntoView()"#
        ))
        .await;
    browser.save_screenshot("dashboard-replicas-tile.png").await;

    // The operator unlocks the panel and returns the ejected replica.
    browser
        .eval(r#"document.getElementById("token").focus()"#)
        .await;
    browser
        .call("Input.insertText", serde_json::json!({ "text": TOKEN }))
        .await;
    browser
        .eval(r#"document.querySelector('#unlock button[type="submit"]').click()"#)
        .await;
    let line = format!(
        r#"document.querySelector('#control-replicas [data-replica="{operation} {failing}"]')"#
    );
    wait_until(
        &mut browser,
        "the replica's Return button",
        &format!(r#"!!{line} && !!{line}.querySelector('[data-action="return"]')"#),
    )
    .await;
    browser.save_screenshot("dashboard-replicas.png").await;
    browser
        .eval(&format!(
            r#"{line}.querySelector('[data-action="return"]').click()"#
        ))
        .await;
    wait_until(
        &mut browser,
        "the replica shown in the set in the panel",
        &format!(r#"{line}.querySelector('.badge').textContent === "in""#),
    )
    .await;
    assert!(detection.ejected().is_empty(), "returned by hand");
}
