//! Fixed, platform-independent hashes: [`Fnv64`] for catalog fingerprints,
//! and [`checksum_of`] for state checksums, which hashes a value's serde
//! data model directly. Never for hash maps: nothing in gaskit iterates a
//! hash map.

use std::fmt;
use std::hash::Hasher;

/// 64-bit FNV-1a. Fixed constants, no random seed: the same bytes hash the
/// same on every machine and every run, which is what a catalog
/// fingerprint needs.
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

    // Numbers as little-endian bytes, whatever the machine's order (the
    // defaults write native bytes, and `usize` in its native width), so
    // a fingerprint is the same on every machine.
    fn write_u16(&mut self, value: u16) {
        self.write(&value.to_le_bytes());
    }

    fn write_u32(&mut self, value: u32) {
        self.write(&value.to_le_bytes());
    }

    fn write_u64(&mut self, value: u64) {
        self.write(&value.to_le_bytes());
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
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
        // Numbers hash as their little-endian bytes, `usize` as a `u64`.
        let number = |write: &dyn Fn(&mut Fnv64)| {
            let mut h = Fnv64::new();
            write(&mut h);
            h.finish()
        };
        let bytes = 0x0102_0304_0506_0708u64.to_le_bytes();
        assert_eq!(
            number(&|h| h.write_u64(0x0102_0304_0506_0708)),
            hash(&bytes)
        );
        assert_eq!(
            number(&|h| h.write_usize(0x0506_0708)),
            hash(&0x0506_0708u64.to_le_bytes())
        );
        assert_eq!(number(&|h| h.write_u32(0x0506_0708)), hash(&bytes[..4]));
        assert_eq!(number(&|h| h.write_u16(0x0708)), hash(&bytes[..2]));
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

/// Hashes any serializable value by feeding its serde data model, as little
/// endian words, through a word-at-a-time mixer: no text, no buffer. Struct
/// field names are not hashed (they are fixed per type); lengths, variant
/// indices and `Option` tags are, so distinct values of one type hash apart.
/// The result depends only on the value, never on the machine.
pub(crate) fn checksum_of<T: serde::Serialize + ?Sized>(value: &T) -> u64 {
    let mut hasher = WordHasher(0x243f_6a88_85a3_08d3);
    // The hasher's serializer never fails: every serde value has a form.
    let _ = value.serialize(&mut hasher);
    hasher.0
}

/// The state of [`checksum_of`].
struct WordHasher(u64);

impl WordHasher {
    #[inline]
    fn word(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.word(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(word));
        }
    }
}

/// The only error [`WordHasher`] can report: one a `Serialize` impl makes up.
#[derive(Debug)]
struct HashError;

impl fmt::Display for HashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value refused to serialize")
    }
}

impl std::error::Error for HashError {}

impl serde::ser::Error for HashError {
    fn custom<T: fmt::Display>(_: T) -> Self {
        HashError
    }
}

/// Stands for the length of a sequence or map not known up front.
const UNSIZED: u64 = u64::MAX;
/// Closes every sequence and map, so where one ends and the next begins is
/// part of the hash even when lengths were not given.
const END: u64 = 0x656e_645f_6f66_5f73;

