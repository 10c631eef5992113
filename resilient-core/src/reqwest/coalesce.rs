//! Coalescing in the middleware ([`ResilientMiddleware::coalesce`]):
//! concurrent idempotent requests of one key share one call.
//!
//! reqwest-middleware lends each `handle` its client and the rest of its
//! chain for that call only (`Next<'_>`), so a shared call can't outlive
//! the request that started it, as [`Coalesce`](crate::coalesce::Coalesce)'s
//! executions do. The request that starts a call drives it, and the others
//! wait; if it gives up while they wait, the first of them to be woken
//! starts the call again with its own chain, and the rest wait on that
//! one. The response is read whole once, and each request gets a copy of
//! its status, headers, extensions (the report among them, marked
//! [`coalesced`](crate::ExecutionReport::coalesced) for those that
//! waited) and body.
//!
//! [`ResilientMiddleware::coalesce`]: super::ResilientMiddleware::coalesce

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use reqwest::{Request, Response};
use reqwest_middleware::Error;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::report::ExecutionReport;

impl<Cl, C, H, P> super::ResilientMiddleware<Cl, C, H, P> {
    /// Concurrent requests with the same `key` share one call: the first
    /// is sent (its retries and hedges included), and the others get a
    /// copy of its response, or of its error's text. `key` answers `None`
    /// for a request to send on its own; only idempotent requests (by RFC
    /// 9110's methods, or an `Idempotency-Key` header) are ever shared,
    /// whatever it answers. A waiting request's report (in the response's
    /// extensions) says how long it waited
    /// ([`coalesced`](crate::ExecutionReport::coalesced)).
    ///
    /// The response is read whole once, and each request gets its status,
    /// headers, extensions and body; its `url()` is not kept. If the
    /// request that started the call gives up while others wait, the first
    /// of them starts it again: reqwest-middleware lends each request its
    /// chain for that request only, so a call can't outlive it.
    ///
    /// ```
    /// use resilient::reqwest::ResilientMiddleware;
    ///
    /// // The same GET of one URL, sent once while in flight.
    /// let middleware = ResilientMiddleware::new()
    ///     .retries(2)
    ///     .coalesce(|request: &reqwest::Request| Some(request.url().to_string()));
    /// # let _ = middleware;
    /// ```
    pub fn coalesce(
        mut self,
        key: impl Fn(&Request) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.sending.coalesce = Some(Coalescing::new(Arc::new(key)));
        self
    }
}

/// The key of a request, `None` to send it on its own.
pub(super) type KeyOf = Arc<dyn Fn(&Request) -> Option<String> + Send + Sync>;

/// A middleware's coalescing: its key, and the calls in flight by key.
#[derive(Clone)]
pub(super) struct Coalescing {
    key: KeyOf,
    flights: Arc<Mutex<HashMap<String, Weak<Flight>>>>,
}

impl Coalescing {
    pub(super) fn new(key: KeyOf) -> Self {
        Coalescing {
            key,
            flights: Arc::default(),
        }
    }

    /// The key of `request`: none unless its method is idempotent (RFC
    /// 9110) or it carries an `Idempotency-Key`, whatever the key function
    /// says, and none for a body that can't be copied.
    pub(super) fn key_of(&self, request: &Request) -> Option<String> {
        let idempotent = crate::http::is_idempotent(request.method(), request.headers());
        if !idempotent {
            return None;
        }
        (self.key)(request)
    }

    /// The response of `key`'s call: `execute()`'s own if this request
    /// starts the call (or starts it again), a copy of another's if it
    /// joins one in flight.
    pub(super) async fn run<F>(
        &self,
        key: String,
        execute: impl FnOnce() -> F,
    ) -> Result<Response, Error>
    where
        F: Future<Output = Result<Response, Error>>,
    {
        let joined = Instant::now();
        let mut execute = Some(execute);
        loop {
            let (flight, leads) = self.join(&key);
            if leads {
                let execute = execute.take().expect("a request leads at most once");
                let mut leading = Leading(&flight);
                let stored = stored(execute().await).await;
                let answer = copy_of(&stored, None);
                leading.finish(stored);
                return answer;
            }
            if let Some(stored) = flight.wait().await {
                return copy_of(&stored, Some(joined.elapsed()));
            }
            // Its leader gave up: the next to find it abandoned leads anew.
        }
    }

