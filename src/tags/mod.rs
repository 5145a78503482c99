//! Hierarchical gameplay tags: the registry, tags, sets, queries and counted
//! owned tags.
//!
//! A tag is a dotted name (`Combat.DamageType.Slash`) interned once into a
//! [`TagRegistry`]. Matching is hierarchical, as in Unreal's GAS: a set
//! holding `Action.Modal.Banking` [`has`](TagSet::has) `Action.Modal`.
//! Taxonomies live in `tags/*.tags` files (see [`TagRegistryBuilder`] for the
//! format); the shipped CRADL taxonomy is embedded in the binary.

mod changes;
mod counts;
mod file;
pub mod native;
pub use native::{NativeSet, NativeTag, NativeTags};
mod query;
mod ref_counts;
mod registry;
mod set;
mod tag;

pub(crate) use changes::{TagChanges, TagNotes};
pub use counts::{NotHeld, TagCounts};
pub(crate) use file::validate_segment;
pub use query::{TagQuery, TagQueryDef};
pub use registry::{
    TagOrigin, TagRegistry, TagRegistryBuilder, UnknownTag, CORE_TAG_FILES, MAX_TAGS, MAX_TAG_DEPTH,
};
pub use set::TagSet;
pub use tag::Tag;
