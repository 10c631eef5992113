//! Runs one row of the user-shaped bench 100 000 times, for callgrind:
//! `valgrind --tool=callgrind target/release/profile blocking`.
//! Rows: `direct`, `instants`, `blocking`, `untimed`, `backon`, `awaited`,
//! `timeout`, `async`, `async_untimed`, `limits`, `async_backon`.

use std::hint::black_box;

use resilient_user_bench::shapes;

const CALLS: u64 = 100_000;

fn blocking(f: fn(u64) -> Result<u64, shapes::ProviderError>) {
    for i in 0..CALLS {
        let _ = black_box(f(black_box(i)));
    }
}

fn main() {
    let row = std::env::args().nth(1).unwrap_or_else(|| "blocking".into());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime");
    macro_rules! run_async {
        ($call:expr) => {
            runtime.block_on(async {
                for i in 0..CALLS {
                    let _ = black_box($call(black_box(i)).await);
                }
            })
        };
    }
    match row.as_str() {
        "direct" => blocking(shapes::fetch),
        "instants" => blocking(shapes::two_instants),
        "blocking" => blocking(|x| shapes::value(shapes::blocking(x))),
        "untimed" => blocking(|x| shapes::value(shapes::blocking_untimed(x))),
        "backon" => blocking(shapes::backon_blocking),
        "awaited" => run_async!(shapes::fetch_async),
        "timeout" => run_async!(shapes::bare_timeout),
        "async" => run_async!(shapes::asynchronous),
        "async_untimed" => run_async!(shapes::asynchronous_untimed),
        "limits" => run_async!(shapes::asynchronous_limits),
        "async_backon" => run_async!(shapes::backon_async),
        other => panic!("no row {other}"),
    }
}
