use resilient::resilient;

#[resilient(retries = 3)]
fn fetch() {}

fn main() {}
