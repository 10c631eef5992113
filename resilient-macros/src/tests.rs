//! Expansion tests: what the attribute generates for a given input, and the
//! errors it reports, checked on tokens without a compiler.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand::expand;

/// The expansion as a string with single spaces, for `contains` checks.
fn expanded(attr: TokenStream, item: TokenStream) -> String {
    normalize(&expand(attr, item).to_string())
}

fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn assert_contains(haystack: &str, needle: &str) {
    let needle = normalize(needle);
    assert!(
        haystack.contains(&needle),
        "expected `{needle}` in:\n{haystack}"
    );
}

/// The messages of the `compile_error!`s in an expansion.
fn errors(attr: TokenStream, item: TokenStream) -> Vec<String> {
    let mut found = Vec::new();
    let mut tokens = expand(attr, item).into_iter().peekable();
    while let Some(token) = tokens.next() {
        if let proc_macro2::TokenTree::Ident(ident) = &token
            && ident == "compile_error"
        {
            tokens.next();
            if let Some(proc_macro2::TokenTree::Group(group)) = tokens.next()
                && let Ok(lit) = syn::parse2::<syn::LitStr>(group.stream())
            {
                found.push(lit.value());
            }
        }
    }
    found
}

fn error(attr: TokenStream, item: TokenStream) -> String {
    let all = errors(attr, item);
    assert_eq!(all.len(), 1, "expected one error, got {all:#?}");
    all.into_iter().next().unwrap_or_default()
}

fn async_fn() -> TokenStream {
    quote! {
        async fn call(prompt: &str) -> Result<String, ProviderError> {
            provider(prompt).await
        }
    }
}

fn blocking_fn() -> TokenStream {
    quote! {
        fn call(prompt: &str) -> Result<String, ProviderError> {
            provider(prompt)
        }
    }
}

#[test]
fn no_options_is_one_attempt_with_a_report() {
    let out = expanded(quote!(), async_fn());
    assert_contains(
        &out,
        "async fn call (prompt : & str) -> :: resilient :: Outcome < String , ProviderError >",
    );
    assert_contains(
        &out,
        "let __resilient_make = || (const { let __resilient_op = :: resilient :: __private :: recipe :: < String , ProviderError > () . clock (:: resilient :: __private :: TokioClock) . name (\"call\") ; __resilient_op }) . describe ({ # [allow (unused_imports)] use :: resilient :: __private :: { ByDebug as _ , ByDisplay as _ } ; (&& :: resilient :: __private :: Describe :: < ProviderError > :: NEW) . describer () }) . tally (& __RESILIENT_TALLY)",
    );
    assert_contains(
        &out,
        "static __RESILIENT_TALLY : :: resilient :: __private :: Tally = :: resilient :: __private :: Tally :: named (\"call\") ; let __resilient_make = || (const {",
    );
    // The run is one call of its shape's macro: untimed, named, counted
    // in the function's `static`, on the `Recipe` `make` writes, with the
    // attempt closure and no fallbacks.
    assert_contains(
        &out,
        ":: resilient :: __private :: async_on_demand ! (ungated , untimed , __resilient_make , async | _ : :: resilient :: Attempt | -> Result < String , ProviderError > { provider (prompt) . await } , [] , []) }",
    );
    assert!(!out.contains("next_running"), "{out}");
    assert!(!out.contains("max_attempts"));
    assert!(!out.contains("compile_error"));
}

