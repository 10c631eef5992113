//! The terms of a call's first attempt, and the one test of whether it
//! may run outside the engine ([`engaged`]).
//!
//! A first attempt that no gate must admit, on an operation whose
//! settings and installed entry ask nothing of the engine, runs on a fast
//! path: two clock readings and, on success, a report of one record built
//! in place. Every such path, whatever builds it, asks [`engaged`], and
//! nothing else, whether it may; a new reason to take the engine's
//! general path is a line there.

use std::time::Duration;

use crate::engine::span;
use crate::observe::Tally;
use crate::settings::Settings;

/// What a call's first attempt is granted, read before its future is
/// made ([`__private::first_attempt_async`](crate::__private::first_attempt_async)
/// and [`first_attempt_async_of`](crate::__private::first_attempt_async_of)).
pub struct FirstTerms<E> {
    /// The attempt must run through the engine: see [`engaged`].
    pub(crate) general: bool,
    pub(crate) deadline: Option<Duration>,
    /// The error of an attempt cut at its deadline, if the operation
    /// interrupts there.
    pub(crate) timed_out: Option<fn() -> E>,
    /// The configuration read, for the retries, and where the settings
    /// came from.
    pub(crate) read: Read,
}

impl<E> FirstTerms<E> {
    /// The terms of the first attempt of an operation of `settings`,
    /// under its installed `entry`: its deadline, cut with `timed_out`'s
    /// error where the operation interrupts at it; `gated` if a gate must
    /// admit it; `heard` if a first success is told by name (see
    /// [`Entry::general`]).
    #[inline(always)]
    pub(crate) fn of(
        settings: &Settings,
        entry: Entry,
        (gated, heard): (bool, bool),
        timed_out: Option<fn() -> E>,
    ) -> Self {
        let deadline = entry.deadline(settings);
        FirstTerms {
            general: engaged(gated, settings.holds_nested(), entry.general(heard), true),
            deadline,
            timed_out: if deadline.is_some() { timed_out } else { None },
            read: entry.read(),
        }
    }
}

/// Whether a call's first attempt must run through the engine rather than
/// on a fast path: the one test every fast path asks.
///
/// * `gated`: a gate must admit it (a breaker, a limiter, an adaptive
///   throttle, a chaos switch that is on; a layer's hedges and headers);
/// * inside another call's attempt, the engine grants what that attempt
///   has left;
/// * `holds_nested`: a call that holds the retries of the calls inside it
///   tells them so from the engine;
/// * `configured`: an entry of the installed configuration that the fast
///   path can't apply ([`Entry::general`]);
/// * the process's retry budget is in force
///   ([`budget_default`](crate::throttle::budget_default)): the engine
///   tells it of every result;
/// * `spans`: the attempt's `tracing` span is the engine's to make, and a
///   subscriber wants it (a layer makes its own: `false`).
#[inline(always)]
pub(crate) fn engaged(gated: bool, holds_nested: bool, configured: bool, spans: bool) -> bool {
    gated
        || crate::deadline::enclosed()
        || holds_nested
        || configured
        || crate::throttle::default_in_force()
        || (spans && span::enabled())
}

/// What a first attempt on the fast path reads of the installed
/// configuration (feature `config`) for its operation: whether the call
/// must take the general path instead, what its entry makes of the first
/// attempt's deadline, and where its settings came from. While the
/// configuration the operation's `static` read is the one installed, that
/// is two to six loads and their branches; one while
/// nothing was ever installed; nothing without the feature.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    #[cfg(feature = "config")]
    first: crate::config::First,
}

impl Entry {
    /// The call takes the general path: its operation has no `static` to
    /// keep its entry in, or it has an entry and a first success of it is not
    /// `heard` by [`NamedListeners`](crate::engine::plan::NamedListeners), which say where its settings came
    /// from.
    #[inline(always)]
    pub(crate) fn general(self, heard: bool) -> bool {
        #[cfg(feature = "config")]
        return self.first.general
            || (crate::config::version_of(self.first.read).is_some() && !heard);
        #[cfg(not(feature = "config"))]
        {
            let _ = heard;
            false
        }
    }

    /// The first attempt's deadline in an operation of these `settings`,
    /// with the entry's `timeout` and `budget` applied where it sets them.
    #[inline(always)]
    pub(crate) fn deadline(self, settings: &Settings) -> Option<Duration> {
        #[cfg(feature = "config")]
        if !self.first.bounds.kept() {
            return self
                .first
                .bounds
                .first_deadline(settings.timeout, settings.budget);
        }
        crate::settings::deadline(settings, 0)
    }

    /// The configuration it read: for the report of a first success,
    /// and for the retries if the attempt fails.
    #[inline(always)]
    pub(crate) fn read(self) -> Read {
        Read {
            #[cfg(feature = "config")]
            packed: self.first.read,
        }
    }
}

/// The entry of the operation `name`, counted in `tally`, in the installed
/// configuration, as its first attempt reads it.
#[inline(always)]
pub(crate) fn entry(name: &str, tally: Option<&'static Tally>) -> Entry {
    #[cfg(feature = "config")]
    return Entry {
        first: crate::config::first(name, tally.map(|tally| &tally.config)),
    };
    #[cfg(not(feature = "config"))]
    {
        let _ = (name, tally);
        Entry {}
    }
}

/// The configuration a call read (feature `config`): in its report, for
/// where its settings came from, and, after a first attempt that failed,
/// for its retries, which read the same configuration. Four bytes
/// (`config::packed`); nothing without the feature.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Read {
    #[cfg(feature = "config")]
    pub(crate) packed: u32,
}

impl Read {
    /// Nothing read yet: the retries read the configuration installed.
    pub(crate) const UNREAD: Read = Read {
        #[cfg(feature = "config")]
        packed: crate::config::UNKNOWN,
    };

    /// Read when nothing was ever installed: the operation's own
    /// settings.
    pub(crate) const NOTHING: Read = Read {
        #[cfg(feature = "config")]
        packed: 0,
    };
}
