//! The attribute never panics. Whatever tokens it is given, `expand` returns
//! tokens: either a function that parses, or the input next to a
//! `compile_error!`. Three sources of input are fed to it:
//!
//! * arbitrary token trees: option names, keywords, every punctuation,
//!   literals of every kind (huge integers and floats, strings such as
//!   `"99999999999999999999h"`), groups with every delimiter, nested;
//! * a corpus of valid attribute/function pairs covering every option and
//!   every shape of function, with tokens deleted, duplicated, swapped,
//!   replaced or inserted at any depth, and groups opened or closed;
//! * every option name given random values, on the corpus's functions.
//!
//! A panic is caught and reported as a failing case that shows the input.

use std::any::Any;
use std::ffi::CString;
use std::panic::{self, AssertUnwindSafe};

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{RngAlgorithm, TestCaseError};

use crate::expand::expand;
use crate::options;

/// Valid `#[resilient(…)]` attribute/function pairs: together they use
/// every option, every form of `backoff` and every shape of function the
/// attribute accepts.
const CORPUS: &[(&str, &str)] = &[
    ("", "fn plain() -> Result<(), Error> { Ok(()) }"),
    (
        r#"retries = 2, name = "users.get", report = log_report, throttle = &THROTTLE, fallback = [cached, stale_copy]"#,
        "fn named(id: u32) -> Result<u32, Error> { Ok(id) }",
    ),
    (
        r#"retries = 2, idempotency = &PAYMENTS, idempotency_key = order.id.to_string(), idempotency_ttl = "1h", idempotency_fingerprint = (order.id, order.cents)"#,
        "async fn charge(order: &Order) -> Result<Receipt, PaymentError> { pay(order).await }",
    ),
    (
        r#"retries = 2, chaos = [&FAULTS, &STALE, &SLOW], chaos_fault = Error::Unavailable, chaos_outcome = || 0, chaos_latency = "2s""#,
        "async fn chaotic(id: u32) -> Result<u32, Error> { Ok(id) }",
    ),
    (
        r#"retries = 1, coalesce = format!("user-{id}")"#,
        "async fn shared(id: u32) -> Result<u32, Error> { Ok(id) }",
    ),
    (
        r#"retries = 1, hedge = "200ms", max_hedges = 2, timing = false"#,
        "async fn hedged(id: u32) -> Result<u32, Error> { Ok(id) }",
    ),
    (
        r#"retries = 3, retry_on = [Timeout, ProviderError::Transient], backoff = exponential(base = "100ms", max = "10s", multiplier = 2.0, jitter = full), jitter_seed = 7, fallback = cached, fallback_on = [Unavailable]"#,
        "async fn call_provider(prompt: &str) -> Result<String, ProviderError> { complete(prompt).await }",
    ),
    (
        r#"retries = 2, retry_if = |e: &Error| e.is_transient(), backoff = constant("1s"), max_delay = "500ms""#,
        "fn fetch(&self, id: u32) -> Result<u32, Error> { self.get(id) }",
    ),
    (
        r#"retries = 2, ignore_on = [NotFound, Error::Cancelled], fallback = cached, fallback_on = [NotFound]"#,
        "fn lookup(id: u32) -> Result<u32, Error> { get(id) }",
    ),
    (
        "retries = 2, adaptive_throttle = &BACKEND, circuit_breaker = &BREAKER",
        "async fn quote(id: u32) -> Result<u32, Error> { price(id).await }",
    ),
    (
        "retries = 1, ignore_if = |e: &Error| e.is_cancelled()",
        "async fn send(id: u32) -> Result<u32, Error> { post(id).await }",
    ),
    (
        r#"retries = 5, backoff = none, timeout = "250ms", budget = "30s", max_elapsed = "10s", min_retries = 2"#,
        "async fn bump(&mut self) -> Result<u32, Error> { self.count += 1; Ok(self.count) }",
    ),
    (
        "retry = POLICY, budget = self.budget, clock = clock.clone()",
        "fn with_policy(&self, clock: &FakeClock) -> std::io::Result<u8> { Ok(1) }",
    ),
    (
        "retries = 1, fallback = Self::cached",
        "async fn shared(self: Arc<Self>, id: u32) -> Result<u32, Unavailable> { let _ = id; Err(Unavailable) }",
    ),
    (
        r#"retries = 3, retry_after = |e: &ApiError| e.retry_after(), max_retry_after_wait = "1m", max_retry_after_retries = 4"#,
        "async fn limited<T: Into<String> + Send>(value: T) -> Result<String, ApiError> where T: Clone { Ok(value.into()) }",
    ),
    (
        "retries = 2, circuit_breaker = &BREAKER, validate = is_complete",
        "fn generic<'a, T>(items: &'a [T], reason: impl AsRef<str>) -> Result<&'a T, Error> { items.first().ok_or(Error) }",
    ),
    (
        r#"retries = 2, on_retry = |event: &RetryEvent<'_>| log(event), crate = "crate::runtime""#,
        "pub(crate) fn parse(text: &str, #[attempt] attempt: Attempt) -> Result<u32, ParseIntError> { let _ = attempt; text.parse() }",
    ),
    (
        "retries = 0",
        r#"#[inline] #[doc = "docs"] pub async unsafe fn patterns((a, b): (u8, u8), mut c: u8) -> Result<u8, Error> { c += a; if b == 0 { return Err(Error); } Ok(c) }"#,
    ),
    (
        "backoff = Backoff::exponential(Duration::from_millis(10), Duration::from_secs(1)), retries = 4, budget = Duration::from_secs(5)",
        "fn expressions() -> io::Result<()> { Ok(()) }",
    ),
    (
        r#"retries = 3, retry_on = [Timeout], timeout = "1.5s", budget = "2h", clock = resilient::TokioClock"#,
        "async fn attempt_first(#[attempt] attempt: Attempt, body: Vec<u8>) -> Result<usize, ApiError> { let _ = attempt.number(); Ok(body.len()) }",
    ),
    (
        "retries = 2, backoff = exponential",
        "fn inner_attributes() -> Result<(), Error> { #![allow(unused)] let x = 1; Ok(()) }",
    ),
    (
        r#"retries = 10, min_retries = 10, max_records = 4, max_elapsed = "100ns", backoff = exponential(jitter = equal, multiplier = 3)"#,
        "async fn boxed(&self) -> core::result::Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> { Ok(Vec::new()) }",
    ),
    (
        r#"retries = 1, backoff = exponential(base = "1us", max = "2m", jitter = none), validate = Self::check, fallback = fallback::cached"#,
        "fn r#match(r#type: u8) -> Result<u8, r#Error> { Ok(r#type) }",
    ),
    (
        r#"rate_limit = hint, max_rate_limit_wait = Duration::MAX, max_rate_limit_retries = 0, budget = "1h""#,
        "fn nothing() -> Result<(), ()> { Err(()) }",
    ),
    (
        "retries = 2, retry_on = [Timeout, AppError::Busy], fallback = cached, fallback_if = is_outage",
        "fn aliased(mut count: u32, key: &str) -> AppResult<u32> { count += key.len() as u32; Ok(count) }",
    ),
    (
        r#"retries = 1, fallback = Self::cached, budget = "1s", circuit_breaker = &self.breaker"#,
        "async fn bump(mut self, step: u32) -> Result<u32, Error> { self.count += step; Ok(self.count) }",
    ),
    (
        r#"retries = 2, limit = [&POOL, &self.quota], limit_wait = "250ms", priority = "very_low""#,
        "async fn limited_call(&self, id: u32) -> Result<u32, Busy> { Ok(id) }",
    ),
    (
        "limit = &BULKHEAD",
        "fn one_limiter() -> Result<(), Busy> { Ok(()) }",
    ),
    (
        r#"retries = 3, nested = "no_retry", budget = "2s""#,
        "async fn holding(id: u32) -> Result<u32, Error> { inner(id).await }",
    ),
    (
        r#"nested = "retry", clock = clock"#,
        "fn not_holding(clock: &FakeClock) -> Result<(), Error> { Ok(()) }",
    ),
    (
        "retries = 1, retry_on = [Busy], validate = Self::complete",
        "async fn through_a_trait(&self, (mut a, b): (u8, u8)) -> <Production as Api>::Result { a += b; self.call(a).await }",
    ),
];

