//! A streamed body sent again ([`ResilientMiddleware::replay_buffer`]):
//! [`Replay`] keeps what the stream gave while it fits the buffer, so that
//! a failed attempt's request may be sent again with the same bytes.
//!
//! gRPC's retry design (A6) calls a call *committed* once it can't be
//! retried: here, once its body passed the buffer. The chunks the stream
//! gives are kept as they come (`Bytes`, shared, not copied) and handed to
//! the attempt that reads, so the buffer holds no more than the limit per
//! request in flight, and nothing once the body is committed.
//!
//! One attempt reads at a time: a new one takes over, and the one before
//! it, which its connection may still be writing, gets an error at its
//! next read. A later attempt reads the kept chunks first, then the rest
//! of the stream where the one before it stopped, so a body the server
//! didn't read to its end (it answered `503` at once) is replayed whole.
//! A request whose body streams is therefore never hedged.

use std::error::Error as StdError;
use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame};
use reqwest::{Body, Request};

use super::ResilientMiddleware;
use crate::tower::Hedgeable;

impl<Cl, C, H, P> ResilientMiddleware<Cl, C, H, P> {
    /// Keeps up to `bytes` of a request's streamed body as it is sent, so
    /// that a failed attempt may be retried with the same bytes: a body
    /// made with `reqwest::Body::wrap_stream` or `Body::wrap` can't be
    /// copied, and without this it is sent once.
    ///
    /// While the whole body fits, each retry sends it again: the bytes
    /// kept, then the rest of the stream if the attempt before stopped
    /// reading it. Once the stream gives more than `bytes`, the request is
    /// *committed* (gRPC A6's word): what was kept is dropped, the body
    /// streams on to its end, and the request is sent once, as without a
    /// buffer. The record of its failed attempt says so ("not retried: the
    /// request is committed"). A body whose stream fails, or that ends
    /// with trailers, is committed too.
    ///
    /// A request whose body streams is never hedged: one stream feeds one
    /// attempt at a time. Memory is at most `bytes` per request in
    /// flight. Requests whose body is already in memory (`.body(String)`,
    /// `.json(…)`) are copied as they are, and don't need this.
    ///
    /// ```
    /// use resilient::reqwest::ResilientMiddleware;
    ///
    /// // Uploads of up to 1 MiB are retried; larger ones are sent once.
    /// let middleware = ResilientMiddleware::new().retries(2).replay_buffer(1 << 20);
    /// # let _ = middleware;
    /// ```
    pub fn replay_buffer(mut self, bytes: usize) -> Self {
        self.sending.replay = Some(bytes);
        self
    }
}

/// A request's streamed body, and what it gave while it fit the buffer.
pub(super) struct Replay {
    limit: usize,
    state: Mutex<State>,
}

struct State {
    /// The stream, until it ended or failed.
    source: Option<Body>,
    /// What the stream gave, while within the limit.
    kept: Vec<Bytes>,
    /// The bytes in `kept`.
    len: usize,
    ended: bool,
    /// Past the limit, or the stream failed or ended with trailers: the
    /// body can't be sent again.
    committed: bool,
    /// The reader allowed to read: the latest.
    reader: u64,
}

