//! Fingerprints of a call's parameters: a hash that is the same in every
//! process of a fleet running one build, so that a store shared between
//! them can compare it.

use std::hash::{Hash, Hasher};

/// The fingerprint of `value`: a 64-bit FNV-1a hash of what its `Hash`
/// implementation writes.
///
/// Unlike `std`'s `DefaultHasher`, whose algorithm may change between Rust
/// releases, FNV-1a is fixed, so processes of one build on one platform
/// agree. It is not a cryptographic hash: it tells a reused key with other
/// parameters from the same call repeated, not a forgery from a real call.
///
/// ```
/// use resilient::idempotency::fingerprint_of;
///
/// assert_eq!(fingerprint_of(&("order-7", 4200_u64)), fingerprint_of(&("order-7", 4200_u64)));
/// assert_ne!(fingerprint_of(&("order-7", 4200_u64)), fingerprint_of(&("order-7", 4300_u64)));
/// assert_ne!(fingerprint_of(b"amount=42".as_slice()), fingerprint_of(b"amount=43".as_slice()));
/// ```
pub fn fingerprint_of<V: Hash + ?Sized>(value: &V) -> u64 {
    let mut hasher = Fnv1a(FNV_OFFSET);
    value.hash(&mut hasher);
    hasher.finish()
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

struct Fnv1a(u64);

impl Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a 64 test vectors (draft-eastlake-fnv, section
    /// "Test Vectors"), over raw bytes.
    #[test]
    fn fnv1a_matches_the_published_vectors() {
        let raw = |bytes: &[u8]| {
            let mut hasher = Fnv1a(FNV_OFFSET);
            hasher.write(bytes);
            hasher.finish()
        };
        assert_eq!(raw(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(raw(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(raw(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
