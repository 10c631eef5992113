// A coalesced execution may outlive its caller, and its calls share one
// `static` group: a borrowed argument, a receiver and a type parameter are
// each reported at `coalesce`; an error that isn't `Clone` at the key.
use resilient::resilient;

#[derive(Debug, thiserror::Error)]
#[error("busy")]
struct Busy;

#[derive(Debug, Clone, thiserror::Error)]
#[error("gone")]
struct Gone;

#[resilient(retries = 2, coalesce = prompt)]
async fn complete(prompt: &str) -> Result<String, Gone> {
    Ok(prompt.to_owned())
}

struct Client;

impl Client {
    #[resilient(coalesce = id.to_string())]
    async fn fetch(&self, id: u32) -> Result<u32, Gone> {
        Ok(id)
    }
}

#[resilient(coalesce = format!("{id}"))]
async fn generic<T: Default + Clone + Send + 'static>(id: u32) -> Result<T, Gone> {
    let _ = id;
    Ok(T::default())
}

#[resilient(coalesce = id.to_string())]
async fn not_clone(id: u32) -> Result<u32, Busy> {
    Ok(id)
}

fn main() {}