#[test]
fn an_async_operation_is_built_in_a_closure_unless_an_option_leaves_it() {
    let built =
        "let __resilient_op = (|| { let __resilient_op = :: resilient :: __private :: operation";
    let out = expanded(quote!(retries = 2, clock = clock_of(prompt)), async_fn());
    assert_contains(&out, built);
    assert_contains(&out, "__resilient_op }) () ;");
    for clock in [
        quote!(clock_of(prompt).await),
        quote!(clock_of(prompt)?),
        quote!({ return Err(ProviderError) }),
    ] {
        let out = expanded(quote!(retries = 2, clock = #clock), async_fn());
        assert!(!out.contains("let __resilient_op = (||"), "{out}");
        assert_contains(
            &out,
            "let __resilient_op = :: resilient :: __private :: operation",
        );
    }
    // A blocking fn's operation folds as written.
    assert!(!expanded(quote!(retries = 2), blocking_fn()).contains("let __resilient_op = (||"));
}

#[test]
fn an_operation_of_constants_is_built_where_it_is_read() {
    // Built by a closure: of setters, or of a `Recipe`'s values.
    let on_demand = "let __resilient_make = ||";
    let function = quote! {
        async fn call(&self, breaker: &CircuitBreaker, clock: FakeClock) -> Result<String, ProviderError> {
            provider().await
        }
    };
    for options in [
        quote!(retries = 2, retry_on = [Busy], timeout = "1s"),
        quote!(
            retries = 2,
            circuit_breaker = &BREAKER,
            budget = self.budget
        ),
        quote!(retries = 2, circuit_breaker = &breaker, clock = &self.clock),
        quote!(retries = 2, backoff = constant("1s"), clock = TokioClock),
    ] {
        let out = expanded(options, function.clone());
        assert_contains(&out, on_demand);
        assert!(!out.contains("first_attempt_async ("), "{out}");
    }
    // Built again, these could move a parameter, run a call twice, or
    // make a second clock: the operation is built once.
    for options in [
        quote!(retries = 2, clock = clock),
        quote!(retries = 2, clock = FakeClock::new()),
        quote!(retries = 2, on_retry = |_| {}),
        quote!(retries = 2, hedge = "50ms"),
        quote!(retries = 2, budget = self.budget()),
    ] {
        let out = expanded(options, function.clone());
        assert!(!out.contains(on_demand), "{out}");
    }
    // A field of an owned or uniquely borrowed `self` may not be read
    // while the body holds it.
    for receiver in [quote!(self), quote!(&mut self)] {
        let function = quote! {
            async fn call(#receiver) -> Result<String, ProviderError> {
                provider().await
            }
        };
        let out = expanded(quote!(retries = 2, budget = self.budget), function);
        assert!(!out.contains(on_demand), "{out}");
    }
}

#[test]
fn an_async_first_attempt_a_gate_admits_runs_outside_the_retry_loop() {
    let run_unboxed = ":: resilient :: __private :: async_on_demand ! (gated ,";
    let plain = expanded(quote!(retries = 2), async_fn());
    assert_contains(
        &plain,
        ":: resilient :: __private :: async_on_demand ! (ungated , untimed ,",
    );
    assert!(!plain.contains("async_on_demand ! (gated"), "{plain}");
    let ungated = expanded(quote!(retries = 2, on_retry = log), async_fn());
    assert_contains(
        &ungated,
        ":: resilient :: __private :: async_on_demand ! (ungated , untimed , __resilient_make ,",
    );
    for gate in [
        quote!(retries = 2, circuit_breaker = &BREAKER),
        quote!(retries = 2, limit = &POOL),
        quote!(retries = 2, throttle = &THROTTLE),
        quote!(retries = 2, chaos = &CHAOS, chaos_latency = "1s"),
        quote!(retry = &POLICY),
    ] {
        let gated = expanded(gate, async_fn());
        assert_contains(&gated, run_unboxed);
    }
}

#[test]
fn a_blocking_fn_with_fallbacks_keeps_its_execution_for_them() {
    let out = expanded(quote!(retries = 2, fallback = cached), blocking_fn());
    assert_contains(
        &out,
        ":: resilient :: __private :: blocking_on_demand ! (__resilient_make , | _ : :: resilient :: Attempt | -> Result < String , ProviderError > { provider (prompt) } , [] , [| __resilient_error : & ProviderError , __resilient_attempt : :: resilient :: Attempt | -> Result < String , ProviderError > {",
    );
    let out = expanded(
        quote!(retries = 2, fallback = cached, budget = "1s"),
        blocking_fn(),
    );
    assert_contains(
        &out,
        ":: resilient :: __private :: blocking_on_demand ! (__resilient_make , | _ : :: resilient :: Attempt |",
    );
    assert_contains(&out, "} , [] , [| __resilient_error : & ProviderError ,");
}

#[test]
fn blocking_fn_uses_the_blocking_loop_and_the_default_clock() {
    let out = expanded(quote!(retries = 2), blocking_fn());
    // Without fallbacks, the run is one call of the engine; after a
    // failure, one call shared by every function of the operation's
    // types, on values the compiler wrote.
    assert_contains(
        &out,
        ":: resilient :: __private :: blocking_on_demand ! (__resilient_make , | _ : :: resilient :: Attempt | -> Result < String , ProviderError > { provider (prompt) } , [] , []) }",
    );
    assert_contains(
        &out,
        "let __resilient_make = || (const { let __resilient_op = :: resilient :: __private :: recipe :: < String , ProviderError > () . max_attempts (3u32) . name (\"call\") ; __resilient_op }) . describe ({ # [allow (unused_imports)] use :: resilient :: __private :: { ByDebug as _ , ByDisplay as _ } ; (&& :: resilient :: __private :: Describe :: < ProviderError > :: NEW) . describer () }) . tally (& __RESILIENT_TALLY)",
    );
    assert_contains(&out, ". max_attempts (3u32)");
    assert!(!out.contains("clock"));
    assert!(!out.contains("await"));
}

#[test]
fn retries_is_attempts_minus_one() {
    let out = expanded(quote!(retries = 0), async_fn());
    assert_contains(&out, ". max_attempts (1u32)");
    let out = expanded(quote!(retries = 4294967294), async_fn());
    assert_contains(&out, ". max_attempts (4294967295u32)");
}

#[test]
fn bare_variants_resolve_against_the_error_type() {
    let out = expanded(
        quote!(
            retries = 3,
            retry_on = [Timeout, ProviderError::Transient, other::Kind::Busy]
        ),
        quote! {
            async fn call() -> Result<String, errors::ProviderError<u8>> { todo!() }
        },
    );
    assert_contains(
        &out,
        ". retry_if ((| __resilient_error : & _ | :: core :: matches ! (__resilient_error , errors :: ProviderError :: Timeout { .. } | ProviderError :: Transient { .. } | other :: Kind :: Busy { .. })) as fn (& _) -> :: core :: primitive :: bool)",
    );
}

#[test]
fn bare_variants_behind_an_alias_resolve_against_its_error_type() {
    let out = expanded(
        quote!(retries = 3, retry_on = [Timeout, AppError::Busy]),
        quote!(
            fn read<T>() -> AppResult<T> {
                todo!()
            }
        ),
    );
    assert_contains(
        &out,
        "fn read < T > () -> :: resilient :: __private :: OutcomeOf < AppResult < T > >",
    );
    assert_contains(
        &out,
        ". retry_if ((| __resilient_error : & _ | :: core :: matches ! (__resilient_error , :: resilient :: __private :: ErrOf :: < AppResult < T > > :: Timeout { .. } | AppError :: Busy { .. })) as fn (& _) -> :: core :: primitive :: bool)",
    );
}

#[test]
fn retry_on_an_error_type_that_is_not_an_enum_suggests_retry_if() {
    let io = |attr: TokenStream| {
        error(
            attr,
            quote!(
                fn read() -> io::Result<Vec<u8>> {
                    todo!()
                }
            ),
        )
    };
    assert_eq!(
        io(quote!(retries = 3, retry_on = [NotFound])),
        "`retry_on` names variants of an error enum, but this function's error type, `std::io::Error`, is not an enum: classify its errors with `retry_if = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound`"
    );
    // Every option that lists variants is read the same way.
    assert_eq!(
        io(quote!(ignore_on = [NotFound])),
        "`ignore_on` names variants of an error enum, but this function's error type, `std::io::Error`, is not an enum: classify its errors with `ignore_if = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound`"
    );
    assert!(
        io(quote!(retries = 3, retry_on = [io::ErrorKind::NotFound]))
            .starts_with("`retry_on` names variants of an error enum, but this function's error type, `std::io::Error`"),
    );
    let message = error(
        quote!(retries = 3, retry_on = [Timeout]),
        quote!(
            fn read() -> Result<u8, Box<dyn std::error::Error + Send>> {
                todo!()
            }
        ),
    );
    assert_eq!(
        message,
        "`retry_on` names variants of an error enum, but this function's error type, `Box<dyn std::error::Error + Send>`, is not an enum: classify its errors with `retry_if = |e: &Box<dyn std::error::Error + Send>| …`"
    );
}

#[test]
fn retry_on_a_well_known_struct_error_names_how_its_errors_are_told_apart() {
    let with = |attr: TokenStream, error_type: TokenStream| {
        error(
            attr,
            quote!(
                async fn call() -> Result<u8, #error_type> {
                    todo!()
                }
            ),
        )
    };
    let retry_on = quote!(retries = 3, retry_on = [Unavailable]);
    assert_eq!(
        with(retry_on.clone(), quote!(tonic::Status)),
        "`retry_on` names variants of an error enum, but this function's error type, `tonic::Status`, is not an enum: classify its errors with `retry_if = |e: &tonic::Status| e.code() == tonic::Code::Unavailable`"
    );
    assert_eq!(
        with(retry_on.clone(), quote!(resilient::http::HttpError)),
        "`retry_on` names variants of an error enum, but this function's error type, `resilient::http::HttpError`, is not an enum: classify its errors with `retry_if = resilient::http::retryable`, which retries transport errors and the statuses worth another try, or `retry_if = |e: &resilient::http::HttpError| …`"
    );
    // Named by its full path, whatever the signature writes.
    assert_eq!(
        with(retry_on.clone(), quote!(fmt::Error)),
        "`retry_on` names variants of an error enum, but this function's error type, `std::fmt::Error`, is not an enum: classify its errors with `retry_if = |e: &std::fmt::Error| …`"
    );
    // `retryable` says whether to retry, not whether to fall back.
    assert_eq!(
        with(
            quote!(fallback = cached, fallback_on = [Unavailable]),
            quote!(resilient::http::HttpError)
        ),
        "`fallback_on` names variants of an error enum, but this function's error type, `resilient::http::HttpError`, is not an enum: classify its errors with `fallback_if = |e: &resilient::http::HttpError| …`"
    );
    for error_type in [
        quote!(reqwest::Error),
        quote!(hyper::Error),
        quote!(serde_json::Error),
        quote!(redis::RedisError),
        quote!(std::num::ParseIntError),
        quote!(tokio::time::error::Elapsed),
        quote!(tokio::task::JoinError),
    ] {
        let written = error_type.to_string().replace(' ', "");
        assert_eq!(
            with(retry_on.clone(), error_type),
            format!(
                "`retry_on` names variants of an error enum, but this function's error type, `{written}`, is not an enum: classify its errors with `retry_if = |e: &{written}| …`"
            )
        );
    }
    // A bare name, or a shorter path, may be an enum of the user's own:
    // the compiler decides.
    for error_type in [
        quote!(Error),
        quote!(HttpError),
        quote!(http::HttpError),
        quote!(Status),
        quote!(api::reqwest::Error),
        quote!(task::JoinError),
    ] {
        let out = expanded(
            retry_on.clone(),
            quote!(
                async fn call() -> Result<u8, #error_type> {
                    todo!()
                }
            ),
        );
        assert!(!out.contains("compile_error"), "{out}");
    }
}