impl serde::Serializer for &mut WordHasher {
    type Ok = ();
    type Error = HashError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Result<(), HashError> {
        self.word(u64::from(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), HashError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), HashError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), HashError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), HashError> {
        self.word(v as u64);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), HashError> {
        self.serialize_u128(v as u128)
    }
    fn serialize_u8(self, v: u8) -> Result<(), HashError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), HashError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), HashError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), HashError> {
        self.word(v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), HashError> {
        self.word(v as u64);
        self.word((v >> 64) as u64);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), HashError> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), HashError> {
        // The exact bits: state is compared bit for bit.
        self.word(v.to_bits());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), HashError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_str(self, v: &str) -> Result<(), HashError> {
        self.bytes(v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), HashError> {
        self.bytes(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), HashError> {
        self.word(0);
        Ok(())
    }
    fn serialize_some<T: serde::Serialize + ?Sized>(self, value: &T) -> Result<(), HashError> {
        self.word(1);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), HashError> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), HashError> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
    ) -> Result<(), HashError> {
        self.serialize_u32(index)
    }
    fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), HashError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), HashError> {
        self.word(u64::from(index));
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, HashError> {
        self.word(len.map_or(UNSIZED, |n| n as u64));
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, HashError> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, HashError> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, HashError> {
        self.word(u64::from(index));
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self, HashError> {
        self.word(len.map_or(UNSIZED, |n| n as u64));
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, HashError> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, HashError> {
        self.word(u64::from(index));
        Ok(self)
    }
}

/// Elements and fields hash in order; a sequence also hashes its end
/// (`closed`), fixed-arity tuples and structs need not.
macro_rules! hash_compound {
    ($trait:ident, $method:ident, closed: $closed:expr $(, $key:ident)?) => {
        impl serde::ser::$trait for &mut WordHasher {
            type Ok = ();
            type Error = HashError;
            fn $method<T: serde::Serialize + ?Sized>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result<(), HashError> {
                $(let _ = $key;)?
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), HashError> {
                if $closed {
                    self.word(END);
                }
                Ok(())
            }
        }
    };
}

hash_compound!(SerializeSeq, serialize_element, closed: true);
hash_compound!(SerializeTuple, serialize_element, closed: false);
hash_compound!(SerializeTupleStruct, serialize_field, closed: false);
hash_compound!(SerializeTupleVariant, serialize_field, closed: false);
hash_compound!(SerializeStruct, serialize_field, closed: false, name);
hash_compound!(SerializeStructVariant, serialize_field, closed: false, name);

impl serde::ser::SerializeMap for &mut WordHasher {
    type Ok = ();
    type Error = HashError;
    fn serialize_key<T: serde::Serialize + ?Sized>(&mut self, key: &T) -> Result<(), HashError> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: serde::Serialize + ?Sized>(
        &mut self,
        value: &T,
    ) -> Result<(), HashError> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), HashError> {
        self.word(END);
        Ok(())
    }
}

#[cfg(test)]
mod checksum_tests {
    use super::checksum_of;

    /// A sequence that does not tell its length up front.
    struct Unsized(Vec<u8>);

    impl serde::Serialize for Unsized {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            let mut seq = serializer.serialize_seq(None)?;
            for b in &self.0 {
                seq.serialize_element(b)?;
            }
            seq.end()
        }
    }

    #[test]
    fn equal_values_hash_equal_and_small_differences_apart() {
        let a = (1u32, Some("alice".to_string()), vec![1.5f64, -0.0]);
        assert_eq!(checksum_of(&a), checksum_of(&a.clone()));
        let variants = [
            (2u32, Some("alice".to_string()), vec![1.5f64, -0.0]),
            (1u32, None, vec![1.5f64, -0.0]),
            (1u32, Some("alicf".to_string()), vec![1.5f64, -0.0]),
            (1u32, Some("alice".to_string()), vec![1.5f64, 0.0]),
            (1u32, Some("alice".to_string()), vec![1.5f64]),
        ];
        for other in variants {
            assert_ne!(checksum_of(&a), checksum_of(&other), "{other:?}");
        }
        // Where one sequence ends and the next begins is part of the value,
        // even for sequences that do not announce their length.
        assert_ne!(
            checksum_of(&(vec![1u8, 2], vec![3u8])),
            checksum_of(&(vec![1u8], vec![2u8, 3]))
        );
        let unsized_pair = |a: Vec<u8>, b: Vec<u8>| checksum_of(&(Unsized(a), Unsized(b)));
        assert_ne!(
            unsized_pair(vec![1, 2], vec![3]),
            unsized_pair(vec![1], vec![2, 3])
        );
    }

    #[test]
    fn the_hash_is_fixed_across_machines_and_versions() {
        // A pinned value: changing the mixer changes every saved checksum.
        assert_eq!(checksum_of(&(7u64, "gaskit")), 0xfdeb_b52e_a29e_f330);
    }
}
