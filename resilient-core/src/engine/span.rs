//! The span of each attempt the engine runs (feature `tracing`):
//! `resilient.attempt`, with the attributes OpenTelemetry's semantic
//! conventions name, so that `tracing-opentelemetry` exports them as they
//! are: `operation` (the call's name), `attempt` (1 for the first) and,
//! on a failed attempt, `error.type` (`timeout` for an attempt cut at its
//! deadline, else the error's type name). The tower layer and the reqwest
//! middleware make their own (`tower/span.rs`), with
//! `http.request.resend_count`; the engine makes none for their attempts.
//!
//! An attempt's future holds no span: the pins of tests/suite/future_size.rs
//! leave no room for one. While a subscriber wants these spans, a first
//! attempt takes the engine's general path ([`enabled`]), and an async
//! attempt's span is kept here, by the address of its [`Grant`], which
//! does not move while the attempt is polled: made at its first poll,
//! entered at each, closed when it ends or is dropped. Without a
//! subscriber that wants them, an attempt reads one callsite's interest
//! and nothing else; without the feature, nothing here is compiled in
//! but the empty [`SpanName`].
//!
//! [`Grant`]: super::attempt::run::Grant

use std::marker::PhantomData;

/// The name an attempt's span is given, or none where the caller makes
/// its own span (the tower layer, the reqwest middleware): empty without
/// the feature.
#[derive(Clone, Copy)]
pub(crate) struct SpanName<'a> {
    #[cfg(feature = "tracing")]
    name: Option<&'a str>,
    of: PhantomData<&'a str>,
}

impl<'a> SpanName<'a> {
    /// No span.
    pub(crate) const NONE: SpanName<'static> = SpanName {
        #[cfg(feature = "tracing")]
        name: None,
        of: PhantomData,
    };

    /// The span of an attempt of the operation `name`, unless
    /// `elsewhere`: its caller makes one.
    #[inline(always)]
    #[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
    pub(crate) fn of(name: &'a str, elsewhere: bool) -> Self {
        SpanName {
            #[cfg(feature = "tracing")]
            name: (!elsewhere).then_some(name),
            of: PhantomData,
        }
    }
}

#[cfg(feature = "tracing")]
pub(crate) use on::{dropped, enabled, ended, within};

#[cfg(not(feature = "tracing"))]
pub(crate) use off::{dropped, enabled, ended, within};

#[cfg(not(feature = "tracing"))]
mod off {
    use super::SpanName;
    use crate::report::FailureKind;

    #[inline(always)]
    pub(crate) const fn enabled() -> bool {
        false
    }

    #[inline(always)]
    pub(crate) fn within<R>(_: usize, _: SpanName<'_>, _: u32, f: impl FnOnce() -> R) -> R {
        f()
    }

    #[inline(always)]
    pub(crate) fn ended<T, E>(_: usize, _: &Result<T, (E, FailureKind)>) {}

    #[inline(always)]
    pub(crate) fn dropped(_: usize) {}
}

#[cfg(feature = "tracing")]
mod on {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{LazyLock, Mutex, PoisonError};

    use tracing::Span;
    use tracing::field::Empty;

    use super::SpanName;
    use crate::report::FailureKind;

    /// The spans of the async attempts in flight, by their grant's address.
    static LIVE: LazyLock<Mutex<HashMap<usize, Span>>> = LazyLock::new(Default::default);
    /// How many: an attempt's end looks them up only if any.
    static COUNT: AtomicUsize = AtomicUsize::new(0);

    /// Whether a subscriber wants the attempts' spans.
    #[inline(always)]
    pub(crate) fn enabled() -> bool {
        tracing::enabled!(tracing::Level::INFO)
    }

    fn span(operation: &str, number: u32) -> Span {
        tracing::info_span!(
            "resilient.attempt",
            operation,
            attempt = number,
            "error.type" = Empty,
        )
    }

    /// Runs `f`, a poll of attempt `number` whose grant is at `key`,
    /// inside its span: made at its first poll, kept until it ends.
    #[inline]
    pub(crate) fn within<R>(
        key: usize,
        name: SpanName<'_>,
        number: u32,
        f: impl FnOnce() -> R,
    ) -> R {
        match name.name {
            Some(operation) if enabled() => entered(key, operation, number, f),
            _ => f(),
        }
    }

    #[cold]
    #[inline(never)]
    fn entered<R>(key: usize, operation: &str, number: u32, f: impl FnOnce() -> R) -> R {
        let span = LIVE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_insert_with(|| {
                COUNT.fetch_add(1, Ordering::Relaxed);
                span(operation, number)
            })
            .clone();
        span.in_scope(f)
    }

    /// Attempt `key` ended with `result`: its span says how, and closes.
    #[inline]
    pub(crate) fn ended<T, E>(key: usize, result: &Result<T, (E, FailureKind)>) {
        if COUNT.load(Ordering::Relaxed) == 0 {
            return;
        }
        if let Some(span) = take(key)
            && let Err((_, kind)) = result
        {
            span.record("error.type", error_type::<E>(*kind));
        }
    }

    /// A blocking attempt in `span` ended with `result`.
    pub(crate) fn failed<T, E>(span: &Span, result: &Result<T, E>) {
        if result.is_err() {
            span.record("error.type", error_type::<E>(FailureKind::Operation));
        }
    }

    /// Attempt `key` was dropped before it ended: its span closes.
    #[inline]
    pub(crate) fn dropped(key: usize) {
        if COUNT.load(Ordering::Relaxed) != 0 {
            drop(take(key));
        }
    }

    #[cold]
    fn take(key: usize) -> Option<Span> {
        let span = LIVE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&key)?;
        COUNT.fetch_sub(1, Ordering::Relaxed);
        Some(span)
    }

    /// OpenTelemetry's `error.type` of a failure of `kind` with an `E`.
    fn error_type<E>(kind: FailureKind) -> &'static str {
        match kind {
            FailureKind::Timeout => "timeout",
            _ => std::any::type_name::<E>(),
        }
    }

    /// Runs the blocking attempt `number` of `name`, `f`, in its span.
    #[inline]
    pub(crate) fn blocking<T, E>(
        name: SpanName<'_>,
        number: u32,
        f: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        match name.name {
            Some(operation) if enabled() => {
                let span = span(operation, number);
                let result = span.in_scope(f);
                failed(&span, &result);
                result
            }
            _ => f(),
        }
    }
}

/// Runs the blocking attempt `number` of `name`, `f`, in its span.
#[inline(always)]
pub(crate) fn blocking<T, E>(
    name: SpanName<'_>,
    number: u32,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    #[cfg(feature = "tracing")]
    return on::blocking(name, number, f);
    #[cfg(not(feature = "tracing"))]
    {
        let _ = (name, number);
        f()
    }
}
