//! The run of `#[resilient]`'s expansion, one macro per shape of the
//! generated code. The attribute decides the shape and writes one call of
//! its macro with what the function gives (its name, its `static` counts,
//! the closure that builds the operation or the operation itself, the
//! attempt closure, the fallbacks); how the engine is driven, step by
//! step, is written here, next to the engine, and changes with it.
//!
//! These are macros rather than functions because an async run and a run
//! with fallbacks must be written where the function's arguments live:
//! each async attempt borrows the attempt closure for that attempt only,
//! at a lifetime the compiler knows there (a function that took the body
//! as an `AsyncFnMut` would make a future rustc can't prove `Send`), and
//! the last fallback takes the arguments themselves, once the attempt
//! closure that borrows them is done.
//!
//! Each macro is exported at the crate's root, hidden, and named in
//! `__private` by its shape. There are four: `blocking_on_demand` and
//! `async_on_demand` (every function but a hedged one), `built_hedged`
//! and `idempotent` (around one of the others). A function runs the same
//! way whether its `$make` builds an `Operation`, builds the `Recipe` of
//! its values (one function for every function of the same types), or
//! lends the operation built once before the run (an option's value read
//! from the arguments): the engine's `FirstReads` tells them apart and
//! reads the first attempt's terms from what `$make` gives, not the shape.
//! Where every value is a constant, those reads fold into constants.
//!
//! The fallbacks are given as `[filter], [fallback, …]`: the test of
//! `fallback_on` or `fallback_if` if either is given, then a closure per
//! fallback, in order, taking the error and the `Attempt`.

/// The fallbacks of a failed execution `$exec`, each called while one is
/// due, behind the filter if there is one: the errors it does not select
/// are returned as they are.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_fallbacks {
    ($exec:ident, blocking, [], [$($fallback:expr),*]) => {
        $(if $exec.needs_fallback() {
            $exec.fallback_blocking($fallback);
        })*
    };
    ($exec:ident, async, [], [$($fallback:expr),*]) => {
        $(if $exec.needs_fallback() {
            $exec.fallback_async($fallback).await;
        })*
    };
    // A chosen fallback answers an ignored error too: the filter names the
    // errors it answers, whatever else the operation makes of them.
    ($exec:ident, blocking, [$filter:expr], [$($fallback:expr),*]) => {
        if $exec.error().is_some_and($filter) {
            $(if $crate::__private::chosen_fallback_due(&$exec) {
                $exec.fallback_blocking($fallback);
            })*
        }
    };
    ($exec:ident, async, [$filter:expr], [$($fallback:expr),*]) => {
        if $exec.error().is_some_and($filter) {
            $(if $crate::__private::chosen_fallback_due(&$exec) {
                $exec.fallback_async($fallback).await;
            })*
        }
    };
}

/// The rest of an async run whose first attempt failed, on the execution
/// `$exec`: the retries, each an attempt of `$body`, then the fallbacks
/// and the outcome.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_async_rest {
    ($exec:ident, $body:ident, [$($filter:expr)?], [$($fallback:expr),*]) => {{
        while let ::core::option::Option::Some(mut next) =
            $crate::__private::next_running(&mut $exec).await
        {
            let work = ::core::pin::pin!($body(next.attempt()));
            $crate::__private::drive(&mut $exec, &mut next, work).await;
        }
        $crate::__resilient_fallbacks!($exec, async, [$($filter)?], [$($fallback),*]);
        $exec.finish()
    }};
}

