//! [`health`]: a [`Probe`] served as a readiness route.

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Map, Value, json};

use crate::health::{Health, Probe, Status};

/// A route answering `GET /` with `probe`'s verdict: `200 OK` when up,
/// `503 Service Unavailable` when down, and a body in the shape of Spring
/// Boot's actuator `health` endpoint, which Kubernetes' HTTP probes read
/// by its status code alone:
///
/// ```json
/// {"status":"DOWN","components":{
///   "breakers":{"status":"DOWN","components":{
///     "ledger":{"status":"DOWN","details":{"state":"open","decides":true}}}},
///   "limits":{"status":"UP","components":{
///     "db":{"status":"UP","details":{"in_flight":3,"limit":10}}}}}}
/// ```
///
/// It changes nothing, so it needs no token; mount it where the probe
/// looks (`readinessProbe.httpGet.path`).
///
/// ```
/// use axum::Router;
/// use resilient::health::Probe;
///
/// let app: Router = Router::new().nest_service("/ready", resilient::dashboard::health(Probe::new()));
/// # drop(app);
/// ```
pub fn health(probe: Probe) -> Router {
    Router::new().route(
        "/",
        get(move || {
            let health = probe.check();
            async move { answer(&health) }
        }),
    )
}

fn answer(health: &Health) -> impl IntoResponse + use<> {
    let code = match health.status() {
        Status::Up => StatusCode::OK,
        Status::Down => StatusCode::SERVICE_UNAVAILABLE,
    };
    (
        code,
        [(header::CONTENT_TYPE, "application/json")],
        body(health).to_string(),
    )
}

/// The actuator's shape: a status, and a component per part.
fn body(health: &Health) -> Value {
    let breakers: Map<String, Value> = health
        .breakers()
        .iter()
        .map(|breaker| {
            let details =
                json!({ "state": breaker.state().as_str(), "decides": breaker.decides() });
            (
                breaker.name().to_owned(),
                json!({ "status": breaker.status().as_str(), "details": details }),
            )
        })
        .collect();
    let breakers_down = health
        .breakers()
        .iter()
        .any(|breaker| breaker.decides() && breaker.status() == Status::Down);
    let limits: Map<String, Value> = health
        .limits()
        .iter()
        .map(|limit| {
            let details = json!({ "in_flight": limit.in_flight(), "limit": limit.limit() });
            (
                limit.name().to_owned(),
                json!({ "status": "UP", "details": details }),
            )
        })
        .collect();
    let throttles: Map<String, Value> = health
        .throttles()
        .iter()
        .map(|throttle| {
            let (tokens, max) = throttle.tokens();
            let details = json!({ "tokens": tokens, "max": max });
            (
                throttle.operation().to_owned(),
                json!({ "status": "UP", "details": details }),
            )
        })
        .collect();
    json!({
        "status": health.status().as_str(),
        "components": {
            "breakers": {
                "status": if breakers_down { "DOWN" } else { "UP" },
                "components": breakers,
            },
            "limits": { "status": "UP", "components": limits },
            "throttles": { "status": "UP", "components": throttles },
        },
    })
}
