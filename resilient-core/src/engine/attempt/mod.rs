//! A call's attempt as one value, from the terms it is granted to the
//! record it leaves.
//!
//! * `terms.rs`: the terms of a call's first attempt (its deadline, the
//!   error its deadline cuts it with, the configuration it read), and
//!   the one test of whether that attempt may run outside the engine,
//!   which every fast path asks: the attribute's, `Operation`'s, the
//!   recipe's, the tower layer's and the reqwest middleware's.

pub(crate) mod terms;
