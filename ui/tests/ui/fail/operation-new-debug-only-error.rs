use resilient::Operation;

#[derive(Debug)]
struct Refused;

fn main() {
    let _ = Operation::new().run(|_| Err::<(), _>(Refused));
}
