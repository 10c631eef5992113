use resilient::resilient;

#[resilient(retries = 3)]
fn fetch() -> Option<u32> {
    Some(1)
}

fn main() {}
