use resilient::resilient;

#[resilient(retries = 3)]
extern "C" fn fetch() -> Result<u32, u32> {
    Ok(1)
}

fn main() {}