/// Identifiers the attribute gives a meaning to, and keywords a function
/// is made of.
const WORDS: &[&str] = &[
    "exponential",
    "constant",
    "none",
    "base",
    "max",
    "multiplier",
    "jitter",
    "full",
    "equal",
    "attempt",
    "max_attempts",
    "max_retries",
    "Timeout",
    "Duration",
    "fn",
    "async",
    "const",
    "unsafe",
    "extern",
    "pub",
    "crate",
    "self",
    "Self",
    "super",
    "impl",
    "dyn",
    "where",
    "for",
    "mut",
    "ref",
    "move",
    "return",
    "await",
    "struct",
    "enum",
    "trait",
    "mod",
    "static",
    "type",
    "union",
    "let",
    "match",
    "if",
    "loop",
    "Result",
    "Ok",
    "Err",
    "io",
    "core",
    "Box",
    "Arc",
    "_",
    "r",
    "C",
    "α",
];

/// Words that may be written raw (`r#fn`).
const RAW_WORDS: &[&str] = &["fn", "match", "type", "async", "retries", "Result"];

const PUNCTUATION: &[char] = &[
    '=', '<', '>', '!', '~', '+', '-', '*', '/', '%', '^', '&', '|', '@', '.', ',', ';', ':', '#',
    '$', '?', '\'',
];

