//! The names most game code needs, in one import: `use gaskit::prelude::*;`.

pub use crate::native;
pub use crate::{
    AttributeId, AttributeSchema, Attributes, Catalog, CatalogBuilder, Diagnostic, LoadErrors,
    ModOp, SourceId, Tag, TagCounts, TagQuery, TagQueryDef, TagRegistry, TagRegistryBuilder,
    TagSet,
};
