use resilient::resilient;

struct Cursor {
    position: usize,
}

impl Cursor {
    #[resilient(retries = 3)]
    fn advance(mut self) -> Result<usize, String> {
        self.position += 1;
        Ok(self.position)
    }
}

fn main() {
    let _ = Cursor { position: 0 }.advance();
}