/// Literal tokens that stress the parsers of counts, durations and
/// multipliers: overflowing numbers, odd suffixes, odd string forms.
const TRICKY_LITERALS: &[&str] = &[
    "99999999999999999999",
    "99999999999999999999h",
    "340282366920938463463374607431768211456",
    "4294967295",
    "4294967296",
    "18446744073709551616u64",
    "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
    "0b1111",
    "0o777",
    "1_000_000_000_000_000_000_000u32",
    "00001",
    "1u999",
    "1e999",
    "1e999f64",
    "0.5e-999",
    "1e+5",
    "1E5",
    "1.",
    "2.0f128",
    "\"99999999999999999999h\"",
    "\"18446744073709551615s\"",
    "\"18446744073709551616s\"",
    "\"5000000000000h\"",
    "\"0.000000000000000000001s\"",
    "\"0.0000000001ns\"",
    "\"1.5\"",
    "\"-1s\"",
    "\"1e3ms\"",
    "\"µs\"",
    "\"1µs\"",
    "\"  10 s \"",
    "\"\"",
    "\"1..5s\"",
    "\"1.s\"",
    "\".5s\"",
    "\"1.5.5s\"",
    "\"0s\"",
    "r#\"1s\"#",
    "b\"1s\"",
    "br\"1s\"",
    "c\"1s\"",
    "'a'",
    "b'a'",
    "'\\u{10FFFF}'",
    "\"\\u{0}\"",
    "\"1s\"suffix",
];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    }
}

fn ident() -> impl Strategy<Value = Ident> {
    let option = select(options::spellings().collect::<Vec<_>>())
        .prop_map(|name| Ident::new(name, Span::call_site()));
    let word = select(WORDS).prop_map(|word| Ident::new(word, Span::call_site()));
    let raw = select(RAW_WORDS).prop_map(|word| Ident::new_raw(word, Span::call_site()));
    let any = "[a-zA-Z_][a-zA-Z0-9_]{0,10}".prop_map(|name| Ident::new(&name, Span::call_site()));
    prop_oneof![4 => option, 4 => word, 1 => raw, 2 => any]
}

fn punct() -> impl Strategy<Value = Punct> {
    (
        select(PUNCTUATION),
        prop_oneof![Just(Spacing::Alone), Just(Spacing::Joint)],
    )
        .prop_map(|(ch, spacing)| Punct::new(ch, spacing))
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("literals are finite", |f| f.is_finite()),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
        Just(1.0 - f64::EPSILON),
        Just(0.0),
    ]
}

