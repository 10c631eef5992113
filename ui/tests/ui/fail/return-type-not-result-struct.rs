use resilient::resilient;

struct Response;

#[resilient(retries = 3)]
fn fetch() -> Response {
    Response
}

fn main() {}
