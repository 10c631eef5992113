use resilient::resilient;

#[resilient(retries = 3)]
struct Client {
    url: String,
}

fn main() {
    let _ = Client { url: String::new() }.url;
}
