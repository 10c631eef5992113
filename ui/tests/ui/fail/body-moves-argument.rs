use resilient::resilient;

fn send(body: String) -> Result<usize, String> {
    Ok(body.len())
}

#[resilient(retries = 3)]
fn upload(body: String) -> Result<usize, String> {
    send(body)
}

fn main() {
    let _ = upload(String::new());
}
