//! The names most game code needs, in one import: `use gaskit::prelude::*;`.

pub use crate::native;
pub use crate::{
    AbilitySystem, ApplyOutcome, AttributeId, AttributeSchema, Attributes, Catalog, CatalogBuilder,
    Diagnostic, EffectSpec, Gas, LoadErrors, ModOp, SimDuration, SimTime, SourceId, Tag, TagCounts,
    TagQuery, TagQueryDef, TagRegistry, TagRegistryBuilder, TagSet,
};