#[test]
fn exponential_backoff_fills_in_the_defaults() {
    let out = expanded(
        quote!(retries = 3, backoff = exponential(base = "250ms")),
        async_fn(),
    );
    assert_contains(
        &out,
        ". backoff (:: resilient :: __private :: Backoff :: exponential (:: core :: time :: Duration :: new (0u64 , 250000000u32) , :: resilient :: __private :: Backoff :: DEFAULT_MAX))",
    );
    let out = expanded(
        quote!(
            retries = 3,
            backoff = exponential(max = BIG, multiplier = 3, jitter = equal)
        ),
        async_fn(),
    );
    assert_contains(
        &out,
        ". backoff (:: resilient :: __private :: Backoff :: exponential (:: resilient :: __private :: Backoff :: DEFAULT_BASE , BIG) . multiplier (3f64) . jitter (:: resilient :: __private :: Jitter :: Equal))",
    );
    let out = expanded(quote!(retries = 3, backoff = exponential), async_fn());
    assert_contains(
        &out,
        ". backoff (:: resilient :: __private :: Backoff :: exponential (:: resilient :: __private :: Backoff :: DEFAULT_BASE , :: resilient :: __private :: Backoff :: DEFAULT_MAX))",
    );
}

#[test]
fn other_backoffs() {
    let out = expanded(quote!(retries = 1, backoff = none), async_fn());
    assert_contains(
        &out,
        ". backoff (:: resilient :: __private :: Backoff :: none ())",
    );
    let out = expanded(quote!(retries = 1, backoff = constant("1s")), async_fn());
    assert_contains(
        &out,
        ". backoff (:: resilient :: __private :: Backoff :: constant (:: core :: time :: Duration :: new (1u64 , 0u32)))",
    );
    let out = expanded(
        quote!(retries = 1, backoff = self.backoff.clone()),
        async_fn(),
    );
    assert_contains(&out, ". backoff (self . backoff . clone ())");
}

#[test]
fn every_option_becomes_a_builder_call() {
    let out = expanded(
        quote! {
            retries = 5, retry_if = is_transient, timeout = "2s", budget = self.budget,
            max_elapsed = "10s", min_retries = 2, rate_limit = retry_after,
            max_rate_limit_wait = "1m", max_rate_limit_retries = 3, circuit_breaker = &BREAKER,
            validate = non_empty, on_retry = log_retry, clock = clock.clone(), crate = "my::runtime"
        },
        async_fn(),
    );
    for call in [
        "{ # [allow (unused_imports)] use my :: runtime :: __private :: { ByDebug as _ , ByDisplay as _ } ; (&& my :: runtime :: __private :: Describe :: < ProviderError > :: NEW) . describer () }",
        "let _ = < ProviderError as my :: runtime :: __private :: TimeoutError > :: timed_out ;",
        "let _ = < ProviderError as my :: runtime :: __private :: CircuitOpenError > :: circuit_open ;",
        "let _ = < ProviderError as my :: runtime :: __private :: ValidationError > :: validation_failed ;",
        "my :: runtime :: __private :: operation :: < String , ProviderError > ({ # [allow (unused_imports)] use my :: runtime :: __private :: { ByDebug as _ , ByDisplay as _ } ; (&& my :: runtime :: __private :: Describe :: < ProviderError > :: NEW) . describer () }) . clock (clock . clone ())",
        ". max_attempts (6u32)",
        ". retry_if (my :: runtime :: __private :: retry_classifier_fn :: < ProviderError > (is_transient))",
        "let __resilient_op = { __resilient_op } . timeout (:: core :: time :: Duration :: new (2u64 , 0u32)) . budget (self . budget)",
        ". max_elapsed (:: core :: time :: Duration :: new (10u64 , 0u32))",
        ". min_retries (2u32)",
        ". retry_after (my :: runtime :: __private :: rate_limit_hint_fn :: < ProviderError > (retry_after))",
        ". max_retry_after_wait (:: core :: time :: Duration :: new (60u64 , 0u32))",
        ". max_retry_after_retries (3u32)",
        "let __resilient_op = { __resilient_op } . circuit_breaker (& BREAKER) ;",
        "let __resilient_op = { __resilient_op } . validate (non_empty)",
        ". listen (my :: runtime :: __private :: retry_listener_of :: < ProviderError , _ , _ > (log_retry))",
        "-> my :: runtime :: Outcome < String , ProviderError >",
    ] {
        assert_contains(&out, call);
    }
    assert!(!out.contains(":: resilient ::"), "{out}");
}

#[test]
fn budget_on_an_async_fn_interrupts_unless_timeout_already_does() {
    let out = expanded(quote!(budget = "5s"), async_fn());
    assert_contains(
        &out,
        ". interrupt_at_deadline () . budget (:: core :: time :: Duration :: new (5u64 , 0u32))",
    );
    let out = expanded(quote!(timeout = "1s", budget = "5s"), async_fn());
    assert!(!out.contains("interrupt_at_deadline"), "{out}");
    // One check of the conversion both need, at the first of them.
    assert_eq!(
        out.matches("TimeoutError > :: timed_out").count(),
        1,
        "{out}"
    );
}

#[test]
fn budget_on_a_blocking_fn_is_not_interrupted() {
    let out = expanded(quote!(budget = "5s"), blocking_fn());
    assert_contains(
        &out,
        ". budget (:: core :: time :: Duration :: new (5u64 , 0u32))",
    );
    assert!(!out.contains("interrupt_at_deadline"));
}

#[test]
fn a_whole_policy_is_borrowed_once() {
    let out = expanded(quote!(retry = POLICY), async_fn());
    assert_contains(&out, "let __resilient_policy = & (POLICY) ;");
    assert_contains(&out, ". policy (__resilient_policy)");
}

#[test]
fn the_attempt_parameter_leaves_the_signature() {
    let out = expanded(
        quote!(retries = 1),
        quote! {
            pub async fn call(&self, #[attempt] mut attempt: Attempt, id: u32) -> Result<u32, E> {
                Ok(attempt.number())
            }
        },
    );
    assert_contains(
        &out,
        "pub async fn call (& self , id : u32) -> :: resilient :: Outcome < u32 , E >",
    );
    assert_contains(
        &out,
        "__resilient_make , async | __resilient_attempt : :: resilient :: Attempt | -> Result < u32 , E > { let mut attempt : Attempt = __resilient_attempt ; { Ok (attempt . number ()) } } , [] , [])",
    );
    assert!(!out.contains("# [attempt]"));
}

#[test]
fn fallback_gets_the_receiver_and_the_arguments() {
    let out = expanded(
        quote!(retries = 1, fallback = Self::cached),
        quote! {
            async fn call(self: Arc<Self>, #[attempt] attempt: Attempt, mut id: u32, name: impl AsRef<str>) -> Result<u32, E> {
                Ok(id)
            }
        },
    );
    assert_contains(
        &out,
        "} } , [] , [async | __resilient_error : & E , __resilient_attempt : :: resilient :: Attempt | -> Result < u32 , E > { :: resilient :: __private :: AsyncFallback :: < _ , E , Result < u32 , E > , _ > :: call ((self , id , name ,) , Self :: cached , __resilient_error , __resilient_attempt) . await }]) }",
    );
    let out = expanded(quote!(fallback = cached), blocking_fn());
    assert_contains(
        &out,
        "[| __resilient_error : & ProviderError , __resilient_attempt : :: resilient :: Attempt | -> Result < String , ProviderError > { :: resilient :: __private :: BlockingFallback :: < _ , ProviderError , Result < String , ProviderError > , _ > :: call ((prompt ,) , cached , __resilient_error , __resilient_attempt) }]) }",
    );
}

