//! The control panel: the page with its controls, and the POST endpoints
//! that isolate and reset breakers, switch chaos on and off, and install
//! a configuration, each behind a bearer token.
//!
//! Breakers and chaos switches are controlled by name once handed over
//! with [`control_breaker`] and [`control_chaos`]: the engine reaches a
//! breaker through the reference each call passes, so the panel needs one
//! of its own, and a `'static` one costs the call path nothing.

use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::Instant;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::breaker::CircuitBreaker;
use crate::chaos::Chaos;
use crate::error::ConfigError;
use crate::observe::replicas::{self, ByHand};

/// Breakers the panel may isolate and reset, in the order handed over.
static BREAKERS: Mutex<Vec<&'static CircuitBreaker>> = Mutex::new(Vec::new());

/// Chaos switches the panel may switch, by name.
static SWITCHES: Mutex<Vec<(&'static str, &'static Chaos)>> = Mutex::new(Vec::new());

/// The page as the control router serves it: with its controls on.
static CONTROL_PAGE: LazyLock<String> =
    LazyLock::new(|| super::PAGE.replacen(r#"data-control="off""#, r#"data-control="on""#, 1));

/// Lets the control panel of [`router_with_control`] isolate and reset
/// `breaker`, by its [name](crate::CircuitBreakerBuilder::name). Handing
/// the same breaker over again changes nothing; every breaker handed over
/// under one name is isolated or reset together.
///
/// ```
/// use resilient::CircuitBreaker;
/// use std::sync::LazyLock;
///
/// static PAYMENTS: LazyLock<CircuitBreaker> =
///     LazyLock::new(|| CircuitBreaker::builder().name("payments").build().unwrap());
///
/// resilient::dashboard::control_breaker(&PAYMENTS);
/// ```
pub fn control_breaker(breaker: &'static CircuitBreaker) {
    let mut breakers = BREAKERS.lock().unwrap_or_else(PoisonError::into_inner);
    if !breakers.iter().any(|known| std::ptr::eq(*known, breaker)) {
        breakers.push(breaker);
    }
}

/// Lets the control panel of [`router_with_control`] switch `chaos` on
/// and off, as `name`. A second switch under a name already taken is
/// ignored.
///
/// A switch built with [`Chaos::named`] also takes the `[chaos.NAME]` of
/// an installed configuration (feature `config`): the panel's on/off acts
/// at once and holds until that entry's `enabled` changes, and clearing
/// the configuration gives the switch back the values it had before the
/// entry set them (the `config` module's docs, "Chaos switches").
///
/// ```
/// use resilient::chaos::Chaos;
///
/// static PRICING_FAULTS: Chaos = Chaos::new().injection_rate(0.1);
///
/// resilient::dashboard::control_chaos("pricing.faults", &PRICING_FAULTS);
/// ```
pub fn control_chaos(name: &'static str, chaos: &'static Chaos) {
    let mut switches = SWITCHES.lock().unwrap_or_else(PoisonError::into_inner);
    if !switches.iter().any(|(known, _)| *known == name) {
        switches.push((name, chaos));
    }
}

/// The token every control request must carry.
#[derive(Clone)]
struct Token(std::sync::Arc<[u8]>);

impl Token {
    /// Whether `headers` carry `Authorization: Bearer <this token>`. The
    /// scheme is matched in any case (RFC 7235); the token in time that
    /// depends on the expected token's length only.
    fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return false;
        };
        let value = value.as_bytes();
        let Some(space) = value.iter().position(|&byte| byte == b' ') else {
            return false;
        };
        let (scheme, given) = (&value[..space], &value[space + 1..]);
        scheme.eq_ignore_ascii_case(b"bearer") && same(given, &self.0)
    }
}

