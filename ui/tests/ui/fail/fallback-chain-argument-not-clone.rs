use resilient::resilient;

/// Not `Clone`: a chain hands a copy to every candidate but the last.
struct Ticket(u32);

#[resilient(retries = 1, fallback = [replica, cache])]
fn redeem(ticket: Ticket) -> Result<u32, String> {
    Err(format!("ticket {}", ticket.0))
}

fn replica(ticket: Ticket) -> Result<u32, String> {
    Err(format!("ticket {}", ticket.0))
}

fn cache(ticket: Ticket) -> Result<u32, String> {
    Ok(ticket.0)
}

fn main() {
    let _ = redeem(Ticket(1));
}
