//! "Did you mean" for misspelled option names.

/// The candidate closest to `name`, if it is close enough to be a likely typo.
pub(crate) fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let name = name.to_ascii_lowercase();
    let allowed = match name.chars().count() {
        0..=3 => 1,
        4..=8 => 2,
        _ => 3,
    };
    candidates
        .iter()
        .map(|candidate| (distance(&name, candidate), *candidate))
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Edit distance where inserting, deleting or replacing a character, or
/// swapping two adjacent ones, each cost 1 (optimal string alignment).
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut table = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in table.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in table.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (table[(i - 1) * width + j] + 1)
                .min(table[i * width + j - 1] + 1)
                .min(table[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[(i - 2) * width + j - 2] + 1);
            }
            table[i * width + j] = best;
        }
    }
    table[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTIONS: &[&str] = &["retries", "retry_on", "retry_if", "timeout", "min_retries"];

    #[test]
    fn distance_counts_edits() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("timeout", "timout"), 1);
        assert_eq!(distance("retries", "retires"), 1, "a swap costs one");
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn suggests_the_closest_option() {
        assert_eq!(closest("retires", OPTIONS), Some("retries"));
        assert_eq!(closest("retry_onn", OPTIONS), Some("retry_on"));
        assert_eq!(closest("timout", OPTIONS), Some("timeout"));
        assert_eq!(closest("Timeout", OPTIONS), Some("timeout"));
    }

    #[test]
    fn no_suggestion_when_nothing_is_close() {
        assert_eq!(closest("colour", OPTIONS), None);
        assert_eq!(closest("x", OPTIONS), None);
        assert_eq!(closest("", OPTIONS), None);
    }
}
