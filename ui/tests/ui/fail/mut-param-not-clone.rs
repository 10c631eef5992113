use resilient::resilient;

struct Cursor {
    position: usize,
}

#[resilient(retries = 3)]
fn read(mut cursor: Cursor) -> Result<usize, String> {
    cursor.position += 1;
    Ok(cursor.position)
}

fn main() {
    let _ = read(Cursor { position: 0 });
}