impl Replay {
    /// Takes `request`'s body into a replay of at most `limit` bytes, if
    /// there is a limit and the body streams; `request` is left without a
    /// body, a template for the copies ([`copy`]).
    pub(super) fn take(request: &mut Request, limit: Option<usize>) -> Option<Arc<Replay>> {
        let limit = limit?;
        let streams = request.body().is_some_and(|body| body.as_bytes().is_none());
        if !streams {
            return None;
        }
        let source = request.body_mut().take();
        Some(Arc::new(Replay {
            limit,
            state: Mutex::new(State {
                source,
                kept: Vec::new(),
                len: 0,
                ended: false,
                committed: false,
                reader: 0,
            }),
        }))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A body reading the replay from its start; the reader before it
    /// reads no more.
    fn reader(self: &Arc<Self>) -> Body {
        let mut state = self.state();
        state.reader += 1;
        Body::wrap(Reader {
            replay: Arc::clone(self),
            reader: state.reader,
            next: 0,
            streaming_past: false,
        })
    }

    /// Whether the body is committed, asked once an attempt failed: its
    /// reader reads no more, so that the answer holds until the next
    /// attempt takes over.
    pub(super) fn committed(&self) -> bool {
        let mut state = self.state();
        state.reader += 1;
        state.committed
    }
}

/// A copy of `request` for one attempt: with a reader of `replay` as its
/// body, if its body streams.
pub(super) fn copy(request: &Request, replay: Option<&Arc<Replay>>) -> Option<Request> {
    let mut copy = request.try_clone()?;
    if let Some(replay) = replay {
        *copy.body_mut() = Some(replay.reader());
    }
    Some(copy)
}

/// The middleware's hedging rule, but for a request whose body streams.
pub(super) struct UnlessStreamed<'h, H>(pub(super) &'h H, pub(super) bool);

impl<H: Hedgeable<Request>> Hedgeable<Request> for UnlessStreamed<'_, H> {
    fn hedgeable(&self, request: &Request) -> bool {
        !self.1 && self.0.hedgeable(request)
    }
}

/// One attempt's body: the chunks kept, then the rest of the stream.
struct Reader {
    replay: Arc<Replay>,
    reader: u64,
    /// The next kept chunk to give.
    next: usize,
    /// This reader took the stream past the limit: it streams on, and
    /// keeps nothing.
    streaming_past: bool,
}

impl HttpBody for Reader {
    type Data = Bytes;
    type Error = Box<dyn StdError + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let replay = Arc::clone(&this.replay);
        let mut state = replay.state();
        if state.reader != this.reader {
            return Poll::Ready(Some(Err(Box::new(NotReplayed::Superseded))));
        }
        if state.committed && !this.streaming_past {
            return Poll::Ready(Some(Err(Box::new(NotReplayed::Committed(replay.limit)))));
        }
        if let Some(chunk) = state.kept.get(this.next) {
            this.next += 1;
            return Poll::Ready(Some(Ok(Frame::data(chunk.clone()))));
        }
        if state.ended {
            return Poll::Ready(None);
        }
        let Some(source) = state.source.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = ready!(Pin::new(source).poll_frame(cx));
        let state = &mut *state;
        match polled {
            None => {
                state.ended = true;
                state.source = None;
                Poll::Ready(None)
            }
            Some(Err(error)) => {
                state.commit();
                state.source = None;
                Poll::Ready(Some(Err(Box::new(error))))
            }
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) if !this.streaming_past && state.len + data.len() <= replay.limit => {
                    state.len += data.len();
                    state.kept.push(data.clone());
                    this.next += 1;
                    Poll::Ready(Some(Ok(Frame::data(data))))
                }
                Ok(data) => {
                    state.commit();
                    this.streaming_past = true;
                    Poll::Ready(Some(Ok(Frame::data(data))))
                }
                // Trailers: kept by no buffer here, so sent once.
                Err(frame) => {
                    state.commit();
                    this.streaming_past = true;
                    Poll::Ready(Some(Ok(frame)))
                }
            },
        }
    }
}

impl State {
    /// The body can't be sent again: what was kept goes.
    fn commit(&mut self) {
        self.committed = true;
        self.kept = Vec::new();
        self.len = 0;
    }
}

/// Why a replayed body was not read.
#[derive(Debug)]
enum NotReplayed {
    /// A later attempt took the body over.
    Superseded,
    /// The body passed its buffer of so many bytes.
    Committed(usize),
}

impl fmt::Display for NotReplayed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotReplayed::Superseded => f.write_str("a later attempt sends the body now"),
            NotReplayed::Committed(limit) => write!(
                f,
                "the streamed body passed its replay buffer of {limit} bytes, so it can't be sent again"
            ),
        }
    }
}

impl StdError for NotReplayed {}