#[test]
fn keeps_attributes_visibility_generics_and_inner_attributes() {
    let out = expanded(
        quote!(),
        quote! {
            #[inline]
            /// Docs.
            pub(crate) fn call<T: Clone>(value: T) -> Result<T, E> where T: Send {
                #![allow(clippy::clone_on_copy)]
                Ok(value.clone())
            }
        },
    );
    assert_contains(
        &out,
        "# [inline] # [doc = r\" Docs.\"] pub (crate) fn call < T : Clone > (value : T) -> :: resilient :: Outcome < T , E > where T : Send { # ! [allow (clippy :: clone_on_copy)] static __RESILIENT_TALLY : :: resilient :: __private :: Tally = :: resilient :: __private :: Tally :: named (\"call\") ; let __resilient_make",
    );
}

#[test]
fn error_keeps_the_original_function() {
    let out = expand(
        quote!(retries = true),
        quote!(
            fn call(#[attempt] a: Attempt) -> Result<u8, E> {
                Ok(1)
            }
        ),
    );
    let out = normalize(&out.to_string());
    assert_contains(
        &out,
        "fn call (a : Attempt) -> Result < u8 , E > { Ok (1) }",
    );
    assert_contains(&out, "compile_error !");
    assert!(!out.contains("__resilient"));
}

#[test]
fn reports_every_error_at_once() {
    let all = errors(
        quote!(retries = -1, timout = "1s", backoff = constant("fast")),
        quote!(
            fn call() -> &'static str {
                ""
            }
        ),
    );
    assert_eq!(all.len(), 4, "{all:#?}");
    assert!(all[0].starts_with("`retries` can't be negative"));
    assert!(all[1].starts_with("unknown option `timout`; did you mean `timeout`?"));
    assert!(all[2].starts_with("`constant`: \"fast\" is not a duration"));
    assert!(all[3].starts_with("the return type must be a `Result<T, E>`"));
}

#[test]
fn unknown_options_list_the_valid_ones() {
    let message = error(quote!(colour = 1), blocking_fn());
    assert_eq!(
        message,
        "unknown option `colour`\nthe options are: retries, retry_on, retry_if, ignore_on, ignore_if, backoff, jitter_seed, retry, timeout, budget, max_elapsed, max_delay, min_retries, retry_after, max_retry_after_wait, max_retry_after_retries, max_records, nested, circuit_breaker, validate, fallback, fallback_on, fallback_if, clock, timing, on_retry, name, report, throttle, adaptive_throttle, limit, limit_wait, priority, chaos, chaos_fault, chaos_outcome, chaos_latency, hedge, max_hedges, idempotency, idempotency_key, idempotency_ttl, idempotency_fingerprint, coalesce, crate"
    );
    let message = error(quote!(max_attempts = 3), blocking_fn());
    assert!(message.contains("write `retries = N`"), "{message}");
}

#[test]
fn nested_takes_one_of_its_words() {
    let message = error(quote!(retries = 1, nested = "no_retries"), blocking_fn());
    assert_eq!(
        message,
        "unknown `nested` value `\"no_retries\"`: write `nested = \"retry\"` or `nested = \"no_retry\"`; did you mean `\"no_retry\"`?"
    );
    let message = error(quote!(retries = 1, nested = false), blocking_fn());
    assert_eq!(
        message,
        "`nested` takes a word in a string: `nested = \"retry\"` or `nested = \"no_retry\"`"
    );
}

#[test]
fn combination_errors() {
    let cases: &[(TokenStream, &str)] = &[
        (
            quote!(retry_on = [A]),
            "`retry_on` needs `retries`: add `retries = N`",
        ),
        (
            quote!(backoff = none),
            "`backoff` needs `retries`: add `retries = N`",
        ),
        (
            quote!(retry = P, retries = 1),
            "`retries` can't be combined with `retry`",
        ),
        (
            quote!(retries = 1, retry_on = [A], retry_if = f),
            "`retry_if` can't be combined with `retry_on`",
        ),
        (
            quote!(retries = 1, retry_on = []),
            "`retry_on = []` would retry nothing",
        ),
        (
            quote!(retries = 1, retries = 2),
            "`retries` is given twice: keep only one",
        ),
        (
            quote!(retries = 1, min_retries = 2),
            "`min_retries = 2` is more than `retries = 1`",
        ),
        (
            quote!(budget = "1s", max_elapsed = "2s"),
            "`budget = \"1s\"` is below `max_elapsed = \"2s\"`",
        ),
        (
            quote!(budget = "0s"),
            "`budget = \"0s\"` leaves no time to run an attempt",
        ),
        (
            quote!(retries = 1, backoff = exponential(multiplier = 0.5)),
            "`multiplier` must be a finite number of at least 1.0",
        ),
        (
            quote!(retries = 1, backoff = exponential(multiplier = 1e999)),
            "`multiplier` must be a finite number of at least 1.0",
        ),
        (
            quote!(retries = 1, backoff = exponential(base = "20s")),
            "the backoff's `base` (\"20s\") is above its `max` (\"10s\" by default)",
        ),
        (
            quote!(retries = 1, backoff = exponential(jiter = full)),
            "`exponential` has no argument `jiter`; did you mean `jitter`?",
        ),
        (quote!(retries = 1.5), "`retries` is a whole count"),
        (
            quote!(rate_limit = hint, max_rate_limit_retries = -1),
            "`max_rate_limit_retries` can't be negative: write `max_rate_limit_retries = 0` for none, or a positive count like `max_rate_limit_retries = 10`",
        ),
        (quote!(retries = "3"), "`retries` is a count, not a string"),
        (quote!(retries = n), "`retries` takes an integer literal"),
        (quote!(retries), "`retries` needs a value: `retries = 3`"),
        (
            quote!(timeout = 5),
            "`timeout` needs a unit: write `timeout = \"5s\"`",
        ),
        (
            quote!(timeout = "5 sec"),
            "`timeout`: \"5 sec\" is not a duration: `sec` is not a unit",
        ),
        (
            quote!(crate = resilient),
            "`crate` takes the path of the `resilient` crate in a string",
        ),
        (
            quote!(retries = 1 timeout = "1s"),
            "expected `,` between options",
        ),
    ];
    for (attr, expected) in cases {
        let message = error(attr.clone(), async_fn());
        assert!(message.starts_with(expected), "{attr}: got {message:?}");
    }
}

#[test]
fn timeout_needs_an_async_fn() {
    let message = error(quote!(timeout = "1s"), blocking_fn());
    assert_eq!(
        message,
        "a blocking fn can't be interrupted; `timeout` needs an `async fn` (use `budget` for a cap on the whole operation)"
    );
}