/// [`__resilient_async_rest`] on the heap, so that the function's own
/// future holds the first attempt and not the retry machinery, which every
/// `spawn`, `Box::pin` and `block_on` of a call moves whole
/// (tests/suite/future_size.rs). An execution with nothing left to run (a
/// first attempt through a gate that succeeded) ends without the
/// allocation. A function with fallbacks keeps it all in its own future:
/// its last fallback takes the arguments themselves, which the attempt's
/// closure borrows, and a future made before the retries can't hold both.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_rest_on_heap {
    ($exec:ident, $body:ident, [], []) => {
        if $exec.stopped() {
            $exec.finish()
        } else {
            $crate::__private::on_heap(async { $crate::__resilient_async_rest!($exec, $body, [], []) })
                .await
        }
    };
    ($exec:ident, $body:ident, [$($filter:expr)?], [$($fallback:expr),+]) => {
        $crate::__resilient_async_rest!($exec, $body, [$($filter)?], [$($fallback),+])
    };
}

/// The blocking run after a `$first` attempt on the operation `$make`
/// builds, with fallbacks: the first attempt's outcome if it succeeded,
/// or else the attempts after it and each fallback while one is due. The
/// fallbacks come after the attempts: the last one takes the arguments
/// themselves, which the attempt closure `$body` borrows.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_blocking_after {
    ($first:expr, $make:ident, $body:ident, [$($filter:expr)?], [$($fallback:expr),+]) => {
        match $first {
            ::core::result::Result::Ok(done) => $crate::__private::outcome_from(done, &$make),
            ::core::result::Result::Err(first) => {
                let op = $crate::__private::built($make());
                match $crate::__private::run_after(&op, first, &mut $body) {
                    ::core::result::Result::Ok(done) => done,
                    ::core::result::Result::Err(mut exec) => {
                        $crate::__resilient_fallbacks!(exec, blocking, [$($filter)?], [$($fallback),+]);
                        exec.finish()
                    }
                }
            }
        }
    };
}

/// A blocking function: `Expansion::BlockingOnDemand`, whose every
/// attempt runs on what `$make` builds (an `Operation`, or a `Recipe` of
/// its values), built again wherever it is read, so that for values of
/// constants a first attempt that succeeds builds nothing; and
/// `Expansion::Built(Built::Blocking)`, whose `$make` lends the operation
/// built once, before the run.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_blocking_on_demand {
    ($make:expr, $attempt:expr, [], []) => {{
        let make = $make;
        let mut body = $crate::__private::attempt_blocking($attempt);
        $crate::__private::run_blocking_on_demand(&make, &mut body)
    }};
    ($make:expr, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),+]) => {{
        let make = $make;
        let mut body = $crate::__private::attempt_blocking($attempt);
        $crate::__resilient_blocking_after!(
            $crate::__private::first_attempt_of(&make, &mut body),
            make, body, [$($filter)?], [$($fallback),+]
        )
    }};
}