/// Whether `given` equals `expected`, comparing every byte of `expected`
/// whatever differs, so that the time taken tells nothing about how much
/// of a guess was right.
fn same(given: &[u8], expected: &[u8]) -> bool {
    let mut differ = u8::from(given.len() != expected.len());
    for (index, &byte) in expected.iter().enumerate() {
        differ |= given.get(index).copied().unwrap_or(!byte) ^ byte;
    }
    std::hint::black_box(differ) == 0
}

/// The dashboard with its controls: everything [`router`](super::router)
/// serves, the page with a control panel, and these POST endpoints:
///
/// * `/control/breakers/{name}/isolate` and `/control/breakers/{name}/reset`:
///   [`CircuitBreaker::isolate`] and [`CircuitBreaker::reset`] on the
///   breakers handed over with [`control_breaker`] under that name;
/// * `/control/chaos/{name}/on` and `/control/chaos/{name}/off`: a switch
///   handed over with [`control_chaos`];
/// * `/control/replicas/{operation}/{replica}/eject` and `.../return`: a
///   replica (its base URL, percent-encoded) of the outlier detection
///   of a tower layer or a reqwest middleware whose operation is
///   `operation`, once a call of it has used the detection. An ejection
///   by hand lasts the longest the detection ejects for
///   ([`max_ejection_time`](crate::endpoint::OutlierDetection::max_ejection_time),
///   300 s unless set), whatever `max_ejection_percent`, unless returned
///   sooner; a return forgets the replica's failures;
/// * `/control/config` (feature `config`): the body, a TOML configuration,
///   given to [`config::install_toml`](crate::config::install_toml); a bad
///   one answers 400 with the error's text and changes nothing. Without the
///   feature the path isn't routed (404).
///
/// and `GET /control`, the names the panel may control (breakers with
/// their state, replicas with theirs, chaos switches with theirs, whether
/// a configuration can be posted), which changes nothing.
///
/// Each needs `Authorization: Bearer <token>`, compared in constant time:
/// without it, or with another token, the answer is 401 and nothing
/// changes. A GET of a POST endpoint answers 405. A name nobody handed
/// over answers 404. The page asks the operator for the token and keeps it
/// in the page's memory only (no cookie, no storage, no address), so a
/// reload forgets it and no other site's form can use it.
///
/// It is opt-in: [`router`](super::router) never controls anything.
///
/// # Errors
///
/// [`ConfigError::EmptyControlToken`] for an empty token (or one of spaces
/// only), which would let anyone in.
///
/// ```
/// use axum::Router;
/// use resilient::ConfigError;
///
/// let token = std::env::var("RESILIENCE_TOKEN").unwrap_or_else(|_| "let-me-in".into());
/// let app: Router = Router::new()
///     .nest_service("/resilience", resilient::dashboard::router_with_control(token)?);
/// # drop(app);
/// assert_eq!(
///     resilient::dashboard::router_with_control("").unwrap_err(),
///     ConfigError::EmptyControlToken
/// );
/// # Ok::<(), ConfigError>(())
/// ```
pub fn router_with_control(token: impl Into<String>) -> Result<Router, ConfigError> {
    let token = token.into();
    if token.trim().is_empty() {
        return Err(ConfigError::EmptyControlToken);
    }
    let controls = Router::new()
        .route("/control", get(controls))
        .route("/control/breakers/{name}/{action}", post(breaker))
        .route("/control/chaos/{name}/{switch}", post(switch))
        .route("/control/endpoints/{prefix}/{key}/{action}", post(endpoint))
        .route(
            "/control/replicas/{operation}/{replica}/{action}",
            post(replica),
        );
    #[cfg(feature = "config")]
    let controls = controls.route("/control/config", post(install));
    Ok(super::routes(get(control_page))
        .merge(controls.with_state(Token(token.into_bytes().into()))))
}

async fn control_page() -> Html<&'static str> {
    Html(CONTROL_PAGE.as_str())
}

/// 401, with the scheme the client must use.
fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))],
        "a control needs `Authorization: Bearer <token>`",
    )
        .into_response()
}