#[test]
fn signature_errors() {
    let cases: &[(TokenStream, &str)] = &[
        (
            quote!(
                struct Config;
            ),
            "`#[resilient]` goes on a `fn` or an `async fn` that returns `Result<T, E>`, not on a struct",
        ),
        (
            quote!(
                const fn f() -> Result<u8, E> {
                    Ok(1)
                }
            ),
            "`#[resilient]` can't wrap a `const fn`",
        ),
        (
            quote!(
                extern "C" fn f() -> Result<u8, E> {
                    Ok(1)
                }
            ),
            "`#[resilient]` can't wrap an `extern` fn",
        ),
        (
            quote!(
                fn f() {}
            ),
            "the return type must be a `Result<T, E>`",
        ),
        (
            quote!(
                fn f() -> (u8, E) {
                    (1, E)
                }
            ),
            "the return type must be a `Result<T, E>`",
        ),
        (
            quote!(
                fn f() -> &'static Result<u8, E> {
                    &Ok(1)
                }
            ),
            "the return type must be a `Result<T, E>`",
        ),
        (
            quote!(
                fn f() -> impl Into<Result<u8, E>> {
                    Ok(1)
                }
            ),
            "the return type must be a `Result<T, E>`",
        ),
        (
            quote!(
                fn f() -> Result<impl Display, E> {
                    Ok(1)
                }
            ),
            "`#[resilient]` can't return `impl Display` inside the `Result`: the attribute wraps the value into `resilient::Outcome<T, E>`, where `impl Trait` is not allowed; name the type, or return `Box<dyn Display>`",
        ),
        (
            quote!(
                fn f(#[attempt] a: Attempt, #[attempt] b: Attempt) -> Result<u8, E> {
                    Ok(1)
                }
            ),
            "only one parameter can be `#[attempt]`",
        ),
        (
            quote!(
                fn f(&self) -> Result<u8, E>;
            ),
            "`#[resilient]` needs the function's body",
        ),
        (quote!(garbage(tokens)), "`#[resilient]` goes on a `fn`"),
    ];
    for (item, expected) in cases {
        let message = error(quote!(), item.clone());
        assert!(message.starts_with(expected), "{item}: got {message:?}");
    }
}

#[test]
fn fallback_needs_named_parameters() {
    let item = quote!(
        fn f((a, b): (u8, u8)) -> Result<u8, E> {
            Ok(a + b)
        }
    );
    assert!(errors(quote!(), item.clone()).is_empty());
    let message = error(quote!(fallback = other), item);
    assert!(message.starts_with("`fallback` is called with this function's arguments"));
}

