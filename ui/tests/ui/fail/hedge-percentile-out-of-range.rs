// A hedge at a percentile names it as `p` and two digits, or `p999`:
// `p100` and `p9` are not percentiles, and the error says how to write one.
use resilient::resilient;

#[derive(Debug)]
struct Error;

#[resilient(hedge = p100)]
async fn everything() -> Result<u32, Error> {
    Ok(1)
}

#[resilient(hedge = p9)]
async fn one_digit() -> Result<u32, Error> {
    Ok(1)
}

fn main() {}
