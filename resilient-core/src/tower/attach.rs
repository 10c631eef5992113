//! Where a call's report goes besides the `on_report` hook: into the
//! response itself, so that it travels with the request it describes.

use crate::report::ExecutionReport;

/// Hands the report of a call to the response the caller gets back, set
/// with [`ResilientLayer::attach_report`](super::ResilientLayer::attach_report).
///
/// A hook set with [`on_report`](super::ResilientLayer::on_report) sees
/// every report but cannot tell which request it belongs to; a report
/// attached to the response can. Errors carry no report: the error the
/// service returned is passed on as it is, so that it can be downcast.
///
/// Implemented by [`NoReport`] (the default), by `ReportExtension` for
/// `http::Response` (feature `http`), and by anything of yours:
///
/// ```
/// use resilient::ExecutionReport;
/// use resilient::tower::AttachReport;
///
/// /// A response that keeps the number of attempts it took.
/// struct Answer {
///     text: String,
///     attempts: u32,
/// }
///
/// struct CountAttempts;
///
/// impl AttachReport<Answer> for CountAttempts {
///     fn attach(&self, answer: &mut Answer, report: ExecutionReport) {
///         answer.attempts = report.attempt_count();
///     }
/// }
/// ```
pub trait AttachReport<Res> {
    /// Called once per call that ends with a response (a successful one,
    /// or the last failing one), after the `on_report` hook.
    fn attach(&self, response: &mut Res, report: ExecutionReport);
}

/// Hands the report to the response, if the call ends with one.
pub(crate) fn attach_to<Res, E>(
    attach: &impl AttachReport<Res>,
    response: Result<Res, E>,
    report: ExecutionReport,
) -> Result<Res, E> {
    response.map(|mut response| {
        attach.attach(&mut response, report);
        response
    })
}

/// The default: the report goes to the `on_report` hook only.
///
/// ```
/// use resilient::tower::{NoReport, ResilientLayer};
///
/// // A new layer attaches nothing: its last type parameter is `NoReport`.
/// let _layer: ResilientLayer<_, _, NoReport> = ResilientLayer::new();
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoReport;

impl<Res> AttachReport<Res> for NoReport {
    #[inline]
    fn attach(&self, _: &mut Res, _: ExecutionReport) {}
}

/// Inserts each call's [`ExecutionReport`] into the extensions of the
/// `http::Response` it returns (feature `http`), where
/// `response.extensions().get::<ExecutionReport>()` finds it.
///
/// ```
/// use http::{Request, Response, StatusCode};
/// use resilient::tower::{HttpClassifier, ReportExtension, ResilientLayer};
/// use resilient::{Backoff, ExecutionReport};
/// use std::convert::Infallible;
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use tower::{ServiceBuilder, ServiceExt, service_fn};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), tower::BoxError> {
/// let calls = Arc::new(AtomicU32::new(0));
/// let server = service_fn(move |_: Request<()>| {
///     let status = match calls.fetch_add(1, Ordering::SeqCst) {
///         0 => StatusCode::BAD_GATEWAY,
///         _ => StatusCode::OK,
///     };
///     async move { Ok::<_, Infallible>(Response::builder().status(status).body(()).unwrap()) }
/// });
/// let client = ServiceBuilder::new()
///     .layer(
///         ResilientLayer::new()
///             .retries(2)
///             .backoff(Backoff::none())
///             .classify(HttpClassifier)
///             .attach_report(ReportExtension),
///     )
///     .service(server);
///
/// let response = client.oneshot(Request::new(())).await?;
/// assert_eq!(response.status(), StatusCode::OK);
/// let report = response.extensions().get::<ExecutionReport>().unwrap();
/// assert_eq!(report.attempt_count(), 2);
/// # Ok(())
/// # }
/// ```
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReportExtension;

#[cfg(feature = "http")]
impl<B> AttachReport<::http::Response<B>> for ReportExtension {
    fn attach(&self, response: &mut ::http::Response<B>, report: ExecutionReport) {
        response.extensions_mut().insert(report);
    }
}

/// The same for a `reqwest::Response` (feature `reqwest`): the tower
/// layer wrapping a `reqwest::Client` puts each call's report in its
/// response's extensions.
#[cfg(feature = "reqwest")]
impl AttachReport<::reqwest::Response> for ReportExtension {
    fn attach(&self, response: &mut ::reqwest::Response, report: ExecutionReport) {
        response.extensions_mut().insert(report);
    }
}
