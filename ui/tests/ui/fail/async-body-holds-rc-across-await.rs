use resilient::resilient;
use std::rc::Rc;

// Its arguments are `Send` and `Sync`, so the retries box the body's future
// as `Send`; a body that keeps an `Rc` across an `.await` is then an error
// at that `.await`. (Take the `Rc`, or a `&Cell`, as an argument instead: a
// function with an argument that isn't `Sync` has a future that isn't
// `Send`, and runs as well.)
#[derive(Debug)]
enum FetchError {
    Transient,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

async fn tick() {}

#[resilient(retries = 2, retry_on = [Transient])]
async fn fetch(id: u32) -> Result<u32, FetchError> {
    let shared = Rc::new(id);
    tick().await;
    Ok(*shared)
}

fn main() {
    let _ = fetch(1);
}
