//! A call's attempt as one value, from the terms it is granted to the
//! record it leaves.
//!
//! * `terms.rs`: the terms of a call's first attempt (its deadline, the
//!   error its deadline cuts it with, the configuration it read), and
//!   the one test of whether that attempt may run outside the engine,
//!   which every fast path asks: the attribute's, `Operation`'s, the
//!   recipe's, the tower layer's and the reqwest middleware's;
//! * `open.rs`: an attempt in flight, as its record will tell it, and
//!   the one writer of its record ([`Open::close`](open::Open::close));
//! * `run.rs`: the attempt runner, blocking and async, and the context
//!   each attempt runs from ([`AttemptContext`](run::AttemptContext)): the
//!   one place an attempt's body is polled within its deadline and span.

pub(crate) mod open;
pub(crate) mod run;
pub(crate) mod terms;
