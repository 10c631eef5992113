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
//! `__private` by its shape: `blocking_recipe`, `blocking_unbuilt`,
//! `blocking_on_demand`, `async_recipe`, `async_on_demand`,
//! `built_blocking`, `built_async`, `built_hedged` and `idempotent`.
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
                let op = $make();
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

/// `Shape::BlockingRecipe`: a blocking function whose every option a
/// `Recipe` holds, without fallbacks. The first attempt runs unbuilt,
/// named `$name` and counted in `$tally`; a failure is finished by the one
/// function every function of the same types shares, on the values
/// `$make` writes.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_blocking_recipe {
    ($name:literal, $tally:ident, $make:ident, $attempt:expr) => {{
        let mut body = $crate::__private::attempt_blocking($attempt);
        $crate::__private::run_blocking_recipe($name, &$tally, &$make, &mut body)
    }};
}

/// `Shape::BlockingUnbuiltFirst`: a blocking function whose options are
/// all read only after a failure. The first attempt runs before the
/// operation `$make` builds exists, named `$name` and counted in
/// `$tally`.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_blocking_unbuilt {
    ($name:literal, $tally:ident, $make:ident, $attempt:expr, [], []) => {{
        let mut body = $crate::__private::attempt_blocking($attempt);
        $crate::__private::run_blocking_unbuilt($name, &$tally, &$make, &mut body)
    }};
    ($name:literal, $tally:ident, $make:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),+]) => {{
        let mut body = $crate::__private::attempt_blocking($attempt);
        $crate::__resilient_blocking_after!(
            $crate::__private::first_attempt_unbuilt($name, &$tally, &mut body),
            $make, body, [$($filter)?], [$($fallback),+]
        )
    }};
}

/// `Shape::BlockingOnDemand`: a blocking function whose every attempt,
/// the first too, runs on the operation `$make` builds.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_blocking_on_demand {
    ($make:ident, $attempt:expr, [], []) => {{
        let mut body = $crate::__private::attempt_blocking($attempt);
        $crate::__private::run_blocking_on_demand(&$make, &mut body)
    }};
    ($make:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),+]) => {{
        let mut body = $crate::__private::attempt_blocking($attempt);
        $crate::__resilient_blocking_after!(
            $crate::__private::first_attempt(&$make(), &mut body),
            $make, body, [$($filter)?], [$($fallback),+]
        )
    }};
}

/// An async run on an operation built on demand by `$make`: the first
/// attempt by `$entry` (`first_attempt_async_of`, or
/// `first_untimed_async_of` where no deadline can be granted), then its
/// outcome if it succeeded (`$success`: of a `Recipe` named `$name` and
/// counted in `$tally`, or of the operation), or else the operation built
/// (`$built`: a `Recipe` built, or the operation itself) to resume the
/// run after it. Without gates, that whole rest, the operation included,
/// is on the heap; with gates (`$gate` is `gated`, else `ungated`), the
/// first attempt they admit runs here, and only the retries go there.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_async_first {
    (
        $entry:ident, $success:tt, $built:tt, $gate:ident, $make:ident, $attempt:expr,
        [$($filter:expr)?], [$($fallback:expr),*]
    ) => {{
        let mut body = $crate::__private::attempt_async($attempt);
        match $crate::__private::$entry(&$make, |given: $crate::Attempt| body(given)).await {
            ::core::result::Result::Ok(done) => {
                $crate::__resilient_async_first!(@success $success, $make, done)
            }
            ::core::result::Result::Err(first) => $crate::__resilient_async_first!(
                @rest $gate, $built, $make, first, body, [$($filter)?], [$($fallback),*]
            ),
        }
    }};
    (@success (recipe $name:literal $tally:ident), $make:ident, $done:ident) => {
        $crate::__private::Recipe::outcome_from($done, $name, &$tally, &$make)
    };
    (@success operation, $make:ident, $done:ident) => {
        $crate::__private::outcome_from($done, &$make)
    };
    (@built recipe, $make:ident) => {
        $make().build()
    };
    (@built operation, $make:ident) => {
        $make()
    };
    (@rest ungated, $built:tt, $make:ident, $first:ident, $body:ident, [], []) => {
        $crate::__private::on_heap(async {
            let op = $crate::__resilient_async_first!(@built $built, $make);
            let mut exec = $crate::__private::resume(&op, $first);
            $crate::__resilient_async_rest!(exec, $body, [], [])
        })
        .await
    };
    (
        @rest ungated, $built:tt, $make:ident, $first:ident, $body:ident,
        [$($filter:expr)?], [$($fallback:expr),+]
    ) => {{
        let op = $crate::__resilient_async_first!(@built $built, $make);
        let mut exec = $crate::__private::resume(&op, $first);
        $crate::__resilient_async_rest!(exec, $body, [$($filter)?], [$($fallback),+])
    }};
    (
        @rest gated, $built:tt, $make:ident, $first:ident, $body:ident,
        [$($filter:expr)?], [$($fallback:expr),*]
    ) => {{
        let op = $crate::__resilient_async_first!(@built $built, $make);
        let mut exec =
            $crate::__private::resume_async(&op, $first, |given: $crate::Attempt| $body(given))
                .await;
        $crate::__resilient_rest_on_heap!(exec, $body, [$($filter)?], [$($fallback),*])
    }};
}