    /// The flight of `key` in flight, or a new one this request leads.
    fn join(&self, key: &str) -> (Arc<Flight>, bool) {
        let mut flights = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(flight) = flights.get(key).and_then(Weak::upgrade)
            && flight.running()
        {
            return (flight, false);
        }
        flights.retain(|_, flight| flight.strong_count() > 0);
        let flight = Arc::new(Flight {
            state: Mutex::new(State::Running),
            ended: Notify::new(),
        });
        flights.insert(key.to_owned(), Arc::downgrade(&flight));
        (flight, true)
    }
}

impl fmt::Debug for Coalescing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Coalescing").finish_non_exhaustive()
    }
}

/// One call of a key, as its waiting requests see it.
struct Flight {
    state: Mutex<State>,
    ended: Notify,
}

enum State {
    Running,
    Done(Arc<Stored>),
    /// Its leader gave up before the end.
    Abandoned,
}

impl Flight {
    fn running(&self) -> bool {
        matches!(
            *self.state.lock().unwrap_or_else(PoisonError::into_inner),
            State::Running
        )
    }

    /// Waits for its end: what it answered, or `None` if its leader gave
    /// up.
    async fn wait(&self) -> Option<Arc<Stored>> {
        loop {
            let ended = self.ended.notified();
            let mut ended = std::pin::pin!(ended);
            // Registered before the state is read: an end between the two
            // still wakes this request.
            ended.as_mut().enable();
            match &*self.state.lock().unwrap_or_else(PoisonError::into_inner) {
                State::Running => {}
                State::Done(stored) => return Some(Arc::clone(stored)),
                State::Abandoned => return None,
            }
            ended.await;
        }
    }

    fn end(&self, state: State) {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner) = state;
        self.ended.notify_waiters();
    }
}

/// The leader's hold on its flight: dropped before [`finish`](Self::finish)
/// (its request given up at an await), the flight is abandoned and its
/// waiting requests woken, so that one of them starts the call again.
struct Leading<'f>(&'f Flight);

impl Leading<'_> {
    fn finish(&mut self, stored: Arc<Stored>) {
        self.0.end(State::Done(stored));
    }
}

impl Drop for Leading<'_> {
    fn drop(&mut self) {
        if self.0.running() {
            self.0.end(State::Abandoned);
        }
    }
}

/// A response read whole, or the text of the call's error.
type Stored = Result<Parts, String>;

struct Parts {
    status: http::StatusCode,
    version: http::Version,
    headers: http::HeaderMap,
    extensions: http::Extensions,
    body: Vec<u8>,
}

/// `result` read whole, for every request of the key.
async fn stored(result: Result<Response, Error>) -> Arc<Stored> {
    let stored = match result {
        Ok(mut response) => {
            let status = response.status();
            let version = response.version();
            let headers = response.headers().clone();
            let extensions = std::mem::take(response.extensions_mut());
            match response.bytes().await {
                Ok(body) => Ok(Parts {
                    status,
                    version,
                    headers,
                    extensions,
                    body: body.to_vec(),
                }),
                Err(error) => Err(error.to_string()),
            }
        }
        Err(error) => Err(error.to_string()),
    };
    Arc::new(stored)
}

/// A copy of `stored` for one request, its report marked coalesced with
/// how long it `waited` if it joined.
fn copy_of(stored: &Stored, waited: Option<std::time::Duration>) -> Result<Response, Error> {
    match stored {
        Ok(parts) => {
            let mut response = http::Response::new(parts.body.clone());
            *response.status_mut() = parts.status;
            *response.version_mut() = parts.version;
            *response.headers_mut() = parts.headers.clone();
            *response.extensions_mut() = parts.extensions.clone();
            if let Some(waited) = waited
                && let Some(report) = response.extensions_mut().get_mut::<ExecutionReport>()
            {
                report.mark_coalesced(waited);
            }
            Ok(Response::from(response))
        }
        Err(text) => Err(Error::middleware(SharedError(text.clone()))),
    }
}

/// The error of a call that requests shared, as each of them gets it.
#[derive(Debug)]
struct SharedError(String);

impl fmt::Display for SharedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SharedError {}
