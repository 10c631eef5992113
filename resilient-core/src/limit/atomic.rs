//! The atomics the lock-free limiters are built on: std's, or loom's while
//! the loom models run (`RUSTFLAGS="--cfg loom"`, unit tests only), so that
//! loom can explore every interleaving of their loads and swaps.
//!
//! loom's atomics are made at run time, so under loom the limiters'
//! `const fn` constructors lose their `const`: [`const_unless_loom`].

#[cfg(all(test, loom))]
pub(super) use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(not(all(test, loom)))]
pub(super) use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Declares a `const fn`, or under loom the same plain `fn`.
macro_rules! const_unless_loom {
    ($(#[$attr:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        #[cfg(not(all(test, loom)))]
        $(#[$attr])*
        $vis const fn $name($($arg: $ty),*) -> $ret $body

        #[cfg(all(test, loom))]
        $(#[$attr])*
        $vis fn $name($($arg: $ty),*) -> $ret $body
    };
    ($(#[$attr:meta])* $vis:vis fn $name:ident($this:ident, $($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        #[cfg(not(all(test, loom)))]
        $(#[$attr])*
        $vis const fn $name($this, $($arg: $ty),*) -> $ret $body

        #[cfg(all(test, loom))]
        $(#[$attr])*
        $vis fn $name($this, $($arg: $ty),*) -> $ret $body
    };
}
pub(super) use const_unless_loom;
