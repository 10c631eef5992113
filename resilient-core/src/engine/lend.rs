//! The retries of an async `#[resilient]` function, compiled once for each
//! of an operation's types instead of once per function.
//!
//! A retry loop generic over the function's body is a new loop, a new
//! attempt future and a new race for every function: most of an async
//! function's build. Here the body reaches one shared loop through a trait
//! object, each attempt's future boxed, so that what is compiled per
//! function is only the line that boxes it.
//!
//! A boxed future is `Send` or not once and for all, where the body's own
//! future is `Send` when what it holds is. So the expansion asks first,
//! of the function's argument, success and error types (never of the body,
//! whose future is still being inferred): when every argument is `Send` and
//! `Sync` and the values are `Send`, the body's futures are boxed as `Send`
//! ([`LentSend`]), and the function's future stays `Send`; otherwise they
//! are boxed as they are ([`LentLocal`]), and the function's future is not
//! `Send`, as it would not have been with such an argument. The question is
//! asked by method resolution on [`Pick`]: [`ViaSend`] answers for the
//! `Send` types, [`ViaLocal`] (one reference further) for any.
//!
//! Nothing here is an API of its own: `#[resilient]` expands to it.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use super::execution::Execution;
use super::hooks::HookSet;
use crate::attempt::Attempt;
use crate::clock::Clock;

/// One attempt's future, boxed as `Send`.
pub type SendAttempt<'a, T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send + 'a>>;

/// One attempt's future, boxed as it is.
pub type LocalAttempt<'a, T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + 'a>>;

/// One way to box a body's futures: the trait the shared loop calls, the
/// body with the closure that boxes them, and the way into the loop.
macro_rules! lending {
    (
        $boxed:ident, $lend:ident, $lent:ident, $run:ident, $via:ident, [$($send:tt)*],
        $lend_doc:literal, $lent_doc:literal, $via_doc:literal
    ) => {
        #[doc = $via_doc]
        pub trait $via<T, E> {
            /// `body`, whose futures `boxing` boxes.
            #[inline]
            fn lend<'s, S, L>(&self, body: &'s mut S, boxing: L) -> $lent<'s, S, L>
            where
                L: for<'a> Fn(&'a mut S, Attempt) -> $boxed<'a, T, E>,
            {
                $lent { body, boxing }
            }
        }

        #[doc = $lend_doc]
        pub trait $lend<T, E> {
            /// The future of the attempt `attempt`.
            fn attempt(&mut self, attempt: Attempt) -> $boxed<'_, T, E>;
        }

        #[doc = $lent_doc]
        pub struct $lent<'s, S, L> {
            body: &'s mut S,
            boxing: L,
        }

        impl<T, E, S, L> $lend<T, E> for $lent<'_, S, L>
        where
            L: for<'a> Fn(&'a mut S, Attempt) -> $boxed<'a, T, E>,
        {
            #[inline]
            fn attempt(&mut self, attempt: Attempt) -> $boxed<'_, T, E> {
                (self.boxing)(&mut *self.body, attempt)
            }
        }

        impl<'s, S $($send)*, L $($send)*> $lent<'s, S, L> {
            /// Runs `exec`'s remaining primary attempts through the body:
            /// the loop, on the heap, is the same for every function of
            /// `exec`'s types.
            #[inline]
            pub fn retry<'x, 'o, 'b, T, E, C, H>(
                &'x mut self,
                exec: &'x mut Execution<'o, 'b, T, E, C, H>,
            ) -> Pin<Box<impl Future<Output = ()> + 'x>>
            where
                L: for<'a> Fn(&'a mut S, Attempt) -> $boxed<'a, T, E>,
                C: Clock,
                H: HookSet<T, E>,
            {
                Box::pin(exec.$run(self))
            }
        }
    };
}

lending!(
    SendAttempt, LendSend, LentSend, retry_lent_send, ViaSend, [: Send],
    "A body that lends each attempt a future borrowing it, boxed as `Send`.",
    "A function's body and the closure that boxes its futures as `Send`.",
    "Boxes a body's futures as `Send`: for argument and value types that are."
);

lending!(
    LocalAttempt,
    LendLocal,
    LentLocal,
    retry_lent_local,
    ViaLocal,
    [],
    "A body that lends each attempt a future borrowing it.",
    "A function's body and the closure that boxes its futures.",
    "Boxes a body's futures as they are: for any types."
);

/// Picks how a function's futures are boxed, from its argument types `P`
/// (a tuple), its success type `T` and its error type `E`: see the module.
pub struct Pick<P, T, E>(PhantomData<Asked<P, T, E>>);

/// The types a [`Pick`] asks about, held by none of its values.
type Asked<P, T, E> = fn() -> (P, T, E);

impl<P, T, E> Pick<P, T, E> {
    /// The question, asked by calling `lend` on a borrow of it.
    #[inline]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<P, T, E> Default for Pick<P, T, E> {
    fn default() -> Self {
        Self::new()
    }
}

// `ViaSend` answers for the types that are `Send`; `ViaLocal`, one reference
// further, for any: method resolution tries the first before the second.
impl<P: Send + Sync, T: Send, E: Send> ViaSend<T, E> for Pick<P, T, E> {}

impl<P, T, E> ViaLocal<T, E> for &Pick<P, T, E> {}
