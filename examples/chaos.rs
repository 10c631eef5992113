//! Chaos on purpose: switch on fault injection at 100 % and prove that the
//! fallback serves, the way a CI job or a staging switch would.
//!
//! ```sh
//! cargo run --example chaos
//! ```

use resilient::chaos::{Chaos, Injection};
use resilient::{AttemptKind, resilient};

#[derive(Debug, thiserror::Error)]
enum CatalogError {
    #[error("catalog unavailable")]
    Unavailable,
}

/// Off until configuration, an admin endpoint or a test switches it on.
static CATALOG_CHAOS: Chaos = Chaos::new().injection_rate(1.0);

#[resilient(retries = 2, backoff = none, fallback = cached_title, chaos = &CATALOG_CHAOS, chaos_fault = CatalogError::Unavailable)]
fn title(id: u32) -> Result<String, CatalogError> {
    Ok(format!("Live title #{id}"))
}

fn cached_title(id: u32) -> Result<String, CatalogError> {
    Ok(format!("Cached title #{id}"))
}

fn main() {
    // Chaos off: the live catalog answers, on the first attempt.
    let outcome = title(7);
    println!("chaos off\n{}\n", outcome.report());
    assert!(outcome.report().attempts()[0].injected().is_none());
    assert_eq!(outcome.into_result().unwrap(), "Live title #7");

    // Chaos on, every attempt injected: each primary attempt fails without
    // calling the catalog, and the fallback serves.
    CATALOG_CHAOS.set_enabled(true);
    let outcome = title(7);
    println!("chaos on, 100 % faults\n{}\n", outcome.report());
    let report = outcome.report();
    let primaries: Vec<_> = report
        .attempts()
        .iter()
        .filter(|attempt| attempt.kind() == AttemptKind::Primary)
        .collect();
    assert_eq!(primaries.len(), 3);
    assert!(
        primaries
            .iter()
            .all(|attempt| attempt.injected() == Some(Injection::Fault))
    );
    assert!(report.fallback_used());
    assert_eq!(outcome.into_result().unwrap(), "Cached title #7");
    println!("the fallback is proven under 100 % injected faults");
}
