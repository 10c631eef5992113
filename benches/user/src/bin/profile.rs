//! Runs one row of the user-shaped bench 100 000 times, for callgrind:
//! `valgrind --tool=callgrind target/release/profile blocking`.
//! Rows: `direct`, `instants`, `blocking`, `blocking_budget`, `untimed`,
//! `backon`, `awaited`,
//! `timeout`, `async`, `async_untimed`, `limits`, `async_backon`;
//! `timeout_block_on`, `async_block_on` and `limits_block_on` (each call
//! its own `block_on`, as the per-call rows of `ratios`); and,
//! under an installed configuration (feature `config`), `configured`
//! (`blocking` with its own entry), `configured_bounded` (its own entry
//! with a budget) and `configured_elsewhere` (`blocking`
//! with an entry for another operation only).

use std::hint::black_box;

use resilient_user_bench::shapes;

const CALLS: u64 = 100_000;

fn blocking(f: fn(u64) -> Result<u64, shapes::ProviderError>) {
    for i in 0..CALLS {
        let _ = black_box(f(black_box(i)));
    }
}

/// Installs the configuration `text`.
fn install(text: &str) {
    resilient::config::install(resilient::config::Config::from_toml(text).expect("valid"));
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
    // Every call its own `block_on`, as the per-call rows of `ratios` run.
    macro_rules! run_block_on {
        ($call:expr) => {
            for i in 0..CALLS {
                let _ = black_box(runtime.block_on($call(black_box(i))));
            }
        };
    }
    match row.as_str() {
        "direct" => blocking(shapes::fetch),
        "instants" => blocking(shapes::two_instants),
        "blocking" => blocking(|x| shapes::value(shapes::blocking(x))),
        "untimed" => blocking(|x| shapes::value(shapes::blocking_untimed(x))),
        "blocking_budget" => blocking(|x| shapes::value(shapes::blocking_budget(x))),
        "backon" => blocking(shapes::backon_blocking),
        "operation" => blocking(shapes::operation),
        "closure" => blocking(shapes::closure_blocking),
        "awaited" => run_async!(shapes::fetch_async),
        "timeout" => run_async!(shapes::bare_timeout),
        "async" => run_async!(shapes::asynchronous),
        "async_untimed" => run_async!(shapes::asynchronous_untimed),
        "limits" => run_async!(shapes::asynchronous_limits),
        "async_backon" => run_async!(shapes::backon_async),
        "timeout_block_on" => run_block_on!(shapes::bare_timeout),
        "async_block_on" => run_block_on!(shapes::asynchronous),
        "limits_block_on" => run_block_on!(shapes::asynchronous_limits),
        "configured" => {
            install("[operations.blocking]\nretries = 3\n");
            blocking(|x| shapes::value(shapes::blocking(x)));
        }
        "configured_bounded" => {
            install("[operations.blocking]\nretries = 3\nbudget = \"2s\"\n");
            blocking(|x| shapes::value(shapes::blocking(x)));
        }
        "configured_elsewhere" => {
            install("[operations.elsewhere]\nretries = 1\n");
            blocking(|x| shapes::value(shapes::blocking(x)));
        }
        other => panic!("no row {other}"),
    }
}
