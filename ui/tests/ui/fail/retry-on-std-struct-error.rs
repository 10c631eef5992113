use resilient::resilient;

// `ParseIntError` is a struct of the standard library, named by its whole
// path: the attribute knows it is not an enum.
#[resilient(retries = 3, retry_on = [InvalidDigit])]
fn parse(text: &str) -> Result<u32, std::num::ParseIntError> {
    text.parse()
}

fn main() {
    let _ = parse("7");
}
