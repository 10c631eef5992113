// A request that isn't `Clone`, sent with a method call through a layer
// without `clone_request`: the error names `Clone` and `clone_request`.
use resilient::tower::ResilientLayer;
use tower::{ServiceBuilder, ServiceExt, service_fn};

// Not `Clone`: a body read from a file.
struct Upload(std::fs::File);

async fn send(upload: Upload) {
    let service = ServiceBuilder::new()
        .layer(ResilientLayer::new().retries(2))
        .service(service_fn(|upload: Upload| async move { Ok::<_, std::io::Error>(upload.0) }));
    let _ = service.oneshot(upload).await;
}

fn main() {
    let _ = send;
}