fn literal() -> impl Strategy<Value = Literal> {
    let duration_text = "[0-9]{1,30}(\\.[0-9]{0,12})? ?(ns|us|µs|ms|s|m|h|d|)";
    prop_oneof![
        1 => any::<u128>().prop_map(Literal::u128_unsuffixed),
        1 => any::<u64>().prop_map(Literal::u64_suffixed),
        1 => (0u32..20).prop_map(Literal::u32_unsuffixed),
        1 => any::<u8>().prop_map(Literal::u8_suffixed),
        1 => any::<i64>().prop_map(Literal::i64_unsuffixed),
        1 => any::<i128>().prop_map(Literal::i128_suffixed),
        1 => finite_f64().prop_map(Literal::f64_unsuffixed),
        1 => finite_f64().prop_map(Literal::f64_suffixed),
        1 => any::<f32>()
            .prop_filter("literals are finite", |f| f.is_finite())
            .prop_map(Literal::f32_suffixed),
        2 => duration_text.prop_map(|text| Literal::string(&text)),
        1 => any::<String>().prop_map(|text| Literal::string(&text)),
        1 => any::<char>().prop_map(Literal::character),
        1 => any::<u8>().prop_map(Literal::byte_character),
        1 => prop::collection::vec(any::<u8>(), 0..8).prop_map(|bytes| Literal::byte_string(&bytes)),
        1 => prop::collection::vec(1u8.., 0..8).prop_map(|bytes| {
            let text = CString::new(bytes).unwrap_or_default();
            Literal::c_string(&text)
        }),
        2 => select(TRICKY_LITERALS).prop_filter_map("not a literal", |text| text.parse().ok()),
    ]
}

fn delimiter() -> impl Strategy<Value = Delimiter> {
    prop_oneof![
        Just(Delimiter::Parenthesis),
        Just(Delimiter::Brace),
        Just(Delimiter::Bracket),
        Just(Delimiter::None),
    ]
}

fn leaf() -> impl Strategy<Value = TokenTree> {
    prop_oneof![
        ident().prop_map(TokenTree::Ident),
        punct().prop_map(TokenTree::Punct),
        literal().prop_map(TokenTree::Literal),
    ]
}

fn tree() -> impl Strategy<Value = TokenTree> {
    leaf().prop_recursive(3, 32, 5, |inner| {
        (delimiter(), prop::collection::vec(inner, 0..6)).prop_map(|(delimiter, trees)| {
            TokenTree::Group(Group::new(delimiter, trees.into_iter().collect()))
        })
    })
}

fn stream(len: std::ops::Range<usize>) -> impl Strategy<Value = TokenStream> {
    prop::collection::vec(tree(), len).prop_map(|trees| trees.into_iter().collect())
}

/// Parameter lists: fragments of real parameters, `#[attempt]` markers and
/// random trees, in any order.
fn parameters() -> impl Strategy<Value = TokenStream> {
    const FRAGMENTS: &[&str] = &[
        "#[attempt]",
        "#[attempt(x)]",
        "#[attempt = 1]",
        "attempt: Attempt",
        "self",
        "&self",
        "&'a mut self",
        "mut self",
        "self: Arc<Self>",
        "id: u32",
        "(a, b): (u8, u8)",
        "_: u8",
        "ref r: u8",
        "x @ 1..=2: u8",
        "reason: impl AsRef<str>",
        "...",
        ",",
        ":",
    ];
    let fragment = prop_oneof![
        3 => select(FRAGMENTS).prop_map(parse),
        1 => tree().prop_map(TokenStream::from),
    ];
    prop::collection::vec(fragment, 0..8).prop_map(|fragments| fragments.into_iter().collect())
}

/// `key = value, …` with keys drawn from the options and random values.
fn random_options() -> impl Strategy<Value = TokenStream> {
    let pair = (
        select(options::spellings().collect::<Vec<_>>()),
        stream(0..4),
        any::<bool>(),
    );
    prop::collection::vec(pair, 0..5).prop_map(|pairs| {
        let mut attr = TokenStream::new();
        for (key, value, with_equals) in pairs {
            attr.extend([TokenTree::Ident(Ident::new(key, Span::call_site()))]);
            if with_equals {
                attr.extend([TokenTree::Punct(Punct::new('=', Spacing::Alone))]);
            }
            attr.extend(value);
            attr.extend([TokenTree::Punct(Punct::new(',', Spacing::Alone))]);
        }
        attr
    })
}

/// A token stream flattened so that mutations reach every depth: a group
/// becomes its opening, its contents and its closing.
#[derive(Clone, Debug)]
enum Tok {
    Leaf(TokenTree),
    Open(Delimiter),
    Close,
}