fn no_such(what: &str, name: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        format!("no {what} named {name:?} is under control"),
    )
        .into_response()
}

fn answer(value: Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

/// The breakers named `name` that were handed over.
fn breakers_named(name: &str) -> Vec<&'static CircuitBreaker> {
    let breakers = BREAKERS.lock().unwrap_or_else(PoisonError::into_inner);
    breakers
        .iter()
        .copied()
        .filter(|breaker| breaker.name() == name)
        .collect()
}

/// Isolates or resets the breakers named `name`, and answers with their
/// state.
async fn breaker(
    State(token): State<Token>,
    Path((name, action)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if !token.admits(&headers) {
        return unauthorized();
    }
    let act: fn(&CircuitBreaker) = match action.as_str() {
        "isolate" => CircuitBreaker::isolate,
        "reset" => CircuitBreaker::reset,
        _ => return (StatusCode::NOT_FOUND, "a breaker is `isolate`d or `reset`").into_response(),
    };
    let breakers = breakers_named(&name);
    let Some(first) = breakers.first() else {
        return no_such("breaker", &name);
    };
    breakers.iter().for_each(|breaker| act(breaker));
    answer(json!({ "breaker": name, "state": first.state(Instant::now()).as_str() }))
}

/// Isolates or resets the breaker of `key` in the map of breakers per
/// endpoint called `prefix`, and answers with its state.
async fn endpoint(
    State(token): State<Token>,
    Path((prefix, key, action)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    if !token.admits(&headers) {
        return unauthorized();
    }
    let isolate = match action.as_str() {
        "isolate" => true,
        "reset" => false,
        _ => return (StatusCode::NOT_FOUND, "a breaker is `isolate`d or `reset`").into_response(),
    };
    let maps = super::endpoints::controlled_maps();
    let Some(map) = maps.iter().find(|map| map.prefix() == prefix) else {
        return no_such("map of breakers per endpoint", &prefix);
    };
    match map.control(&key, isolate, Instant::now()) {
        Some(state) => answer(json!({ "endpoints": prefix, "key": key, "state": state.as_str() })),
        None => no_such(&format!("key of {prefix:?}"), &key),
    }
}

/// Ejects or returns `replica` of the outlier detections of `operation`,
/// and answers with what was done.
async fn replica(
    State(token): State<Token>,
    Path((operation, replica, action)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    if !token.admits(&headers) {
        return unauthorized();
    }
    let eject = match action.as_str() {
        "eject" => true,
        "return" => false,
        _ => {
            return (
                StatusCode::NOT_FOUND,
                "a replica is `eject`ed or `return`ed",
            )
                .into_response();
        }
    };
    let now = tokio::time::Instant::now().into_std();
    let Some(done) = replicas::by_hand(&operation, &replica, eject, now) else {
        return no_such(&format!("replica of {operation:?}"), &replica);
    };
    let ejected_for = match done {
        ByHand::Ejected(time) => Some(time.as_secs_f64()),
        ByHand::Returned => None,
    };
    answer(json!({ "operation": operation, "replica": replica, "ejected_for_s": ejected_for }))
}

async fn switch(
    State(token): State<Token>,
    Path((name, switch)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if !token.admits(&headers) {
        return unauthorized();
    }
    let enabled = match switch.as_str() {
        "on" => true,
        "off" => false,
        _ => return (StatusCode::NOT_FOUND, "a switch is turned `on` or `off`").into_response(),
    };
    let switches = SWITCHES.lock().unwrap_or_else(PoisonError::into_inner);
    let Some((_, chaos)) = switches.iter().find(|(known, _)| *known == name) else {
        return no_such("chaos switch", &name);
    };
    chaos.set_enabled(enabled);
    answer(json!({ "chaos": name, "enabled": chaos.is_enabled() }))
}

#[cfg(feature = "config")]
async fn install(State(token): State<Token>, headers: HeaderMap, body: String) -> Response {
    if !token.admits(&headers) {
        return unauthorized();
    }
    let panel = crate::config::Config::from_toml(&body)
        .map(|config| crate::config::install(config.from_origin(crate::config::Origin::Panel)));
    match panel {
        Ok(version) => answer(json!({ "version": version })),
        Err(error) => (StatusCode::BAD_REQUEST, error.to_string()).into_response(),
    }
}

async fn controls(State(token): State<Token>, headers: HeaderMap) -> Response {
    if !token.admits(&headers) {
        return unauthorized();
    }
    let now = Instant::now();
    let breakers: Vec<Value> = {
        let breakers = BREAKERS.lock().unwrap_or_else(PoisonError::into_inner);
        let mut names: Vec<&str> = Vec::new();
        breakers
            .iter()
            .filter(|breaker| {
                let fresh = !names.contains(&breaker.name());
                names.push(breaker.name());
                fresh
            })
            .map(|breaker| json!({ "name": breaker.name(), "state": breaker.state(now).as_str() }))
            .collect()
    };
    let chaos: Vec<Value> = SWITCHES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .map(|(name, chaos)| json!({ "name": name, "enabled": chaos.is_enabled(), "rate": chaos.rate() }))
        .collect();
    let endpoints: Vec<Value> = super::endpoints::controlled_maps()
        .iter()
        .map(|map| {
            let mut keys = map.views();
            keys.sort_by(|a, b| a.0.cmp(&b.0));
            let keys: Vec<Value> = keys
                .into_iter()
                .map(|(key, view)| json!({ "key": key, "state": view.state_at(now).0.as_str() }))
                .collect();
            json!({ "prefix": map.prefix(), "keys": keys })
        })
        .collect();
    let replicas: Vec<Value> = replicas::all(tokio::time::Instant::now().into_std())
        .into_iter()
        .map(|(operation, rows)| {
            let rows: Vec<Value> = rows
                .into_iter()
                .map(|row| json!({ "replica": row.replica, "ejected": row.ejected_for.is_some() }))
                .collect();
            json!({ "operation": operation, "replicas": rows })
        })
        .collect();
    answer(json!({
        "breakers": breakers,
        "endpoints": endpoints,
        "replicas": replicas,
        "chaos": chaos,
        "config": cfg!(feature = "config"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_very_token_is_the_same() {
        assert!(same(b"let-me-in", b"let-me-in"));
        for other in [
            &b""[..],
            b"let-me-i",
            b"let-me-in!",
            b"Let-me-in",
            b"let-me-iN",
        ] {
            assert!(!same(other, b"let-me-in"), "{other:?}");
        }
        // A byte that xors to zero with the missing one's stand-in.
        assert!(!same(b"\xff", b"\x00\x00"));
    }

    #[test]
    fn the_token_is_read_from_a_bearer_authorization_in_any_case_of_its_scheme() {
        let token = Token(b"s3cret".to_vec().into());
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_static(value));
            token.admits(&headers)
        };
        assert!(with("Bearer s3cret"));
        assert!(with("bearer s3cret"));
        assert!(!with("Basic s3cret"));
        assert!(!with("Bearer  s3cret"));
        assert!(!with("Bearers3cret"));
        assert!(!with("s3cret"));
        assert!(!token.admits(&HeaderMap::new()));
    }

    #[test]
    fn an_empty_token_is_refused() {
        for token in ["", "   "] {
            assert_eq!(
                router_with_control(token).err(),
                Some(ConfigError::EmptyControlToken)
            );
        }
    }

    #[test]
    fn the_control_page_differs_from_the_page_by_its_switch_only() {
        assert!(super::super::PAGE.contains(r#"data-control="off""#));
        assert_eq!(
            CONTROL_PAGE.replacen(r#"data-control="on""#, r#"data-control="off""#, 1),
            super::super::PAGE
        );
    }
}
