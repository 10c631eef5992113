#![deny(warnings)]

use resilient::{FakeClock, RetryEvent, resilient};
use std::cell::RefCell;

/// `Debug`, without `Display`: the report records its `Debug` text.
#[derive(Debug, Clone, PartialEq)]
struct Refused {
    code: u16,
}

#[resilient(
    retries = 1,
    clock = clock.clone(),
    on_retry = |event: &RetryEvent<'_>, error: &Refused| heard.borrow_mut().push((event.attempt(), error.code))
)]
fn refused(clock: &FakeClock, heard: &RefCell<Vec<(u32, u16)>>) -> Result<u32, Refused> {
    let _ = (clock, heard);
    Err(Refused { code: 503 })
}

#[test]
fn a_debug_only_error_and_a_listener_of_it() {
    let heard = RefCell::new(Vec::new());
    let outcome = refused(&FakeClock::new(), &heard);
    let last = outcome.report().attempts().last().unwrap();
    assert_eq!(last.error().unwrap().message(), "Refused { code: 503 }");
    assert_eq!(*heard.borrow(), [(1, 503)]);
}
