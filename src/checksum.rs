//! [`Fnv64`]: a small, fixed, platform-independent hash for checksums and
//! fingerprints (never for hash maps: nothing in gaskit iterates a hash map).

use std::fmt;
use std::hash::Hasher;

/// 64-bit FNV-1a. Fixed constants, no random seed: the same bytes hash the
/// same on every machine and every run, which is what a rollback checksum
/// or a catalog fingerprint needs.
#[derive(Copy, Clone, Debug)]
pub struct Fnv64(u64);

impl Fnv64 {
    /// A hasher with the FNV offset basis.
    pub const fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes a name followed by a separator, so `["ab", "c"]` and
    /// `["a", "bc"]` differ.
    pub fn write_name(&mut self, name: &str) {
        self.write(name.as_bytes());
        self.write(&[0xff]);
    }
}

impl Default for Fnv64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Hasher for Fnv64 {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Lets a text serializer stream straight into the hash, with no buffer.
impl fmt::Write for Fnv64 {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.write(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_fnv1a_vectors() {
        let hash = |bytes: &[u8]| {
            let mut h = Fnv64::new();
            h.write(bytes);
            h.finish()
        };
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn names_are_separated() {
        let of = |names: &[&str]| {
            let mut h = Fnv64::new();
            names.iter().for_each(|n| h.write_name(n));
            h.finish()
        };
        assert_ne!(of(&["ab", "c"]), of(&["a", "bc"]));
    }
}