/// An async function: `Expansion::AsyncOnDemand`, whose every attempt
/// runs on what `$make` builds (an `Operation`, or a `Recipe` of its
/// values), built again wherever it is read; and
/// `Expansion::Built(Built::Async)`, whose `$make` lends the operation
/// built once, before the run. The first attempt by
/// `first_attempt_async_of`, or by `first_untimed_async_of` where no
/// deadline can be granted (`untimed`, else `timed`); then its outcome if
/// it succeeded, or else the operation built to resume the run after it.
/// Without gates (`ungated`), that whole rest, the operation included, is
/// on the heap, and the retry loop's own copy of the attempt serves every
/// retry; with gates (`gated`), the first attempt they admit runs here,
/// outside the heap, so that one that succeeds allocates nothing, and only
/// the retries go there.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_async_on_demand {
    ($gate:ident, untimed, $make:expr, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {
        $crate::__resilient_async_on_demand!(
            @first first_untimed_async_of, $gate, $make, $attempt, [$($filter)?], [$($fallback),*]
        )
    };
    ($gate:ident, timed, $make:expr, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {
        $crate::__resilient_async_on_demand!(
            @first first_attempt_async_of, $gate, $make, $attempt, [$($filter)?], [$($fallback),*]
        )
    };
    (
        @first $entry:ident, $gate:ident, $make:expr, $attempt:expr,
        [$($filter:expr)?], [$($fallback:expr),*]
    ) => {{
        let make = $make;
        let mut body = $crate::__private::attempt_async($attempt);
        match $crate::__private::$entry(&make, |given: $crate::Attempt| body(given)).await {
            ::core::result::Result::Ok(done) => $crate::__private::outcome_from(done, &make),
            ::core::result::Result::Err(first) => $crate::__resilient_async_on_demand!(
                @rest $gate, make, first, body, [$($filter)?], [$($fallback),*]
            ),
        }
    }};
    (@rest ungated, $make:ident, $first:ident, $body:ident, [], []) => {
        $crate::__private::on_heap(async {
            let op = $crate::__private::built($make());
            let mut exec = $crate::__private::resume(&op, $first);
            $crate::__resilient_async_rest!(exec, $body, [], [])
        })
        .await
    };
    (
        @rest ungated, $make:ident, $first:ident, $body:ident,
        [$($filter:expr)?], [$($fallback:expr),+]
    ) => {{
        let op = $crate::__private::built($make());
        let mut exec = $crate::__private::resume(&op, $first);
        $crate::__resilient_async_rest!(exec, $body, [$($filter)?], [$($fallback),+])
    }};
    (
        @rest gated, $make:ident, $first:ident, $body:ident,
        [$($filter:expr)?], [$($fallback:expr),*]
    ) => {{
        let op = $crate::__private::built($make());
        let mut exec =
            $crate::__private::resume_async(&op, $first, |given: $crate::Attempt| $body(given))
                .await;
        $crate::__resilient_rest_on_heap!(exec, $body, [$($filter)?], [$($fallback),*])
    }};
}

/// `Expansion::Built(Built::AsyncHedged)`: a hedged async run, which owns the
/// hedged operation `$op`. Hedged attempts run at once, so the attempt
/// closure is called through `&`.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_built_hedged {
    ($op:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {{
        let body = $attempt;
        match $op.run_primary_async(|given: $crate::Attempt| body(given)).await {
            ::core::result::Result::Ok(done) => done,
            ::core::result::Result::Err(mut exec) => {
                $crate::__resilient_fallbacks!(exec, async, [$($filter)?], [$($fallback),*]);
                exec.finish()
            }
        }
    }};
}

/// `Expansion::Idempotent`: the run of the operation built once, `$op`, as
/// the shape `$run` writes it, under an idempotency key: the whole run
/// (retries, breaker, fallbacks) becomes the body that the store runs at
/// most once per key. The run borrows the operation from the call, which
/// owns it: under the claim, `$op` names that borrow. An async call under
/// a key holds the store's futures and the whole run: on the heap, where
/// its key is already (tests/suite/future_size.rs).
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_idempotent {
    (
        blocking, $op:ident, $store:expr, $key:expr, $ttl:expr, [$($fingerprint:expr)?],
        $run:ident!($($shape:tt)*)
    ) => {{
        let mut call =
            $crate::__private::IdempotentCall::new($op, $store, $key, $ttl) $(.fingerprint($fingerprint))?;
        match call.claim_blocking() {
            ::core::result::Result::Ok(held) => {
                let $op = call.operation();
                call.run_blocking(held, || $crate::__private::$run!($($shape)*))
            }
            ::core::result::Result::Err(done) => done,
        }
    }};
    (
        async, $op:ident, $store:expr, $key:expr, $ttl:expr, [$($fingerprint:expr)?],
        $run:ident!($($shape:tt)*)
    ) => {
        $crate::__private::on_heap(async {
            let mut call =
                $crate::__private::IdempotentCall::new($op, $store, $key, $ttl) $(.fingerprint($fingerprint))?;
            match call.claim().await {
                ::core::result::Result::Ok(held) => {
                    let $op = call.operation();
                    call.run(held, async { $crate::__private::$run!($($shape)*) }).await
                }
                ::core::result::Result::Err(done) => done,
            }
        })
        .await
    };
}
