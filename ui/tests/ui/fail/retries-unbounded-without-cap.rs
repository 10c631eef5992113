use resilient::resilient;

#[resilient(retries = unbounded, backoff = constant("1s"))]
fn fetch() -> Result<u32, String> {
    Err("down".into())
}

fn main() {
    let _ = fetch();
}
