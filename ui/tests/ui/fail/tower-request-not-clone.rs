// A request that isn't `Clone`, through a layer without `clone_request`:
// the error names `Clone` and `clone_request`.
use resilient::tower::ResilientLayer;
use tower::util::BoxService;
use tower::{Layer, service_fn};

// Not `Clone`: a body read from a file.
struct Upload(std::fs::File);

fn main() {
    let service = ResilientLayer::new()
        .retries(2)
        .layer(service_fn(|upload: Upload| async move { Ok::<_, std::io::Error>(upload.0) }));
    let _boxed = BoxService::new(service);
}
