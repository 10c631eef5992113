//! The breaker's packed atomic words and the one compare-and-swap loop that
//! changes them.
//!
//! What the breaker decides on lives in 64-bit words that are replaced whole,
//! so that a reader never sees half of a change: the state word ([`Word`]),
//! the consecutive-failure count ([`Streak`]) and the sampling window's
//! counts. A change is a pure step
//! `current -> Option<next>` handed to [`Packed::transition`]; the loop that
//! retries the step when another thread changed the word first is written
//! once, here.

use super::CircuitState;
use super::atomic::{AtomicU64, Ordering};
use std::marker::PhantomData;

/// A value that fits in one atomic 64-bit word.
pub(super) trait Pack: Copy {
    fn pack(self) -> u64;
    fn unpack(bits: u64) -> Self;
}

/// An atomic cell holding a [`Pack`] value.
pub(super) struct Packed<T> {
    bits: AtomicU64,
    value: PhantomData<T>,
}

impl<T: Pack> Packed<T> {
    pub(super) fn new(value: T) -> Self {
        Self {
            bits: AtomicU64::new(value.pack()),
            value: PhantomData,
        }
    }

    pub(super) fn load(&self) -> T {
        T::unpack(self.bits.load(Ordering::Acquire))
    }

    /// Sets the value whatever it was.
    ///
    /// A swap rather than a store, so that every write to a packed word is a
    /// read-modify-write: loom lets a plain store slip between the read and
    /// the write of another thread's swap (tokio-rs/loom#254), which would
    /// make the models report histories no real machine can produce.
    pub(super) fn replace(&self, value: T) {
        self.bits.swap(value.pack(), Ordering::AcqRel);
    }

    /// Replaces the value by `step(current)` in one compare-and-swap,
    /// re-running `step` on the fresh value whenever another thread changed
    /// the word in between.
    ///
    /// Returns `Ok((old, new))` once swapped, or `Err(current)` as soon as
    /// `step` declines. A step that returns the value unchanged succeeds
    /// without writing, so a decision that changes nothing costs one load.
    pub(super) fn transition(&self, step: impl Fn(T) -> Option<T>) -> Result<(T, T), T> {
        let mut bits = self.bits.load(Ordering::Acquire);
        loop {
            let current = T::unpack(bits);
            let Some(next) = step(current) else {
                return Err(current);
            };
            let next_bits = next.pack();
            if next_bits == bits {
                return Ok((current, next));
            }
            match self.bits.compare_exchange_weak(
                bits,
                next_bits,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok((current, next)),
                Err(actual) => bits = actual,
            }
        }
    }
}

/// Largest number of probes the state word can count.
pub(super) const MAX_PROBES: u32 = (1 << 29) - 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tag {
    Closed = 0,
    /// On the way to `Open`: `opened_at` is still being written. Rejects,
    /// like `Open` before its break has elapsed.
    Opening = 1,
    Open = 2,
    HalfOpen = 3,
    /// On the way to `Closed`: the closed period's counts are still being
    /// reset. Rejects, like a half-open breaker with every probe slot taken.
    Closing = 4,
    /// Held open by [`CircuitBreaker::isolate`](super::CircuitBreaker::isolate)
    /// until [`reset`](super::CircuitBreaker::reset): rejects every call,
    /// whatever the time.
    Isolated = 5,
}

/// The breaker's state word: `generation (32) | probes in flight (29) | tag (3)`.
///
/// The generation changes on every transition, so a permit can tell whether
/// the state it was issued in is still current.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Word {
    pub(super) tag: Tag,
    pub(super) probes: u32,
    pub(super) generation: u32,
}

impl Word {
    pub(super) fn new(tag: Tag, probes: u32, generation: u32) -> Self {
        Self {
            tag,
            probes,
            generation,
        }
    }

    /// Whether this is `tag` in `generation`.
    pub(super) fn is(self, tag: Tag, generation: u32) -> bool {
        self.tag == tag && self.generation == generation
    }

    /// The state this word shows once it is settled; `None` while it is on
    /// its way to another.
    pub(super) fn settled(self) -> Option<CircuitState> {
        match self.tag {
            Tag::Closed => Some(CircuitState::Closed),
            Tag::Open => Some(CircuitState::Open),
            Tag::HalfOpen => Some(CircuitState::HalfOpen),
            Tag::Isolated => Some(CircuitState::Isolated),
            Tag::Opening | Tag::Closing => None,
        }
    }

    /// The first word of the next generation, in state `tag` with `probes`
    /// in flight.
    pub(super) fn next(self, tag: Tag, probes: u32) -> Self {
        Self::new(tag, probes, self.generation.wrapping_add(1))
    }
}

impl Pack for Word {
    fn pack(self) -> u64 {
        (u64::from(self.generation) << 32)
            | (u64::from(self.probes & MAX_PROBES) << 3)
            | self.tag as u64
    }

    fn unpack(bits: u64) -> Self {
        let tag = match bits & 0b111 {
            0 => Tag::Closed,
            1 => Tag::Opening,
            2 => Tag::Open,
            3 => Tag::HalfOpen,
            5 => Tag::Isolated,
            // Only `pack` writes the word, and it never writes 6 or 7.
            _ => Tag::Closing,
        };
        Self {
            tag,
            probes: ((bits >> 3) as u32) & MAX_PROBES,
            generation: (bits >> 32) as u32,
        }
    }
}

/// Consecutive failures of one closed period: `generation (32) | failures (32)`.
///
/// The count carries the generation of the closed period it counts, so a
/// failure reported by a permit of an older period, however late, can't
/// add to it: the update is a swap that expects the permit's generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Streak {
    pub(super) generation: u32,
    pub(super) failures: u32,
}

impl Streak {
    /// No failure yet in the closed period `generation`.
    pub(super) fn new(generation: u32) -> Self {
        Self {
            generation,
            failures: 0,
        }
    }

    pub(super) fn bump(self) -> Self {
        Self {
            failures: self.failures.saturating_add(1),
            ..self
        }
    }
}

impl Pack for Streak {
    fn pack(self) -> u64 {
        (u64::from(self.generation) << 32) | u64::from(self.failures)
    }

    fn unpack(bits: u64) -> Self {
        Self {
            generation: (bits >> 32) as u32,
            failures: bits as u32,
        }
    }
}
