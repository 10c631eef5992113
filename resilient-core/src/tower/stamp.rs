//! The service under every send layer (`SendDeadlineLayer`,
//! `SendHoldLayer`): [`Stamp`] writes a header on each `http::Request` as
//! it is sent and forwards it, and [`stamping_service!`] makes a public
//! service of it, so that each send layer's type stays its own to
//! document and to change.

use std::task::{Context, Poll};

use ::tower::Service;

use crate::deadline::header::{DeadlineHeader, HoldHeader};

/// What a send layer writes on each request it sends.
pub(super) trait Stamps {
    /// Writes it on `headers`, or leaves them as they are when the request
    /// sent now has nothing to say.
    fn stamp_on(&self, headers: &mut http::HeaderMap);
}

impl Stamps for DeadlineHeader {
    fn stamp_on(&self, headers: &mut http::HeaderMap) {
        self.stamp(headers);
    }
}

impl Stamps for HoldHeader {
    fn stamp_on(&self, headers: &mut http::HeaderMap) {
        self.stamp(headers);
    }
}

/// `inner`, sent each request with `header` stamped on it as it is sent.
#[derive(Clone)]
pub(super) struct Stamp<S, H> {
    pub(super) inner: S,
    pub(super) header: H,
}

impl<S, H, B> Service<http::Request<B>> for Stamp<S, H>
where
    S: Service<http::Request<B>>,
    H: Stamps,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> S::Future {
        self.header.stamp_on(request.headers_mut());
        self.inner.call(request)
    }
}

/// Declares `pub struct $service<S>`, the [`Stamp`] of `$header` that
/// `$layer` (a struct with a `header: $header`) makes: its `Layer`
/// impl, and the service's `Clone`, `Debug` (as if its fields were
/// `inner` and `header`) and `Service` of `http::Request`s.
macro_rules! stamping_service {
    (
        $(#[$attr:meta])*
        pub struct $service:ident<S>(Stamp<S, $header:ty>);
        made by $layer:ident;
    ) => {
        $(#[$attr])*
        #[derive(Clone)]
        pub struct $service<S>($crate::tower::stamp::Stamp<S, $header>);

        impl<S> ::tower::Layer<S> for $layer {
            type Service = $service<S>;

            fn layer(&self, inner: S) -> Self::Service {
                $service($crate::tower::stamp::Stamp {
                    inner,
                    header: ::std::clone::Clone::clone(&self.header),
                })
            }
        }

        impl<S: ::std::fmt::Debug> ::std::fmt::Debug for $service<S> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(::std::stringify!($service))
                    .field("inner", &self.0.inner)
                    .field("header", &self.0.header)
                    .finish()
            }
        }

        impl<S, B> ::tower::Service<::http::Request<B>> for $service<S>
        where
            S: ::tower::Service<::http::Request<B>>,
        {
            type Response = S::Response;
            type Error = S::Error;
            type Future = S::Future;

            fn poll_ready(
                &mut self,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::result::Result<(), S::Error>> {
                self.0.poll_ready(cx)
            }

            fn call(&mut self, request: ::http::Request<B>) -> S::Future {
                self.0.call(request)
            }
        }
    };
}
pub(super) use stamping_service;

#[cfg(test)]
mod tests {
    use std::future::{Ready, ready};

    use ::tower::{BoxError, Layer, ServiceExt};

    use crate::deadline::header::{DeadlineHeader, HoldHeader};
    use crate::tower::{SendDeadlineLayer, SendHoldLayer};

    /// A service that is never ready: it refuses in `poll_ready`.
    #[derive(Debug, Clone)]
    struct Refusing;

    impl ::tower::Service<http::Request<()>> for Refusing {
        type Response = ();
        type Error = BoxError;
        type Future = Ready<Result<(), BoxError>>;

        fn poll_ready(
            &mut self,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Result<(), BoxError>> {
            std::task::Poll::Ready(Err("not ready".into()))
        }

        fn call(&mut self, _: http::Request<()>) -> Self::Future {
            ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_send_service_is_ready_when_its_inner_service_is() {
        let deadline = SendDeadlineLayer::new(DeadlineHeader::grpc_timeout()).layer(Refusing);
        let error = deadline.oneshot(http::Request::new(())).await.unwrap_err();
        assert_eq!(error.to_string(), "not ready");
        let hold = SendHoldLayer::new(HoldHeader::default()).layer(Refusing);
        let error = hold.oneshot(http::Request::new(())).await.unwrap_err();
        assert_eq!(error.to_string(), "not ready");
    }

    #[test]
    fn a_send_service_debugs_as_its_own_type() {
        let deadline = SendDeadlineLayer::new(DeadlineHeader::grpc_timeout()).layer(Refusing);
        let shown = format!("{deadline:?}");
        assert!(
            shown.starts_with("SendDeadline { inner: Refusing, header: "),
            "{shown}"
        );
        let hold = SendHoldLayer::new(HoldHeader::default()).layer(Refusing);
        let shown = format!("{hold:?}");
        assert!(
            shown.starts_with("SendHold { inner: Refusing, header: "),
            "{shown}"
        );
    }
}
