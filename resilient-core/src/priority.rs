//! [`Priority`], what a call carries, and [`Priorities`], the share of a
//! limit each priority may fill: a saturated limit sheds the lowest
//! priority first. A leaf, public as `resilient::limit::{Priority,
//! Priorities}`, which the settings and the refusal name too.

use std::fmt;

/// How much a call matters when a limit is saturated: the levels of
/// failsafe-go's prioritizer, lowest first. A call that says nothing is
/// [`Medium`](Priority::Medium).
///
/// Set with the attribute's `priority = High`, `.priority(Priority::High)`
/// on `Operation`, the closure API or a `RetryPolicy`, and on a request
/// through the tower layer (`priority_of`) or the reqwest middleware (a
/// `Priority` in the request's extensions). Only a limiter built to shed
/// by priority (`Bulkhead::shed_by_priority`,
/// `AdaptiveLimit::shed_by_priority`)
/// reads it.
///
/// ```
/// use resilient::limit::Priority;
///
/// assert!(Priority::Critical > Priority::High);
/// assert_eq!(Priority::default(), Priority::Medium);
/// assert_eq!(Priority::VeryLow.to_string(), "very_low");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Shed first: prefetches, analytics.
    VeryLow,
    /// Background work.
    Low,
    /// What a call that says nothing is.
    #[default]
    Medium,
    /// User-facing work.
    High,
    /// Shed last: health checks, payments.
    Critical,
}

impl Priority {
    /// Every level, lowest first.
    pub const ALL: [Priority; 5] = [
        Priority::VeryLow,
        Priority::Low,
        Priority::Medium,
        Priority::High,
        Priority::Critical,
    ];

    /// Its name in `snake_case`, as the metrics label it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Priority::VeryLow => "very_low",
            Priority::Low => "low",
            Priority::Medium => "medium",
            Priority::High => "high",
            Priority::Critical => "critical",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The share of a limit reserved for each priority, which no lower
/// priority may take: a call may take a permit only while fewer are held
/// than the limit less the reserves of every level above its own. So as
/// a limit fills, the lowest priority is refused first, and the highest
/// always finds its reserve (Netflix's partitioned limiter, where a
/// partition's share is guaranteed to it).
///
/// [`Priorities::new`] reserves 10 % for each level above
/// [`VeryLow`](Priority::VeryLow): of a limit of 10, `VeryLow` fills 6,
/// `Low` 7, `Medium` 8, `High` 9 and `Critical` all 10. Shares are of the
/// limit in force and rounded down, so a limit too small to reserve
/// anything sheds nothing.
///
/// ```
/// use resilient::limit::{Priorities, Priority};
///
/// let default = Priorities::new();
/// assert_eq!(default.most(Priority::VeryLow, 10), 6);
/// assert_eq!(default.most(Priority::Critical, 10), 10);
///
/// // A quarter kept for critical calls alone; the others share the rest.
/// let partitioned = Priorities::none().reserve(Priority::Critical, 0.25);
/// assert_eq!(partitioned.most(Priority::High, 20), 15);
/// assert_eq!(partitioned.most(Priority::VeryLow, 20), 15);
/// assert_eq!(partitioned.most(Priority::Critical, 20), 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Priorities {
    /// Each level's reserve, in thousandths of the limit, lowest first.
    reserved: [u16; 5],
}

impl Default for Priorities {
    fn default() -> Self {
        Priorities::new()
    }
}

impl Priorities {
    /// 10 % of the limit reserved for each level above `VeryLow`.
    pub const fn new() -> Priorities {
        Priorities {
            reserved: [0, 100, 100, 100, 100],
        }
    }

    /// Nothing reserved: every priority fills the whole limit, until
    /// [`reserve`](Self::reserve) sets a share.
    pub const fn none() -> Priorities {
        Priorities { reserved: [0; 5] }
    }

    /// Reserves `share` of the limit (0 to 1; NaN counts as 0) for
    /// `priority`: the levels below it may not take it. Reserves add up,
    /// to at most the whole limit.
    pub const fn reserve(mut self, priority: Priority, share: f64) -> Priorities {
        let share = if share.is_nan() {
            0.0
        } else {
            share.clamp(0.0, 1.0)
        };
        self.reserved[priority.index()] = (share * 1000.0) as u16;
        self
    }

    /// The most permits that may be held for a call of `priority` to take
    /// one more, of `limit`.
    pub const fn most(&self, priority: Priority, limit: u32) -> u32 {
        let mut above: u32 = 0;
        let mut level = priority.index() + 1;
        while level < self.reserved.len() {
            above += self.reserved[level] as u32;
            level += 1;
        }
        let above = if above > 1000 { 1000 } else { above };
        let kept = (limit as u64 * above as u64 / 1000) as u32;
        limit - kept
    }
}

/// The [`Priority`] an `http::Request` carries in its extensions, for the
/// tower layer's `priority_of` (feature `http`).
///
/// ```
/// use resilient::limit::{Priority, priority_extension};
/// use resilient::tower::ResilientLayer;
///
/// let mut request = http::Request::get("/reports").body(()).unwrap();
/// request.extensions_mut().insert(Priority::Low);
/// assert_eq!(priority_extension(&request), Some(Priority::Low));
/// let layer = ResilientLayer::new().priority_of(priority_extension::<String>);
/// # let _ = layer;
/// ```
#[cfg(feature = "http")]
pub fn priority_extension<B>(request: &http::Request<B>) -> Option<Priority> {
    request.extensions().get::<Priority>().copied()
}
