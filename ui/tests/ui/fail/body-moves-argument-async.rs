use resilient::resilient;

async fn send(body: String) -> Result<usize, String> {
    Ok(body.len())
}

#[resilient(retries = 3)]
async fn upload(body: String) -> Result<usize, String> {
    send(body).await
}

fn main() {
    let _ = upload(String::new());
}