#[test]
fn garbage_never_panics() {
    let inputs = [
        quote!(),
        quote!(,),
        quote!(, , ,),
        quote!(=),
        quote!(= = 3),
        quote!(retries =),
        quote!(retries = , retries = ,),
        quote!(retry_on = [,]),
        quote!(backoff = exponential(,)),
        quote!(backoff = exponential(base =)),
        quote!(backoff = exponential(1, 2, 3)),
        quote!(backoff = constant()),
        quote!(crate = ""),
        quote!(crate = "::"),
        quote!(
            timeout = "",
            budget = "99999999999999999999999999999999999999999999h"
        ),
        quote!(retries = 99999999999999999999999999999999999999),
        quote!(retries = 4294967295),
        quote!("string"),
        quote!(1 2 3),
        quote!(r#retries = 1),
        quote!(fallback = 1 + 1),
    ];
    let items = [
        quote!(),
        quote!(fn),
        quote!(fn f),
        quote!(
            async fn f() -> Result<(), ()> {}
        ),
        quote!(
            fn f(self) -> Result {}
        ),
        quote!(
            fn f() -> Result {}
        ),
        quote!(
            fn f() -> <T as Tr>::Result {}
        ),
        quote!(impl X {}),
        quote!(
            #[attempt]
            fn f() -> Result<(), ()> {}
        ),
    ];
    for attr in &inputs {
        for item in &items {
            let _ = expand(attr.clone(), item.clone());
        }
    }
}

#[test]
fn mut_parameters_are_cloned_afresh_for_each_attempt() {
    let out = expanded(
        quote!(retries = 1),
        quote! {
            fn call(mut count: u32, (mut a, b): (u8, u8), ref mut kept: u8) -> Result<u32, E> {
                todo!()
            }
        },
    );
    assert_contains(
        &out,
        "fn call (count : u32 , (a , b) : (u8 , u8) , ref mut kept : u8) -> :: resilient :: Outcome < u32 , E >",
    );
    assert_contains(
        &out,
        "| _ : :: resilient :: Attempt | -> Result < u32 , E > { let mut count = :: resilient :: __private :: FreshPerAttempt :: fresh (:: resilient :: __private :: Argument :: of (& count)) ; let mut a = :: resilient :: __private :: FreshPerAttempt :: fresh (:: resilient :: __private :: Argument :: of (& a)) ; { todo ! () } }",
    );
}

#[test]
fn mut_self_is_reset_from_a_copy_and_the_fallback_gets_that_copy() {
    let out = expanded(
        quote!(retries = 1, fallback = Self::cached),
        quote! {
            fn call(mut self, id: u32) -> Result<u32, E> {
                todo!()
            }
        },
    );
    assert_contains(&out, "fn call (mut self , id : u32) ->");
    assert_contains(
        &out,
        "let __resilient_self = :: resilient :: __private :: FreshPerAttempt :: fresh (:: resilient :: __private :: Argument :: of (& self)) ;",
    );
    assert_contains(
        &out,
        "{ self = :: resilient :: __private :: FreshPerAttempt :: fresh (:: resilient :: __private :: Argument :: of (& __resilient_self)) ; { todo ! () } }",
    );
    assert_contains(
        &out,
        ":: call ((__resilient_self , id ,) , Self :: cached , __resilient_error , __resilient_attempt)",
    );
    let out = expanded(
        quote!(),
        quote! {
            fn call(&mut self) -> Result<u32, E> {
                todo!()
            }
        },
    );
    assert!(!out.contains("__resilient_self"), "{out}");
}

#[test]
fn an_alias_return_type_is_resolved_by_the_compiler_at_its_tokens() {
    let out = expanded(
        quote!(),
        quote! {
            fn call() -> AppResult<u32> {
                todo!()
            }
        },
    );
    assert_contains(
        &out,
        "{ # [allow (unused_imports)] use :: resilient :: __private :: { ByDebug as _ , ByDisplay as _ } ; (&& :: resilient :: __private :: Describe :: < :: resilient :: __private :: ErrOf < AppResult < u32 > > > :: NEW) . describer () }",
    );
    assert_contains(
        &out,
        ":: resilient :: __private :: recipe :: < :: resilient :: __private :: OkOf < AppResult < u32 > > , :: resilient :: __private :: ErrOf < AppResult < u32 > > > ()",
    );
    assert_contains(
        &out,
        "| _ : :: resilient :: Attempt | -> :: resilient :: __private :: ResultOf < AppResult < u32 > > { todo ! () }",
    );
}

/// `max_retry_after_wait` and `max_retry_after_retries` cap the waits of
/// `retry_after`, under their old names too; the message names the cap as
/// written, and what it needs by its name.
#[test]
fn retry_after_caps_need_retry_after() {
    for name in [
        "max_retry_after_retries",
        "max_rate_limit_retries",
        "max_retry_after_wait",
        "max_rate_limit_wait",
    ] {
        let key = syn::Ident::new(name, proc_macro2::Span::call_site());
        let value = if name.ends_with("retries") {
            quote!(2)
        } else {
            quote!("1s")
        };
        let message = error(quote!(#key = #value), blocking_fn());
        assert_eq!(
            message,
            format!(
                "`{name}` needs `retry_after`: add `retry_after = |e| e.retry_after()`; without a Retry-After hint there is no wait to cap"
            ),
        );
    }
    let out = expanded(
        quote!(retry_after = hint, max_retry_after_retries = 0),
        blocking_fn(),
    );
    assert_contains(
        &out,
        ". retry_after (:: resilient :: __private :: rate_limit_hint_fn :: < ProviderError > (hint)) . max_retry_after_retries (0u32)",
    );
}

/// `retry_after`, `max_retry_after_wait` and `max_retry_after_retries` were
/// `rate_limit`, `max_rate_limit_wait` and `max_rate_limit_retries`: the
/// old names are still accepted, alone or beside the new ones, and expand
/// to the same builder calls, which keep the runtime's old names.
#[test]
fn retry_after_and_its_caps_expand_as_their_old_names() {
    let spellings = [
        quote!(
            retries = 2,
            retry_after = hint,
            max_retry_after_wait = "1s",
            max_retry_after_retries = 3
        ),
        quote!(
            retries = 2,
            rate_limit = hint,
            max_rate_limit_wait = "1s",
            max_rate_limit_retries = 3
        ),
        quote!(
            retries = 2,
            rate_limit = hint,
            max_retry_after_wait = "1s",
            max_rate_limit_retries = 3
        ),
    ];
    for item in [blocking_fn(), async_fn()] {
        let [new, old, mixed] = spellings.clone().map(|attr| expanded(attr, item.clone()));
        assert_eq!(new, old);
        assert_eq!(new, mixed);
        assert_contains(
            &new,
            ". retry_after (:: resilient :: __private :: rate_limit_hint_fn :: < ProviderError > (hint)) . max_retry_after_wait (:: core :: time :: Duration :: new (1u64 , 0u32)) . max_retry_after_retries (3u32)",
        );
    }
}

/// An option's old name and its name name one option: giving both is
/// giving it twice, whichever comes first.
#[test]
fn an_option_under_its_name_and_its_old_name_is_given_twice() {
    let twice =
        "`retry_after` is given twice: `rate_limit` is its old name; keep only `retry_after`";
    for attr in [
        quote!(rate_limit = hint, retry_after = hint),
        quote!(retry_after = hint, rate_limit = hint),
    ] {
        assert_eq!(error(attr, blocking_fn()), twice);
    }
    assert_eq!(
        error(
            quote!(
                retry_after = hint,
                max_rate_limit_wait = "1s",
                max_retry_after_wait = "2s"
            ),
            blocking_fn()
        ),
        "`max_retry_after_wait` is given twice: `max_rate_limit_wait` is its old name; keep only `max_retry_after_wait`"
    );
    assert_eq!(
        error(
            quote!(
                rate_limit = hint,
                max_retry_after_retries = 1,
                max_rate_limit_retries = 2
            ),
            blocking_fn()
        ),
        "`max_retry_after_retries` is given twice: `max_rate_limit_retries` is its old name; keep only `max_retry_after_retries`"
    );
    assert_eq!(
        error(quote!(rate_limit = hint, rate_limit = hint), blocking_fn()),
        "`rate_limit` is given twice: keep only one"
    );
}

/// A message about the option the user wrote names it as written, by its
/// old name too.
#[test]
fn messages_name_an_option_as_it_was_written() {
    for name in ["rate_limit", "retry_after"] {
        let key = syn::Ident::new(name, proc_macro2::Span::call_site());
        assert_eq!(
            error(quote!(#key = hint, timing = false), blocking_fn()),
            format!(
                "`{name}` can't be combined with `timing`: `timing = false` reads no clock, and `{name}` is measured on one; remove one of the two"
            )
        );
    }
    assert_eq!(
        error(
            quote!(rate_limit = hint, max_rate_limit_retries = "3"),
            blocking_fn()
        ),
        "`max_rate_limit_retries` is a count, not a string: write the number without quotes, like `max_rate_limit_retries = 10`"
    );
    assert!(
        error(
            quote!(rate_limit = hint, max_rate_limit_wait = 5),
            blocking_fn()
        )
        .starts_with("`max_rate_limit_wait` needs a unit: write `max_rate_limit_wait = \"5s\"`")
    );
}

/// A misspelt option close to an old name is answered with the option's
/// name.
#[test]
fn did_you_mean_suggests_the_new_names() {
    for (written, suggested) in [
        ("rate_limt", "`retry_after` (formerly `rate_limit`)"),
        ("retry_afer", "`retry_after`"),
        (
            "max_rate_limit_wiat",
            "`max_retry_after_wait` (formerly `max_rate_limit_wait`)",
        ),
        ("max_retry_after_retires", "`max_retry_after_retries`"),
    ] {
        let key = syn::Ident::new(written, proc_macro2::Span::call_site());
        let message = error(quote!(#key = 1), blocking_fn());
        assert!(
            message.starts_with(&format!(
                "unknown option `{written}`; did you mean {suggested}?\nthe options are: "
            )),
            "{message}"
        );
        assert!(!message.contains("rate_limit,"), "{message}");
    }
}

/// A hook named by a path is a function, taken as a function pointer so that
/// a wrong signature is one error; a closure, or a parameter that may hold
/// one, keeps the generic check.
#[test]
fn hooks_by_path_are_function_pointers() {
    let by_path = expanded(quote!(retries = 1, report = log), blocking_fn());
    assert_contains(
        &by_path,
        ":: resilient :: __private :: report_hook_fn :: < ProviderError > (log)",
    );
    let closure = expanded(quote!(retries = 1, report = |r| log(r)), blocking_fn());
    assert_contains(
        &closure,
        ":: resilient :: __private :: report_hook :: < ProviderError , _ > (| r | log (r))",
    );
    let item = quote! {
        fn call(hook: impl Fn(&ExecutionReport)) -> Result<String, ProviderError> { todo!() }
    };
    let param = expanded(quote!(retries = 1, report = hook), item);
    assert_contains(
        &param,
        ":: resilient :: __private :: report_hook :: < ProviderError , _ > (hook)",
    );
}

/// The whole expansion of a blocking and an `async fn`, token for token:
/// what the engine is driven with. `cargo test -p resilient-macros
/// whole_expansions -- --nocapture` prints them.
#[test]
fn whole_expansions() {
    let blocking = expanded(
        quote!(
            retries = 2,
            retry_on = [Timeout],
            backoff = exponential(base = "1s"),
            clock = clock,
            fallback = cached
        ),
        quote! {
            fn fetch(clock: &FakeClock, mut id: u32) -> Result<String, FetchError> {
                id += 1;
                lookup(id)
            }
        },
    );
    let asynchronous = expanded(
        quote!(
            retries = 3,
            timeout = "2s",
            budget = "10s",
            nested = "no_retry"
        ),
        quote! {
            async fn complete(&self, prompt: &str, #[attempt] attempt: Attempt) -> AppResult<String> {
                self.provider.complete(prompt, attempt.deadline()).await
            }
        },
    );
    println!("{blocking}\n");
    println!("{asynchronous}");
    assert_eq!(blocking, normalize(BLOCKING));
    assert_eq!(asynchronous, normalize(ASYNCHRONOUS));
}

/// What [`whole_expansions`] expects of its blocking fn.
const BLOCKING: &str = "\
     fn fetch (clock : & FakeClock , id : u32) -> :: resilient :: Outcome < String , FetchError > { \
     static __RESILIENT_TALLY : :: resilient :: __private :: Tally = :: resilient :: __private :: Tally :: named (\"fetch\") ; \
     let __resilient_op = :: resilient :: __private :: operation :: < String , FetchError > ({ # [allow (unused_imports)] use :: resilient :: __private :: { ByDebug as _ , ByDisplay as _ } ; (&& :: resilient :: __private :: Describe :: < FetchError > :: NEW) . describer () }) . clock (clock) . max_attempts (3u32) . retry_if ((| __resilient_error : & _ | :: core :: matches ! (__resilient_error , FetchError :: Timeout { .. })) as fn (& _) -> :: core :: primitive :: bool) . backoff (:: resilient :: __private :: Backoff :: exponential (:: core :: time :: Duration :: new (1u64 , 0u32) , :: resilient :: __private :: Backoff :: DEFAULT_MAX)) . name (\"fetch\") ; \
     let __resilient_op = :: resilient :: __private :: with_expiring (__resilient_op , { # [allow (unused_imports)] use :: resilient :: __private :: { MakesNoTimeout as _ , MakesTimeout as _ } ; (&& :: resilient :: __private :: TimeoutProbe :: < FetchError > :: NEW) . maker () }) ; \
     let __resilient_op = :: resilient :: __private :: with_tally (__resilient_op , & __RESILIENT_TALLY) ; \
     :: resilient :: __private :: blocking_on_demand ! ((|| & __resilient_op) , | _ : :: resilient :: Attempt | -> Result < String , FetchError > { let mut id = :: resilient :: __private :: FreshPerAttempt :: fresh (:: resilient :: __private :: Argument :: of (& id)) ; \
     { id += 1 ; \
     lookup (id) } } , [] , [| __resilient_error : & FetchError , __resilient_attempt : :: resilient :: Attempt | -> Result < String , FetchError > { :: resilient :: __private :: BlockingFallback :: < _ , FetchError , Result < String , FetchError > , _ > :: call ((clock , id ,) , cached , __resilient_error , __resilient_attempt) }]) }";

/// What [`whole_expansions`] expects of its `async fn`.
const ASYNCHRONOUS: &str = "\
     async fn complete (& self , prompt : & str) -> :: resilient :: __private :: OutcomeOf < AppResult < String > > { \
     let _ = < :: resilient :: __private :: ErrOf < AppResult < String > > as :: resilient :: __private :: TimeoutError > :: timed_out ; \
     static __RESILIENT_TALLY : :: resilient :: __private :: Tally = :: resilient :: __private :: Tally :: named (\"complete\") ; \
     let __resilient_make = || (const { let __resilient_op = :: resilient :: __private :: recipe :: < :: resilient :: __private :: OkOf < AppResult < String > > , :: resilient :: __private :: ErrOf < AppResult < String > > > () . clock (:: resilient :: __private :: TokioClock) . max_attempts (4u32) ; \
     let __resilient_op = { __resilient_op } . timeout (:: core :: time :: Duration :: new (2u64 , 0u32)) . budget (:: core :: time :: Duration :: new (10u64 , 0u32)) . nested (:: resilient :: deadline :: Nested :: NoRetry) . name (\"complete\") ; \
     __resilient_op }) . describe ({ # [allow (unused_imports)] use :: resilient :: __private :: { ByDebug as _ , ByDisplay as _ } ; (&& :: resilient :: __private :: Describe :: < :: resilient :: __private :: ErrOf < AppResult < String > > > :: NEW) . describer () }) . tally (& __RESILIENT_TALLY) ; \
     :: resilient :: __private :: async_on_demand ! (ungated , timed , __resilient_make , async | __resilient_attempt : :: resilient :: Attempt | -> :: resilient :: __private :: ResultOf < AppResult < String > > { let attempt : Attempt = __resilient_attempt ; \
     { self . provider . complete (prompt , attempt . deadline ()) . await } } , [] , []) }";

/// An async function built on demand, without gates, of options that
/// `Recipe` takes (the blocking ones and `timeout`, `budget`,
/// `max_elapsed`) writes its values into a `Recipe`, from which its
/// first attempt reads its terms, and builds the operation from them only
/// once that attempt failed; any other option keeps the setters.
#[test]
fn an_async_function_of_the_commonest_options_reads_its_first_attempt_from_a_recipe() {
    let recipe = |attr: TokenStream| {
        let out = expanded(attr, async_fn());
        let values = out.contains("__private :: recipe :: < String , ProviderError > () . clock (:: resilient :: __private :: TokioClock)");
        let first = out.contains(":: resilient :: __private :: async_on_demand ! (ungated , timed , __resilient_make ,")
            || out.contains(":: resilient :: __private :: async_on_demand ! (ungated , untimed , __resilient_make ,");
        // A `Recipe` runs as any operation built on demand does.
        assert!(!values || first, "{out}");
        // The values are never built on the success path.
        assert!(
            !values || !out.contains(". tally (& __RESILIENT_TALLY) . build ()"),
            "{out}"
        );
        values
    };
    assert!(recipe(quote!()));
    assert!(recipe(quote!(
        retries = 3,
        retry_on = [Timeout, Transient],
        backoff = exponential(base = "100ms", max = "10s"),
        timeout = "10s",
        budget = "30s"
    )));
    assert!(recipe(quote!(
        budget = "5s",
        max_elapsed = "2s",
        jitter_seed = 7,
        retries = 2,
        min_retries = 1
    )));
    // Values the compiler can evaluate are written in a `const` block; a
    // field of `&self` is read where the values are made.
    let method = |attr: TokenStream| {
        expanded(
            attr,
            quote! {
                async fn call(&self) -> Result<String, ProviderError> { provider().await }
            },
        )
    };
    assert_contains(
        &method(quote!(retries = 2, timeout = TIMEOUT)),
        "let __resilient_make = || (const { let __resilient_op = :: resilient :: __private :: recipe",
    );
    let read = method(quote!(retries = 2, timeout = self.timeout));
    assert_contains(
        &read,
        "let __resilient_make = || { let __resilient_op = :: resilient :: __private :: recipe",
    );
    assert_contains(&read, ". timeout (self . timeout)");
    assert!(!read.contains("const {"), "{read}");
    for attr in [
        quote!(retries = 3, circuit_breaker = &BREAKER),
        quote!(retries = 3, on_retry = log),
        quote!(retries = 3, retry_if = |e: &ProviderError| true),
        quote!(retries = 3, fallback = cached),
        quote!(retries = 3, name = "provider"),
        quote!(retries = 3, clock = FakeClock::new()),
        quote!(retries = 3, validate = is_complete),
    ] {
        assert!(!recipe(attr.clone()), "recipe with {attr}");
    }
}

/// A blocking function built on demand is one shape, whatever its first
/// attempt reads: the engine reads the terms from what `make` builds, and
/// only what `make` writes differs. It writes a `Recipe` where every
/// option is one a `Recipe` holds (a `budget` too), and the setters
/// otherwise.
#[test]
fn a_blocking_function_built_on_demand_is_one_shape_whatever_its_first_attempt_reads() {
    let on_demand = |attr: TokenStream| {
        expanded(attr, blocking_fn())
            .contains(":: resilient :: __private :: blocking_on_demand ! (__resilient_make ,")
    };
    let recipe = |attr: TokenStream| {
        expanded(attr, blocking_fn())
            .contains("__private :: recipe :: < String , ProviderError > ()")
    };
    for attr in [
        quote!(),
        quote!(retries = 3, budget = "5s"),
        quote!(retries = 3, on_retry = log),
        quote!(retries = 3, fallback = cached),
        quote!(retries = 3, validate = ok),
        quote!(retries = 3, circuit_breaker = &BREAKER),
    ] {
        assert!(on_demand(attr.clone()), "built once with {attr}");
    }
    assert!(expanded(quote!(retries = 3, retry_on = [Timeout]), blocking_fn()).contains(". retry_if ((| __resilient_error : & _ | :: core :: matches ! (__resilient_error , ProviderError :: Timeout { .. })) as fn (& _) -> :: core :: primitive :: bool) . name (\"call\") ; __resilient_op }) . describe ({ # [allow (unused_imports)] use :: resilient :: __private :: { ByDebug as _ , ByDisplay as _ } ; (&& :: resilient :: __private :: Describe :: < ProviderError > :: NEW) . describer () }) . tally (& __RESILIENT_TALLY)"));
    for attr in [
        quote!(),
        quote!(retries = 3, retry_on = [Timeout], backoff = constant("1s")),
        quote!(retries = 3, jitter_seed = 7, min_retries = 1),
        quote!(retries = 3, budget = "5s"),
        quote!(retries = 3, max_elapsed = "5s"),
    ] {
        assert!(recipe(attr.clone()), "setters with {attr}");
    }
    for attr in [
        quote!(retries = 3, on_retry = log),
        quote!(retries = 3, retry_if = |e: &ProviderError| true),
        quote!(retries = 3, fallback = cached),
        quote!(retries = 3, clock = clock),
        quote!(retries = 3, validate = ok),
        quote!(retries = 3, name = "other"),
        quote!(retries = 3, report = hook),
        quote!(retries = 3, circuit_breaker = &BREAKER),
        quote!(retries = 3, timing = false),
    ] {
        assert!(!recipe(attr.clone()), "recipe with {attr}");
    }
}

/// An async function whose options grant no deadline (no `timeout`, no
/// `budget`, no `retry` policy that may bring one) runs its first attempt
/// through the untimed entry, whose future has no room for a timer; one
/// that may grant a deadline through the timed one.
#[test]
fn a_first_attempt_without_a_deadline_has_no_timer() {
    let entry = |attr: TokenStream| {
        let out = expanded(attr, async_fn());
        match (
            out.contains("! (untimed ,") || out.contains("gated , untimed ,"),
            out.contains("! (timed ,") || out.contains("gated , timed ,"),
        ) {
            (true, false) => "untimed",
            (false, true) => "timed",
            other => panic!("{other:?} in {out}"),
        }
    };
    assert_eq!(entry(quote!(retries = 3, retry_on = [Timeout])), "untimed");
    assert_eq!(entry(quote!(retries = 3, timing = false)), "untimed");
    assert_eq!(entry(quote!(retries = 3, timeout = "1s")), "timed");
    assert_eq!(entry(quote!(retries = 3, budget = "1s")), "timed");
    assert_eq!(entry(quote!(retry = POLICY)), "timed");
}

/// The shape of the expansion follows the flags of the options' rows:
/// when the run reads an option, whether a `Recipe` holds it, whether it
/// gates attempts, how it changes the run; and whether the values are
/// constants, read again each time the operation is built.
#[test]
fn the_shape_is_decided_by_the_rows_flags_and_the_values() {
    use crate::expand::{Built, Expansion, shape};
    let method = |is_async: bool| {
        let asyncness = is_async.then(|| quote!(async));
        quote! {
            #asyncness fn call(&self, prompt: &str) -> Result<String, ProviderError> { todo!() }
        }
    };
    let cases = [
        // Blocking, built on demand: by a `Recipe` where one holds every
        // option (`crate` is never read), by its setters otherwise.
        (
            quote!(),
            blocking_fn(),
            Expansion::BlockingOnDemand { recipe: true },
        ),
        (
            quote!(
                retries = 3,
                retry_on = [Timeout],
                backoff = constant("1s"),
                jitter_seed = 7,
                min_retries = 1,
                crate = "my::runtime"
            ),
            blocking_fn(),
            Expansion::BlockingOnDemand { recipe: true },
        ),
        (
            quote!(retries = 3, retry_if = is_transient),
            blocking_fn(),
            Expansion::BlockingOnDemand { recipe: false },
        ),
        (
            quote!(
                retries = 3,
                fallback = cached,
                fallback_on = [Busy],
                on_retry = log,
                rate_limit = hint,
                max_rate_limit_retries = 2
            ),
            blocking_fn(),
            Expansion::BlockingOnDemand { recipe: false },
        ),
        // A `Recipe` holds `budget`, which the first attempt reads from it.
        (
            quote!(retries = 3, budget = "5s"),
            blocking_fn(),
            Expansion::BlockingOnDemand { recipe: true },
        ),
        (
            quote!(circuit_breaker = &BREAKER, name = "users.get"),
            blocking_fn(),
            Expansion::BlockingOnDemand { recipe: false },
        ),
        (
            quote!(retries = 2, circuit_breaker = &self.breaker),
            method(false),
            Expansion::BlockingOnDemand { recipe: false },
        ),
        // A value that reads a parameter: built once.
        (
            quote!(retries = 3, name = format!("get {prompt}")),
            blocking_fn(),
            Expansion::Built(Built::Blocking),
        ),
        (
            quote!(idempotency = &STORE, idempotency_key = "one"),
            blocking_fn(),
            Expansion::Idempotent(Built::Blocking),
        ),
        // Async, built on demand: a `Recipe` holds the time limits too.
        (
            quote!(),
            async_fn(),
            Expansion::AsyncOnDemand {
                gated: false,
                recipe: true,
            },
        ),
        (
            quote!(
                retries = 2,
                retry_on = [Busy],
                timeout = "1s",
                budget = "5s",
                max_elapsed = "3s",
                min_retries = 1
            ),
            async_fn(),
            Expansion::AsyncOnDemand {
                gated: false,
                recipe: true,
            },
        ),
        (
            quote!(retries = 2, retry_if = is_transient, fallback = cached),
            async_fn(),
            Expansion::AsyncOnDemand {
                gated: false,
                recipe: false,
            },
        ),
        (
            quote!(retries = 2, circuit_breaker = &BREAKER),
            async_fn(),
            Expansion::AsyncOnDemand {
                gated: true,
                recipe: false,
            },
        ),
        (
            quote!(limit = [&POOL, &RATE], throttle = &THROTTLE),
            async_fn(),
            Expansion::AsyncOnDemand {
                gated: true,
                recipe: false,
            },
        ),
        (
            quote!(chaos = &CHAOS, chaos_latency = "1s"),
            method(true),
            Expansion::AsyncOnDemand {
                gated: true,
                recipe: false,
            },
        ),
        // A policy is bound once, before the operation, whatever its value.
        (
            quote!(retry = policy_for(prompt)),
            async_fn(),
            Expansion::AsyncOnDemand {
                gated: true,
                recipe: false,
            },
        ),
        (
            quote!(retries = 2, clock = clock_of(prompt)),
            async_fn(),
            Expansion::Built(Built::Async { gated: false }),
        ),
        (
            quote!(
                retries = 2,
                circuit_breaker = &self.breaker,
                name = format!("{prompt}")
            ),
            method(true),
            Expansion::Built(Built::Async { gated: true }),
        ),
        (
            quote!(retries = 2, hedge = "100ms", max_hedges = 2),
            async_fn(),
            Expansion::Built(Built::AsyncHedged),
        ),
        (
            quote!(idempotency = &STORE, idempotency_key = prompt.to_owned()),
            async_fn(),
            Expansion::Idempotent(Built::Async { gated: false }),
        ),
        (
            quote!(
                idempotency = &STORE,
                idempotency_key = prompt.to_owned(),
                hedge = "1s"
            ),
            method(true),
            Expansion::Idempotent(Built::AsyncHedged),
        ),
    ];
    for (attr, item, expected) in cases {
        assert_eq!(shape(attr.clone(), item), Some(expected), "{attr}");
    }
    // What is rejected has no shape.
    assert_eq!(shape(quote!(timeout = "1s"), blocking_fn()), None);
}

/// `max_delay` inside `exponential(…)` is its `max`: both at once is one
/// argument given twice.
#[test]
fn exponential_takes_max_or_max_delay_once() {
    let both = errors(
        quote!(
            retries = 2,
            backoff = exponential(max = "1s", max_delay = "2s")
        ),
        blocking_fn(),
    );
    assert_eq!(
        both,
        ["`max` and `max_delay` are one argument of `exponential`: keep only one"]
    );
    let named = expanded(
        quote!(retries = 2, backoff = exponential(max_delay = "2s")),
        blocking_fn(),
    );
    let plain = expanded(
        quote!(retries = 2, backoff = exponential(max = "2s")),
        blocking_fn(),
    );
    assert_eq!(named, plain);
}