fn flatten(stream: TokenStream, out: &mut Vec<Tok>) {
    for tree in stream {
        match tree {
            TokenTree::Group(group) => {
                out.push(Tok::Open(group.delimiter()));
                flatten(group.stream(), out);
                out.push(Tok::Close);
            }
            leaf => out.push(Tok::Leaf(leaf)),
        }
    }
}

/// Rebuilds a stream: a stray closing is dropped, an unclosed group is
/// closed at the end.
fn rebuild(toks: &[Tok]) -> TokenStream {
    fn close(stack: &mut Vec<(Delimiter, Vec<TokenTree>)>) {
        if stack.len() > 1
            && let Some((delimiter, trees)) = stack.pop()
            && let Some((_, parent)) = stack.last_mut()
        {
            let group = Group::new(delimiter, trees.into_iter().collect());
            parent.push(TokenTree::Group(group));
        }
    }
    let mut stack = vec![(Delimiter::None, Vec::new())];
    for tok in toks {
        match tok {
            Tok::Leaf(tree) => {
                if let Some((_, trees)) = stack.last_mut() {
                    trees.push(tree.clone());
                }
            }
            Tok::Open(delimiter) => stack.push((*delimiter, Vec::new())),
            Tok::Close => close(&mut stack),
        }
    }
    while stack.len() > 1 {
        close(&mut stack);
    }
    stack
        .pop()
        .map(|(_, trees)| trees.into_iter().collect())
        .unwrap_or_default()
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(Index),
    Duplicate(Index),
    Swap(Index, Index),
    Replace(Index, TokenTree),
    Insert(Index, TokenTree),
    Open(Index, Delimiter),
    Close(Index),
}

/// An edit, and whether it applies to the attribute (else to the item).
fn mutation() -> impl Strategy<Value = (bool, Edit)> {
    let edit = prop_oneof![
        3 => any::<Index>().prop_map(Edit::Delete),
        2 => any::<Index>().prop_map(Edit::Duplicate),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        3 => (any::<Index>(), tree()).prop_map(|(at, tree)| Edit::Replace(at, tree)),
        2 => (any::<Index>(), tree()).prop_map(|(at, tree)| Edit::Insert(at, tree)),
        1 => (any::<Index>(), delimiter()).prop_map(|(at, delimiter)| Edit::Open(at, delimiter)),
        1 => any::<Index>().prop_map(Edit::Close),
    ];
    (any::<bool>(), edit)
}

fn apply(toks: &mut Vec<Tok>, edit: &Edit) {
    let len = toks.len();
    let at = |index: &Index| index.index(len + 1).min(len);
    match edit {
        Edit::Insert(index, tree) => {
            let mut inserted = Vec::new();
            flatten(std::iter::once(tree.clone()).collect(), &mut inserted);
            let at = at(index);
            toks.splice(at..at, inserted);
        }
        Edit::Open(index, delimiter) => toks.insert(at(index), Tok::Open(*delimiter)),
        Edit::Close(index) => toks.insert(at(index), Tok::Close),
        _ if len == 0 => {}
        Edit::Delete(index) => {
            toks.remove(index.index(len));
        }
        Edit::Duplicate(index) => {
            let i = index.index(len);
            toks.insert(i, toks[i].clone());
        }
        Edit::Swap(a, b) => toks.swap(a.index(len), b.index(len)),
        Edit::Replace(index, tree) => {
            let mut replacement = Vec::new();
            flatten(std::iter::once(tree.clone()).collect(), &mut replacement);
            let i = index.index(len);
            toks.splice(i..=i, replacement);
        }
    }
}

fn parse(text: &str) -> TokenStream {
    text.parse()
        .unwrap_or_else(|error| panic!("corpus entry `{text}` doesn't lex: {error}"))
}

/// Whether `stream` holds a `compile_error!` at any depth.
fn has_compile_error(stream: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = stream.clone().into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Ident(ident) => {
            ident == "compile_error"
                && matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!')
        }
        TokenTree::Group(group) => has_compile_error(&group.stream()),
        _ => false,
    })
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-string payload")
}