/// `Shape::AsyncRecipe`: an async function whose every option a `Recipe`
/// holds; its first attempt reads its terms from the `Recipe`, which
/// builds the operation once it failed. `untimed` where no deadline can be
/// granted, `timed` otherwise.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_async_recipe {
    (untimed, $name:literal, $tally:ident, $make:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {
        $crate::__resilient_async_first!(
            first_untimed_async_of, (recipe $name $tally), recipe, ungated, $make, $attempt,
            [$($filter)?], [$($fallback),*]
        )
    };
    (timed, $name:literal, $tally:ident, $make:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {
        $crate::__resilient_async_first!(
            first_attempt_async_of, (recipe $name $tally), recipe, ungated, $make, $attempt,
            [$($filter)?], [$($fallback),*]
        )
    };
}

/// `Shape::AsyncOnDemand`: an async function whose every attempt runs on
/// the operation `$make` builds. A first attempt that a gate must admit
/// (`gated`) runs outside the heap, so that one that succeeds allocates
/// nothing; without gates (`ungated`), the first attempt has always run by
/// the time the operation is built, and the retry loop's own copy of the
/// attempt serves every retry. `untimed` or `timed` as for
/// [`__resilient_async_recipe`].
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_async_on_demand {
    ($gated:ident, untimed, $make:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {
        $crate::__resilient_async_first!(
            first_untimed_async_of, operation, operation, $gated, $make, $attempt,
            [$($filter)?], [$($fallback),*]
        )
    };
    ($gated:ident, timed, $make:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {
        $crate::__resilient_async_first!(
            first_attempt_async_of, operation, operation, $gated, $make, $attempt,
            [$($filter)?], [$($fallback),*]
        )
    };
}

/// `Shape::Built(Built::Blocking)`: a blocking run of the operation built
/// once, `$op`.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_built_blocking {
    ($op:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {{
        let mut body = $crate::__private::attempt_blocking($attempt);
        match $op.run_primary(&mut body) {
            ::core::result::Result::Ok(done) => done,
            ::core::result::Result::Err(mut exec) => {
                $crate::__resilient_fallbacks!(exec, blocking, [$($filter)?], [$($fallback),*]);
                exec.finish()
            }
        }
    }};
}

/// `Shape::Built(Built::Async)`: an async run of the operation built once,
/// `$op`. `attempt_async` makes the closure an `AsyncFnMut`: a body that
/// moves an argument is then reported at the use that moves it, with a
/// `.clone()` hint.
#[doc(hidden)]
#[macro_export]
macro_rules! __resilient_built_async {
    ($op:ident, $attempt:expr, [$($filter:expr)?], [$($fallback:expr),*]) => {{
        let mut body = $crate::__private::attempt_async($attempt);
        match $crate::__private::first_attempt_async(&$op, |given: $crate::Attempt| body(given)).await {
            ::core::result::Result::Ok(done) => $crate::__private::outcome_of(&$op, done),
            ::core::result::Result::Err(mut exec) => {
                $crate::__resilient_rest_on_heap!(exec, body, [$($filter)?], [$($fallback),*])
            }
        }
    }};
}

/// `Shape::Built(Built::AsyncHedged)`: a hedged async run, which owns the
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

/// `Shape::Idempotent`: the run of the operation built once, `$op`, as
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
