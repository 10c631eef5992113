//! How each attempt gets its own request: [`CloneRequest`], with
//! [`UseClone`] for `Clone` requests (the default) and any
//! `Fn(&Req) -> Option<Req>` for the others, as tower's
//! `Policy::clone_request` does.

/// Makes the copy of a request that one attempt sends, or says that none
/// can be made: `None` means "send the request once, don't retry it".
///
/// Set with [`ResilientLayer::clone_request`](super::ResilientLayer::clone_request);
/// the default, [`UseClone`], clones. Any `Fn(&Req) -> Option<Req>` is
/// one, such as `reqwest::Request::try_clone`, which can't copy a
/// streaming body:
///
/// ```
/// use resilient::tower::CloneRequest;
///
/// /// An upload that can be sent again only while its bytes are in memory.
/// enum Upload {
///     Buffered(Vec<u8>),
///     Streamed(std::fs::File),
/// }
///
/// let copy = |upload: &Upload| match upload {
///     Upload::Buffered(bytes) => Some(Upload::Buffered(bytes.clone())),
///     Upload::Streamed(_) => None,
/// };
/// assert!(copy.clone_request(&Upload::Buffered(vec![1, 2])).is_some());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Req}` is not `Clone`, so a `ResilientLayer` can't copy it for each attempt",
    label = "the layer copies each request with `Clone`",
    note = "derive or implement `Clone` for `{Req}`, or tell the layer how to copy it with `.clone_request(|request: &{Req}| …)`, returning `None` for a request to send once without retries (`reqwest::Request::try_clone` is such a function)"
)]
pub trait CloneRequest<Req> {
    /// A copy of `request` for one attempt, or `None` if it can be sent
    /// only once.
    fn clone_request(&self, request: &Req) -> Option<Req>;
}

/// The default way to copy a request: `Clone`. A layer whose requests
/// aren't `Clone` needs [`clone_request`](super::ResilientLayer::clone_request).
///
/// ```
/// use resilient::tower::{CloneRequest, UseClone};
///
/// assert_eq!(UseClone.clone_request(&String::from("GET /")), Some(String::from("GET /")));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UseClone;

// Hidden from diagnostics, so that a request that isn't `Clone` gets the
// message of `CloneRequest`, which names `clone_request`, rather than a
// bare "`Req: Clone` is not satisfied".
#[diagnostic::do_not_recommend]
impl<Req: Clone> CloneRequest<Req> for UseClone {
    #[inline]
    fn clone_request(&self, request: &Req) -> Option<Req> {
        Some(request.clone())
    }
}

impl<Req, F> CloneRequest<Req> for F
where
    F: Fn(&Req) -> Option<Req>,
{
    #[inline]
    fn clone_request(&self, request: &Req) -> Option<Req> {
        self(request)
    }
}
