//! [`Open`]: an attempt in flight, as its record will tell it. What an
//! attempt's record says is gathered here, and [`Open::close`] is the only
//! place that writes a record: a call's first attempt, a retry, a hedge,
//! a fallback, and the first success of the fast path alike.
//!
//! A new field of each attempt's record is a field here, its setting where
//! the attempt learns it, and its reader on `AttemptRecord`.

use crate::chaos::Injection;
use crate::report::{AttemptKind, AttemptRecord, Delay};
use crate::time::Nanos;

/// An attempt in flight: what its record will say of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Open {
    pub(crate) number: u32,
    pub(crate) kind: AttemptKind,
    /// From the operation's start, after any wait for permits.
    pub(crate) started_at: u64,
    pub(crate) deadline: Nanos,
    /// Whether the deadline is what the attempt this call was made
    /// inside had left.
    pub(crate) inherited: bool,
    pub(crate) delay_before: Option<Delay>,
    /// How long it waited for its gates' permits.
    pub(crate) queued: u64,
    pub(crate) injected: Option<Injection>,
    /// The HTTP status of its response; 0 for none.
    pub(crate) status: u16,
}

impl Open {
    /// A call's first attempt, granted `deadline`, which waited `queued`
    /// for its permits and so started then.
    #[inline(always)]
    pub(crate) const fn first(deadline: Nanos, queued: u64) -> Open {
        Open {
            number: 1,
            kind: AttemptKind::Primary,
            started_at: queued,
            deadline,
            inherited: false,
            delay_before: None,
            queued,
            injected: None,
            status: 0,
        }
    }

    /// A fallback, attempt `number`, starting at `started_at`: no
    /// deadline, no delay of its own, no permits.
    #[inline]
    pub(crate) const fn fallback(number: u32, started_at: u64) -> Open {
        Open {
            number,
            kind: AttemptKind::Fallback,
            started_at,
            deadline: Nanos::NONE,
            inherited: false,
            delay_before: None,
            queued: 0,
            injected: None,
            status: 0,
        }
    }

    /// Its record, as far as it has run: the only writer of an
    /// [`AttemptRecord`].
    #[inline(always)]
    pub(crate) const fn close(self) -> AttemptRecord {
        AttemptRecord::opened(
            (self.number, self.kind),
            self.started_at,
            (self.deadline, self.inherited),
            self.delay_before,
            self.queued,
            self.injected,
            self.status,
        )
    }
}
