//! A breaker per endpoint for a [`ResilientLayer`]: the key of each
//! request, by a function of the user's, picks its breaker from an
//! [`EndpointBreakers`] (see [`crate::endpoint`]).

use std::sync::Arc;

use super::layer::ResilientLayer;
use super::shared::endpoint_key;
use crate::endpoint::EndpointBreakers;

impl<Cl, C, A, R, H, P> ResilientLayer<Cl, C, A, R, H, P> {
    /// Gives each endpoint a breaker of its own from `breakers`, in place
    /// of any set with `circuit_breaker`: `key` names a request's endpoint
    /// ([`endpoint_key`](crate::endpoint::endpoint_key) of its URI for
    /// `host:port`), and one sick endpoint opens its own breaker and no
    /// other. `key` is a function of the layer's request type: a request
    /// of another type gets the breaker of the key `""`.
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use resilient::endpoint::{EndpointBreakers, endpoint_key};
    /// use resilient::tower::ResilientLayer;
    /// use std::sync::Arc;
    ///
    /// let breakers = Arc::new(
    ///     EndpointBreakers::builder("inventory")
    ///         .template(CircuitBreaker::builder().failure_threshold(5))
    ///         .build()?,
    /// );
    /// let layer = ResilientLayer::new().retries(2).per_endpoint_by(breakers, |request: &http::Request<String>| {
    ///     endpoint_key(request.uri()).unwrap_or_default()
    /// });
    /// # let _ = layer;
    /// # Ok::<(), resilient::ConfigError>(())
    /// ```
    pub fn per_endpoint_by<Req, F>(mut self, breakers: Arc<EndpointBreakers>, key: F) -> Self
    where
        Req: 'static,
        F: Fn(&Req) -> String + Send + Sync + 'static,
    {
        self.shared.endpoints = Some(breakers);
        self.shared.endpoint_key = Some(endpoint_key(key));
        self
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;
    use std::time::Duration;

    use ::tower::{Layer, service_fn};

    use super::*;
    use crate::breaker::{CircuitBreaker, CircuitState};
    use crate::error::CircuitOpen;

    #[tokio::test(start_paused = true)]
    async fn one_sick_endpoint_opens_only_its_own_breaker() {
        let breakers = Arc::new(
            EndpointBreakers::builder("c")
                .template(
                    CircuitBreaker::builder()
                        .failure_threshold(2)
                        .break_duration(Duration::from_secs(60)),
                )
                .build()
                .unwrap(),
        );
        let hits = Arc::new(Mutex::new(HashMap::<&'static str, u32>::new()));
        let log = Arc::clone(&hits);
        // `(host, id)`: host "sick" always fails.
        let inner = service_fn(move |(host, _): (&'static str, u32)| {
            *log.lock().unwrap().entry(host).or_default() += 1;
            async move {
                match host {
                    "sick" => Err::<u32, _>(std::io::Error::other("down")),
                    _ => Ok(7),
                }
            }
        });
        let client = ResilientLayer::new()
            .per_endpoint_by(Arc::clone(&breakers), |(host, _): &(&'static str, u32)| {
                (*host).to_owned()
            })
            .layer(inner);

        let mut rejected = 0;
        for id in 0..5 {
            let error = client.clone().oneshot(("sick", id)).await.unwrap_err();
            if error.is::<CircuitOpen>() {
                rejected += 1;
            }
            assert_eq!(client.clone().oneshot(("well", id)).await.unwrap(), 7);
        }
        assert_eq!(rejected, 3);
        let hits = hits.lock().unwrap().clone();
        assert_eq!(hits, HashMap::from([("sick", 2), ("well", 5)]));
        assert_eq!(
            breakers.states(),
            [
                ("sick".to_owned(), CircuitState::Open),
                ("well".to_owned(), CircuitState::Closed)
            ]
        );
    }
}