/// Expands `#[resilient(attr)] item` without letting a panic escape, and
/// checks the result: a `compile_error!`, or a function that parses.
fn check(attr: TokenStream, item: TokenStream) -> Result<TokenStream, TestCaseError> {
    let input = format!("#[resilient({attr})]\n{item}");
    let output =
        panic::catch_unwind(AssertUnwindSafe(|| expand(attr, item))).map_err(|payload| {
            TestCaseError::fail(format!(
                "expand panicked: {}\ninput:\n{input}",
                panic_message(&*payload)
            ))
        })?;
    if !has_compile_error(&output) {
        let parsed = syn::parse2::<syn::ItemFn>(output.clone());
        prop_assert!(
            parsed.is_ok(),
            "accepted, but the expansion is not a function ({})\ninput:\n{input}\noutput:\n{output}",
            parsed.err().map(|e| e.to_string()).unwrap_or_default()
        );
    }
    Ok(output)
}

/// A mutation's find: a keyword with generic arguments as the return
/// type (here `crate`, in an invisible group as a macro's `$ty` would
/// give it) is no type, and the expansion, which nests it in generics,
/// could not be parsed; it is rejected with an error instead.
#[test]
fn a_keyword_with_generic_arguments_is_no_return_type() {
    let item = parse("fn f() -> Result<(), Error> { Ok(()) }");
    let item: TokenStream = item
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) if ident == "Result" => {
                let keyword = TokenTree::Ident(Ident::new("crate", Span::call_site()));
                TokenTree::Group(Group::new(Delimiter::None, keyword.into()))
            }
            other => other,
        })
        .collect();
    let output = check(parse("retries = 2"), item).unwrap_or_else(|error| panic!("{error}"));
    assert!(
        output.to_string().contains("the return type must be"),
        "{output}"
    );
}

#[test]
fn corpus_expands_without_errors() {
    for (attr, item) in CORPUS {
        let output = check(parse(attr), parse(item)).unwrap_or_else(|error| panic!("{error}"));
        assert!(
            !has_compile_error(&output),
            "valid input rejected:\n#[resilient({attr})]\n{item}\n=> {output}"
        );
    }
}

#[test]
fn corpus_covers_every_option_by_every_name() {
    let attrs: Vec<TokenStream> = CORPUS.iter().map(|(attr, _)| parse(attr)).collect();
    for option in options::spellings() {
        let used = attrs.iter().any(|attr| {
            attr.clone()
                .into_iter()
                .any(|tree| matches!(&tree, TokenTree::Ident(ident) if ident == option))
        });
        assert!(used, "no corpus entry uses `{option}`");
    }
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn random_tokens_never_panic(attr in stream(0..8), item in stream(0..8)) {
        check(attr, item)?;
    }

    #[test]
    fn random_option_values_never_panic(attr in random_options(), entry in select(CORPUS)) {
        check(attr, parse(entry.1))?;
    }

    #[test]
    fn random_parameters_never_panic(entry in select(CORPUS), params in parameters()) {
        // A valid attribute and function with other parameters reaches the
        // reading of receivers, patterns and `#[attempt]` markers.
        let mut trees: Vec<TokenTree> = parse(entry.1).into_iter().collect();
        let after_fn = trees
            .iter()
            .position(|tree| matches!(tree, TokenTree::Ident(ident) if ident == "fn"))
            .unwrap_or_default();
        let list = trees.iter_mut().skip(after_fn).find(|tree| {
            matches!(tree, TokenTree::Group(group) if group.delimiter() == Delimiter::Parenthesis)
        });
        if let Some(list) = list {
            *list = TokenTree::Group(Group::new(Delimiter::Parenthesis, params));
        }
        check(parse(entry.0), trees.into_iter().collect())?;
    }
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn mutated_corpus_never_panics(
        entry in select(CORPUS),
        edits in prop::collection::vec(mutation(), 1..4),
    ) {
        let mut attr = Vec::new();
        let mut item = Vec::new();
        flatten(parse(entry.0), &mut attr);
        flatten(parse(entry.1), &mut item);
        for (on_attr, edit) in &edits {
            apply(if *on_attr { &mut attr } else { &mut item }, edit);
        }
        check(rebuild(&attr), rebuild(&item))?;
    }
}
