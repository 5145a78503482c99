//! The names most game code needs, in one import: `use gaskit::prelude::*;`.

pub use crate::native;
pub use crate::{
    Diagnostic, LoadErrors, Tag, TagCounts, TagQuery, TagQueryDef, TagRegistry, TagRegistryBuilder,
    TagSet,
};
